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

// Pages read without a seat (a game's public page and history) show times in UTC; with
// script, each <time data-local> reads in the browser's own zone instead, named: on
// load, and again in a part of the page swapped in later (the history's step, whose
// script says so with the "pbem:board-swapped" event).
(function () {
  var format = null;
  try {
    format = new Intl.DateTimeFormat("en-GB", {
      year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit",
      minute: "2-digit", hourCycle: "h23", timeZoneName: "short"
    });
    if (!format.formatToParts) format = null;
  } catch (error) { format = null; }

  function localTimes() {
    if (!format) return;
    var times = document.querySelectorAll("time[data-local][datetime]:not([data-localised])");
    Array.prototype.forEach.call(times, function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment.getTime())) return;
      var part = {};
      format.formatToParts(moment).forEach(function (piece) { part[piece.type] = piece.value; });
      if (!part.timeZoneName) return;
      element.title = element.textContent;
      element.textContent = part.year + "-" + part.month + "-" + part.day + " " +
        part.hour + ":" + part.minute + " " + part.timeZoneName;
      element.setAttribute("data-localised", "");
    });
  }

  document.addEventListener("DOMContentLoaded", localTimes);
  document.addEventListener("pbem:board-swapped", localTimes);
})();
