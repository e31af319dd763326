"""The outbox: mail rows written in the same transaction as the event that caused them."""

from __future__ import annotations

from typing import Any


def install(runtime: Any) -> None:
    """Adds the outbox listener to the runtime's game service."""
