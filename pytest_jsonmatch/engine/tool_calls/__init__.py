"""Tool calls: the ``tool_calls`` metric and BFCL's rules, the feature in one package.

Takes tool calls as models give them (OpenAI chat and Responses, Anthropic, Gemini, plain
dicts, BFCL's decoded form), the expected calls or BFCL's possible answers, the tools'
documents and the metric's options; gives the ``tool_calls`` metric (each call's name and
arguments a field), BFCL's verdict (``bfcl_verdict``) and ``BfclChecker``, which holds one
BFCL entry for many outputs. May import ``core``, ``reading``, ``comparing``, ``results``,
``schemas``, ``configuring`` and ``metrics`` (its metric is a :class:`~..metrics.base.Metric`);
no stage below it imports it: ``metrics`` names its metric module as text, loaded when the
metric is first looked up.

| module               | its job                                                              |
|----------------------|----------------------------------------------------------------------|
| call_shapes.py       | every vendor's call shape read into names and arguments              |
| argument_checks.py   | one call's arguments checked against its expected call               |
| bfcl_rules.py        | BFCL's AST checker's rules, in its order                             |
| bfcl_java_js.py      | BFCL's reading of Java and JavaScript argument text by declared type |
| bfcl_entry.py        | one BFCL entry held for many outputs, each call's document kept      |
| bfcl_fast_pass.py    | BFCL's decoded form checked as it is, one loop per call (a switch)   |
| metric.py            | the ``tool_calls`` metric: calls paired, fields scored               |
| bfcl_checker.py      | ``BfclChecker`` and ``bfcl_verdict``                                 |

Callers outside the package import the names below from here. They are loaded on first use
(PEP 562): the metric's name is declared without loading BFCL's readers, and a command that
never scores tool calls never imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy_names import lazy_names

# name -> the module of this package that defines it
_FACE = {
    "TOOL_CALLS": "metric",
    "BfclVerdict": "metric",
    "BfclChecker": "bfcl_checker",
    "bfcl_verdict": "bfcl_checker",
    "ToolCall": "call_shapes",
    "ToolDoc": "call_shapes",
    "ExpectedCall": "call_shapes",
    "ExpectedCalls": "call_shapes",
    "read_calls": "call_shapes",
    "read_expected_calls": "call_shapes",
    "read_tools": "call_shapes",
    "Unconvertible": "bfcl_java_js",
    "java_value": "bfcl_java_js",
    "js_value": "bfcl_java_js",
}

if TYPE_CHECKING:
    from .bfcl_checker import BfclChecker as BfclChecker
    from .bfcl_checker import bfcl_verdict as bfcl_verdict
    from .bfcl_java_js import Unconvertible as Unconvertible
    from .bfcl_java_js import java_value as java_value
    from .bfcl_java_js import js_value as js_value
    from .call_shapes import ExpectedCall as ExpectedCall
    from .call_shapes import ExpectedCalls as ExpectedCalls
    from .call_shapes import ToolCall as ToolCall
    from .call_shapes import ToolDoc as ToolDoc
    from .call_shapes import read_calls as read_calls
    from .call_shapes import read_expected_calls as read_expected_calls
    from .call_shapes import read_tools as read_tools
    from .metric import TOOL_CALLS as TOOL_CALLS
    from .metric import BfclVerdict as BfclVerdict

__all__ = sorted(_FACE)


__getattr__ = lazy_names(__name__, _FACE, globals())  # (each name imported on first use)
