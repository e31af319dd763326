"""Nothing live at rest, written as the attacker who copied the server's ``var/`` folder
(the SQLite database with its -wal and -shm, everything else there) but not its secret
key: no string in it opens a seat, and nothing in it predicts the next draw of a
running game. Also: ``var/`` is 0700 and the files the server writes there 0600."""

from __future__ import annotations

import base64
import binascii
import json
import os
import random
import re
import stat
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from pbem.eventlog import chance
from pbem.eventlog.store import keyed_state_hash
from pbem.games.service import SeatSpec
from pbem.games.tokens import hash_token
from pbem.mail.dispatch import dispatch
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.mail.conftest import make_runtime, new_game

RUN = re.compile(rb"[A-Za-z0-9_+/=.:{}-]{16,}")
TOKEN_LIKE = re.compile(r"[A-Za-z0-9_-]{20,100}")


def server(tmp_path, clock, port: int):
    """A server as `pbem serve` runs it: SQLite and a generated key under var/, SMTP."""
    overrides = {
        "server": {"base_url": "http://pbem.test", "demo": False},
        "paths": {"var": str(tmp_path / "var")},
        "mail": {"host": "127.0.0.1", "port": port, "security": "none"},
        # The attacker's oracle asks /play/ with every piece it found: past
        # limits.unknown_tokens it would answer 429, which says nothing about the piece.
        "limits": {"unknown_tokens": "100000 per hour"},
    }
    return build_runtime(overrides, clock=clock)


def play_out(runtime, game_id: str, moves: int, rng: random.Random) -> None:
    service = runtime.service
    for _ in range(moves):
        head = service.head(game_id)
        if head.game.status != "active":
            return
        seat = min(head.engine.to_move(head.state))
        legal = head.engine.legal_moves(head.state, seat)
        service.submit_move(game_id, seat, rng.choice(legal[:3]), head.seq)


def copy_of_var(runtime) -> tuple[list[str], set[bytes]]:
    """What the attacker reads: every value of every table, and every byte of every
    file under var/ but the secret key. Returns (strings, candidate seeds)."""
    strings: set[str] = set()
    with runtime.db.connect() as connection:
        for table in inspect(connection).get_table_names():
            for row in connection.execute(text(f'SELECT * FROM "{table}"')):
                for value in row:
                    if value is None:
                        continue
                    value = value if isinstance(value, str) else json.dumps(value, default=str)
                    strings.add(value)
    var = Path(runtime.config["paths"]["var"])
    for path in var.rglob("*"):
        if path.is_file() and path.name != "secret_key":
            strings.update(m.decode("ascii") for m in RUN.findall(path.read_bytes()))
    pieces = set(strings)
    for value in strings:
        pieces.update(re.findall(r"[A-Za-z0-9_+/=.-]{16,}", value))
        pieces.update(piece for part in re.split(r"[{}:.\"\s]", value) for piece in [part] if piece)
    seeds: set[bytes] = set()
    for piece in pieces:
        seeds.add(piece.encode())
        for decode in (bytes.fromhex, _b64, _b64url):
            try:
                raw = decode(piece)
            except (ValueError, binascii.Error):
                continue
            seeds.add(raw)
            seeds.update(raw[i : i + 32] for i in range(0, max(len(raw) - 31, 1)))
    return sorted(pieces), seeds


def _b64(text_: str) -> bytes:
    return base64.b64decode(text_ + "=" * (-len(text_) % 4), validate=True)


def _b64url(text_: str) -> bytes:
    return base64.urlsafe_b64decode(text_ + "=" * (-len(text_) % 4))


def opens_a_seat(client, token_hashes: set[str], piece: str) -> bool:
    """The attacker's two ways to try a string: hash it against the copied seats table
    (every window the length of a token), and ask the server's /play/ route."""
    for start in range(0, max(len(piece) - 42, 1)):
        if hash_token(piece[start : start + 43]) in token_hashes:
            return True
    if TOKEN_LIKE.fullmatch(piece):
        return client.get(f"/play/{piece}").status_code != 404
    return False


def predicts(seed: bytes, game_id: str, after: list[dict], mix: str | None) -> bool:
    """Whether ``seed`` gives every draw recorded after the copy was taken (with the
    contributions' ``mix``, public in the log)."""
    draws = [(row["seq"], k, pair) for row in after for k, pair in enumerate(row["chance"])]
    return all(
        chance.derive(seed, game_id, seq, k, bound, mix) == value
        for seq, k, (bound, value) in draws
    )


def test_a_copy_of_var_opens_no_seat_and_predicts_no_draw(tmp_path, clock, smtp):
    mailbox, port = smtp
    runtime = server(tmp_path, clock, port)
    rng = random.Random(11)
    specs = [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")]
    finished = runtime.service.create_game("pig", specs, {"target": 5})
    play_out(runtime, finished.game_id, 400, rng)
    assert runtime.service.game(finished.game_id).status == "finished"
    running = runtime.service.create_game("pig", specs, {"target": 500})
    play_out(runtime, running.game_id, 6, rng)
    dispatch(runtime)
    assert len(mailbox.messages) > 4  # sent: invitations, turns, game over
    queued = runtime.service.create_game("pig", specs, {"target": 500})  # not yet sent
    tokens = [token for game in (finished, running, queued) for token in game.tokens]
    head = runtime.service.head(running.game_id)

    pieces, seeds = copy_of_var(runtime)

    with runtime.db.connect() as connection:
        token_hashes = {row[0] for row in connection.execute(text("SELECT token_hash FROM seats"))}
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    # The oracles work: a real link opens its seat both ways, the real seed predicts.
    assert all(opens_a_seat(client, token_hashes, token) for token in tokens)
    assert client.get(f"/play/{tokens[0]}").status_code == 200
    with runtime.service.session() as session:
        true_seed = runtime.service._seed(session, running.game_id)
    # The scan reads what is there: the public commitments and the finished game's seed.
    assert running.commitment in " ".join(pieces)
    assert any(chance.commitment(seed) == finished.commitment for seed in seeds)

    opening = [piece for piece in pieces if opens_a_seat(client, token_hashes, piece)]
    assert opening == []

    engine, state = head.engine, head.state
    recorded = runtime.service.events(running.game_id)[-1]["state_hash"]
    assert keyed_state_hash(true_seed, engine, state) == recorded
    assert not [seed for seed in seeds if keyed_state_hash(seed, engine, state) == recorded]

    seat = min(engine.to_move(state))
    runtime.service.submit_move(running.game_id, seat, {"type": "roll", "dice": 20}, head.seq)
    after = runtime.service.events(running.game_id, after=head.seq)
    assert sum(len(row["chance"]) for row in after) >= 20  # 6**20 outcomes: no lucky guess
    mix = runtime.service.contributions(running.game_id).mix
    assert predicts(true_seed, running.game_id, after, mix)
    assert not [seed for seed in seeds if predicts(seed, running.game_id, after, mix)]


@pytest.fixture
def open_umask():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_var_is_private_to_the_server(open_umask, tmp_path, clock):
    runtime = server(tmp_path, clock, 25)
    runtime.config["mail"]["host"] = ""  # mail to var/mail/ files
    new_game(runtime, seats=2)
    assert dispatch(runtime).sent == 2
    var = Path(runtime.config["paths"]["var"])
    files = [path for path in var.rglob("*") if path.is_file()]
    names = {path.name for path in files}
    assert {"pbem.sqlite3", "secret_key", "0000001-invitation.eml"} <= names
    assert any(name.endswith("-wal") for name in names)
    for path in [var, *(path for path in var.rglob("*") if path.is_dir())]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_an_older_world_readable_var_is_closed(open_umask, tmp_path, clock, smtp):
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    database = var / "pbem.sqlite3"
    database.touch(mode=0o644)
    os.chmod(database, 0o644)
    server(tmp_path, clock, smtp[1])
    assert stat.S_IMODE(var.stat().st_mode) == 0o700
    assert stat.S_IMODE(database.stat().st_mode) == 0o600


def test_a_runtime_sealing_seeds_reads_what_it_sealed(db, tmp_path, clock, smtp):
    runtime = make_runtime(db, tmp_path, clock, smtp[1])
    created = new_game(runtime, seats=2)
    with db.connect() as connection:
        (stored,) = connection.execute(
            text("SELECT seed FROM game_secrets WHERE game_id = :g"), {"g": created.game_id}
        ).one()
    assert stored.startswith("g1.")
    assert runtime.service.verify_game(created.game_id).ok
