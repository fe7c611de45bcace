"""A call's ``arguments`` as text, read alike by ``tool_calls`` and ``trajectory`` (both read
calls with call_shapes.py): empty or blank text is no arguments, as are ``arguments`` absent
or null (agentevals' ``json.loads`` raises on empty text); ``NaN`` and ``Infinity``, which
JSON lacks, are a ParseError naming the call (agentevals' ``json.loads`` reads them as
numbers). docs/metrics.md, section 6, lists both differences."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ParseError, match_json

NO_ARGUMENTS = [{"name": "list_bookings", "arguments": {}}]


def _message(arguments: object) -> dict:
    function: dict = {"name": "list_bookings"}
    if arguments is not ...:
        function["arguments"] = arguments
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": function}],
    }


@pytest.mark.parametrize(
    "arguments", ["", "  \n", None, ...], ids=["empty", "blank", "null", "absent"]
)
@pytest.mark.parametrize("metric", ["tool_calls", "trajectory"])
def test_empty_text_is_a_call_with_no_arguments(metric, arguments):
    # the name matches and no argument is compared on either side: one row, right
    result = match_json([_message(arguments)], NO_ARGUMENTS, metric=metric)
    assert result.score == 1.0
    assert [f.status for f in result.fields] == ["match"]


@pytest.mark.parametrize("text", ['{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}'])
@pytest.mark.parametrize("metric", ["tool_calls", "trajectory"])
def test_nan_and_infinity_in_the_text_are_refused_naming_the_call(metric, text):
    with pytest.raises(ParseError, match=r"tool_calls\[0\].*arguments \(call 'list_bookings'\)"):
        match_json([_message(text)], NO_ARGUMENTS, metric=metric)


def test_a_nan_in_a_langchain_calls_args_is_refused_naming_the_argument():
    run = [
        {
            "type": "ai",
            "content": "",
            "tool_calls": [{"name": "f", "args": {"n": float("nan")}, "id": "1"}],
        }
    ]
    with pytest.raises(ParseError, match=r"args\.n: nan in actual is not a JSON number"):
        match_json(run, [{"name": "f", "arguments": {"n": 1}}], metric="trajectory")
