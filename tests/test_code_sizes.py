"""The house's sizes, pinned: no class or function grows past what one reader holds in mind.

The limits are counted as `ruff format` lays the code out: at the project's 100 columns (as
CI checks it), no class over 363 lines and no function over 97; and, laid out again at the
88 columns most Python is read at, at most 3% of the functions over 50 lines. A function's
lines run from its ``def`` to its last line (decorators left out); a method or a nested
function counts on its own and inside the function or class that holds it."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest_jsonmatch

PACKAGE = Path(pytest_jsonmatch.__file__).resolve().parent
MAX_CLASS = 363
MAX_FUNCTION = 97
LONG_FUNCTION = 50
MAX_LONG_SHARE = 0.03


def _sizes(root: Path) -> tuple[dict[str, int], dict[str, int]]:
    """Every function's and every class's length in lines, by ``module.py::qualified.name``."""
    functions: dict[str, int] = {}
    classes: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = path.relative_to(root).as_posix()
        _visit(tree, f"{module}::", functions, classes)
    return functions, classes


def _visit(node: ast.AST, prefix: str, functions: dict[str, int], classes: dict[str, int]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{child.name}"
            assert child.end_lineno is not None
            length = child.end_lineno - child.lineno + 1
            table = classes if isinstance(child, ast.ClassDef) else functions
            # Two definitions of one name (a property's getter and setter) keep the longer.
            table[name] = max(length, table.get(name, 0))
            _visit(child, f"{name}.", functions, classes)
        else:
            _visit(child, prefix, functions, classes)


def test_the_sizes_are_read_from_the_definitions(tmp_path: Path) -> None:
    source = "class A:\n    def f(self):\n        x = 1\n        return x\n\n\ndef g():\n    pass\n"
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    functions, classes = _sizes(tmp_path)
    assert functions == {"m.py::A.f": 3, "m.py::g": 2}
    assert classes == {"m.py::A": 4}


def test_no_class_and_no_function_is_longer_than_its_limit() -> None:
    functions, classes = _sizes(PACKAGE)
    assert {name: n for name, n in classes.items() if n > MAX_CLASS} == {}
    assert {name: n for name, n in functions.items() if n > MAX_FUNCTION} == {}


def test_few_functions_are_long_at_88_columns(tmp_path: Path) -> None:
    copy = tmp_path / "pytest_jsonmatch"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # Outside the checkout no configuration is found: ruff's defaults, at 88 columns.
    subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--quiet", "--no-cache", "--line-length", "88"],
        cwd=copy,
        check=True,
    )
    functions, _ = _sizes(copy)
    long = sorted((n, name) for name, n in functions.items() if n > LONG_FUNCTION)
    share = len(long) / len(functions)
    assert share <= MAX_LONG_SHARE, (
        f"{len(long)} of {len(functions)} functions ({share:.1%}) are over {LONG_FUNCTION} "
        f"lines at 88 columns; the longest: {long[-10:]}"
    )
