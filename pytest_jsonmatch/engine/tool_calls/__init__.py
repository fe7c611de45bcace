"""Tool calls: the ``tool_calls`` metric, the feature in one package.

Takes tool calls as models give them (any shape ``reading/agent_messages.py`` reads: OpenAI
chat and Responses, Anthropic, Gemini, LangChain, plain dicts, BFCL's decoded form), the
expected calls or BFCL's possible answers, the tools' documents and the metric's options;
gives the ``tool_calls`` metric (each call's name and arguments a field). May import
``core``, ``reading``, ``comparing``, ``results``, ``schemas``, ``configuring`` and
``metrics`` (its metric is a :class:`~..metrics.base.Metric`); no stage below it imports it:
``metrics`` names its metric module as text, loaded when the metric is first looked up.

| module               | its job                                                              |
|----------------------|----------------------------------------------------------------------|
| expected_calls.py    | the expected calls, BFCL's possible answers, the tools' documents    |
| plain_calls.py       | calls in the plain form ``[{name, arguments}]`` read in one pass    |
| argument_checks.py   | one call checked against its expected call; a call's field rows      |
| metric.py            | the ``tool_calls`` metric: calls paired, fields scored               |

Callers outside the package import the names below from here. They are loaded on first use
(PEP 562): the metric's name is declared without loading its readers, and a command that never
scores tool calls never imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy_names import lazy_names

# name -> the module of this package that defines it
_FACE = {
    "TOOL_CALLS": "metric",
    "ToolDoc": "expected_calls",
    "ExpectedCall": "expected_calls",
    "ExpectedCalls": "expected_calls",
    "read_expected_calls": "expected_calls",
    "read_tools": "expected_calls",
}

if TYPE_CHECKING:
    from .expected_calls import ExpectedCall as ExpectedCall
    from .expected_calls import ExpectedCalls as ExpectedCalls
    from .expected_calls import ToolDoc as ToolDoc
    from .expected_calls import read_expected_calls as read_expected_calls
    from .expected_calls import read_tools as read_tools
    from .metric import TOOL_CALLS as TOOL_CALLS

__all__ = sorted(_FACE)


__getattr__ = lazy_names(__name__, _FACE, globals())  # (each name imported on first use)
