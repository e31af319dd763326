"""Web push per seat: switched on from the seat's settings page, sent by the worker to
the push service's endpoint (a local server here) encrypted for the browser and
signed with the server's VAPID key; the quiet window and the seat's holder respected;
a subscription the push service says is gone is deleted."""

from __future__ import annotations

import base64
import json
import os
import stat
import time

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from sqlmodel import Session, select

from pbem.channels import deliver, vapid
from pbem.mail import outbox, render
from pbem.models import NoticeDelivery, PushSubscription, Seat
from tests.mail.conftest import new_game, take_turn
from tests.web.conftest import csrf_of


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """A browser's push subscription: its key pair and auth secret, as a browser makes
    them (RFC 8291), to decrypt what it is sent."""

    def __init__(self, endpoint: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = endpoint
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.p256dh = b64(point)

    def fields(self) -> dict[str, str]:
        return {"endpoint": self.endpoint, "p256dh": self.p256dh, "auth": b64(self.auth)}

    def read(self, body: bytes) -> dict:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def settings_path(runtime, game_id: str, seat: int) -> str:
    with Session(runtime.db) as session:
        row = session.get(Seat, (game_id, seat))
    url = render.settings_url(runtime.config, outbox.secret(runtime), game_id, seat, row.token_hash)
    return url.removeprefix("http://pbem.test")


def switch_on(client, runtime, game_id: str, seat: int, browser: Browser):
    page = client.get(settings_path(runtime, game_id, seat))
    assert 'id="push"' in page.text and vapid.public_key(runtime) in page.text
    address = settings_path(runtime, game_id, seat).replace("/mail/settings/", "/push/")
    return client.post(
        address, data={"csrf_token": csrf_of(page.text), "action": "subscribe", **browser.fields()}
    )


def verify_vapid(header: str, endpoint_origin: str, server_key: str) -> dict:
    """Checks the VAPID ``Authorization`` header (RFC 8292): the JWT's ES256 signature
    under the key ``k`` it names, which must be the server's; returns its claims."""
    assert header.startswith("vapid ")
    parts = dict(item.split("=", 1) for item in header[len("vapid ") :].split(","))
    assert parts["k"] == server_key
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(parts["k"]))
    head, claims, signature = parts["t"].split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    try:  # a signature over anything else does not verify
        public.verify(der, f"{head}.{claims}x".encode(), ec.ECDSA(hashes.SHA256()))
        raise AssertionError("a forged token verified")
    except InvalidSignature:
        pass
    decoded = json.loads(unb64(claims))
    assert decoded["aud"] == endpoint_origin
    assert time.time() < decoded["exp"] <= time.time() + 24 * 3600
    assert decoded["sub"].startswith("mailto:")
    return decoded


def test_a_push_reaches_the_endpoint_signed_and_encrypted_for_the_browser(
    client, runtime, receiver
):
    created = new_game(runtime)
    game = created.game_id
    ben = Browser(f"{receiver.url}/push/ben-device")
    answer = switch_on(client, runtime, game, 1, ben)
    assert answer.status_code == 200 and answer.json["on"] is True
    anna = Browser(f"{receiver.url}/push/anna-device")
    assert switch_on(client, runtime, game, 0, anna).status_code == 200
    take_turn(runtime, game)  # Anna moves: Ben's turn
    assert receiver.received == []
    assert deliver.deliver(runtime).sent == 1
    [push] = receiver.received
    assert push.path == "/push/ben-device", "only the seat whose turn began"
    assert push.headers["Content-Encoding"] == "aes128gcm"
    assert int(push.headers["TTL"]) > 0
    verify_vapid(push.headers["Authorization"], receiver.url, vapid.public_key(runtime))
    message = ben.read(push.body)
    title = runtime.service.game(game).title
    assert message["title"] == f"{title}: your turn"
    assert message["url"] == f"http://pbem.test/play/{created.tokens[1]}", "Ben's own link"
    assert created.tokens[1].encode() not in push.body, "encrypted on the way"
    # Anna's browser cannot read Ben's push.
    try:
        anna.read(push.body)
        raise AssertionError("another browser decrypted the push")
    except Exception as error:  # noqa: BLE001 - any failure to decrypt
        assert not isinstance(error, AssertionError)
    # No row keeps the link.
    with Session(runtime.db) as session:
        rows = session.exec(select(NoticeDelivery)).all()
        assert all(created.tokens[1] not in json.dumps(row.payload) for row in rows)


def test_the_vapid_key_is_made_once_and_kept_in_var(runtime, tmp_path):
    first = vapid.public_key(runtime)
    path = tmp_path / "var" / vapid.FILE
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (
        vapid.keys(runtime.config).public_key.public_numbers()
        == vapid.keys(runtime.config).public_key.public_numbers()
    )
    assert first == vapid.public_key(runtime)


def test_a_gone_subscription_is_deleted(client, runtime, receiver):
    created = new_game(runtime)
    game = created.game_id
    switch_on(client, runtime, game, 1, Browser(f"{receiver.url}/push/old"))
    receiver.answers = [410]
    take_turn(runtime, game)
    assert deliver.deliver(runtime).failed == 1
    with Session(runtime.db) as session:
        assert session.exec(select(PushSubscription)).all() == []


def test_a_push_waits_the_quiet_window_and_is_dropped_once_the_player_moved(
    client, runtime, receiver, clock
):
    runtime.config["mail"]["quiet_minutes"] = 10
    created = new_game(runtime)
    game = created.game_id
    switch_on(client, runtime, game, 1, Browser(f"{receiver.url}/push/ben"))
    take_turn(runtime, game)  # Ben's turn begins
    assert deliver.deliver(runtime).sent == 0
    take_turn(runtime, game)  # Ben plays within the window
    clock.advance(minutes=11)
    report = deliver.deliver(runtime)
    assert report.dropped == 1 and report.sent == 0
    assert receiver.received == []


def test_a_new_player_of_the_seat_gets_nothing_from_the_old_subscription(client, runtime, receiver):
    created = new_game(runtime)
    game = created.game_id
    switch_on(client, runtime, game, 1, Browser(f"{receiver.url}/push/ben"))
    runtime.service.rotate_token(game, 1)  # the seat has another link now
    take_turn(runtime, game)
    report = deliver.deliver(runtime)
    assert report.dropped == 1 and receiver.received == []


def test_switching_off_and_bad_subscriptions(client, runtime, receiver):
    created = new_game(runtime)
    game = created.game_id
    browser = Browser(f"{receiver.url}/push/ben")
    switch_on(client, runtime, game, 1, browser)
    switch_on(client, runtime, game, 1, browser)  # the same browser again: one row
    page = client.get(settings_path(runtime, game, 1))
    assert "on in 1 browser " in page.text
    address = settings_path(runtime, game, 1).replace("/mail/settings/", "/push/")
    token = csrf_of(page.text)
    bad = [
        {**browser.fields(), "endpoint": "http://push.example.org/x"},
        {**browser.fields(), "p256dh": b64(b"short")},
        {**browser.fields(), "auth": "!!"},
    ]
    for fields in bad:
        answer = client.post(address, data={"csrf_token": token, "action": "subscribe", **fields})
        assert answer.status_code == 400
    forged = address[: -len(address.rsplit("/", 1)[1])] + "A" * 24
    answer = client.post(
        forged, data={"csrf_token": token, "action": "subscribe", **browser.fields()}
    )
    assert answer.status_code == 404
    answer = client.post(
        address, data={"csrf_token": token, "action": "unsubscribe", "endpoint": browser.endpoint}
    )
    assert answer.json["on"] is False
    with Session(runtime.db) as session:
        assert session.exec(select(PushSubscription)).all() == []


def test_the_service_worker_is_served_from_the_root_under_the_strict_policy(client):
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer.mimetype == "text/javascript"
    assert "showNotification" in answer.text
    assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
