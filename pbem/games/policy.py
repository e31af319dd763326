"""A game's deadline policy: reminders, the deadline and what happens at it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pbem.errors import BadInput

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


def check_policy(policy: Mapping[str, Any] | None) -> dict[str, Any]:
    """A deadline policy with defaults filled in; :class:`BadInput` for a bad value."""
    merged = dict(DEFAULT_POLICY)
    for key, value in dict(policy or {}).items():
        if key not in DEFAULT_POLICY:
            raise BadInput(f"Unknown deadline setting {key!r}.")
        merged[key] = value
    for key in ("reminder_after_hours", "reminder_every_hours", "deadline_after_days"):
        try:
            merged[key] = float(merged[key])
        except (TypeError, ValueError):
            raise BadInput(f"The deadline setting {key!r} must be a number.") from None
        if not math.isfinite(merged[key]) or not 0 <= merged[key] <= POLICY_LIMITS[key]:
            raise BadInput(
                f"The deadline setting {key!r} must be a number from 0 to {POLICY_LIMITS[key]}."
            )
        if merged[key] == int(merged[key]):
            merged[key] = int(merged[key])
    if merged["at_deadline"] not in AT_DEADLINE:
        raise BadInput("At the deadline: choose wait, bot_turn, bot_seat or replace.")
    return merged
