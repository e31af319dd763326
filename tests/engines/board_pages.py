"""A title's board template drawn for one view, as the turn page draws it, without a game
in the database: for the engine tests of what a board says."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from flask import Flask, render_template

from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.databases import sqlite_engine

COLOURS = ("#D55E00", "#0072B2", "#009E73", "#F0E442", "#CC79A7")


@cache
def board_app() -> Flask:
    folder = Path(tempfile.mkdtemp(prefix="boards-"))
    settings = {
        "security": {"secret_key": "test-secret"},
        "paths": {"var": str(folder / "var")},
        "server": {"demo": False, "base_url": "http://localhost"},
    }
    runtime = build_runtime(
        settings, db=sqlite_engine(folder / "boards.sqlite3"), create_schema=False
    )
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    return app


def marks(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The players' marks a board draws (the server's ``players``), named P0, P1, ..."""
    return [
        {
            "seat": seat,
            "name": f"P{seat}",
            "colour": COLOURS[seat],
            "letter": str(player.get("name") or player.get("colour") or "?")[:1],
            "text": "#fff",
            "due": seat in (view.get("to_move") or []),
        }
        for seat, player in enumerate(view.get("players") or [])
    ]


def board_html(slug: str, view: dict[str, Any], changed=()) -> str:
    """``<slug>/_board.html`` for ``view`` (no moves to pick), marking ``changed``."""
    with board_app().test_request_context("/"):
        return render_template(
            f"{slug}/_board.html", view=view, players=marks(view), groups=[], changed=changed
        )
