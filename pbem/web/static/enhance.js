// Optional improvements; every page works without them.

// What a script writes, in the page's language: base.html hands the words over as JSON
// in <html data-words> (none on an English page); ``english`` is the word itself. A word
// with %(name)s parts has them filled from ``parts``.
function pageWord(key, english, parts) {
  if (pageWord.words === undefined) {
    try {
      pageWord.words = JSON.parse(document.documentElement.getAttribute("data-words") || "{}");
    } catch (error) {
      pageWord.words = {};
    }
  }
  var text = pageWord.words[key] || english;
  Object.keys(parts || {}).forEach(function (name) {
    text = text.split("%(" + name + ")s").join(parts[name]);
  });
  return text;
}

document.addEventListener("DOMContentLoaded", function () {
  confirmFinalMoves();
  pollWhileWaiting();
  boardTips();
  copyButtons();
});

// A receipt (or any code[data-copy-label]) gets a button that copies it; without script
// the text is there to select (a tap selects all of it).
function copyButtons() {
  if (!navigator.clipboard) return;
  Array.prototype.forEach.call(document.querySelectorAll("code[data-copy-label]"), function (code) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = code.getAttribute("data-copy-label");
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(code.textContent.trim()).then(function () {
        button.textContent = pageWord("copied", "Copied");
      }, function () {
        button.textContent = pageWord("copy_by_hand", "Select the text to copy it");
      });
    });
    code.parentNode.appendChild(button);
  });
}

// A move that cannot be taken back asks in a dialog first (without script the server
// answers such a move with a confirm page instead). A listed move carries its reason; a
// composed one (form.compose) is known only once composed, so it is sent in the
// background: the server answers a move that needs a second step with its confirm page
// (nothing applied), whose question goes into the same dialog; any other move it makes
// (the page then follows the answer) or refuses (the form is sent again in the open, to
// show the refusal).
function confirmFinalMoves() {
  if (typeof HTMLDialogElement !== "function") return;
  var dialog = null, pending = null;
  function build() {
    dialog = document.createElement("dialog");
    dialog.className = "confirm";
    dialog.setAttribute("aria-labelledby", "confirm-heading");
    dialog.innerHTML = '<h2 id="confirm-heading"></h2><p class="reason"></p>' +
      '<form method="dialog" class="confirm-actions">' +
      '<button type="submit" value="confirm" class="primary"></button>' +
      '<button type="submit" value="cancel"></button></form>';
    dialog.querySelector("button[value=confirm]").textContent = pageWord("confirm", "Confirm");
    dialog.querySelector("button[value=cancel]").textContent = pageWord("cancel", "Cancel");
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
  function ask(form, heading, reason) {
    if (!dialog) build();
    dialog.querySelector("h2").textContent = heading;
    dialog.querySelector(".reason").textContent = reason;
    pending = form;
    dialog.returnValue = "";
    dialog.showModal();
    dialog.querySelector("button[value=confirm]").focus();
  }
  function inTheOpen(form) { form.submit(); }
  function composed(form) {
    var button = form.querySelector("button[type=submit]");
    form.setAttribute("aria-busy", "true");
    if (button) button.disabled = true;
    function done() {
      form.removeAttribute("aria-busy");
      if (button) button.disabled = false;
    }
    fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" })
      .then(function (answer) {
        if (answer.redirected) {  // made: the fresh page
          window.location.assign(answer.url);
          return;
        }
        return answer.text().then(function (text) {
          var page = new DOMParser().parseFromString(text, "text/html");
          // the confirm page: its heading, its reason and a form that sends "confirmed"
          var label = page.querySelector("main h1");
          var reason = page.querySelector("main .message");
          var confirmPage = page.querySelector("main form input[name=confirmed]");
          if (answer.ok && confirmPage && label && reason) {
            done();
            ask(form, label.textContent.trim(), reason.textContent.trim());
          } else inTheOpen(form);
        });
      })
      .catch(function () { inTheOpen(form); });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute) return;
    if (form.hasAttribute("data-confirm")) {
      var button = event.submitter || form.querySelector("button");
      event.preventDefault();
      var heading = pageWord("confirm_move", "Confirm: %(move)s", { move: button.textContent.trim() });
      ask(form, heading, form.getAttribute("data-confirm"));
    } else if (form.classList.contains("compose") && window.fetch && window.DOMParser) {
      event.preventDefault();
      if (!form.hasAttribute("aria-busy")) composed(form);
    }
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
        // A seat's own contribution (dice.js) moves the head the page started at.
        head = waiting.getAttribute("data-head") || head;
        if (!now || now.head === head) { later(); return; }
        live.textContent = (now.due ? pageWord("your_turn_now", "It is your turn now.") :
          now.status === "finished" ? pageWord("game_over", "The game is over.") :
          pageWord("moved_on", "The game has moved on.")) + " ";
        var show = document.createElement("button");
        show.type = "button";
        show.textContent = pageWord("show_new", "Show the new state");
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

// What a place, a piece or a card on a board is, in words: its SVG <title>, which a mouse
// shows on hover, opens in a small tip on a tap or a click, on keyboard focus, and for
// the place a page was opened with (?pick=, the link a tap on a place follows). Screen
// readers have the same words as the element's name, so the tip is for the eyes only.
// A drag or a pinch of the map is no tap (map.js stops its click).
function boardTips() {
  var tip = null, anchor = null;
  function titled(element) {
    for (var node = element; node && node.ownerSVGElement !== undefined; node = node.parentNode) {
      if (node.tagName && node.tagName.toLowerCase() === "svg") return null;
      var title = node.firstElementChild;
      while (title && title.tagName.toLowerCase() !== "title") title = title.nextElementSibling;
      if (title && title.textContent.trim()) return node;
    }
    return null;
  }
  function words(node) {
    var title = node.querySelector(":scope > title");
    return title ? title.textContent.trim() : "";
  }
  function place() {
    if (!tip || !anchor) return;
    var box = anchor.getBoundingClientRect();
    var frame = anchor.closest(".map-frame");
    var room = frame ? frame.getBoundingClientRect() : { left: 0, right: window.innerWidth, top: 0, bottom: window.innerHeight };
    var left = Math.max(box.left, room.left) + 4;
    var top = Math.min(Math.max(box.bottom, room.top), room.bottom) + 6;
    left = Math.max(8, Math.min(left, document.documentElement.clientWidth - tip.offsetWidth - 8));
    tip.style.left = (left + window.scrollX) + "px";
    tip.style.top = (top + window.scrollY) + "px";
  }
  function show(node) {
    var text = words(node);
    if (!text) return;
    if (!tip) {
      tip = document.createElement("div");
      tip.className = "board-tip";
      tip.setAttribute("aria-hidden", "true");
      document.body.appendChild(tip);
    }
    anchor = node;
    tip.textContent = text;
    tip.hidden = false;
    place();
  }
  function hide() {
    if (tip) tip.hidden = true;
    anchor = null;
  }
  document.addEventListener("click", function (event) {
    var node = event.target.closest && event.target.closest("svg") ? titled(event.target) : null;
    if (!node || node.closest("a")) { hide(); return; }  // a link goes on to its moves
    if (node === anchor) hide(); else show(node);
  });
  document.addEventListener("focusin", function (event) {
    var node = event.target.closest && event.target.closest("svg") ? titled(event.target) : null;
    if (node && event.target.matches(":focus-visible")) show(node);
  });
  document.addEventListener("focusout", function () { if (anchor && anchor.closest("a")) hide(); });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") hide(); });
  document.addEventListener("scroll", place, true);
  window.addEventListener("resize", place);
  var picked = new URLSearchParams(window.location.search).get("pick");
  if (picked) {
    var link = Array.prototype.find.call(document.querySelectorAll("svg a[href]"), function (a) {
      return new URLSearchParams(a.getAttribute("href").split("#")[0].replace(/^\?/, "")).get("pick") === picked;
    });
    var title = link && link.querySelector("title");
    if (title) window.setTimeout(function () { show(title.parentNode); }, 0);
  }
}
