"""The package carries no test code: nothing in ``pbem/`` or ``engines/`` imports from
``tests/`` (an installed server has no ``tests`` folder), and no module reaches into
the checkout through ``sys.path``."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports_of_tests(path: Path) -> list[str]:
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        found += [
            f"{shown}:{node.lineno} imports {name}"
            for name in names
            if name == "tests" or name.startswith("tests.")
        ]
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("insert", "append")
            and ast.unparse(node.value) == "sys.path"
        ):
            found.append(f"{shown}:{node.lineno} changes sys.path")
    return found


def test_the_package_imports_nothing_from_the_tests():
    files = sorted((ROOT / "pbem").rglob("*.py")) + sorted((ROOT / "engines").rglob("*.py"))
    assert len(files) > 50
    found = [line for path in files for line in _imports_of_tests(path)]
    assert found == []


def test_the_check_sees_an_import_of_the_tests(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import sys\nsys.path.insert(0, '.')\nfrom tests.x import y\n")
    assert sorted(_imports_of_tests(sample)) == [
        "sample.py:2 changes sys.path",
        "sample.py:3 imports tests.x",
    ]
