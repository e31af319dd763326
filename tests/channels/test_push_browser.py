"""The push switch of a seat's settings page in Debian's chromium, under the site's
strict CSP: the service worker registers from the root, the switch subscribes and
unsubscribes, and the worker's push reaches the subscription's endpoint.

No push service can be reached from here, so the browser's ``PushManager`` is given
a subscription made in the test (a real key pair, the local endpoint): everything else
(the page, its script, the service worker, the server, the worker) is the real one."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from sqlmodel import Session, select

from pbem.channels import deliver
from pbem.models import PushSubscription
from tests.channels.test_push import Browser, settings_path
from tests.mail.conftest import make_runtime, new_game, take_turn
from tests.web.conftest import browser, serving  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

FAKE_PUSH = """
(() => {
  const given = %s;
  let current = null;
  const make = () => ({
    endpoint: given.endpoint,
    getKey: () => null,
    toJSON: () => ({ endpoint: given.endpoint, keys: { p256dh: given.p256dh, auth: given.auth } }),
    unsubscribe: () => { current = null; return Promise.resolve(true); },
  });
  PushManager.prototype.subscribe = function (options) {
    if (!options || !options.userVisibleOnly || !options.applicationServerKey) {
      return Promise.reject(new Error("bad options"));
    }
    window.__pushKeyLength = options.applicationServerKey.length;
    current = make();
    return Promise.resolve(current);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(current); };
})();
"""


@pytest.fixture
def runtime(sqlite_db, tmp_path, clock, smtp):  # noqa: F811 - one database is enough here
    return make_runtime(sqlite_db, tmp_path, clock, smtp[1], notices={"allow_loopback": True})


def test_the_push_switch_in_a_browser(browser, runtime, receiver):  # noqa: F811
    created = new_game(runtime)
    game = created.game_id
    device = Browser(f"{receiver.url}/push/chromium")
    settings = settings_path(runtime, game, 1)
    with serving(runtime) as base:
        runtime.config["server"]["base_url"] = base
        context = browser.new_context()
        context.grant_permissions(["notifications"], origin=base)
        context.add_init_script(FAKE_PUSH % json.dumps(device.fields()))
        page = context.new_page()
        complaints: list[str] = []
        page.on("console", lambda message: complaints.append(message.text))
        page.on("pageerror", lambda error: complaints.append(str(error)))
        assert page.goto(base + settings).status == 200
        page.wait_for_selector("#push-on", state="visible")
        assert "off in this browser" in page.text_content("#push-state")
        page.click("#push-on")
        expect(page.locator("#push-state")).to_contain_text("now tells you")
        assert page.evaluate("window.__pushKeyLength") == 65
        active = page.evaluate(
            "navigator.serviceWorker.getRegistration('/')"
            ".then(r => Boolean(r && (r.active || r.waiting || r.installing)))"
        )
        assert active, "the service worker registered under the page's CSP"
        with Session(runtime.db) as session:
            [row] = session.exec(select(PushSubscription)).all()
            assert (row.game_id, row.seat, row.endpoint) == (game, 1, device.endpoint)
        take_turn(runtime, game)  # Ben's turn
        assert deliver.deliver(runtime).sent == 1
        [push] = receiver.received
        assert device.read(push.body)["url"] == f"{base}/play/{created.tokens[1]}"
        page.click("#push-off")
        expect(page.locator("#push-state")).to_contain_text("are off")
        with Session(runtime.db) as session:
            assert session.exec(select(PushSubscription)).all() == []
        assert not [text for text in complaints if "Content Security Policy" in text], complaints
        context.close()
