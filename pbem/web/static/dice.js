// Contributions to the dice (see the audit page): the server committed to its secret
// seed before anyone contributed, and every draw mixes in what the players add.
// This fills each contribution field with 32 random bytes from the browser's own
// generator (the field stays editable); on a seat's page (a form marked
// data-contribute-auto) it also sends the contribution at once, and the page's forms
// then carry the game's new event number.
(function () {
  "use strict";
  function randomHex() {
    var bytes = new Uint8Array(32);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }
  function fill() {
    if (!window.crypto || !window.crypto.getRandomValues) return;
    var fields = document.querySelectorAll("input[data-contribution]");
    Array.prototype.forEach.call(fields, function (field) {
      if (!field.value) field.value = randomHex();
      var road = field.form && field.form.querySelector("input[name=by]");
      if (road) road.value = "browser";
    });
    var form = document.querySelector("form[data-contribute-auto]");
    if (form && window.fetch && window.FormData) send(form);
  }
  function send(form) {
    var status = document.querySelector("#contribute [role=status]");
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: { Accept: "application/json" }
    })
      .then(function (answer) { return answer.json(); })
      .then(function (now) {
        if (now.error) { if (status) status.textContent = now.error; return; }
        Array.prototype.forEach.call(document.querySelectorAll("input[name=seq]"), function (input) {
          if (input.value === String(now.before)) input.value = String(now.seq);
        });
        var waiting = document.querySelector("[data-poll]");
        if (waiting && waiting.getAttribute("data-head") === now.before_head) {
          waiting.setAttribute("data-head", now.head);
        }
        form.hidden = true;
        if (status) {
          var added = "Your browser added its contribution to the dice; " +
            "every draw from now on mixes it in.";
          status.textContent = window.pageWord ? window.pageWord("dice_added", added) : added;
        }
      })
      .catch(function () { /* the form stays: it can be sent by hand */ });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fill);
  } else {
    fill();
  }
})();
