"""A game's deadline policy: reminders, the deadline and what happens at it.

:func:`check_policy` is the one place a policy is checked, whichever road it comes by
(lobby, JSON API, game settings page, ``pbem new``, ``pbem game policy``, imports). Each
setting is 0 (off: no reminder, no further reminders, no deadline) or lies between its
floor (:data:`POLICY_FLOORS`, so that nobody can make a turn due, or mail a player,
within minutes) and its ceiling (:data:`POLICY_LIMITS`, so that every date stays finite).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from engines.text import Text
from pbem.errors import BadInput
from pbem.i18n import T

DEFAULT_POLICY = {
    "reminder_after_hours": 24,
    "reminder_every_hours": 24,
    "deadline_after_days": 7,
    "at_deadline": "wait",
}
AT_DEADLINE = ("wait", "bot_turn", "bot_seat", "replace")
# The largest values a deadline policy may hold (a year), so that every date stays finite.
POLICY_LIMITS = {
    "reminder_after_hours": 24 * 365,
    "reminder_every_hours": 24 * 365,
    "deadline_after_days": 365,
}
# The smallest values other than 0 (off): the first reminder no sooner than 1 hour into
# a turn, reminders at most every 4 hours, a deadline no shorter than 1 hour.
POLICY_FLOORS = {
    "reminder_after_hours": 1,
    "reminder_every_hours": 4,
    "deadline_after_days": 1 / 24,
}
# How each setting reads in a refusal: what it is, its floor and its ceiling in words.
_WORDS = {
    "reminder_after_hours": (
        "The first reminder (reminder_after_hours)",
        "0 (no reminders) or from 1 hour",
        f"{24 * 365} hours (a year)",
    ),
    "reminder_every_hours": (
        "The time between reminders (reminder_every_hours)",
        "0 (one reminder only) or from 4 hours",
        f"{24 * 365} hours (a year)",
    ),
    "deadline_after_days": (
        "The deadline (deadline_after_days)",
        "0 (no deadline) or from 1 hour (1/24 day, about 0.0417)",
        "365 days",
    ),
}


def _setting(key: str, value: Any) -> int | float:
    """One numeric setting, checked against its floor and ceiling."""
    if isinstance(value, bool):
        raise BadInput(_not_a_number(key))
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise BadInput(_not_a_number(key)) from None
    if (
        not math.isfinite(number)
        or number < 0
        or number > POLICY_LIMITS[key]
        or 0 < number < POLICY_FLOORS[key] - 1e-9
    ):
        raise BadInput(_out_of_range(key, repr(str(value)[:40])))
    if number == 0:
        return 0
    number = max(number, POLICY_FLOORS[key])
    return int(number) if number == int(number) else number


def _not_a_number(key: str) -> Text:
    """The refusal of a setting that is not a number, whole in each language."""
    return {
        "reminder_after_hours": T("The first reminder (reminder_after_hours) must be a number."),
        "reminder_every_hours": T(
            "The time between reminders (reminder_every_hours) must be a number."
        ),
        "deadline_after_days": T("The deadline (deadline_after_days) must be a number."),
    }[key]


def _out_of_range(key: str, given: str) -> Text:
    """The refusal of a setting out of its range, naming its floor and ceiling."""
    return {
        "reminder_after_hours": T(
            "The first reminder (reminder_after_hours) must be 0 (no reminders) or from 1 "
            "hour up to %(most)d hours (a year); %(given)s is not.",
            most=24 * 365,
            given=given,
        ),
        "reminder_every_hours": T(
            "The time between reminders (reminder_every_hours) must be 0 (one reminder "
            "only) or from 4 hours up to %(most)d hours (a year); %(given)s is not.",
            most=24 * 365,
            given=given,
        ),
        "deadline_after_days": T(
            "The deadline (deadline_after_days) must be 0 (no deadline) or from 1 hour "
            "(1/24 day, about 0.0417) up to 365 days; %(given)s is not.",
            given=given,
        ),
    }[key]


def check_policy(policy: Mapping[str, Any] | None) -> dict[str, Any]:
    """A deadline policy with defaults filled in; :class:`BadInput` for a bad value (an
    unknown setting, not a number, NaN or infinite, negative, above its ceiling, or
    between 0 and its floor), with a sentence naming the floor."""
    merged = dict(DEFAULT_POLICY)
    for key, value in dict(policy or {}).items():
        if key not in DEFAULT_POLICY:
            raise BadInput(T("Unknown deadline setting %(key)s.", key=repr(str(key)[:40])))
        merged[key] = value
    for key in POLICY_FLOORS:
        merged[key] = _setting(key, merged[key])
    if merged["at_deadline"] not in AT_DEADLINE:
        raise BadInput(T("At the deadline: choose wait, bot_turn, bot_seat or replace."))
    return merged
