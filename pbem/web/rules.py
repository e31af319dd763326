"""The rules reference of each title, at ``/rules/<slug>``.

Every number on these pages (profit tables, costs, effects, contracts, set-ups, the map)
comes from the engine's own ``rules_reference()``, which reads the game's data; the
title's page (``engines/<slug>/templates/rules.html``) adds only short explanations. A
title with a reference but no page of its own gets the generic page, which lists the
reference's figures; a title without a reference has no page (404). Pages are public
and the same for everyone.
"""

from __future__ import annotations

from flask import Blueprint, render_template, url_for
from flask_babel import gettext

from engines import REGISTRY
from pbem.errors import NotFound
from pbem.web.titles import title_template

bp = Blueprint("rules", __name__, url_prefix="/rules")


def engine_for(slug: str):
    """The newest engine of a title that has a rules reference; NotFound otherwise."""
    engine = REGISTRY.get(slug)
    if engine is None or not hasattr(engine, "rules_reference"):
        raise NotFound(gettext("There is no rules reference for %(slug)s.", slug=repr(slug)))
    return engine


def rules_link(slug: str) -> str | None:
    """The title's reference page, or None when it has none."""
    engine = REGISTRY.get(slug)
    if engine is None or not hasattr(engine, "rules_reference"):
        return None
    return url_for("rules.reference", slug=slug)


def rule_link(slug: str, kind: str) -> str | None:
    """The section of the title's reference page that explains moves of ``kind``
    (``move["type"]``), by the engine's optional ``rule_anchor``; None when the title has
    no page or names no section for that kind."""
    page = rules_link(slug)
    anchor = getattr(REGISTRY.get(slug), "rule_anchor", None)
    section = anchor(kind) if page and anchor else None
    return f"{page}#{section}" if section else None


@bp.app_context_processor
def rules_links() -> dict:
    """``rules_link(slug)`` and ``rule_link(slug, kind)`` for every template."""
    return {"rules_link": rules_link, "rule_link": rule_link}


def coin_columns(tables: list) -> list[int]:
    """The coin amounts that any of these profit tables pays, smallest first."""
    return sorted({coins for table in tables for _, coins in table})


def step_for(table: list, coins: int) -> int | None:
    """The count a profit table needs to pay ``coins`` (None if it never pays that)."""
    return next((threshold for threshold, paid in table if paid == coins), None)


@bp.get("/<slug>")
def reference(slug: str):
    engine = engine_for(slug)
    options = [option for option in engine.options if getattr(option, "help", "")]
    return render_template(
        title_template(engine.slug, "rules.html") or "rules_generic.html",
        engine=engine,
        ref=engine.rules_reference(),
        options=options,
        coin_columns=coin_columns,
        step_for=step_for,
    )
