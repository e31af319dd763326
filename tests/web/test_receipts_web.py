"""Where receipts are handed out: the API's move answer, the turn page after a move, the
mails (a turn mail, the answer to a move by mail), and the published keys; each receipt
verifies against the keys the server publishes, and names the game's head."""

from __future__ import annotations

import html
import json
import re
import uuid
from email.message import EmailMessage

from sqlmodel import Session, select

from pbem import receipts
from pbem.mail.inbound import receive, tags
from pbem.mail.models import Mail
from tests.mail.conftest import Clock, as_sent, make_runtime, new_game
from tests.mail.inbound_helpers import REPLY, SENDER
from tests.web.conftest import form_fields, pig_game

RECEIPT = re.compile(r"pbem-receipt:1:[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+")


def published(client) -> dict:
    answer = client.get("/.well-known/pbem-keys.json")
    assert answer.status_code == 200
    return answer.json


def held(client) -> dict:
    return receipts.read_keys(json.dumps(published(client)).encode())


def test_the_keys_are_published_cacheable_and_without_secrets(client, runtime):
    answer = client.get("/.well-known/pbem-keys.json")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    assert "public" in answer.headers["Cache-Control"]
    document = answer.json
    assert document["format"] == "pbem-keys/1" and document["server"] == "http://localhost"
    [key] = document["keys"]
    assert key["algorithm"] == "Ed25519" and key["retired"] is None and key["created"]
    assert "PRIVATE" not in answer.text
    assert set(receipts.read_keys(answer.data)) == {key["id"]}


def test_the_api_answers_a_move_with_a_receipt_of_it(client, runtime):
    created = pig_game(runtime)
    made = client.post(
        f"/api/play/{created.tokens[0]}/moves", json={"move": {"type": "stop"}, "expected_seq": 0}
    ).json
    receipt = made["receipt"]
    assert receipt["seq"] == made["seq"] == 1 and receipt["head"] == made["head_hash"]
    assert receipt["game"] == created.game_id and receipt["server"] == "http://localhost"
    verdict = receipts.check(
        receipt["text"], held(client), created.game_id, runtime.service.events(created.game_id)
    )
    assert verdict.ok, verdict.message
    assert receipts.parse(receipt["text"]).as_json() == receipt
    # dated when the event was recorded: the same move sent again gets the same receipt
    again = client.post(
        f"/api/play/{created.tokens[0]}/moves", json={"move": {"type": "stop"}, "expected_seq": 0}
    ).json
    assert again["duplicate"] and again["receipt"] == receipt
    recorded = runtime.service.events(created.game_id)[1]["created_at"]
    assert receipt["time"] == recorded[:19] + "Z"


def test_the_page_after_a_move_carries_a_receipt_and_old_ones_survive_a_rotation(client, runtime):
    created = pig_game(runtime)
    token = created.tokens[0]
    page = client.get(f"/play/{token}")
    csrf, seq = form_fields(page.text)
    form = {"move": json.dumps({"type": "stop"}), "seq": str(seq), "csrf_token": csrf}
    form["confirmed"] = "1"  # it hands the turn over: the second step, answered
    answer = client.post(f"/play/{token}/move", data=form)
    assert answer.status_code == 303
    page = client.get(answer.location).text
    assert "Receipt for event 1" in page
    assert f"/games/{created.game_id}/audit#receipts" in page
    [text] = RECEIPT.findall(page)
    rows = runtime.service.events(created.game_id)
    assert receipts.check(text, held(client), created.game_id, rows).ok
    assert receipts.parse(text).head == rows[-1]["hash"]
    audit = client.get(f"/games/{created.game_id}/audit").text
    assert 'id="receipts"' in audit and "/.well-known/pbem-keys.json" in audit

    first = receipts.parse(text).key
    receipts.rotate(runtime.config, runtime.clock())
    document = published(client)
    assert [key["id"] == first and key["retired"] is not None for key in document["keys"]] == [
        True,
        False,
    ]
    keys = held(client)
    assert receipts.check(text, keys, created.game_id, rows).ok  # the old receipt holds
    made = client.post(
        f"/api/play/{created.tokens[1]}/moves", json={"move": {"type": "stop"}, "expected_seq": 1}
    ).json
    assert made["receipt"]["key"] == document["keys"][1]["id"] != first
    rows = runtime.service.events(created.game_id)
    assert receipts.check(made["receipt"]["text"], keys, created.game_id, rows).ok


def test_a_turn_mail_carries_a_receipt_of_the_head(client, runtime):
    created = pig_game(runtime)
    client.post(
        f"/api/play/{created.tokens[0]}/moves", json={"move": {"type": "stop"}, "expected_seq": 0}
    )
    with Session(runtime.db) as session:
        mails = session.exec(
            select(Mail).where(Mail.game_id == created.game_id, Mail.kind == "your_turn")
        ).all()
    assert mails  # rendered as the dispatcher sends it (a turn mail waits until then)
    [mail] = as_sent(runtime, mails[-1:])
    text = mail.body_text
    assert "Signed receipt" in text
    [found] = RECEIPT.findall(text)
    [in_html] = RECEIPT.findall(html.unescape(mail.body_html))
    assert in_html == found
    verdict = receipts.check(
        found, held(client), created.game_id, runtime.service.events(created.game_id)
    )
    assert verdict.ok and verdict.receipt.seq == 1, verdict.message


def a_reply(runtime, game_id: str, seq: int, move: dict) -> bytes:
    message = EmailMessage()
    message["From"] = "Anna <anna@example.org>"
    message["To"] = tags.reply_address(runtime.config, runtime.secret_key, game_id, 0, seq)
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example.org>"
    message.set_content(json.dumps(move) + "\n")
    return bytes(message)


def test_the_answer_to_a_move_by_mail_carries_a_receipt(sqlite_db, tmp_path):
    runtime = make_runtime(
        sqlite_db, tmp_path, Clock(), mail={"reply_address": REPLY, "sender": SENDER}
    )
    created = new_game(runtime, seats=2)
    taken = receive.take(runtime, a_reply(runtime, created.game_id, 0, {"type": "stop"}))
    assert taken.outcome == "applied", taken
    with Session(runtime.db) as session:
        [answer] = as_sent(runtime, session.exec(select(Mail).where(Mail.kind == "answer")).all())
    [found] = RECEIPT.findall(answer.body_text)
    keys = {key.id: key for key in receipts.published(runtime.config)}
    rows = runtime.service.events(created.game_id)
    verdict = receipts.check(found, keys, created.game_id, rows)
    assert verdict.ok and verdict.receipt.seq == rows[-1]["seq"], verdict.message


def test_damaged_keys_answer_503_not_500(client, runtime):
    receipts.ensure_key(runtime.config, runtime.clock())
    (receipts.folder(runtime.config) / receipts.INDEX).write_text('{"keys": 5}')
    answer = client.get("/.well-known/pbem-keys.json")
    assert answer.status_code == 503 and "receipt keys" in answer.text
