"""Checks for text that enters from outside: titles, names, addresses, game ids.

Every place where a person or a file hands the server a title, a display name, an email
address or a game id (lobby, JSON API, command line, import, rescue forms) passes it
through one of these functions. Each returns the cleaned value or raises
:class:`~pbem.errors.BadInput` with a sentence fit to show the person who typed it.

The rules: no control characters (CR and LF above all, which would let a value break out
of a mail header), no NUL, bounded lengths, and exactly one mail address per seat,
checked with ``email-validator`` (syntax only: no DNS look-up, so it works offline).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from pbem.errors import BadInput
from pbem.i18n import T

TITLE_MAX = 120
NAME_MAX = 60
EMAIL_MAX = 254

GAME_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{3,31}$")


def _has_control(text: str) -> bool:
    return any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in text)


def _refusal(what: str, problem: str, max_len: int) -> str:
    """The sentence refusing a ``what`` (title, name, email address) for ``problem``,
    whole in each language."""
    sentences = {
        "title": {
            "text": T("The title must be text."),
            "control": T("The title may not contain line breaks or control characters."),
            "long": T("The title may be at most %(max_len)s characters long.", max_len=max_len),
            "empty": T("The title may not be empty."),
        },
        "name": {
            "text": T("The name must be text."),
            "control": T("The name may not contain line breaks or control characters."),
            "long": T("The name may be at most %(max_len)s characters long.", max_len=max_len),
            "empty": T("The name may not be empty."),
        },
        "email address": {
            "text": T("The email address must be text."),
            "control": T("The email address may not contain line breaks or control characters."),
            "long": T(
                "The email address may be at most %(max_len)s characters long.", max_len=max_len
            ),
            "empty": T("The email address may not be empty."),
        },
    }
    found = sentences.get(what, {}).get(problem)
    if found is not None:
        return found
    english = {
        "text": "must be text",
        "control": "may not contain line breaks or control characters",
        "long": f"may be at most {max_len} characters long",
        "empty": "may not be empty",
    }
    return f"The {what} {english[problem]}."


def clean_text(value: object, what: str, *, max_len: int, required: bool = False) -> str:
    """``value`` as one line of printable text, trimmed, runs of spaces made one, at
    most ``max_len`` characters."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise BadInput(_refusal(what, "text", max_len))
    text = re.sub(" {2,}", " ", value.strip())
    if _has_control(text):
        raise BadInput(_refusal(what, "control", max_len))
    if len(text) > max_len:
        raise BadInput(_refusal(what, "long", max_len))
    if required and not text:
        raise BadInput(_refusal(what, "empty", max_len))
    return text


def clean_title(value: object) -> str:
    """A game's title (may be empty: the server then names the game by its title)."""
    return clean_text(value, "title", max_len=TITLE_MAX)


def clean_name(value: object, *, required: bool = True) -> str:
    """A player's display name."""
    return clean_text(value, "name", max_len=NAME_MAX, required=required)


def clean_email(value: object) -> str:
    """Exactly one mail address, normalised (domain lower-cased, IDNA where needed)."""
    text = clean_text(value, "email address", max_len=EMAIL_MAX, required=True)
    if any(sep in text for sep in (",", ";", " ", "<", ">")):
        raise BadInput(T("Give exactly one email address, without a name or a list."))
    from email_validator import EmailNotValidError, validate_email  # the lobby's alone

    try:
        checked = validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        raise BadInput(
            T(
                "%(address)s is not an email address we can send to: %(problem)s",
                address=repr(text),
                problem=str(exc),
            )
        ) from None
    return checked.normalized


def name_key(name: str) -> str:
    """What two players' names are compared by: spaces made one, case folded ("ann"
    and " ANN " are one name within a game)."""
    return " ".join((name or "").split()).casefold()


def check_unique_names(names: Sequence[str]) -> None:
    """Refuses (:class:`BadInput`, naming it) a name two seats of one game share."""
    seen: set[str] = set()
    for name in names:
        key = name_key(name)
        if key in seen:
            raise BadInput(
                T(
                    "Two seats are called %(name)s; give each player a different name "
                    "(names differing only in case count as the same).",
                    name=repr(name),
                )
            )
        seen.add(key)


def check_name_free(name: str, others: Iterable[str]) -> None:
    """Refuses (:class:`BadInput`) a newcomer's ``name`` that another seat's player
    (``others``) already bears."""
    if any(name_key(name) == name_key(other) for other in others):
        raise BadInput(
            T(
                "A player of this game is called %(name)s already; choose another name.",
                name=repr(name),
            )
        )


def canonical_address(address: str) -> str:
    """The person behind ``address``, for every "one seat per person" rule and every
    per-address limit, never for delivery: the whole address lower-cased, and the local
    part cut at its first ``+`` (``Ann+2@Example.org`` and ``ann@example.org`` are one
    person). Mail still goes to the address as it was given."""
    text = (address or "").strip().lower()
    local, at, domain = text.rpartition("@")
    if not at:
        return text
    local = local.split("+", 1)[0]
    return f"{local}@{domain}"


def same_person(first: str | None, second: str | None) -> bool:
    """Whether two addresses belong to one person (:func:`canonical_address`)."""
    if not first or not second:
        return False
    return canonical_address(first) == canonical_address(second)


def is_game_id(value: object) -> bool:
    """Whether ``value`` has the form of this server's game ids (safe as a file name)."""
    return isinstance(value, str) and GAME_ID_RE.fullmatch(value) is not None
