"""What a title brings from its own folder: templates, static files and board layout.

Everything particular to one title lives under ``engines/<slug>/`` and is found through
its engine object (the optional members documented in :mod:`engines.api`):

- ``templates_folder``: the title's Jinja templates, loaded under the name
  ``<slug>/<file>`` (``<slug>/_board.html``, ``<slug>/_compose.html``,
  ``<slug>/rules.html``); they may use every shared template (``_map.html``,
  ``rules_layout.html``).
- ``static_folder``: files served at ``/titles/<slug>/static/<path>`` (maps, CSS).
- ``board_layout(view, players, changed)``: the shapes its board template draws, and
  ``changed_places(old_view, new_view)``: the places it highlights.

A title without them gets the generic board (the view's public fields, readably) and no
composer; the server names no title anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, abort, request, send_from_directory, url_for
from jinja2 import BaseLoader, ChoiceLoader, Environment, FileSystemLoader, TemplateNotFound
from werkzeug.security import safe_join

from engines import REGISTRY
from pbem.web.assets import YEAR, version_of

bp = Blueprint("titles", __name__, url_prefix="/titles")

GENERIC_BOARD = "_board_generic.html"


def _folder(slug: str, member: str) -> Path | None:
    engine = REGISTRY.get(slug) if isinstance(slug, str) else None
    folder = getattr(engine, member, None) if engine is not None else None
    return Path(folder) if folder else None


class TitleLoader(BaseLoader):
    """Loads ``<slug>/<file>`` from the ``templates_folder`` of the title ``slug`` (asked of
    the registry at each load, so a title registered later is found too)."""

    def get_source(self, environment: Environment, template: str):
        slug, _, name = template.partition("/")
        folder = _folder(slug, "templates_folder")
        if folder is None or not name:
            raise TemplateNotFound(template)
        return FileSystemLoader(str(folder)).get_source(environment, name)


def title_template(slug: str, name: str) -> str | None:
    """The loader name of a title's template ``name`` ("_board.html"), or None when the
    title has no such template."""
    folder = _folder(slug, "templates_folder")
    if folder is None or safe_join(str(folder), name) is None:
        return None
    return f"{slug}/{name}" if (folder / name).is_file() else None


def board_template(slug: str) -> str:
    """The partial that draws this game's board: the title's own, else the generic one."""
    return title_template(slug, "_board.html") or GENERIC_BOARD


def title_static(slug: str, filename: str) -> str:
    """The URL of one of a title's static files, with ``?v=`` its content's version as
    for the shared static files (:mod:`pbem.web.assets`)."""
    folder = _folder(slug, "static_folder")
    version = version_of(str(folder), filename) if folder is not None else ""
    extra = {"v": version} if version else {}
    return url_for("titles.static", slug=slug, filename=filename, **extra)


def layout(
    slug: str,
    view: Mapping[str, Any],
    players: Sequence[Mapping[str, Any]],
    changed: Iterable[str] = (),
) -> dict:
    """The shapes of ``slug``'s board for this view, from its engine's ``board_layout``
    (empty for a title without one); ``changed`` names the places to highlight."""
    engine = REGISTRY.get(slug)
    draw = getattr(engine, "board_layout", None)
    return draw(view, players, changed) if draw is not None else {}


def changed_places(slug: str, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> set[str]:
    """The places of ``slug``'s board that changed between two views of one seat (its
    engine's ``changed_places``; nothing for a title without one or without ``old``)."""
    find = getattr(REGISTRY.get(slug), "changed_places", None)
    return set(find(old, new)) if find is not None and old else set()


def public_fields(view: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A view's fields for the generic board, by readable name: ``players`` (drawn apart)
    left out, names with underscores spelt as words ("to move")."""
    return [
        (str(key).replace("_", " ").capitalize(), value)
        for key, value in view.items()
        if key != "players"
    ]


@bp.get("/<slug>/static/<path:filename>")
def static(slug: str, filename: str):
    """A file of a title's ``static_folder`` (404 for anything outside it); cached for a
    year when asked with its current version, else revalidated."""
    folder = _folder(slug, "static_folder")
    if folder is None or safe_join(str(folder), filename) is None:
        abort(404)
    response = send_from_directory(folder, filename)
    given = request.args.get("v")
    if given and given == version_of(str(folder), filename):
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache"
    return response


def init_app(app: Flask) -> None:
    """Titles' templates after the shared ones; helpers and the static route."""
    app.jinja_loader = ChoiceLoader([FileSystemLoader(str(app.template_folder)), TitleLoader()])
    app.jinja_env.globals["board_layout"] = layout
    app.jinja_env.globals["title_static"] = title_static
    app.jinja_env.globals["title_template"] = title_template
    app.jinja_env.globals["public_fields"] = public_fields
    app.register_blueprint(bp)
