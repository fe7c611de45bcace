"""Every child process a test starts runs ``sys.executable``, never a ``python`` or
``pytest`` found on PATH: where the virtual environment is not on PATH (a background job,
some CI images) a bare name runs another interpreter, or none, and the test waits and fails
for a reason that is not its own. Read from the source: a command given as a list or tuple
whose first item is one of those names, handed to any call."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BARE = frozenset({"python", "python3", "pytest", "py.test"})
# what starts a process: subprocess's, pytester's and asyncio's
STARTERS = frozenset(
    {"Popen", "popen", "run", "call", "check_call", "check_output", "create_subprocess_exec"}
)


def _bare_commands(source: str) -> list[int]:
    """The lines of ``source`` where a call is handed a command that starts with a bare name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in STARTERS:
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts:
                first = arg.elts[0]
                if isinstance(first, ast.Constant) and first.value in BARE:
                    found.append(node.lineno)
    return found


def test_no_test_starts_a_child_from_path():
    offenders = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in _bare_commands(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_reading_finds_a_bare_command():
    assert _bare_commands('proc = pytester.popen(["python", "-m", "pytest"], stdin=None)') == [1]
    assert _bare_commands('subprocess.run(args=("pytest", "-q"))') == [1]
    assert _bare_commands("subprocess.run([sys.executable, '-m', 'pytest'])") == []
    assert _bare_commands('run_info(["pytest"], None)') == []  # (no process started)
