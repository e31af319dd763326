"""Rendering mails from ``templates/email/<kind>.txt`` + ``.html``, and the links they carry.

A seat's play link needs its token, which the seats table keeps only as a hash; the
outbox keeps the token sealed with the server's key (:func:`seal`) in ``seat_links``.
A stored mail keeps its links sealed too (:func:`seal_links`); they are opened only
when the mail is sent (:func:`open_links`).
The notification settings link is signed with the seat's current token hash, so it
stops working when the seat's link is replaced.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from typing import TYPE_CHECKING, Any

from pbem import i18n
from pbem import seal as sealing
from pbem.i18n import N_
from pbem.links import base_url
from pbem.locations import data_dir
from pbem.words import join_names, sentence

if TYPE_CHECKING:
    from jinja2 import Environment

TEMPLATES = data_dir("templates") / "email"

# A subject marked N_ is written in the reader's language (render's ``language``).
SUBJECTS = {
    "invitation": N_("{title}: you are invited to play"),
    "your_turn": N_("{title}: your turn"),
    "reminder": N_("{title}: reminder, it is still your turn"),
    "deadline": N_("{title}: the deadline has passed"),
    "game_over": N_("{title}: the game is over"),
    "digest": N_("Your games waiting for you ({count})"),
    "notice": N_("{title}: {headline}"),
    "seat_link": N_("{title}: your link to the game"),
    "answer": N_("{title}: {headline}"),
    "answer_stranger": N_("Your mail was not applied"),
    "answer_gone": N_("Your mail was not applied: that game is not here any more"),
    "games_link": N_("Your games: a new link"),
    "talk": N_("{title}: {sender_name} said to the table"),
    "talk_digest": N_("Table talk in your games"),
    "open": "{subject}",
    "follow_confirm": N_("{title}: confirm that you follow this game"),
    "follow_turn": N_("{title}: {whose} to play"),
    "follow_result": N_("{title}: the game is over"),
}
# The subject of a private note of table talk (a ``talk`` mail with ``private``).
PRIVATE_TALK = N_("{title}: {sender_name} wrote to you privately")

# Keys a template may read that not every caller sets (every other key a template
# names must be in its context: the environment's undefined is strict).
OPTIONAL = {
    "game_name": "",
    "game_page": "",
    "link": "",
    "settings": "",
    "lines": [],
    "others": [],
    "players": [],
    "commitment": "",
    # The signed receipt of the head (pbem.receipts; set by the outbox).
    "receipt": "",
    "deadline": "",
    "policy": {},
    "newcomer": False,
    "former": False,
    # Replies by mail (pbem.mail.inbound): the moves with their codes, written forms.
    "move_groups": [],
    "written": [],
    "move_count": 0,
    "bouncing": [],
    # The footer's link to the recipient's games (pbem.mail.games_link; set by the outbox).
    "my_games": "",
    # Table talk in the daily digest (pbem.games.talk.digest_entries).
    "talk": [],
    # Open games and mail commands (open.txt).
    "links": [],
    # The reader's language (pbem.i18n.LANGUAGES; a seat's, from seat_mails.seat_context).
    "language": i18n.DEFAULT,
}

_environment: Environment | None = None


def environment() -> Environment:
    """The mail templates' Jinja2 environment, made on first use (a process that only
    records mails, as ``pbem receive`` does, never loads Jinja2)."""
    global _environment
    if _environment is None:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

        _environment = Environment(
            loader=FileSystemLoader(str(TEMPLATES)),
            autoescape=select_autoescape(enabled_extensions=("html",), default=False),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=["jinja2.ext.i18n"],
            # An engine's words (a move's label, a history line) in the reader's language.
            finalize=i18n.localize,
        )
        # _() and {% trans %} in the language being spoken (i18n.speaking, see render).
        _environment.policies["ext.i18n.trimmed"] = True
        _environment.install_gettext_callables(  # type: ignore[attr-defined]
            gettext=lambda message: i18n.translation(i18n.spoken()).gettext(message),
            ngettext=lambda singular, plural, number: i18n.translation(i18n.spoken()).ngettext(
                singular, plural, number
            ),
            newstyle=True,
        )
        i18n.localize_template_parameters(_environment)
        _environment.filters.update(
            sentence=sentence,
            names=names,
            policy_words=policy_words,
            at_your_deadline=at_your_deadline,
            localized=i18n.localize,
        )
    return _environment


def render(kind: str, context: dict[str, Any]) -> tuple[str, str, str]:
    """The subject, text part and HTML part of a mail of ``kind``, in the context's
    ``language``."""
    context = {**OPTIONAL, **context}
    with i18n.speaking(context["language"]):
        if kind == "notice" and context.get("headline"):
            # A notice's headline is a phrase of the catalogues (pbem.games.admin_lines).
            context["headline"] = i18n.gettext(context["headline"])
        text = environment().get_template(f"{kind}.txt").render(**context)
        html = environment().get_template(f"{kind}.html").render(**context)
    return subject(kind, context), text, html


def subject(kind: str, context: dict[str, Any]) -> str:
    """The subject of a mail of ``kind``, in the context's ``language`` (English without)."""
    with i18n.speaking(context.get("language")):
        chosen = PRIVATE_TALK if kind == "talk" and context.get("private") else SUBJECTS[kind]
        return (i18n.gettext(chosen) if chosen != "{subject}" else chosen).format(**context)[:300]


# Words -------------------------------------------------------------------------------


def names(items: Any) -> str:
    """A list of names in prose: "Ben", "Ben and Cleo", "Ben, Cleo and Dan (a bot)", in
    the spoken language. An item is a name or a mapping with ``name`` and ``bot``."""
    shown = [
        (
            i18n.gettext("%(name)s (a bot)", name=item["name"])
            if item.get("bot")
            else str(item["name"])
        )
        if isinstance(item, dict)
        else str(item)
        for item in items or []
    ]
    return join_names(shown, i18n.spoken())


def _hours(value: Any) -> str:
    """A number of hours in the spoken language: "1 hour", "1.5 hours", "1,5 Stunden"."""
    number = float(value)
    return i18n.ngettext("%(num)s hour", "%(num)s hours", _form(number), num=_number(number))


def _days(value: Any) -> str:
    number = float(value)
    return i18n.ngettext("%(num)s day", "%(num)s days", _form(number), num=_number(number))


def _form(number: float) -> int:
    """The count whose plural form a number takes (a fraction takes that of 2)."""
    return int(number) if number.is_integer() else 2


def _number(number: float) -> str:
    if i18n.spoken() == i18n.DEFAULT:
        return f"{number:g}"
    from babel.numbers import format_decimal

    return format_decimal(number, locale=i18n.spoken())


AT_DEADLINE_WORDS = {
    "wait": N_("At the deadline the game waits for the late player, and reminders go on."),
    "bot_turn": N_(
        "At the deadline a bot plays that one turn for the late player, who keeps "
        "the seat and plays the next turn as usual."
    ),
    "bot_seat": N_(
        "At the deadline a bot takes over the late player's seat, until they take "
        "it back from their link."
    ),
    "replace": N_(
        "At the deadline the late player's seat is offered to a new player, and "
        "their link stops working."
    ),
}


YOUR_DEADLINE_WORDS = {
    "wait": N_("At the deadline the game waits for you, and reminders go on."),
    "bot_turn": N_(
        "At the deadline a bot plays this one turn for you; you keep your seat and "
        "play your next turn as usual."
    ),
    "bot_seat": N_(
        "At the deadline a bot takes over your seat, until you take it back from your link."
    ),
    "replace": N_(
        "At the deadline your seat is offered to a new player, and your link stops working."
    ),
}


DEADLINE_OUTCOMES = {
    "wait": (
        N_("The game waits for you; reminders go on."),
        N_("The game waits for %(name)s; reminders go on."),
    ),
    "bot_turn": (
        N_(
            "A bot plays this one turn for you. Your seat is still yours: your next turn "
            "comes by mail as usual, and you play it from your link."
        ),
        N_(
            "A bot plays this one turn for %(name)s. %(name)s keeps the seat and plays the "
            "next turn as usual."
        ),
    ),
    "bot_seat": (
        N_("A bot takes over your seat; you can take it back from your link at any time."),
        N_(
            "A bot takes over %(name)s's seat; %(name)s can take it back from their link at "
            "any time."
        ),
    ),
    "replace": (
        N_("Your seat is open for a new player on the game's page; your old link no longer works."),
        N_(
            "%(name)s's seat is open for a new player on the game's page; the old link no "
            "longer works."
        ),
    ),
}


def deadline_outcome(policy: str, late_name: str, mine: bool) -> str:
    """What happens now that ``late_name``'s deadline passed under the ``at_deadline``
    policy, told to the late player (``mine``) or to another player, in the spoken
    language."""
    to_late, to_others = DEADLINE_OUTCOMES[policy]
    return i18n.gettext(to_late) if mine else i18n.gettext(to_others, name=late_name)


def at_your_deadline(policy: Any) -> str:
    """What happens at the reader's own deadline under ``policy``, in a sentence (in the
    spoken language)."""
    words = YOUR_DEADLINE_WORDS.get(dict(policy or {}).get("at_deadline", ""), "")
    return i18n.gettext(words) if words else ""


def policy_words(policy: Any) -> list[str]:
    """A game's deadline policy in sentences, for invitations (in the spoken language)."""
    policy = dict(policy or {})
    first = float(policy.get("reminder_after_hours", 0) or 0)
    every = float(policy.get("reminder_every_hours", 0) or 0)
    days = float(policy.get("deadline_after_days", 0) or 0)
    words = []
    if first > 0 and every > 0:
        words.append(
            i18n.gettext(
                "A reminder comes %(first)s into a turn, then every %(every)s.",
                first=_hours(first),
                every=_hours(every),
            )
        )
    elif first > 0:
        words.append(i18n.gettext("A reminder comes %(first)s into a turn.", first=_hours(first)))
    else:
        words.append(i18n.gettext("No reminders are sent."))
    if days > 0:
        words.append(
            i18n.gettext("Each turn has a deadline %(days)s after it begins.", days=_days(days))
        )
        at_deadline = AT_DEADLINE_WORDS.get(policy.get("at_deadline", "wait"), "")
        words.append(i18n.gettext(at_deadline) if at_deadline else "")
    else:
        words.append(i18n.gettext("Turns have no deadline."))
    return [word for word in words if word]


def engine_title(slug: str) -> str:
    """The name of the game an engine plays (its ``title``), or its slug if unknown."""
    from engines import get_engine

    try:
        return get_engine(slug).title
    except KeyError:
        return slug


# Links -----------------------------------------------------------------------------


def settings_signature(key: str, game_id: str, seat: int, token_hash: str) -> str:
    message = f"notify:{game_id}:{seat}:{token_hash}".encode()
    digest = hmac.new(key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def settings_url(config: dict, key: str, game_id: str, seat: int, token_hash: str) -> str:
    signature = settings_signature(key, game_id, seat, token_hash)
    return f"{base_url(config)}/mail/settings/{game_id}/{seat}/{signature}"


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = []
    for counter in range((length + 31) // 32):
        blocks.append(hmac.new(key, nonce + counter.to_bytes(4, "big"), hashlib.sha256).digest())
    return b"".join(blocks)[:length]


def seal(secret_key: str, token: str) -> str:
    """``token`` encrypted and authenticated with a key derived from the server's key."""
    return sealing.seal(secret_key, "seat-link", token.encode())


def unseal(secret_key: str, sealed: str) -> str | None:
    """The token :func:`seal` sealed, or ``None`` if the seal was made with another key.

    Seals written before AES-GCM (an HMAC keystream, no prefix) are still read."""
    if sealing.is_sealed(sealed):
        plain = sealing.unseal(secret_key, "seat-link", sealed)
        return None if plain is None else plain.decode()
    key = hmac.new(secret_key.encode(), b"seat-link-seal", hashlib.sha256).digest()
    raw = base64.urlsafe_b64decode(sealed.encode())
    nonce, cipher, tag = raw[:16], raw[16:-16], raw[-16:]
    if not hmac.compare_digest(tag, hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:16]):
        return None
    stream = _keystream(key, nonce, len(cipher))
    return bytes(a ^ b for a, b in zip(cipher, stream, strict=True)).decode()


# Links inside stored mail ----------------------------------------------------------

SECRET_SEGMENT = re.compile(r"(?<=/)[A-Za-z0-9_-]{20,}")
SEALED_LINK = re.compile(r"\{sealed:(g1\.[A-Za-z0-9_-]+)\}")


class UnsealError(ValueError):
    """A sealed link in a stored mail that this server's key does not open."""


def seal_links(config: dict, secret_key: str, text: str) -> str:
    """``text`` with every secret in a link to this server sealed, so the stored mail
    opens nothing: each path segment of 20 or more URL-safe characters (a seat's token,
    a settings signature; game ids are shorter). :func:`open_links` puts them back
    when the mail is sent."""
    base = base_url(config)
    url = re.compile(re.escape(base) + r"/[A-Za-z0-9_./~-]*")

    def sealed(match: re.Match) -> str:
        secret = sealing.seal(secret_key, "mail-link", match[0].encode())
        return f"{{sealed:{secret}}}"

    return url.sub(lambda match: base + SECRET_SEGMENT.sub(sealed, match[0][len(base) :]), text)


def open_links(secret_key: str, text: str) -> str:
    """``text`` with the links :func:`seal_links` sealed opened again."""

    def opened(match: re.Match) -> str:
        plain = sealing.unseal(secret_key, "mail-link", match[1])
        if plain is None:
            raise UnsealError("a link in this mail was sealed with another server key")
        return plain.decode()

    return SEALED_LINK.sub(opened, text)


def domain(sender: str) -> str:
    """The domain of the sender address, for Message-IDs."""
    address = sender.rsplit("<", 1)[-1].rstrip(">").strip()
    return address.rsplit("@", 1)[-1] or "localhost"
