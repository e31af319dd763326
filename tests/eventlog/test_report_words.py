"""A verification's summary counts in words a sentence reads: "1 draw", "2 draws"."""

from __future__ import annotations

from pbem.eventlog.verify import _counted


def test_one_is_singular_and_others_are_plural():
    assert _counted(1, "draw") == "1 draw"
    assert _counted(0, "draw") == "0 draws"
    assert _counted(2, "event") == "2 events"
