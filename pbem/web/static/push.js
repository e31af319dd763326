// The push switch of a seat's settings page: registers the service worker (/sw.js),
// subscribes this browser with the server's VAPID key and sends the subscription to
// the seat's push address; switching off unsubscribes and tells the server.
"use strict";

(function () {
  var box = document.getElementById("push");
  if (!box) {
    return;
  }
  var state = document.getElementById("push-state");
  var on = document.getElementById("push-on");
  var off = document.getElementById("push-off");

  function say(text) {
    state.textContent = text;
  }

  // The page's words (enhance.js), English without them.
  function word(key, english, parts) {
    return window.pageWord ? window.pageWord(key, english, parts) : english;
  }

  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    say(word("push_unsupported", "This browser cannot show notices from web sites."));
    return;
  }

  function key(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i += 1) {
      out[i] = raw.charCodeAt(i);
    }
    return out;
  }

  function encoded(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = "";
    for (var i = 0; i < bytes.length; i += 1) {
      text += String.fromCharCode(bytes[i]);
    }
    return window.btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function tell(fields) {
    var body = new URLSearchParams(fields);
    body.set("csrf_token", box.dataset.csrf);
    return fetch(box.dataset.address, {
      method: "POST",
      body: body,
      credentials: "same-origin",
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) {
          throw new Error((answer.error && answer.error.message) || answer.message || "refused");
        }
        return answer;
      });
    });
  }

  function show(subscribed) {
    on.hidden = subscribed;
    off.hidden = !subscribed;
    box.dataset.on = subscribed ? "yes" : "no";
  }

  var ready = navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
    return navigator.serviceWorker.ready;
  });

  ready.then(function (registration) {
    return registration.pushManager.getSubscription();
  }).then(function (subscription) {
    show(Boolean(subscription) && box.dataset.known === "yes");
    say(subscription && box.dataset.known === "yes"
      ? word("push_on", "Notices are on in this browser for this seat.")
      : word("push_off", "Notices are off in this browser for this seat."));
  }).catch(function () {
    show(false);
  });

  on.addEventListener("click", function () {
    say(word("push_asking", "Asking the browser…"));
    ready.then(function (registration) {
      return registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: key(box.dataset.key),
      });
    }).then(function (subscription) {
      var json = subscription.toJSON();
      return tell({
        action: "subscribe",
        endpoint: subscription.endpoint,
        p256dh: json.keys ? json.keys.p256dh : encoded(subscription.getKey("p256dh")),
        auth: json.keys ? json.keys.auth : encoded(subscription.getKey("auth")),
      });
    }).then(function (answer) {
      show(true);
      say(answer.message);
    }).catch(function (error) {
      show(false);
      say(word("push_on_failed", "Notices could not be switched on: %(reason)s",
        { reason: error.message }));
    });
  });

  off.addEventListener("click", function () {
    ready.then(function (registration) {
      return registration.pushManager.getSubscription();
    }).then(function (subscription) {
      var endpoint = subscription ? subscription.endpoint : "";
      var done = subscription ? subscription.unsubscribe() : Promise.resolve(true);
      return done.then(function () {
        return tell({ action: "unsubscribe", endpoint: endpoint });
      });
    }).then(function (answer) {
      show(false);
      say(answer.message);
    }).catch(function (error) {
      say(word("push_off_failed", "Notices could not be switched off: %(reason)s",
        { reason: error.message }));
    });
  });
})();
