// Optional improvements; every page works without them.
document.addEventListener("DOMContentLoaded", function () {
  var slider = document.querySelector("form.stepper input[type=range]");
  if (slider) {
    var label = document.getElementById("at-label");
    slider.addEventListener("input", function () { if (label) label.textContent = slider.value; });
    slider.addEventListener("change", function () { slider.form.submit(); });
  }
  confirmFinalMoves();
  pollWhileWaiting();
});

// A move that cannot be taken back asks in a dialog first (without script the server
// answers such a move with a confirm page instead).
function confirmFinalMoves() {
  if (typeof HTMLDialogElement !== "function") return;
  var dialog = null, pending = null;
  function build() {
    dialog = document.createElement("dialog");
    dialog.className = "confirm";
    dialog.setAttribute("aria-labelledby", "confirm-heading");
    dialog.innerHTML = '<h2 id="confirm-heading"></h2><p class="reason"></p>' +
      '<form method="dialog" class="confirm-actions">' +
      '<button type="submit" value="confirm" class="primary">Confirm</button>' +
      '<button type="submit" value="cancel">Cancel</button></form>';
    document.body.appendChild(dialog);
    dialog.addEventListener("close", function () {
      var form = pending;
      pending = null;
      if (!form || dialog.returnValue !== "confirm") return;
      var field = document.createElement("input");
      field.type = "hidden";
      field.name = "confirmed";
      field.value = "1";
      form.appendChild(field);
      form.submit();
    });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-confirm")) return;
    var button = event.submitter || form.querySelector("button");
    event.preventDefault();
    if (!dialog) build();
    dialog.querySelector("h2").textContent = "Confirm: " + button.textContent.trim();
    dialog.querySelector(".reason").textContent = form.getAttribute("data-confirm");
    pending = form;
    dialog.returnValue = "";
    dialog.showModal();
    dialog.querySelector("button[value=confirm]").focus();
  });
}

// A waiting turn page, or a game's spectator page, asks the server for the game's head now
// and then (a few bytes) and says in its live region when the game has moved on, with a
// button to show it.
function pollWhileWaiting() {
  var waiting = document.querySelector("[data-poll]");
  var live = document.querySelector(".live[aria-live]");
  if (!waiting || !live || !window.fetch) return;
  var url = waiting.getAttribute("data-poll");
  var head = waiting.getAttribute("data-head");
  var delay = 15000, timer = null;
  function later() {
    timer = window.setTimeout(check, document.hidden ? delay * 2 : delay);
    delay = Math.min(delay * 1.25, 120000);
  }
  function check() {
    timer = null;
    fetch(url, { cache: "no-store", headers: { Accept: "application/json" } })
      .then(function (answer) { return answer.ok ? answer.json() : null; })
      .then(function (now) {
        if (!now || now.head === head) { later(); return; }
        live.textContent = now.due ? "It is your turn now. " :
          now.status === "finished" ? "The game is over. " : "The game has moved on. ";
        var show = document.createElement("button");
        show.type = "button";
        show.textContent = "Show the new state";
        show.addEventListener("click", function () {
          window.location.assign(window.location.pathname + window.location.search);
        });
        live.appendChild(show);
        document.title = "● " + document.title;
      })
      .catch(later);
  }
  later();
}
