// The colour theme (pbem/web/theme.py): the header's switch changes it in place, and the
// choice is kept on this device in its storage and in the cookie the server draws the
// first paint with. Runs in the page's head, before anything is drawn.
(function () {
  var root = document.documentElement;
  var KEY = "pbem-theme";
  var CHOICES = ["device", "light", "dark"];

  function valid(choice) { return CHOICES.indexOf(choice) >= 0; }

  function fromCookie() {
    var found = document.cookie.match(/(?:^|;\s*)theme=([a-z]+)/);
    return found && valid(found[1]) ? found[1] : null;
  }

  function stored() {
    try { return localStorage.getItem(KEY); } catch (error) { return null; }
  }

  function keep(choice) {
    try { localStorage.setItem(KEY, choice); } catch (error) { /* storage off: the cookie keeps it */ }
    document.cookie = "theme=" + choice + "; path=/; max-age=31536000; samesite=lax" +
      (location.protocol === "https:" ? "; secure" : "");
  }

  function show(choice) {
    root.setAttribute("data-theme", choice);
    var buttons = document.querySelectorAll(".theme-switch button[name=theme]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", buttons[i].value === choice ? "true" : "false");
    }
  }

  // The cookie is what the server drew with; without it (cleared, or expired) the
  // choice kept in storage comes back, before the first paint.
  function restore() {
    var cookie = fromCookie();
    var kept = stored();
    if (cookie) {
      if (kept !== cookie) keep(cookie);
      if (root.getAttribute("data-theme") !== cookie) show(cookie);
    } else if (valid(kept)) {
      keep(kept);
      show(kept);
    }
  }

  restore();
  window.addEventListener("pageshow", restore);  // a page shown again from the back button
  window.addEventListener("storage", function (event) {  // chosen in another tab
    if (event.key === KEY && valid(event.newValue)) show(event.newValue);
  });
  document.addEventListener("DOMContentLoaded", function () {
    show(root.getAttribute("data-theme") || "device");
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.classList || !form.classList.contains("theme-switch")) return;
      var button = event.submitter;
      if (!button || !valid(button.value)) return;
      event.preventDefault();
      keep(button.value);
      show(button.value);
    });
  });
})();
