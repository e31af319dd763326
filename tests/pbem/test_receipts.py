"""Signed receipts (pbem.receipts): signing, tampering, key rotation, key files, and
``pbem verify --receipt`` catching a server that rewrote or cut a game's history."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from pbem import receipts
from pbem.cli import main
from pbem.eventlog.log import row_hash

T0 = datetime(2026, 12, 2, 17, 0, tzinfo=UTC)
HEAD = "ab" * 32


def config_at(tmp_path, base_url="https://pbem.example"):
    return {"paths": {"var": str(tmp_path / "var")}, "server": {"base_url": base_url}}


def runtime_at(tmp_path, when=T0):
    return SimpleNamespace(config=config_at(tmp_path), clock=lambda: when, extras={})


def keys_of(config):
    return {key.id: key for key in receipts.published(config)}


def forged(receipt: receipts.Receipt, **changes) -> str:
    """The receipt's text with some claims changed and the old signature kept."""
    changed = receipts.Receipt(**{**receipt.claims(), **changes, "signature": receipt.signature})
    return changed.text()


def test_a_receipt_round_trips_and_names_its_server_game_seq_head_time_and_key(tmp_path):
    run = runtime_at(tmp_path)
    receipt = receipts.issue(run, "g1234", 7, HEAD)
    text = receipt.text()
    assert text.startswith("pbem-receipt:1:")
    parsed = receipts.parse(text)
    assert parsed == receipt
    assert parsed.claims() == {
        "server": "https://pbem.example",
        "game": "g1234",
        "seq": 7,
        "head": HEAD,
        "time": "2026-12-02T17:00:00Z",
        "key": receipts.ensure_key(run.config, T0).id,
    }
    # the signed bytes are the canonical JSON: sorted keys, no spaces
    assert (
        parsed.payload()
        == json.dumps(parsed.claims(), sort_keys=True, separators=(",", ":")).encode()
    )
    verdict = receipts.check_signature(text, keys_of(run.config))
    assert verdict.ok, verdict.message
    # a mail client may wrap it: spaces and line breaks inside are ignored
    wrapped = "\n".join(text[i : i + 70] for i in range(0, len(text), 70))
    assert receipts.check_signature(wrapped, keys_of(run.config)).ok
    assert receipts.find(f"Signed receipt:\n{text}\n--\n") == [text]
    assert receipt.as_json()["text"] == text


@pytest.mark.parametrize(
    "changes",
    [
        {"seq": 8},
        {"seq": 6},
        {"head": "cd" * 32},
        {"game": "g9999"},
        {"time": "2026-12-01T17:00:00Z"},
        {"server": "https://elsewhere.example"},
    ],
)
def test_a_receipt_with_a_changed_claim_is_refused(tmp_path, changes):
    run = runtime_at(tmp_path)
    receipt = receipts.issue(run, "g1234", 7, HEAD)
    verdict = receipts.check_signature(forged(receipt, **changes), keys_of(run.config))
    assert verdict.outcome == receipts.BAD_SIGNATURE
    assert "does not match" in verdict.message


@pytest.mark.parametrize(
    "text, words",
    [
        ("ab" * 32, "begins with"),
        ("pbem-receipt:1:%%%.abc", "damaged"),
        ("pbem-receipt:1:e30.", "signature is missing"),
        ("pbem-receipt:1:" + "A" * 3000, "too long"),
    ],
)
def test_a_malformed_receipt_gets_a_sentence(tmp_path, text, words):
    verdict = receipts.check_signature(text, {})
    assert verdict.outcome == receipts.MALFORMED and words in verdict.message


def test_a_receipt_not_in_canonical_form_or_with_extra_fields_is_refused(tmp_path):
    run = runtime_at(tmp_path)
    receipt = receipts.issue(run, "g1234", 7, HEAD)
    spaced = json.dumps(receipt.claims(), sort_keys=True).encode()  # with spaces
    text = f"{receipts.PREFIX}{receipts.b64url(spaced)}.{receipts.b64url(receipt.signature)}"
    assert "canonical" in receipts.check_signature(text, keys_of(run.config)).message
    extra = json.dumps({**receipt.claims(), "note": 1}, sort_keys=True, separators=(",", ":"))
    text = (
        f"{receipts.PREFIX}{receipts.b64url(extra.encode())}.{receipts.b64url(receipt.signature)}"
    )
    assert "exactly the fields" in receipts.check_signature(text, keys_of(run.config)).message


def test_a_rotated_key_still_verifies_old_receipts(tmp_path):
    run = runtime_at(tmp_path)
    old = receipts.issue(run, "g1234", 3, HEAD)
    first = receipts.ensure_key(run.config, T0)
    made = receipts.rotate(run.config, T0 + timedelta(days=30))
    assert made.id != first.id
    run.clock = lambda: T0 + timedelta(days=31)
    new = receipts.issue(run, "g1234", 4, "cd" * 32)
    assert new.key == made.id and old.key == first.id  # the running signer saw the rotation
    document = receipts.keys_document(run.config, "https://pbem.example")
    listed = {entry["id"]: entry for entry in document["keys"]}
    assert listed[first.id]["retired"] == "2027-01-01T17:00:00Z"
    assert listed[made.id]["retired"] is None
    assert all(entry["algorithm"] == "Ed25519" for entry in listed.values())
    assert "PRIVATE" not in json.dumps(document)
    # a verifier holding the published document checks both
    held = receipts.read_keys(json.dumps(document).encode())
    assert receipts.check_signature(old.text(), held).ok
    assert receipts.check_signature(new.text(), held).ok
    # the retired key's private half is gone: it signs nothing more
    assert not receipts.has_private(run.config, first)
    # and a receipt dated after its key was retired is refused
    late = receipts.sign(
        receipts.private_key(run.config, made),
        server="https://pbem.example",
        game="g1234",
        seq=5,
        head=HEAD,
        time=T0,
    )
    early_retired = {made.id: receipts.PublicKey(made.id, made.key, made.created, iso_days(-1))}
    assert receipts.check_signature(late.text(), early_retired).outcome == receipts.KEY_RETIRED
    # without the new key a verifier says which key it lacks
    only_old = {first.id: held[first.id]}
    unknown = receipts.check_signature(new.text(), only_old)
    assert unknown.outcome == receipts.UNKNOWN_KEY and made.id in unknown.message


def iso_days(days: int) -> str:
    return receipts.iso(T0 + timedelta(days=days))


def test_key_files_are_the_server_users_alone(tmp_path):
    run = runtime_at(tmp_path)
    key = receipts.ensure_key(run.config, T0)
    folder = receipts.folder(run.config)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / f"{key.id}.pem").stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / receipts.INDEX).stat().st_mode) == 0o600
    # the key id is the first 16 hex digits of the sha256 of the raw public key
    import hashlib

    assert key.id == hashlib.sha256(receipts.raw_public(key.key)).hexdigest()[:16]
    # the same key, made once, for every later need
    assert receipts.ensure_key(run.config, T0 + timedelta(hours=1)).id == key.id
    assert len(receipts.published(run.config)) == 1


def test_an_unusable_key_folder_gives_no_receipt_and_no_error(tmp_path):
    run = runtime_at(tmp_path)
    (tmp_path / "var").write_text("a file where the folder should be")
    assert receipts.issue(run, "g1234", 1, HEAD) is None


def test_read_keys_takes_a_pem_public_key_and_refuses_a_private_one_or_a_lying_id(tmp_path):
    run = runtime_at(tmp_path)
    key = receipts.ensure_key(run.config, T0)
    pem = key.as_json()["public_key_pem"].encode()
    assert set(receipts.read_keys(pem)) == {key.id}
    private = (receipts.folder(run.config) / f"{key.id}.pem").read_bytes()
    with pytest.raises(receipts.ReceiptError, match="private key"):
        receipts.read_keys(private)
    document = receipts.keys_document(run.config, "x")
    document["keys"][0]["id"] = "0" * 16
    with pytest.raises(receipts.ReceiptError, match="under another id"):
        receipts.read_keys(json.dumps(document).encode())
    with pytest.raises(receipts.ReceiptError, match="neither"):
        receipts.read_keys(b"hello")


# pbem verify --receipt -----------------------------------------------------------------


def pbem(database, *args):
    return main(["--database", database, *args])


def service(database):
    from pbem.runtime import build_runtime

    return build_runtime({"database": {"url": database}}, create_schema=False)


def played_game(database, capsys, moves=6) -> str:
    """A pig game between two people, ``moves`` moves in, still running."""
    assert (
        pbem(database, "new", "pig", "--seat", "Ann:a@example.org", "--seat", "Ben:b@example.org")
        == 0
    )
    game_id = capsys.readouterr().out.split("Game ", 1)[1].split(" ", 1)[0]
    run = service(database)
    for number in range(moves):
        head = run.service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        legal = head.engine.legal_moves(head.state, seat)
        run.service.submit_move(game_id, seat, legal[number % len(legal)], head.seq, actor="t")
    return game_id


def receipt_now(database, tmp_path, game_id: str, seq: int) -> str:
    runtime = service(database)
    row = next(row for row in runtime.service.events(game_id) if row["seq"] == seq)
    return receipts.issue(runtime, game_id, seq, row["hash"]).text()


def export(database, tmp_path, game_id, name="seat0.json") -> tuple[dict, str]:
    path = tmp_path / name
    assert pbem(database, "export", game_id, "--seat", "0", "-o", str(path)) == 0
    return json.loads(path.read_text()), str(path)


def keys_file(database, capsys, tmp_path) -> str:
    assert pbem(database, "keys", "list", "--json") == 0
    path = tmp_path / "pbem-keys.json"
    path.write_text(capsys.readouterr().out)
    return str(path)


def rechain(data: dict, start: int, rehash) -> None:
    """What a dishonest server does after changing an event: every hash from it on made
    afresh (``rehash(row)``), so the log's own chain holds again."""
    events = [row for row in data["events"] if "final_view" not in row]
    prev = events[start - 1]["hash"]
    for row in events[start:]:
        row["prev_hash"] = prev
        row["hash"] = prev = rehash(row)
    data["game"]["head_hash"] = prev


def seat_rehash(row: dict) -> str:
    # A seat's export holds what the seat may see of each event; the server hashes the
    # whole event. This stands in for the server's hash of the changed event.
    import hashlib

    return hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()


def test_verify_checks_receipts_and_catches_a_rewritten_history(database, capsys, tmp_path):
    game_id = played_game(database, capsys)
    receipt = receipt_now(database, tmp_path, game_id, 4)
    data, path = export(database, tmp_path, game_id)
    keys = keys_file(database, capsys, tmp_path)
    assert pbem(database, "verify", path, "--receipt", receipt, "--key", keys) == 0
    out = capsys.readouterr().out
    assert "Receipt 1: OK: " in out and "2 events came after it" in out

    # the server rewrites move 3 (the move becomes a stop) and re-chains every hash after it
    target = next(row for row in data["events"] if row.get("seq") == 3)
    target["move"] = {"type": "stop"}
    target["lines"] = ["Player 1 stops and banks 0 points."]
    rechain(data, 3, seat_rehash)
    rewritten = tmp_path / "rewritten.json"
    rewritten.write_text(json.dumps(data))
    capsys.readouterr()
    assert pbem(database, "verify", str(rewritten)) == 0  # its own chain holds
    capsys.readouterr()
    assert pbem(database, "verify", str(rewritten), "--receipt", receipt, "--key", keys) == 1
    out = capsys.readouterr().out
    assert "FAILED, history rewritten (head differs at seq)" in out
    assert "at event 4" in out

    # the receipt itself changed to match the rewritten log: its signature fails
    changed = forged(receipts.parse(receipt), head=target["hash"], seq=3)
    assert pbem(database, "verify", str(rewritten), "--receipt", changed, "--key", keys) == 1
    assert "FAILED, bad signature" in capsys.readouterr().out


def test_verify_catches_a_cut_history_another_game_and_reads_a_file_of_receipts(
    database, capsys, tmp_path
):
    game_id = played_game(database, capsys)
    early = receipt_now(database, tmp_path, game_id, 2)
    late = receipt_now(database, tmp_path, game_id, 6)
    data, path = export(database, tmp_path, game_id)
    keys = keys_file(database, capsys, tmp_path)
    listing = tmp_path / "receipts.txt"
    listing.write_text(f"my receipts\n{early}\n\n{late}\n")
    assert pbem(database, "verify", path, "--receipt", str(listing), "--key", keys) == 0
    assert "2 of 2 receipts hold" in capsys.readouterr().out

    cut = {**data, "events": [row for row in data["events"] if row.get("seq", 99) <= 4]}
    cut["game"] = {**data["game"], "head_seq": 4, "head_hash": cut["events"][-1]["hash"]}
    cut_path = tmp_path / "cut.json"
    cut_path.write_text(json.dumps(cut))
    assert pbem(database, "verify", str(cut_path), "--receipt", str(listing), "--key", keys) == 1
    out = capsys.readouterr().out
    assert "Receipt 1: OK" in out
    assert "Receipt 2: FAILED, history cut (seq missing)" in out and "ends at event 4" in out
    assert "1 of 2 receipts hold" in out

    other = played_game(database, capsys, moves=2)
    _, other_path = export(database, tmp_path, other, "other.json")
    assert pbem(database, "verify", other_path, "--receipt", early, "--key", keys) == 1
    assert "FAILED, receipt's game differs" in capsys.readouterr().out


def test_verify_with_a_receipt_needs_a_key_and_says_so(database, capsys, tmp_path):
    game_id = played_game(database, capsys, moves=2)
    receipt = receipt_now(database, tmp_path, game_id, 1)
    _, path = export(database, tmp_path, game_id)
    capsys.readouterr()
    assert pbem(database, "verify", path, "--receipt", receipt) == 1
    assert "give --key" in capsys.readouterr().err
    assert pbem(database, "verify", path, "--receipt", "no-such-file", "--key", path) == 1
    assert "neither a receipt" in capsys.readouterr().err
    assert pbem(database, "verify", path, "--receipt", receipt, "--key", path) == 1
    assert "neither a PEM public key nor a keys JSON" in capsys.readouterr().err


def test_keys_rotate_and_list(database, capsys, tmp_path):
    game_id = played_game(database, capsys, moves=2)
    receipt = receipt_now(database, tmp_path, game_id, 1)
    _, path = export(database, tmp_path, game_id)
    capsys.readouterr()
    assert pbem(database, "keys", "rotate") == 0
    assert "signs receipts from now on" in capsys.readouterr().out
    assert pbem(database, "keys", "list") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "retired" in lines[0] and "public only" in lines[0]
    assert "current" in lines[1] and "private half kept" in lines[1]
    keys = keys_file(database, capsys, tmp_path)
    assert pbem(database, "verify", path, "--receipt", receipt, "--key", keys) == 0
    assert "Receipt 1: OK" in capsys.readouterr().out


def test_a_finished_games_full_log_rewritten_and_rechained_fails_only_by_its_receipt(
    database, capsys, tmp_path
):
    """The published full log, with the seed: an event changed in a way replay cannot see
    (its time) and every hash after it made afresh passes every other check."""
    from tests.pbem.test_cli import finished_game

    game_id = finished_game(database, capsys)
    receipt = receipt_now(database, tmp_path, game_id, 3)
    path = tmp_path / "full.json"
    assert pbem(database, "export", game_id, "-o", str(path)) == 0
    data = json.loads(path.read_text())
    data["events"][2]["created_at"] = "2026-01-01T00:00:00.000000Z"
    rechain(data, 2, row_hash)
    path.write_text(json.dumps(data))
    keys = keys_file(database, capsys, tmp_path)
    assert pbem(database, "verify", str(path), "--receipt", receipt, "--key", keys) == 1
    out = capsys.readouterr().out
    assert "draws re-derived from the seed" in out  # the log itself verifies
    assert "FAILED, history rewritten (head differs at seq)" in out


def test_a_damaged_keys_index_is_said_plainly_and_fails_no_move(database, capsys, tmp_path):
    run = runtime_at(tmp_path)
    receipts.ensure_key(run.config, T0)
    (receipts.folder(run.config) / receipts.INDEX).write_text("{not json")
    run.extras.clear()
    assert receipts.issue(run, "g1234", 1, HEAD) is None
    assert pbem(database, "keys", "list") == 1
    assert "keys.json cannot be read" in capsys.readouterr().err
