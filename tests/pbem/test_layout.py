"""The package's layout: every module imports on its own, and the import graph of
module-level imports has no cycles (a cycle dodged by a function-level import shows up
as an import error or a half-initialised module in some import order)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pbem"
# Alembic's environment runs only inside Alembic (it reads alembic's context on import).
SKIPPED = {"pbem.alembic.env"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {
    module_name(path): path
    for path in sorted(PACKAGE.rglob("*.py"))
    if "versions" not in path.parts and module_name(path) not in SKIPPED
}


def in_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_level_imports(tree: ast.Module):
    """The import statements that run when the module is imported (not those inside
    functions or under ``if TYPE_CHECKING``)."""
    pending = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and not in_type_checking(node):
            pending.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            pending.extend(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                pending.extend(handler.body)
        elif isinstance(node, ast.With):
            pending.extend(node.body)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the pbem modules it imports at module level."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        edges = graph.setdefault(name, set())
        for node in module_level_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            edges.update(target for target in targets if target in modules and target != name)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules (first == last), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_pbem_import_graph_has_no_cycles():
    graph = import_graph(MODULES)
    assert "pbem.games.service" in graph and "pbem.eventlog.log" in graph
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_cycle_check_finds_a_cycle(tmp_path):
    package = tmp_path / "pbem"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pbem import b\n")
    (package / "b.py").write_text("def f():\n    from pbem import a\n")
    (package / "c.py").write_text("from pbem.a import x\n")
    modules = {
        ".".join(path.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): path
        for path in package.glob("*.py")
    }
    assert find_cycle(import_graph(modules)) is None  # a function-level import is no edge
    (package / "b.py").write_text("import pbem.c\n")
    assert find_cycle(import_graph(modules)) == ["pbem.a", "pbem.b", "pbem.c", "pbem.a"]


# One interpreter imports the libraries the package uses (and nothing of the project),
# then forks a child for each module, which imports that module first: the same check as
# a fresh interpreter per module, without loading Flask and SQLAlchemy a hundred times.
IMPORT_EACH = r"""
import json, os, signal, sys, traceback

OURS = tuple(sys.argv[1:])  # the project's top-level packages
names = json.load(sys.stdin)


def ours(name):
    return name.split(".")[0] in OURS


def libraries():
    reader, writer = os.pipe()
    if os.fork() == 0:
        os.close(reader)
        for name in names:
            try:
                __import__(name)
            except BaseException:
                pass
        found = [n for n in sys.modules if not ours(n) and n != "__main__"]
        os.write(writer, json.dumps(found).encode())
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as stream:
        found = json.load(stream)
    os.wait()
    return found


for name in sorted(libraries(), key=lambda n: n.count(".")):
    try:
        __import__(name)
    except BaseException:
        pass
loaded = sorted(n for n in sys.modules if ours(n))
assert not loaded, f"a library imported the project: {loaded}"

results = {}
for name in names:
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        signal.alarm(120)
        try:
            __import__(name)
            os._exit(0)
        except BaseException:
            os.write(writer, traceback.format_exc()[-2000:].encode())
            os._exit(1)
    os.close(writer)
    with os.fdopen(reader) as stream:
        error = stream.read()
    _, status = os.waitpid(pid, 0)
    results[name] = None if status == 0 else error or f"exit status {status}"
json.dump(results, sys.stdout)
"""


@pytest.fixture(scope="module")
def imported_first() -> dict[str, str | None]:
    """Each module -> None if it imported first on its own, else the error."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, "pbem", "engines", "tests"],
        cwd=ROOT,
        input=json.dumps(sorted(MODULES)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_imports_first_in_a_fresh_interpreter(name, imported_first):
    """Each module imported first, on its own: no import order hides a cycle."""
    assert imported_first[name] is None, imported_first[name]


def test_the_import_check_finds_a_module_that_needs_another_imported_first(tmp_path):
    """A cycle that one import order hides and the other shows: ``b`` imported first
    works, ``a`` imported first has ``b`` find ``a`` half made."""
    package = tmp_path / "cyc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from cyc import b\nVALUE = 1\n")
    (package / "b.py").write_text("import cyc.a\nSEEN = cyc.a.VALUE\n")
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, "cyc"],
        cwd=tmp_path,
        input=json.dumps(["cyc.a", "cyc.b"]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    assert "circular import" in results["cyc.a"]
    assert results["cyc.b"] is None
