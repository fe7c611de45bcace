"""Golden case files that pytest cannot collect: run an in-process session within the time
bound, and read the one line pytest shows under 'ERROR collecting <file>', checked to carry no
traceback (nor any internal name) and to be the whole report."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.timeout import GENEROUS, within

NAME = "c.jsonmatch.yaml"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    with within(GENEROUS, "collecting the case files"):
        return pytester.runpytest_inprocess(*ARGS, *args)


def assert_no_traceback(out: str) -> None:
    assert "Traceback" not in out
    assert 'File "' not in out  # no traceback frames of any style
    for internal in ("golden.py", "safe_yaml.py", "CaseFileError", "yaml/", "RecursionError"):
        assert internal not in out, f"{internal!r} leaked into the report:\n{out}"


def collection_error(
    pytester: pytest.Pytester, text: str | bytes | None = None, name: str = NAME
) -> str:
    """The one line pytest shows under 'ERROR collecting <name>', checked to carry no
    traceback and to be the whole report (the next line starts the summary)."""
    if text is not None:
        write(pytester, name, text)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    out = result.stdout.str()
    assert_no_traceback(out)
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if f"ERROR collecting {name}" in line)
    follow = lines[start + 2] if start + 2 < len(lines) else ""
    assert follow.startswith(("=", "_")) or not follow.strip(), (
        f"the error is more than one paragraph:\n{out}"
    )
    return lines[start + 1]


def failure_text(result: pytest.RunResult) -> str:
    out = result.stdout.str()
    assert_no_traceback(out)
    return out
