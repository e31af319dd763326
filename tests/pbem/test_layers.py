"""The parts of pbem import one another in layers, never in a circle.

A part is a direct child of ``pbem/``: a subpackage (``games``, ``mail``, ``web``,
``eventlog``) or a module (``db``, ``cli``). Every import counts: those inside functions,
those under ``TYPE_CHECKING`` and relative ones. A circle between parts is reported as
its strongly connected component, with the file and line of every import inside it.
"""

import ast
import collections
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pbem"

# The parts from the bottom up: each may import only the parts before it.
LAYERS = (
    # leaves
    "errors",
    "bounds",
    "i18n",
    "validate",
    "zones",
    "words",
    "seal",
    "locations",
    "links",
    # the server
    "config",
    "logs",
    "receipts",
    "models",
    "db",
    "eventlog",
    "games",
    "mail",
    "channels",
    "scheduler",
    "migrations",
    "runtime",
    "web",
    "demo",
    "bench_game",
    "bench",
    "bench_scale",
    "cli",
    "alembic",
)


def _parts(package: Path = PACKAGE) -> set[str]:
    return {
        child.stem
        for child in package.iterdir()
        if (child.is_dir() and (child / "__init__.py").exists())
        or (child.suffix == ".py" and child.stem != "__init__")
    }


def _module_name(path: Path, package: Path) -> str:
    bits = list(path.relative_to(package.parent).with_suffix("").parts)
    if bits[-1] == "__init__":
        bits.pop()
    return ".".join(bits)


def _imported(path: Path, package: Path) -> Iterator[tuple[str, int]]:
    """Each module a file imports (and each name it imports from one), with its line."""
    module = _module_name(path, package)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source, node.lineno
            for alias in node.names:
                yield f"{source}.{alias.name}", node.lineno


def _part_of(module: str) -> str | None:
    bits = module.split(".")
    return bits[1] if bits[0] == "pbem" and len(bits) > 1 else None


def import_edges(package: Path = PACKAGE) -> dict[tuple[str, str], set[str]]:
    """(importing part, imported part) -> the ``file:line`` places of those imports."""
    parts = _parts(package)
    edges: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    for path in sorted(package.rglob("*.py")):
        source = _part_of(_module_name(path, package))
        if source is None:
            continue
        for target, line in _imported(path, package):
            part = _part_of(target)
            if part in parts and part != source:
                place = f"{path.relative_to(package.parent)}:{line}"
                edges[source, part].add(place)
    return edges


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's components of more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _graph(edges: dict[tuple[str, str], set[str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = collections.defaultdict(set)
    for source, target in edges:
        graph[source].add(target)
    return graph


def test_the_finder_sees_a_circle():
    graph = {"games": {"mail", "db"}, "mail": {"games"}, "db": set(), "web": {"mail"}}
    assert strongly_connected(graph) == [{"games", "mail"}]
    graph["db"] = {"web"}
    assert strongly_connected(graph) == [{"games", "mail", "db", "web"}]


def test_the_edges_count_imports_inside_functions_and_relative_ones(tmp_path):
    package = tmp_path / "pbem"
    (package / "games").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "games" / "__init__.py").write_text("")
    (package / "games" / "rules.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ..mail import outbox\n"
    )
    (package / "mail.py").write_text("def send():\n    from pbem.games import rules\n")
    (package / "db.py").write_text("from . import mail\n")
    edges = import_edges(package)
    assert edges == {
        ("games", "mail"): {"pbem/games/rules.py:4"},
        ("mail", "games"): {"pbem/mail.py:2"},
        ("db", "mail"): {"pbem/db.py:1"},
    }
    assert strongly_connected(_graph(edges)) == [{"games", "mail"}]
    assert ("cli", "config") in import_edges()


def test_no_two_parts_import_each_other():
    edges = import_edges()
    report = []
    for component in strongly_connected(_graph(edges)):
        report.append(f"circle: {' '.join(sorted(component))}")
        for (source, target), places in sorted(edges.items()):
            if source in component and target in component:
                report += [f"  {place} ({source} -> {target})" for place in sorted(places)]
    assert not report, "\n".join(report)


def _imports_of(part: str, forbidden: set[str]) -> list[str]:
    return sorted(
        f"{place} ({part} -> {target})"
        for (source, target), places in import_edges().items()
        if source == part and target in forbidden
        for place in places
    )


def test_each_part_imports_only_parts_below_it():
    edges = import_edges()
    unplaced = sorted(_parts() - set(LAYERS))
    assert not unplaced, f"parts of pbem with no place in LAYERS: {unplaced}"
    upward = sorted(
        f"{place} ({source} -> {target})"
        for (source, target), places in edges.items()
        if LAYERS.index(target) > LAYERS.index(source)
        for place in places
    )
    assert upward == []


def test_eventlog_imports_nothing_above_it():
    above = {"games", "mail", "web", "scheduler", "runtime", "cli"}
    assert _imports_of("eventlog", above) == []


def test_db_does_not_import_migrations():
    assert _imports_of("db", {"migrations"}) == []
