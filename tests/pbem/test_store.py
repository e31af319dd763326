"""The store's contract, run against SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from sqlmodel import Session, delete, select

from pbem.errors import BadInput, Conflict, NotFound, Rejected
from pbem.eventlog.log import row_hash
from pbem.games.service import SeatSpec
from pbem.games.tokens import hash_token
from pbem.models import Event, Game, GameSecret, Seat, Snapshot


def new_game(service, seats=2, target=20):
    return service.create_game(
        "pig", [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)], {"target": target}
    )


def play(service, game_id, moves=None, limit=10_000):
    """Plays bot moves (or the given ones) through the service; returns moves made."""
    made = 0
    for _ in range(limit if moves is None else len(moves)):
        head = service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if not due:
            break
        move = {"type": "roll"} if head.state["pot"] < 8 else {"type": "stop"}
        if moves is not None:
            move = moves[made]
        service.submit_move(game_id, due[0], move, head.seq)
        made += 1
    return made


def test_created_event_commits_to_seed_and_stores_token_hashes(service):
    created = new_game(service)
    events = service.events(created.game_id)
    assert [event["kind"] for event in events] == ["created"]
    assert events[0]["payload"]["commitment"] == created.commitment
    seats = service.seats(created.game_id)
    assert [seat.token_hash for seat in seats] == [hash_token(t) for t in created.tokens]
    assert all(token not in repr(events) for token in created.tokens)


def test_moves_append_with_chain_and_state_hash(service):
    created = new_game(service)
    play(service, created.game_id, limit=30)
    events = service.events(created.game_id)
    assert [event["seq"] for event in events] == list(range(len(events)))
    for earlier, later in zip(events, events[1:], strict=False):
        assert later["prev_hash"] == earlier["hash"]
        assert row_hash(later) == later["hash"]
    report = service.verify_game(created.game_id)
    assert report.ok, report.summary()


def test_stale_seq_gets_conflict_with_fresh_seq(service):
    created = new_game(service)
    service.submit_move(created.game_id, 0, {"type": "roll"}, 0)
    with pytest.raises(Conflict) as raised:
        service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    assert raised.value.fresh_seq == 1


def test_same_move_twice_is_answered_as_the_same_success(service):
    created = new_game(service)
    first = service.submit_move(created.game_id, 0, {"type": "roll"}, 0)
    again = service.submit_move(created.game_id, 0, {"type": "roll"}, 0)
    assert again.duplicate and again.seq == first.seq
    assert len(service.events(created.game_id)) == 2


@pytest.mark.parametrize(
    "seat, move, seq, error",
    [
        (0, "roll", 0, BadInput),
        (0, {"kind": "roll"}, 0, BadInput),
        (0, {"type": "fly"}, 0, Rejected),
        (1, {"type": "roll"}, 0, Rejected),
        (0, {"type": "roll"}, "0", BadInput),
        (5, {"type": "roll"}, 0, NotFound),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(service, seat, move, seq, error):
    created = new_game(service)
    with pytest.raises(error):
        service.submit_move(created.game_id, seat, move, seq)
    assert len(service.events(created.game_id)) == 1
    assert service.game(created.game_id).head_seq == 0


def test_unknown_game_and_forged_token_are_not_found(service):
    with pytest.raises(NotFound):
        service.submit_move("nosuchgame", 0, {"type": "roll"}, 0)
    with pytest.raises(NotFound):
        service.seat_for_token("x" * 43)


def test_game_over_reveals_seed_and_refuses_moves(service):
    created = new_game(service, target=8)
    play(service, created.game_id)
    game = service.game(created.game_id)
    assert game.status == "finished" and game.result["winners"]
    events = service.events(created.game_id)
    assert events[-1]["kind"] == "seed_revealed"
    with pytest.raises(Rejected):
        service.submit_move(created.game_id, 0, {"type": "roll"}, game.head_seq)
    assert service.verify_game(created.game_id).ok


def test_snapshots_are_only_a_cache(service):
    created = new_game(service, target=60)
    play(service, created.game_id, limit=45)
    head = service.head(created.game_id)
    with service.session() as session:
        assert session.exec(select(Snapshot)).first() is not None
        replayed = service.store.head(session, created.game_id, use_cache=False)
        session.exec(delete(Snapshot))
        game = session.get(Game, created.game_id)
        game.head_state = None
        session.add(game)
        session.commit()
    again = service.head(created.game_id)
    assert again.state == head.state == replayed.state
    for seq in range(0, head.seq + 1, 7):
        _, state, _ = service.state_at(created.game_id, seq)
        assert state is not None


def test_read_model_tracks_whose_turn(service):
    created = new_game(service)
    seats = {seat.seat: seat for seat in service.seats(created.game_id)}
    assert seats[0].due and not seats[1].due and seats[0].due_since is not None
    assert service.game(created.game_id).to_move == [0]


def test_export_per_seat_hides_other_seats_secrets(service):
    created = new_game(service)
    play(service, created.game_id, limit=5)
    export = service.export_game(created.game_id, seat=0)
    final = export["events"][-1]["final_view"]
    assert "my_bonus" in final and "bonus" not in final
    with pytest.raises(Rejected):
        service.export_game(created.game_id)


def test_full_export_imports_and_carries_on(service):
    created = new_game(service, target=200)
    play(service, created.game_id, limit=12)
    export = service.export_game(created.game_id, full=True)
    export["game"]["id"] = export["events"][0]["game_id"]
    with service.session() as session:
        for model in (Event, Snapshot, Seat):
            session.exec(delete(model).where(model.game_id == created.game_id))
        session.exec(delete(Game).where(Game.id == created.game_id))
        session.exec(delete(GameSecret).where(GameSecret.game_id == created.game_id))
        session.commit()
    game_id = service.import_game(export)
    assert game_id == created.game_id
    head = service.head(game_id)
    assert head.seq == 12
    due = sorted(head.engine.to_move(head.state))[0]
    service.submit_move(game_id, due, {"type": "roll"}, head.seq)
    assert service.verify_game(game_id).ok


def test_malformed_import_is_refused(service):
    created = new_game(service)
    export = service.export_game(created.game_id, full=True)
    export["events"][0]["payload"]["seats"] = 3
    with pytest.raises(BadInput):
        service.import_game(export)
    with pytest.raises(BadInput):
        service.import_game({"format": "nonsense"})


def test_tampered_row_in_database_is_detected(service):
    created = new_game(service)
    play(service, created.game_id, limit=10)
    with Session(service.db) as session:
        event = session.get(Event, (created.game_id, 4))
        flipped = "stop" if event.payload["move"]["type"] == "roll" else "roll"
        event.payload = {"move": {"type": flipped}}
        session.add(event)
        session.commit()
    report = service.verify_game(created.game_id)
    assert not report.ok and report.first_bad_seq == 4


def test_hashes_a_seat_sees_give_no_handle_on_hidden_state(service):
    """A plain state hash would let seat 0 test guesses about seat 1's secret bonus;
    recorded state hashes are keyed by the unrevealed seed, and a seat's export holds
    only the chain's receipts."""
    from engines.api import state_hash

    created = new_game(service)
    play(service, created.game_id, limit=8)
    export = service.export_game(created.game_id, seat=0)
    assert all("state_hash" not in entry for entry in export["events"])
    head = service.head(created.game_id)
    rows = service.events(created.game_id)
    for guess in (1, 2, 3):
        candidate = {**head.state, "bonus": [head.state["bonus"][0], guess]}
        assert state_hash(head.engine, candidate) != rows[-1]["state_hash"]
    assert service.verify_game(created.game_id).ok
