"""What an error or a warning of the project says is safe to print wherever it is printed
(engine/core/errors.py): whatever its message holds (a model's tool name, a setting's
value), no line of ``str(error)`` starts a GitHub Actions workflow command, holds the legacy
``##[command]`` form, or carries a raw control character (a carriage return, an escape
sequence); subclasses with their own ``__init__`` and pickling keep working."""

from __future__ import annotations

import pickle
import warnings

import pytest

from pytest_jsonmatch.engine.core.errors import (
    CaseFileError,
    ComparatorError,
    ConfigError,
    JsonMatchError,
    ParseError,
    SchemaWarning,
    TruncatedError,
    safe_text,
    workflow_safe,
)
from pytest_jsonmatch.engine.judge.http_transport import (
    JudgeConnectionError,
    JudgeHTTPError,
    _Response,
)
from pytest_jsonmatch.integrations.openai_agent import MaxStepsError
from pytest_jsonmatch.reporting.render.tables import guard

HOSTILE = (
    "tool 'x\n::warning::pwned'\n  ::add-mask::k\r::error::cr\x1b[31mred ##[warning]old\u2028::ls"
)


def _commands(text: str) -> list[str]:
    """The lines of ``text`` a GitHub runner would read as a workflow command (its line
    breaks: \\n, \\r and the other ones Python splits on, as .NET's reader does)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]


def _no_controls(text: str) -> bool:
    return all(c.isprintable() or c in "\n\u200b" for c in text)


@pytest.mark.parametrize(
    "error",
    [
        ConfigError(HOSTILE),
        ParseError(HOSTILE),
        CaseFileError(HOSTILE),
        ComparatorError(HOSTILE),
        TruncatedError(HOSTILE, line=2, column=3, chars=4),
        MaxStepsError(HOSTILE, run=None),  # type: ignore[arg-type]
        JudgeHTTPError(HOSTILE, 503, _Response(503, None)),  # type: ignore[arg-type]
        JudgeConnectionError(HOSTILE),
    ],
    ids=lambda e: type(e).__name__,
)
def test_no_line_of_an_error_starts_a_workflow_command_or_holds_a_control(error):
    text = str(error)
    assert _commands(text) == []
    assert _no_controls(text)
    # what the message said is still there, readable: the line breaks kept, the others shown
    assert "pwned" in text and "\\x0d" in text and "\\x1b[31mred" in text and "\\u2028" in text
    assert text.count("\n") == HOSTILE.count("\n")


def test_a_message_of_plain_text_is_left_as_it_is():
    text = "jsonmatch_judge: unknown key 'modle' (did you mean 'model'?)\n  line 2: a::b"
    assert str(ConfigError(text)) == text


def test_an_error_pickles_whole_and_says_the_same_after(tmp_path):
    truncated = TruncatedError(HOSTILE, line=2, column=3, chars=4, opened_line=1, opened_column=5)
    back = pickle.loads(pickle.dumps(truncated))
    assert type(back) is TruncatedError and str(back) == str(truncated)
    assert (back.line, back.column, back.chars, back.opened_line, back.opened_column) == (
        2,
        3,
        4,
        1,
        5,
    )
    # a subclass whose __init__ takes more than the message (not called on the way back)
    steps = pickle.loads(pickle.dumps(MaxStepsError(HOSTILE, run=None)))  # type: ignore[arg-type]
    assert (
        type(steps) is MaxStepsError
        and steps.run is None
        and str(steps)
        == str(
            MaxStepsError(HOSTILE, run=None)  # type: ignore[arg-type]
        )
    )
    status = pickle.loads(pickle.dumps(JudgeHTTPError("HTTP 503", 503, _Response(503, None))))  # type: ignore[arg-type]
    assert (type(status), status.status_code, str(status)) == (JudgeHTTPError, 503, "HTTP 503")


def test_a_warning_of_the_project_is_as_safe_as_its_errors():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(f"schema node $.a: ({HOSTILE}) not read", SchemaWarning, stacklevel=1)
    (record,) = caught
    shown = warnings.formatwarning(
        str(record.message), record.category, record.filename, record.lineno
    )
    assert _commands(shown) == [] and _no_controls(shown.rstrip("\n"))


def test_the_terminal_tables_and_the_errors_guard_lines_by_one_rule():
    for line in ["::warning::x", "   ::add-mask::k", "a ##[error]b", "###[x]", "plain :: text"]:
        assert guard(line) == workflow_safe(line)
        assert _commands(workflow_safe(line)) == []
    assert workflow_safe("plain :: text") == "plain :: text"
    # safe_text is what str(error) gives; applied twice it changes nothing more
    once = safe_text(HOSTILE)
    assert safe_text(once) == once and str(JsonMatchError(once)) == once
