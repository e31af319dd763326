"""The card data: 82 cards with stable ids, copied faithfully from the design data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.api import Engine
from engines.mercatores import ENGINE
from engines.mercatores.data import CARDS, GOODS, GOODS_OF, SPECIALS

DESIGN = Path(__file__).resolve().parents[4] / "shared" / "rules" / "data" / "mercatores.json"


def test_engine_offers_the_whole_protocol():
    assert isinstance(ENGINE, Engine)
    assert (ENGINE.slug, ENGINE.version, ENGINE.min_seats, ENGINE.max_seats) == (
        "mercatores",
        2,
        2,
        4,
    )
    assert ENGINE.versions == (1, 2) and ENGINE.bot_levels == ("easy", "normal", "hard")
    assert ENGINE.slow_bot_levels == ("hard",)
    assert ENGINE.at_version(1).version == 1 and ENGINE.at_version(2) is ENGINE
    assert [option.name for option in ENGINE.at_version(1).options] == ["end_cards"]


def test_eighty_two_cards_with_stable_ids():
    assert len(CARDS) == 82 and len(GOODS_OF) == 60
    assert [card for card in CARDS if card.startswith("tobacco")][6] == "tobacco-07"
    assert CARDS["q3"]["arrows"] == ("self", "right")
    kinds = [CARDS[card]["kind"] for card in CARDS if card not in GOODS_OF]
    assert (kinds.count("warehouse"), kinds.count("quay"), kinds.count("trade_route")) == (6, 6, 10)


@pytest.mark.skipif(not DESIGN.exists(), reason="the shared design data is not checked out")
def test_cards_match_the_design_data():
    design = json.loads(DESIGN.read_text())
    for ours, theirs in zip(GOODS, design["goods"], strict=True):
        assert ours["id"] == theirs["id"] and ours["count"] == theirs["count"]
        assert list(ours["ships"]) == theirs["ships"]
        assert [list(row) for row in ours["table"]] == theirs["table"]
    for ours, theirs in zip(SPECIALS, design["specials"], strict=True):
        assert ours["id"] == theirs["id"] and ours["kind"] == theirs["kind"]
        assert list(ours.get("arrows", ())) == theirs.get("arrows", [])
        assert ours.get("goods") == theirs.get("goods")
        assert [list(row) for row in ours["table"]] == theirs["table"]
