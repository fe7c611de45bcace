"""Tool calls: the ``tool_calls`` metric and BFCL's rules, the feature in one package.

Takes tool calls as models give them (any shape ``reading/agent_messages.py`` reads: OpenAI
chat and Responses, Anthropic, Gemini, LangChain, plain dicts, BFCL's decoded form), the
expected calls or BFCL's possible answers, the tools' documents and the metric's options;
gives the ``tool_calls`` metric (each call's name and arguments a field), BFCL's verdict
(``bfcl_verdict``) and ``BfclChecker``, which holds one BFCL entry for many outputs. May
import ``core``, ``reading``, ``comparing``, ``results``, ``schemas``, ``configuring`` and
``metrics`` (its metric is a :class:`~..metrics.base.Metric`); no stage below it imports it:
``metrics`` names its metric module as text, loaded when the metric is first looked up.

| module               | its job                                                              |
|----------------------|----------------------------------------------------------------------|
| expected_calls.py    | the expected calls, BFCL's possible answers, the tools' documents    |
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
    "ToolDoc": "expected_calls",
    "ExpectedCall": "expected_calls",
    "ExpectedCalls": "expected_calls",
    "read_expected_calls": "expected_calls",
    "read_tools": "expected_calls",
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
    from .expected_calls import ExpectedCall as ExpectedCall
    from .expected_calls import ExpectedCalls as ExpectedCalls
    from .expected_calls import ToolDoc as ToolDoc
    from .expected_calls import read_expected_calls as read_expected_calls
    from .expected_calls import read_tools as read_tools
    from .metric import TOOL_CALLS as TOOL_CALLS
    from .metric import BfclVerdict as BfclVerdict

__all__ = sorted(_FACE)


__getattr__ = lazy_names(__name__, _FACE, globals())  # (each name imported on first use)
