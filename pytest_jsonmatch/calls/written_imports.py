"""The imports a module's source writes, read without running it and without parsing it
whole (project_imports.py follows them through the project).

Parsing a whole module with :mod:`ast` costs about 25 µs a line (2,000 modules of 130 lines:
seven seconds), so :func:`written_imports` finds the import statements by a pattern (a
keyword first on its line, or after ``;`` or ``:``, to the end of its logical line) and
parses them alone, together; each guard that never runs on import (``if TYPE_CHECKING:``,
``if __name__ == "__main__":``) is found by its pattern and checked by parsing its block
alone. What a pattern cannot settle (a statement that looks like an import and does not
parse alone) parses the module whole, once. A text that only looks like an import (in a
string, a docstring's example) may count: never one import less than parsing the whole
module finds (tests/calls/test_project_imports.py holds it to that on the package's own
modules). Every pattern scans the text once, whatever it holds: a keyword within a
statement already read, or within the words of a ``from`` that is none, is not read again.

A guard is honoured unless the module binds its name itself (``TYPE_CHECKING = True``: its
block runs); ``importlib.import_module("a.b")`` and ``__import__("a")`` with a written name
count as imports of ``a.b`` and ``a``.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import NamedTuple

_IMPORTERS = ("import_module", "__import__")


class Import(NamedTuple):
    """One import a module writes: ``level`` dots, the ``module`` after them (may be
    empty), and the ``names`` a ``from`` import takes (each may be a submodule)."""

    level: int
    module: str
    names: tuple[str, ...] = ()


def written_imports(source: bytes) -> tuple[Import, ...]:
    """The imports ``source`` writes, where they would run on import (the module's
    docstring says how they are found)."""
    if b"import" not in source:
        return ()
    text = source.decode("utf-8", "surrogateescape")
    skipped = _never_run_blocks(text)
    statements = []
    done = 0  # where the last statement found ends (its own ``import`` is no other)
    for keyword in _KEYWORD.finditer(text):
        at = keyword.start()
        if at < done or (at and (text[at - 1].isalnum() or text[at - 1] in "_.")):
            continue
        if not _starts_statement(text, at):
            continue
        if skipped and any(first <= at < last for first, last in skipped):
            continue
        match = _STATEMENT.match(text, at)
        if match is not None:
            statements.append(match.group(1).strip())
            done = match.end()
        else:  # a ``from`` that is no statement: neither is one further in the same words
            part = _FROM_PART.match(text, at + 4)
            done = part.end() if part is not None else at + 4
    statements = list(dict.fromkeys(statements))
    out: list[Import] = []
    try:  # most often all of them parse, together
        out += _statements(ast.parse("\n".join(statements)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        for statement in statements:
            try:
                out += _statements(ast.parse(statement))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                if _LOOKS_LIKE.match(statement):
                    return parsed_imports(source)  # (a comment in its parentheses, ...)
                # else prose: "from the file ..."
    for match in _CALL.finditer(text) if "import_module" in text or "__import__" in text else ():
        if not any(first <= match.start() < last for first, last in skipped):
            out.append(Import(0, match.group(2)))
    return tuple(dict.fromkeys(out))


# an import statement from its keyword to the end of its logical line (continued by a
# backslash, or a ``from`` import's parentheses)
# (no import statement holds a ``:``; each part scans ahead once: see written_imports)
_LINE = r"(?:[^\n;#:\\]|\\(?!\r?\n))*"  # up to a comment, ``;``, ``:``, a backslash continuing it
_REST = _LINE + r"(?:\\\r?\n" + _LINE + r")*"  # with the lines a backslash continues it on
_KEYWORD = re.compile(r"(?:import|from)\b")  # (found first: a pattern of literals is fast)
_STATEMENT = re.compile(
    r"(import(?=[ \t\\])" + _REST + r"|from(?=[ \t\\.])(?:[\w. \t]|\\\r?\n)*?\bimport\b[ \t]*"
    r"(?:\((?:[^)#]|#[^\n]*)*\)?|" + _REST + r"))",  # (unclosed: to the end, once)
    re.MULTILINE,
)
# what a ``from`` statement's module part may hold: where one that is not a statement ends
_FROM_PART = re.compile(r"(?:[\w. \t]|\\\r?\n)*")
_LOOKS_LIKE = re.compile(r"(?:import[\s\\]+[\w.]|from[\s\\]*[\w.]*[\s\\]+import\b)")
_CALL = re.compile(r"\b(?:import_module|__import__)\s*\(\s*(['\"])([\w]+(?:\.[\w]+)*)\1")
# ``if TYPE_CHECKING:`` (``typing.TYPE_CHECKING``), ``if __name__ == "__main__":``
_GUARD = re.compile(
    r"^([ \t]*)if[ \t(]+(?:[\w.]*TYPE_CHECKING|__name__\s*==\s*(['\"])__main__\2"
    r"|(['\"])__main__\3\s*==\s*__name__)[ \t)]*:",
    re.MULTILINE,
)


def _starts_statement(text: str, at: int) -> bool:
    """Whether a statement may start at ``at``: first on its line, or after ``;`` or
    ``:`` (read back over the blanks before it alone: a long line costs no more)."""
    before = at - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    return before < 0 or text[before] in "\n;:"


def _never_run_blocks(text: str) -> list[tuple[int, int]]:
    """Where the bodies of the ``if`` statements that never run on import lie in ``text``
    (offsets), each found by its indentation and checked by parsing it alone: a block that
    does not parse alone (in a string) is none. Bounded: past :data:`_GUARDS_MAX` guards,
    or :data:`_GUARD_BYTES` parsed, a block is none (its imports count)."""
    out: list[tuple[int, int]] = []
    honoured = _honoured(text)
    if not honoured:
        return out
    budget = _GUARD_BYTES
    for count, guard in enumerate(_GUARD.finditer(text)):
        if count >= _GUARDS_MAX:
            break
        if not _guard_honoured(guard, honoured):
            continue
        line_end = text.find("\n", guard.end())
        body = len(text) if line_end < 0 else line_end + 1
        indent = guard.group(1)
        lines = _block(len(indent)).match(text, body)  # (a repetition: it always matches)
        end = lines.end() if lines is not None else body
        block = text[guard.start() : end]
        budget -= len(block)
        if budget < 0:
            break
        try:
            tree = ast.parse(textwrap.dedent(block) if indent else block)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        first = tree.body[0] if tree.body else None
        if isinstance(first, ast.If) and _never_run(first.test, honoured):
            out.append((guard.end(), end))
    return out


_GUARDS_MAX = 1_000
_GUARD_BYTES = 256 * 2**10  # what the guards' blocks parse, together
_BLOCKS: dict[int, re.Pattern[str]] = {}


def _block(indent: int) -> re.Pattern[str]:
    """The lines of a block under a line indented ``indent``: deeper, blank or comments."""
    if indent not in _BLOCKS:
        _BLOCKS[indent] = re.compile(
            rf"(?:[ \t]*(?:#[^\n]*)?\n|[ \t]{{{indent + 1},}}[^\n]*(?:\n|\Z))*"
        )
    return _BLOCKS[indent]


def _honoured(text: str) -> set[str]:
    """The guards ``text`` may hold that are honoured: ``TYPE_CHECKING`` and ``__main__``,
    each unless the module binds the name it tests itself (``TYPE_CHECKING = True``: its
    block runs)."""
    out = set()
    if "TYPE_CHECKING" in text and not _BINDS_TYPE_CHECKING.search(text):
        out.add("TYPE_CHECKING")
    if "__main__" in text and not _BINDS_NAME.search(text):
        out.add("__main__")
    return out


_BINDS_TYPE_CHECKING = re.compile(
    r"\bTYPE_CHECKING\s*(?::[^=\n]*)?=(?!=)|\bas\s+TYPE_CHECKING\b|global\s[^\n]*\bTYPE_CHECKING"
)
_BINDS_NAME = re.compile(r"\b__name__\s*(?::[^=\n]*)?=(?!=)|global\s[^\n]*\b__name__")


def _guard_honoured(guard: re.Match[str], honoured: set[str]) -> bool:
    return ("TYPE_CHECKING" if "TYPE_CHECKING" in guard.group(0) else "__main__") in honoured


def _statements(tree: ast.Module) -> list[Import]:
    """The imports of a module made of import statements alone."""
    out: list[Import] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            out += [Import(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            out.append(Import(node.level, node.module or "", names))
    return out


def parsed_imports(source: bytes) -> tuple[Import, ...]:
    """The imports of ``source`` parsed whole (none where it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    honoured = _honoured(source.decode("utf-8", "surrogateescape"))
    return tuple(dict.fromkeys(_written(tree, honoured)))


def _written(tree: ast.AST, honoured: set[str]) -> list[Import]:
    """The imports a parsed ``tree`` writes, where they would run (the ``honoured``
    guards' bodies left out)."""
    out: list[Import] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            out += [Import(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            out.append(Import(node.level, node.module or "", names))
        elif isinstance(node, ast.Call) and _importer(node):
            first = node.args[0]
            assert isinstance(first, ast.Constant) and isinstance(first.value, str)
            out.append(Import(0, first.value))
        if isinstance(node, ast.If) and _never_run(node.test, honoured):
            stack += node.orelse  # (the body is for type checkers, or a script)
            continue
        stack += ast.iter_child_nodes(node)
    return out


def _importer(node: ast.Call) -> bool:
    """``importlib.import_module("a.b")`` or ``__import__("a")``: a written absolute name."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in _IMPORTERS or not node.args:
        return False
    first = node.args[0]
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and all(part.isidentifier() for part in first.value.split("."))
    )


def _never_run(test: ast.expr, honoured: set[str]) -> bool:
    """``TYPE_CHECKING`` (``typing.TYPE_CHECKING``), or ``__name__ == "__main__"``, where
    ``honoured`` holds it."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING" and "TYPE_CHECKING" in honoured
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING" and "TYPE_CHECKING" in honoured
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = {_text(test.left), _text(test.comparators[0])}
        return sides == {"__name__", "'__main__'"} and "__main__" in honoured
    return False


def _text(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return repr(node.value)
    return ""
