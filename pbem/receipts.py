"""Signed receipts: the server's signed word that a game's log had a given head.

A head hash alone proves nothing to a third party: anyone can write one down. A receipt
is the head signed with the server's Ed25519 key, over the server's address, the game,
the seq, the head hash and the time::

    pbem-receipt:1:<base64url of the canonical JSON>.<base64url of the signature>

The JSON is ``{"game", "head", "key", "seq", "server", "time"}`` with sorted keys and no
spaces (:func:`engines.api.canonical_json`), and the signature is over exactly those
bytes. ``key`` names the signing key: the first 16 hex digits of the sha256 of its raw
public key. Whoever holds a receipt and the server's public keys can later check an
exported log against it, offline (``pbem verify FILE --receipt R --key KEYS``): a server
that rewrote the game after signing cannot produce a log that agrees with the receipt.

Keys live in ``var/receipt_keys/``: ``keys.json`` lists every key (id, public key,
created, retired) and ``<id>.pem`` holds the private half of the current one (0600).
The first key is made on first need; ``pbem keys rotate`` makes a new one, marks the old
retired and drops its private half, so an old key can sign nothing more. Every public key
stays published at ``/.well-known/pbem-keys.json``: old receipts keep verifying, and a
receipt dated after its key was retired is refused.
"""

from __future__ import annotations

import base64
import binascii
import fcntl
import hashlib
import json
import logging
import os
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from engines.api import canonical_json
from pbem.bounds import loads as bounded_loads
from pbem.config import write_once

log = logging.getLogger(__name__)

PREFIX = "pbem-receipt:1:"
KEYS_FORMAT = "pbem-keys/1"
ALGORITHM = "Ed25519"
FOLDER = "receipt_keys"
INDEX = "keys.json"
FIELDS = ("game", "head", "key", "seq", "server", "time")
# A receipt anywhere in a text (a saved mail, a file of receipts, a pasted line).
FOUND = re.compile(re.escape(PREFIX) + r"[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+")
HEX = re.compile(r"[0-9a-f]+")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
TEXT_MAX = 2000


class ReceiptError(ValueError):
    """A receipt, key or keys file that cannot be read; the message says why."""


# Encodings -----------------------------------------------------------------------------


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_\-]*", text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def iso(moment: datetime) -> str:
    """A moment as receipts write it: ISO 8601, UTC, whole seconds, ``Z``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def raw_public(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    """The first 16 hex digits of the sha256 of the raw public key."""
    return hashlib.sha256(raw_public(public)).hexdigest()[:16]


# Keys ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PublicKey:
    """One published key: its id, the key, when it was made and when it was retired."""

    id: str
    key: Ed25519PublicKey
    created: str | None = None
    retired: str | None = None

    def as_json(self) -> dict[str, Any]:
        pem = self.key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return {
            "id": self.id,
            "algorithm": ALGORITHM,
            "public_key": b64url(raw_public(self.key)),
            "public_key_pem": pem.decode("ascii"),
            "created": self.created,
            "retired": self.retired,
        }


def folder(config: Mapping[str, Any]) -> Path:
    return Path(config["paths"]["var"]) / FOLDER


@contextmanager
def _locked(config: Mapping[str, Any]) -> Iterator[Path]:
    """The keys' folder (0700), held by this process alone: processes that start
    together, or a rotation beside a running server, never make two current keys."""
    where = folder(config)
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(where / ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield where
    finally:
        os.close(fd)


def published(config: Mapping[str, Any]) -> list[PublicKey]:
    """Every key the server has had, oldest first (none before the first receipt)."""
    path = folder(config) / INDEX
    try:
        entries = json.loads(path.read_text())["keys"]
    except FileNotFoundError:
        return []
    if not isinstance(entries, list):
        raise ValueError(f"{path} lists no keys")
    return [
        PublicKey(
            entry["id"],
            Ed25519PublicKey.from_public_bytes(unb64url(entry["public_key"])),
            entry["created"],
            entry["retired"],
        )
        for entry in entries
    ]


def _write_index(where: Path, keys: Sequence[PublicKey]) -> None:
    entries = [key.as_json() for key in keys]
    for entry in entries:
        del entry["public_key_pem"]
    draft = where / f".{INDEX}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"format": KEYS_FORMAT, "keys": entries}, handle, indent=1)
        handle.write("\n")
    os.replace(draft, where / INDEX)


def _new_key(where: Path, now: datetime, private: Ed25519PrivateKey | None = None) -> PublicKey:
    private = private or Ed25519PrivateKey.generate()
    public = private.public_key()
    made = PublicKey(key_id(public), public, iso(now), None)
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    write_once(where / f"{made.id}.pem", pem)
    return made


def _current(keys: Sequence[PublicKey]) -> PublicKey | None:
    live = [key for key in keys if key.retired is None]
    return live[-1] if live else None


def ensure_key(config: Mapping[str, Any], now: datetime) -> PublicKey:
    """The current key, made on first need."""
    found = _current(published(config))
    if found is not None:
        return found
    with _locked(config) as where:
        keys = published(config)
        found = _current(keys)
        if found is None:
            found = _new_key(where, now)
            _write_index(where, [*keys, found])
    return found


def rotate(
    config: Mapping[str, Any],
    now: datetime,
    keep_private: bool = False,
    private: Ed25519PrivateKey | None = None,
) -> PublicKey:
    """Makes a new current key (a fresh one, or ``private``); the old ones are retired
    now and, unless ``keep_private``, their private halves deleted. Every public key
    stays listed."""
    with _locked(config) as where:
        keys = published(config)
        made = _new_key(where, now, private)
        retired = [PublicKey(key.id, key.key, key.created, key.retired or iso(now)) for key in keys]
        _write_index(where, [*retired, made])
        if not keep_private:
            for key in keys:
                (where / f"{key.id}.pem").unlink(missing_ok=True)
    return made


def private_key(config: Mapping[str, Any], key: PublicKey) -> Ed25519PrivateKey:
    loaded = serialization.load_pem_private_key(
        (folder(config) / f"{key.id}.pem").read_bytes(), password=None
    )
    if not isinstance(loaded, Ed25519PrivateKey) or key_id(loaded.public_key()) != key.id:
        raise ReceiptError(f"the private key file of {key.id} does not hold that key")
    return loaded


def has_private(config: Mapping[str, Any], key: PublicKey) -> bool:
    return (folder(config) / f"{key.id}.pem").exists()


def keys_document(config: Mapping[str, Any], base_url: str) -> dict[str, Any]:
    """What ``/.well-known/pbem-keys.json`` serves: every public key, no secret."""
    return {
        "format": KEYS_FORMAT,
        "server": base_url,
        "keys": [key.as_json() for key in published(config)],
    }


# Receipts ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Receipt:
    server: str
    game: str
    seq: int
    head: str
    time: str
    key: str
    signature: bytes = b""

    def claims(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELDS}

    def payload(self) -> bytes:
        """The bytes signed: the canonical JSON of the claims."""
        return canonical_json(self.claims()).encode("utf-8")

    def text(self) -> str:
        return f"{PREFIX}{b64url(self.payload())}.{b64url(self.signature)}"

    def as_json(self) -> dict[str, Any]:
        """The receipt as the API gives it: its text, its fields and the signature."""
        return {"text": self.text(), **self.claims(), "signature": b64url(self.signature)}


def sign(
    private: Ed25519PrivateKey,
    *,
    server: str,
    game: str,
    seq: int,
    head: str,
    time: datetime,
) -> Receipt:
    unsigned = Receipt(server, game, seq, head, iso(time), key_id(private.public_key()))
    return Receipt(**{**unsigned.claims(), "signature": private.sign(unsigned.payload())})


def _signer(runtime: Any) -> tuple[PublicKey, Ed25519PrivateKey]:
    """The current key and its private half, kept per process and read again when the
    keys' index changes (a rotation by ``pbem keys rotate``)."""
    config = runtime.config
    try:
        stamp = (folder(config) / INDEX).stat().st_mtime_ns
    except FileNotFoundError:
        stamp = None
    cached = runtime.extras.get("receipt_signer")
    if stamp is not None and cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    key = ensure_key(config, runtime.clock())
    stamp = (folder(config) / INDEX).stat().st_mtime_ns
    private = private_key(config, key)
    runtime.extras["receipt_signer"] = (stamp, key, private)
    return key, private


def issue(
    runtime: Any, game: str, seq: int, head: str, at: datetime | str | None = None
) -> Receipt | None:
    """A receipt for ``game`` at ``seq`` with head hash ``head``, dated ``at`` (the
    event's own time, as its row records it, where the caller has the row: a page or an
    answer then says the same every time it is shown) or now (a mail, as it is written);
    None (and a logged error) when the key cannot be read or made: a receipt never fails
    a move."""
    from pbem.links import base_url

    if isinstance(at, str):
        at = datetime.fromisoformat(at)

    try:
        _, private = _signer(runtime)
    except (OSError, ValueError, KeyError) as error:
        log.error("no receipt: the signing key is unusable: %s", error)
        return None
    return sign(
        private,
        server=base_url(runtime.config),
        game=game,
        seq=int(seq),
        head=head,
        time=at or runtime.clock(),
    )


def parse(text: str) -> Receipt:
    """A receipt from its text (spaces and line breaks inside are ignored: a mail may
    wrap it); :class:`ReceiptError` says what is wrong."""
    if not isinstance(text, str) or len(text) > TEXT_MAX:
        raise ReceiptError("this is not a receipt (too long)")
    compact = "".join(text.split())
    if not compact.startswith(PREFIX):
        raise ReceiptError(f"a receipt begins with {PREFIX!r}")
    body, dot, signature = compact[len(PREFIX) :].partition(".")
    try:
        payload, signed = unb64url(body), unb64url(signature)
        claims = bounded_loads(payload.decode("utf-8"))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ReceiptError("the receipt is damaged (not readable base64url JSON)") from None
    if not dot or len(signed) != 64:
        raise ReceiptError("the receipt's signature is missing or cut short")
    if not isinstance(claims, dict) or sorted(claims) != list(FIELDS):
        raise ReceiptError(f"a receipt holds exactly the fields {', '.join(FIELDS)}")
    seq = claims["seq"]
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ReceiptError("the receipt's seq is not a whole number")
    for name in ("server", "game", "head", "time", "key"):
        if not isinstance(claims[name], str):
            raise ReceiptError(f"the receipt's {name} is not text")
    if not (len(claims["head"]) == 64 and HEX.fullmatch(claims["head"])):
        raise ReceiptError("the receipt's head is not a sha256 hash")
    if not (len(claims["key"]) == 16 and HEX.fullmatch(claims["key"])):
        raise ReceiptError("the receipt's key is not a key id")
    if not TIME.fullmatch(claims["time"]):
        raise ReceiptError("the receipt's time is not an ISO UTC time")
    receipt = Receipt(**claims, signature=signed)
    if receipt.payload() != payload:
        raise ReceiptError("the receipt's JSON is not in its canonical form")
    return receipt


def find(text: str) -> list[str]:
    """Every receipt in a text (a file of receipts, a saved mail)."""
    return FOUND.findall(text)


# Keys held by a verifier ---------------------------------------------------------------


def read_keys(data: bytes) -> dict[str, PublicKey]:
    """Public keys from a PEM public key, or from a keys document as the server
    publishes it (``/.well-known/pbem-keys.json``), by id. A listed key whose id is not
    its own is refused: the id is what a receipt names."""
    text = data.decode("utf-8", "replace").strip()
    if text.startswith("-----BEGIN"):
        if "PRIVATE KEY" in text.split("\n", 1)[0]:
            raise ReceiptError("this is a private key; give the public key (or the keys JSON)")
        try:
            public = serialization.load_pem_public_key(data)
        except ValueError:
            raise ReceiptError("the PEM file holds no readable public key") from None
        if not isinstance(public, Ed25519PublicKey):
            raise ReceiptError("the PEM file holds a key that is not Ed25519")
        return {key_id(public): PublicKey(key_id(public), public)}
    try:
        document = bounded_loads(text)
        entries = document["keys"]
    except (ValueError, TypeError, KeyError):
        raise ReceiptError(
            "the key file is neither a PEM public key nor a keys JSON document"
        ) from None
    found: dict[str, PublicKey] = {}
    for entry in entries if isinstance(entries, list) else []:
        try:
            public = Ed25519PublicKey.from_public_bytes(unb64url(entry["public_key"]))
        except (ValueError, TypeError, KeyError):
            raise ReceiptError("a key in the keys JSON is not a readable Ed25519 key") from None
        if entry.get("id") != key_id(public):
            raise ReceiptError(f"the keys JSON lists key {entry.get('id')!r} under another id")
        retired = entry.get("retired")
        found[entry["id"]] = PublicKey(
            entry["id"], public, entry.get("created"), retired if isinstance(retired, str) else None
        )
    if not found:
        raise ReceiptError("the keys JSON lists no key")
    return found


# Checking a receipt against a log ------------------------------------------------------

OK = "ok"
MALFORMED = "malformed receipt"
UNKNOWN_KEY = "unknown key"
BAD_SIGNATURE = "bad signature"
KEY_RETIRED = "signed after its key was retired"
OTHER_GAME = "receipt's game differs"
SEQ_MISSING = "history cut (seq missing)"
HEAD_DIFFERS = "history rewritten (head differs at seq)"


@dataclass(frozen=True)
class Verdict:
    outcome: str
    message: str
    receipt: Receipt | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == OK

    def line(self) -> str:
        return f"OK: {self.message}" if self.ok else f"FAILED, {self.outcome}: {self.message}"


def check_signature(text: str, keys: Mapping[str, PublicKey]) -> Verdict:
    """Whether ``text`` is a receipt signed by one of ``keys`` while that key was current."""
    try:
        receipt = parse(text)
    except ReceiptError as error:
        return Verdict(MALFORMED, str(error))
    key = keys.get(receipt.key)
    if key is None:
        known = ", ".join(sorted(keys)) or "none"
        return Verdict(
            UNKNOWN_KEY,
            f"the receipt is signed by key {receipt.key}, which the keys given do not hold "
            f"(they hold {known}); fetch the server's keys JSON again",
            receipt,
        )
    try:
        key.key.verify(receipt.signature, receipt.payload())
    except InvalidSignature:
        return Verdict(
            BAD_SIGNATURE,
            f"the signature does not match the receipt's content under key {key.id}: "
            "it was changed (its game, seq, head or time) or never signed by that key",
            receipt,
        )
    if key.retired is not None and receipt.time > key.retired:
        return Verdict(
            KEY_RETIRED,
            f"the receipt is dated {receipt.time}, after key {key.id} was retired "
            f"({key.retired}); that key's private half is no longer kept",
            receipt,
        )
    return Verdict(OK, f"signed by key {key.id} at {receipt.time}", receipt)


def check(text: str, keys: Mapping[str, PublicKey], game_id: Any, rows: Sequence[Any]) -> Verdict:
    """A receipt against an exported log (full or one seat's: both carry every event's
    seq and hash): signature, game, and that the log holds the receipted head."""
    signed = check_signature(text, keys)
    if not signed.ok:
        return signed
    receipt = signed.receipt
    assert receipt is not None
    where = f"{receipt.server}, game {receipt.game}, event {receipt.seq}"
    if receipt.game != game_id:
        return Verdict(
            OTHER_GAME,
            f"the receipt is for game {receipt.game}; this log is of game {game_id}",
            receipt,
        )
    hashes = {
        row["seq"]: row.get("hash")
        for row in rows
        if isinstance(row, Mapping) and isinstance(row.get("seq"), int) and "hash" in row
    }
    if receipt.seq not in hashes:
        last = max(hashes) if hashes else None
        return Verdict(
            SEQ_MISSING,
            f"the receipt ({where}, signed {receipt.time}) names event {receipt.seq}, but this "
            f"log ends at event {last}: history was cut after the receipt was given",
            receipt,
        )
    if hashes[receipt.seq] != receipt.head:
        return Verdict(
            HEAD_DIFFERS,
            f"at event {receipt.seq} this log's hash is {str(hashes[receipt.seq])[:16]}..., "
            f"but the server signed {receipt.head[:16]}... at {receipt.time}: the history up "
            "to that event was rewritten after the receipt was given",
            receipt,
        )
    later = max(hashes) - receipt.seq
    after = f"; {later} event{'s' if later != 1 else ''} came after it" if later else ""
    return Verdict(
        OK,
        f"{where}: the log holds the head the server signed at {receipt.time} "
        f"(key {receipt.key}){after}",
        receipt,
    )
