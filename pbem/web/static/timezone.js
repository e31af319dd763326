// The lobby: preselect the creator's time zone from the browser (UTC without script).
document.addEventListener("DOMContentLoaded", function () {
  var field = document.querySelector("input[data-detect-zone]");
  if (!field || field.value !== "UTC") return;
  var zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (error) { return; }
  var known = Array.prototype.some.call(document.querySelectorAll("#zones option"), function (option) {
    return option.value === zone;
  });
  if (known) field.value = zone;
});
