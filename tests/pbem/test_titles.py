"""A title is one folder: nothing outside ``engines/<slug>/`` names a title.

The server's code, its shared templates and its static files must not name any title
the registry finds under ``engines/`` (slug, display title, or the slug spelt with
spaces), so that adding a title touches nothing outside its own folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines import REGISTRY, is_listed, listed_engines, scan_titles

ROOT = Path(__file__).resolve().parents[2]
SERVER_FILES = ("pbem", "templates")


def names_of_titles() -> set[str]:
    """Every way a title of ``engines/`` may be named: slug, title, slug with spaces."""
    names: set[str] = set()
    for slug, engine in scan_titles().items():
        names |= {slug.casefold(), slug.replace("_", " ").casefold(), engine.title.casefold()}
    return names


def server_texts():
    for top in SERVER_FILES:
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                yield path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # a binary file (an icon)


def test_no_server_file_names_a_title():
    names = names_of_titles()
    assert names, "the registry found no title under engines/"
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path, text in server_texts()
        for name in sorted(names)
        if name in text.casefold()
    ]
    assert found == []


def test_the_registry_finds_every_title_folder_by_scanning_engines():
    folders = {
        path.name
        for path in (ROOT / "engines").iterdir()
        if (path / "__init__.py").is_file() and "ENGINE" in (path / "__init__.py").read_text()
    }
    assert set(scan_titles()) == folders
    assert set(scan_titles()) <= set(REGISTRY)


def test_the_lobby_lists_every_title_its_engine_does_not_hide():
    assert REGISTRY["pig"].listed is False  # the test fixture hides itself
    assert [engine.slug for engine in listed_engines()] == sorted(
        slug for slug, engine in REGISTRY.items() if is_listed(engine)
    )
    assert "pig" not in [engine.slug for engine in listed_engines()]


@pytest.mark.parametrize("slug", sorted(scan_titles()))
def test_a_titles_folders_exist_where_its_engine_says(slug):
    engine = REGISTRY[slug]
    for member in ("templates_folder", "static_folder"):
        folder = getattr(engine, member, None)
        if folder is not None:
            assert Path(folder).is_dir()
            assert Path(folder).resolve().is_relative_to(ROOT / "engines" / slug)


def test_an_installed_package_offers_a_title_by_its_entry_point(monkeypatch):
    import engines

    class Point:
        name = "drawn_nim"

        def load(self):
            from tests.titles_fixture import DRAWN_NIM

            return DRAWN_NIM

    monkeypatch.setattr(
        engines, "entry_points", lambda group: [Point()] if group == "pbem.titles" else []
    )
    found = engines.installed_titles()
    assert list(found) == ["drawn_nim"] and found["drawn_nim"].title == "Drawn Nim (test title)"
