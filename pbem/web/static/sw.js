// The service worker of web push (pbem.channels): shows each notice the server pushes
// and, when it is clicked, opens the address it names if that is on this site.
"use strict";

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = {};
  }
  var title = typeof data.title === "string" ? data.title : "Your turn";
  var options = {
    body: typeof data.body === "string" ? data.body : "",
    data: { url: typeof data.url === "string" ? data.url : "" },
    tag: "pbem-turn",
    renotify: true,
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  var target;
  try {
    target = new URL(url, self.location.origin);
  } catch (error) {
    return;
  }
  if (target.origin !== self.location.origin) {
    return;
  }
  event.waitUntil(self.clients.openWindow(target.href));
});
