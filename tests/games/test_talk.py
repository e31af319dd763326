"""Table talk: messages to the table and private notes as ``talk`` events; the turn
page's form; who reads what in pages, exports and verification."""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import Session, select

from pbem.eventlog.verify import verify_export
from pbem.games import talk
from pbem.mail.models import Mail
from pbem.models import Event
from tests.mail.conftest import new_game


@pytest.fixture
def game(runtime):
    return new_game(runtime)  # Anna, Ben, Cleo


def csrf(client, path: str) -> str:
    page = client.get(path)
    return re.search(rb'name="csrf_token" value="([^"]+)"', page.data).group(1).decode()


def mails_of(runtime, kind: str) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).where(Mail.kind == kind).order_by(Mail.id)))


def talk_mails(runtime) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).where(Mail.kind == "talk").order_by(Mail.id)))


def test_a_message_to_the_table_and_a_private_note_are_events_that_change_no_state(runtime, game):
    service = runtime.service
    before = service.head(game.game_id)
    talk.post(runtime, game.game_id, 0, None, "Anyone for a deal?")
    talk.post(runtime, game.game_id, 0, 1, "Ben, just between us: I hold two grain.")
    head = service.head(game.game_id)
    assert head.seq == before.seq + 2
    assert head.engine.dump(head.state) == before.engine.dump(before.state)
    assert service.verify_game(game.game_id).ok
    rows = service.events(game.game_id)[-2:]
    assert rows[0]["payload"] == {"to": None, "text": "Anyone for a deal?"}
    private = rows[1]["payload"]
    assert private["to"] == 1 and "text" not in private
    sealed = private["sealed"]
    assert private["commitment"] == talk.commitment(bytes.fromhex(sealed["salt"]), sealed["text"])
    # Mail at once: Ben and Cleo hear the table; only Ben hears the note.
    mails = talk_mails(runtime)
    assert [(mail.seat, "privately" in mail.subject) for mail in mails] == [
        (1, False),
        (2, False),
        (1, True),
    ]
    assert "two grain" not in "".join(mail.body_text for mail in mails if mail.seat != 1)


def test_bad_messages_are_refused_and_nothing_changes(runtime, game):
    service = runtime.service
    head = service.head(game.game_id).seq
    for to, text in [
        (None, "   "),
        (None, "x" * (talk.MAX_CHARS + 1)),
        (None, "bell\x07"),
        (None, "bidi \u202e trick"),
        (0, "to myself"),
        (7, "to nobody"),
        (None, 42),
    ]:
        with pytest.raises(Exception) as caught:
            talk.post(runtime, game.game_id, 0, to, text)
        assert "Nothing was sent" in str(caught.value) or "must be text" in str(caught.value)
    assert service.head(game.game_id).seq == head
    assert talk_mails(runtime) == []


def test_a_seat_may_post_only_so_many_messages_an_hour(runtime, game):
    for number in range(talk.PER_HOUR):
        talk.post(runtime, game.game_id, 0, None, f"message {number}")
    with pytest.raises(Exception, match="too many messages"):
        talk.post(runtime, game.game_id, 0, None, "one more")
    runtime.clock.advance(hours=1, minutes=1)
    talk.post(runtime, game.game_id, 0, None, "an hour later")


def test_exports_carry_a_private_text_only_to_its_audience_and_all_verify(runtime, game):
    service = runtime.service
    talk.post(runtime, game.game_id, 0, None, "Hello table")
    talk.post(runtime, game.game_id, 0, 1, "SECRET-NOTE for Ben")
    full = service.export_text(game.game_id, full=True)
    assert "SECRET-NOTE" in full
    assert verify_export(json.loads(full)).ok
    for seat, sees in [(0, True), (1, True), (2, False)]:
        text = service.export_text(game.game_id, seat=seat)
        assert ("SECRET-NOTE" in text) is sees, seat
        assert "Hello table" in text
        assert verify_export(json.loads(text)).ok
    # A changed private text no longer matches its commitment: verify names the event.
    data = json.loads(full)
    changed = next(row for row in data["events"] if row["kind"] == "talk" and row["payload"]["to"])
    changed["payload"]["sealed"]["text"] = "something else"
    report = verify_export(data)
    assert not report.ok and report.first_bad_seq == changed["seq"]
    assert "commitment" in report.message
    # Sealed text taken out (as in the public file): the chain still verifies.
    data = json.loads(full)
    for row in data["events"]:
        if row["kind"] == "talk":
            row["payload"].pop("sealed", None)
    assert verify_export(data).ok
    # A message to the table cannot be changed without breaking the chain.
    data = json.loads(full)
    public = next(row for row in data["events"] if row["kind"] == "talk")
    public["payload"]["text"] = "Hello fools"
    assert not verify_export(data).ok


def test_a_full_export_with_private_talk_imports_elsewhere(runtime, game, tmp_path, clock):
    from tests.databases import sqlite_engine
    from tests.mail.conftest import make_runtime

    talk.post(runtime, game.game_id, 0, 1, "kept across servers")
    data = json.loads(runtime.service.export_text(game.game_id, full=True))
    engine = sqlite_engine(tmp_path / "other.sqlite3")
    other = make_runtime(engine, tmp_path / "other", clock)
    other_id = other.service.import_game(data)
    assert other.service.verify_game(other_id).ok
    said = talk.messages(other.service, other_id, 1)
    assert [item.text for item in said] == ["kept across servers"]
    assert talk.messages(other.service, other_id, 2) == []


def test_the_turn_page_form_posts_and_shows_talk_by_audience(runtime, game, app):
    client = app.test_client()
    anna, ben, cleo = game.tokens
    token = csrf(client, f"/play/{anna}")
    answer = client.post(
        f"/play/{anna}/talk",
        data={"text": "Hello all", "to": "", "seat": "2", "from_seat": "2", "csrf_token": token},
    )
    assert answer.status_code == 303
    # The link's seat is the sender, whatever the form claims.
    assert runtime.service.events(game.game_id)[-1]["seat"] == 0
    answer = client.post(
        f"/play/{anna}/talk", data={"text": "Psst, Ben", "to": "1", "csrf_token": token}
    )
    assert answer.status_code == 303
    pages = {
        name: client.get(f"/play/{link}").get_data(as_text=True)
        for name, link in [("anna", anna), ("ben", ben), ("cleo", cleo)]
    }
    assert "Table talk" in pages["cleo"] and "Hello all" in pages["cleo"]
    assert "Psst" not in pages["cleo"]
    assert "You to Ben (private)" in pages["anna"] and "Psst, Ben" in pages["anna"]
    assert "Anna (private to you)" in pages["ben"] and "Psst, Ben" in pages["ben"]
    assert pages["ben"].index("Hello all") < pages["ben"].index("Psst, Ben")  # newest last
    section = pages["anna"].split('id="talk"')[1].split("</section>")[0]
    assert "2026-03-02 10:00 CET" in section  # in Anna's zone (Europe/Berlin)
    history = client.get(f"/play/{cleo}/history").get_data(as_text=True)
    assert "Psst" not in history
    spectator = client.get(f"/games/{game.game_id}").get_data(as_text=True)
    assert "Psst" not in spectator and "Hello all" in spectator
    assert 'id="talk-text"' not in spectator  # a spectator has no form to post with


def test_the_form_refuses_without_csrf_bad_text_and_a_stranger(runtime, game, app):
    client = app.test_client()
    anna = game.tokens[0]
    head = runtime.service.head(game.game_id).seq
    assert client.post(f"/play/{anna}/talk", data={"text": "hi"}).status_code in (400, 403)
    token = csrf(client, f"/play/{anna}")
    for form in [
        {"text": ""},
        {"text": "a\x07b"},
        {"text": "x", "to": "zz"},
        {"text": "x", "to": "9"},
        {"text": "x" * 2001},
    ]:
        answer = client.post(f"/play/{anna}/talk", data={**form, "csrf_token": token})
        assert answer.status_code == 400, form
        assert "Your message was not sent" in answer.get_data(as_text=True)
    forged = "x" * 43
    answer = client.post(f"/play/{forged}/talk", data={"text": "hi", "csrf_token": token})
    assert answer.status_code == 404
    assert runtime.service.head(game.game_id).seq == head
    with Session(runtime.db) as session:
        assert session.exec(select(Event).where(Event.kind == "talk")).first() is None


def test_the_public_export_of_a_finished_game_has_no_private_text_and_verifies(runtime, app):
    from tests.mail.conftest import take_turn

    game = new_game(runtime, seats=2, target=5).game_id
    talk.post(runtime, game, 0, 1, "SECRET-NOTE")
    talk.post(runtime, game, 1, None, "good luck")
    for _ in range(60):
        if runtime.service.game(game).status != "active":
            break
        take_turn(runtime, game, rolls=3)
    assert runtime.service.game(game).status == "finished"
    over = [mail.key for mail in mails_of(runtime, "game_over")]
    talk.post(runtime, game, 0, 1, "SECRET-NOTE after the end")
    talk.post(runtime, game, 1, None, "gg")
    assert [mail.key for mail in mails_of(runtime, "game_over")] == over  # told once
    client = app.test_client()
    public = client.get(f"/games/{game}/export.json")
    assert b"SECRET-NOTE" not in public.data and b"good luck" in public.data
    assert verify_export(public.get_json()).ok
    # The operator's full file, built after the public one, still carries the note.
    assert "SECRET-NOTE" in runtime.service.export_text(game, full=True)
    assert b"SECRET-NOTE" not in client.get(f"/games/{game}/export.json").data
    audit = client.get(f"/games/{game}/audit").get_data(as_text=True)
    assert "SECRET-NOTE" not in audit


def test_a_waiting_player_talks_from_the_turn_page_or_the_talk_page(runtime, game, app):
    client = app.test_client()
    ben = game.tokens[1]  # Anna moves first: Ben waits (his page polls, never reloads)
    page = client.get(f"/play/{ben}").get_data(as_text=True)
    assert 'http-equiv="refresh"' not in page and 'id="talk-text"' in page
    own = client.get(f"/play/{ben}/talk").get_data(as_text=True)
    assert 'id="talk-text"' in own and 'http-equiv="refresh"' not in own
    token = re.search(r'name="csrf_token" value="([^"]+)"', own).group(1)
    sent = client.post(
        f"/play/{ben}/talk", data={"text": "Hi", "to": "", "from": "talk", "csrf_token": token}
    )
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/play/{ben}/talk#talk")
    refused = client.post(
        f"/play/{ben}/talk", data={"text": " ", "from": "talk", "csrf_token": token}
    )
    assert refused.status_code == 400 and "Your message was not sent" in refused.get_data(
        as_text=True
    )
    assert client.get(f"/play/{'y' * 43}/talk").status_code == 404


def test_a_move_prepared_before_someone_talked_still_stands(runtime, game, app):
    client = app.test_client()
    anna = game.tokens[0]
    page = client.get(f"/play/{anna}").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    seq = runtime.service.head(game.game_id).seq
    talk.post(runtime, game.game_id, 1, None, "Roll, Anna!")
    moved = client.post(
        f"/play/{anna}/move",
        data={"move": '{"type": "roll"}', "seq": str(seq), "csrf_token": token},
    )
    assert moved.status_code == 303
    assert runtime.service.events(game.game_id)[-1]["kind"] == "move"
    # A real change since (a move) still makes a stale form refused.
    assert talk.head_past_talk(runtime.service, game.game_id, seq) is None
    assert talk.head_past_talk(runtime.service, game.game_id, seq + 2) is None  # the head
    head = runtime.service.head(game.game_id)
    if 0 in head.engine.to_move(head.state):
        runtime.service.submit_move(game.game_id, 0, {"type": "roll"}, head.seq)
        stale = client.post(
            f"/play/{anna}/move",
            data={"move": '{"type": "stop"}', "seq": str(head.seq), "csrf_token": token},
        )
        assert "moved on" in stale.get_data(as_text=True)
