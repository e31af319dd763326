// The history page: filters at once, a turn jump that opens its turn, and stepping the
// board through events without a page load. Without script the same controls are plain
// links and forms the server answers (query parameters ?at, ?player, ?kind, ?turn).
document.addEventListener("DOMContentLoaded", function () {
  var step = document.getElementById("history-step");
  var filters = document.getElementById("history-filters");
  if (!step || !filters || !window.fetch || !window.history.pushState) return;
  var jump = document.querySelector("form.history-jump");
  var count = document.getElementById("history-count");
  var none = document.getElementById("history-none");
  var items = Array.prototype.slice.call(document.querySelectorAll(".history-turns li[data-kinds]"));
  var current = Number(new URLSearchParams(location.search).get("at"));
  var slider = step.querySelector("input[type=range]");
  if (!new URLSearchParams(location.search).has("at") && slider) current = Number(slider.value);

  function chosen() {
    var player = filters.elements.player.value;
    var kinds = Array.prototype.filter.call(filters.querySelectorAll("input[name=kind]"),
      function (box) { return box.checked; }).map(function (box) { return box.value; });
    return { player: player, kinds: kinds };
  }

  function query(at) {
    var wanted = chosen(), params = new URLSearchParams();
    params.set("at", String(at));
    if (wanted.player !== "") params.set("player", wanted.player);
    wanted.kinds.forEach(function (kind) { params.append("kind", kind); });
    return "?" + params.toString();
  }

  function applyFilters() {
    var wanted = chosen(), shown = 0;
    items.forEach(function (item) {
      var kinds = item.getAttribute("data-kinds").split(" ");
      var ok = (wanted.player === "" || item.getAttribute("data-seat") === wanted.player) &&
        (!wanted.kinds.length || wanted.kinds.some(function (kind) { return kinds.indexOf(kind) >= 0; }));
      item.hidden = !ok;
      if (ok) shown += 1;
    });
    document.querySelectorAll(".history-turns .phase").forEach(function (phase) {
      phase.hidden = !phase.querySelector("li:not([hidden])");
    });
    document.querySelectorAll(".history-turns details.turn:not([data-unlisted])").forEach(function (turn) {
      turn.hidden = !turn.querySelector(".phase:not([hidden])");
    });
    var active = wanted.player !== "" || wanted.kinds.length > 0;
    var listed = document.querySelector("details.turn[data-unlisted]") ? " listed here" : "";
    var some = count && count.getAttribute("data-some"), all = count && count.getAttribute("data-all");
    if (count && some && all) count.textContent = active ? some.replace("{shown}", String(shown)) : all;
    else if (count) count.textContent = active ? shown + " of the " + items.length + " events" + listed + " shown." : items.length + " events" + listed + ".";
    if (none) none.hidden = shown > 0;
    var clear = filters.querySelector(".filters-clear");
    if (clear) clear.hidden = !active;
  }

  function mark(at) {
    items.forEach(function (item) {
      var here = item.id === "event-" + at;
      item.classList.toggle("current", here);
      var link = item.querySelector("a[data-step]");
      if (here) link.setAttribute("aria-current", "step"); else link.removeAttribute("aria-current");
    });
    var item = document.getElementById("event-" + at);
    if (item) {
      var turn = item.closest("details");
      if (turn) turn.open = true;
      reveal(item);
    }
    if (jump) {
      var turns = document.querySelectorAll(".history-turns details.turn"), index = 0;
      turns.forEach(function (turn, i) { if (Number(turn.getAttribute("data-first")) <= at) index = i; });
      jump.elements.turn.selectedIndex = index;
    }
    filters.elements.at.value = String(at);
  }

  function load(at, push) {
    var url = step.getAttribute("data-step-url") + query(at);
    fetch(url, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) throw new Error(String(answer.status));
        return answer.text();
      })
      .then(function (html) {
        step.innerHTML = html;
        document.dispatchEvent(new CustomEvent("pbem:board-swapped"));
        current = at;
        mark(at);
        if (push) history.pushState({ at: at }, "", query(at));
      })
      .catch(function () { location.href = query(at); });
  }

  step.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-step]");
    if (!link) return;
    event.preventDefault();
    load(Number(link.getAttribute("data-step")), true);
  });
  document.querySelector(".history-turns").addEventListener("click", function (event) {
    var link = event.target.closest("a[data-step]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    load(Number(link.getAttribute("data-step")), true);
    step.scrollIntoView({ block: "start" });
  });
  step.addEventListener("input", function (event) {
    if (event.target.type !== "range") return;
    var label = step.querySelector(".at-label");
    if (label) label.textContent = event.target.value;
  });
  step.addEventListener("change", function (event) {
    if (event.target.type === "range") load(Number(event.target.value), true);
  });
  step.addEventListener("submit", function (event) {
    event.preventDefault();
    load(Number(step.querySelector("input[type=range]").value), true);
  });
  filters.addEventListener("change", function () {
    applyFilters();
    history.replaceState({ at: current }, "", query(current));
  });
  filters.addEventListener("submit", function (event) { event.preventDefault(); applyFilters(); });
  var show = filters.querySelector("button[type=submit]");
  if (show) show.hidden = true;
  var clear = filters.querySelector(".filters-clear");
  if (clear) clear.addEventListener("click", function (event) {
    event.preventDefault();
    filters.elements.player.value = "";
    filters.querySelectorAll("input[name=kind]").forEach(function (box) { box.checked = false; });
    applyFilters();
    history.replaceState({ at: current }, "", query(current));
  });
  if (jump) {
    jump.addEventListener("submit", function (event) {
      event.preventDefault();
      var turn = document.getElementById("turn-" + jump.elements.turn.value);
      if (!turn) return;
      if (turn.hasAttribute("data-unlisted")) {  // its events are not on this page
        location.href = turn.querySelector(".unlisted a").href;
        return;
      }
      turn.open = true;
      turn.scrollIntoView({ block: "start" });
      load(Number(turn.getAttribute("data-first")), true);
    });
  }
  window.addEventListener("popstate", function (event) {
    var at = event.state && typeof event.state.at === "number" ? event.state.at : null;
    if (at !== null) load(at, false);
  });
  history.replaceState({ at: current }, "", location.href);
  reveal(document.getElementById("event-" + current));

  // Beside the board (a wide screen) the list scrolls on its own: bring the step's event
  // into its view without moving the page.
  function reveal(item) {
    var log = document.querySelector(".history-log");
    if (!item || !log || log.scrollHeight <= log.clientHeight) return;
    var offset = item.getBoundingClientRect().top - log.getBoundingClientRect().top;
    if (offset < 0 || offset > log.clientHeight - item.offsetHeight) {
      log.scrollTop += offset - log.clientHeight / 3;
    }
  }
});
