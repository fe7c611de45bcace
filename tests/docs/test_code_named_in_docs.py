"""What the contributor's pages name exists: every file and every recipe's name.

docs/architecture.md and CONTRIBUTING.md are how a newcomer finds the code; a module moved or
a function renamed without them leaves a map to nowhere. Every file they name in backticks
(``engine/walking/walk.py``, ``walk.py`` in a stage's table, ``tests/test_layout.py``) must
be a file of the checkout, and every code name in the recipes of "Where to add things" (a
function, a class, a table, a field) must be defined in the package."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

import pytest_jsonmatch
from pytest_jsonmatch.session.setting_table import BY_NAME

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(pytest_jsonmatch.__file__).resolve().parent
BASES = (ROOT, PACKAGE, PACKAGE / "engine", ROOT / "tests", ROOT / "tests" / "engine")
PAGES = [ROOT / "docs" / "architecture.md", ROOT / "CONTRIBUTING.md"]
# A file named in backticks: a path or a bare name, ending in a suffix the checkout holds.
FILE = re.compile(r"`([A-Za-z0-9_./<>-]*\.(?:py|schema\.json))`")
CODE = re.compile(r"`([^`]+)`")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(.*\))?")


@cache
def _files() -> tuple[Path, ...]:
    skip = {".git", "__pycache__", ".venv", "venv", "build", "dist"}
    return tuple(
        path.relative_to(ROOT)
        for path in ROOT.rglob("*")
        if path.is_file() and not skip.intersection(path.relative_to(ROOT).parts)
    )


def _exists(named: str) -> bool:
    """A path is read from the root, the package, the engine (``walking/walk.py``) or the
    tests (``comparing/test_comparators.py`` beside ``tests/engine/``); a bare name is any file
    of that name."""
    named = named.removeprefix("pytest_jsonmatch/")
    if "<" in named:  # a pattern such as engine/metrics/<metric>.py
        return True
    if "/" not in named:
        return any(path.name == named for path in _files())
    return any((base / named).is_file() for base in BASES)


def _mentions() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            found.extend((page.name, number, named) for named in FILE.findall(line))
    return found


@cache
def _defined() -> frozenset[str]:
    """Every name the package defines or spells: functions, classes, assignments, fields,
    attributes, keyword arguments and strings that are names (setting keys, table keys)."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # a whole string that is a name (a setting's key, a table's key); a word of a
                # docstring or message defines nothing
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", node.value):
                    names.add(node.value)
    # the ini keys, as users write them (the table holds them without the prefix)
    names.update(f"jsonmatch_{name}" for name in BY_NAME)
    return frozenset(names)


def _recipe_names() -> list[tuple[int, str]]:
    """The code names of the recipes ("Where to add things" in docs/architecture.md): each
    dotted part of ``Class.attr`` or ``function(...)``, file names left to the other test."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index("## Where to add things")
    end = text.index("\n## ", start + 1)
    first = text[:start].count("\n") + 1
    found = []
    for offset, line in enumerate(text[start:end].splitlines()):
        for code in CODE.findall(line):
            if FILE.fullmatch(f"`{code}`") or not NAME.fullmatch(code) or "<" in code:
                continue
            for part in code.split("(")[0].split("."):
                found.append((first + offset, part))
    return found


@pytest.mark.parametrize(("page", "line", "named"), _mentions())
def test_every_file_the_pages_name_exists(page: str, line: int, named: str) -> None:
    assert _exists(named), f"{page}:{line} names {named}, which is not a file of the checkout"


def test_the_pages_name_files() -> None:
    # The pattern keeps up with the pages: hundreds of files are named, tests too.
    named = {named for _, _, named in _mentions()}
    assert len(named) >= 150, len(named)
    assert {"engine/match.py", "tests/test_layout.py"} <= named


@pytest.mark.parametrize(("line", "name"), _recipe_names())
def test_every_name_a_recipe_gives_is_defined(line: int, name: str) -> None:
    assert name in _defined(), f"docs/architecture.md:{line}: `{name}` is defined nowhere"


def test_a_name_defined_nowhere_is_found_missing() -> None:
    assert "add_scores" in _defined() and "add_arguments" not in _defined()
