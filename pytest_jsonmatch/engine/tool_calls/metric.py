"""tool_calls: an agent's tool calls scored field by field.

Both sides are read as calls (reading/agent_messages.py: OpenAI, Anthropic, Gemini,
LangChain, plain and BFCL forms; the expected side may be BFCL's possible answers and carry the tools). Each
expected call is paired with an actual one, by order (``order="strict"``) or, by default,
order-agnostically (``order="any"``: the pairing that matches the most fields, calls of the
same function first); the function's name and every argument is a field with its verdict
(argument_checks.py), under the path ``get_weather.location`` (``get_weather[1]...``
for the second expected call of one function; the per-field tables drop the index). A call
left unpaired is an omission (expected) or a hallucination (actual), its name and each
argument. The score is F1 over the fields, precision and recall as ``field_f1`` counts them.

``rules="bfcl"`` applies the Berkeley Function Calling Leaderboard's AST checker's rules
instead, its pairing set by the ``category`` (parallel calls matched greedily in the
expected order, as the checker does), so that a comparison scores 1.0 exactly when the
leaderboard's checker passes it: the ``bfcl`` package's rules, above the entry, their module
named as text (``BFCL_RULES``) as ``metrics`` names this one; its ``bfcl_verdict`` too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import NamedTuple

from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig
from ..core.errors import ConfigError, ParseError, did_you_mean, shown
from ..core.gc_pause import collector_paused
from ..core.paths import index_segment, key_segment
from ..core.values import JsonObject
from ..metrics.base import Metric, option_choice, type_policy
from ..pairing.call_pairing import Calls, assigned, leftovers_in_order
from ..pairing.pair_budget import PairBudget
from ..reading.agent_messages import ToolCall
from ..results.field_results import MATCH, FieldResult
from .argument_checks import (
    ArgRule,
    CallCheck,
    FieldVerdict,
    call_rows,
    check_arguments,
    shown_values,
    unpaired_verdicts,
)
from .expected_calls import ExpectedCall, ToolDoc, read_expected_calls, read_tools
from .plain_calls import calls_read

ORDERS = ("any", "strict")
RULES = ("default", "bfcl")
LANGUAGES = ("python", "java", "javascript")
BFCL_RULES = "..bfcl.bfcl_checker"
_OPTIONS = frozenset(
    {"order", "rules", "language", "category", "tools", "underscore_to_dot", "truncated"}
)


class ToolCallSettings(NamedTuple):
    rules: str
    order: str
    language: str
    category: str | None
    underscore_to_dot: bool
    tools: tuple[ToolDoc, ...] | None


def read_settings(options: Mapping[str, object]) -> ToolCallSettings:
    rules = option_choice("tool_calls", options, "rules", RULES, "default")
    order = option_choice("tool_calls", options, "order", ORDERS, "any")
    category = options.get("category")
    if category is not None and not isinstance(category, str):
        raise ConfigError(f"tool_calls option category must be text, not {shown(category)}")
    language = options.get("language")
    if language is None:
        language = _category_language(category or "")
    elif not isinstance(language, str) or language not in LANGUAGES:
        raise ConfigError(
            f"tool_calls option language must be one of {', '.join(LANGUAGES)}, not "
            f"{shown(language)}{did_you_mean(language, LANGUAGES)}"
        )
    if rules != "bfcl":
        for name in ("language", "category", "underscore_to_dot"):
            if options.get(name) is not None:
                raise ConfigError(f"tool_calls option {name} applies under rules='bfcl' only")
    elif options.get("order") is not None:
        raise ConfigError(
            "tool_calls option order does not apply under rules='bfcl': the category sets "
            "how calls pair (parallel ones in any order, the others in order)"
        )
    dots = options.get("underscore_to_dot")
    if dots is not None and not isinstance(dots, bool):
        raise ConfigError("tool_calls option underscore_to_dot must be true or false")
    tools = options.get("tools")
    read = None if tools is None else _tools_option(tools)
    return ToolCallSettings(rules, order, language, category, dots is True, read)


def _tools_option(tools: object) -> tuple[ToolDoc, ...]:
    try:
        return read_tools(tools, "option tools")
    except ParseError as error:
        raise ConfigError(str(error)) from None


def _category_language(category: str) -> str:
    """The language BFCL checks a category in (its ``is_js``, ``is_java``)."""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    read_settings(opts)  # (checked once here, where a bad option is named before any record)
    return WalkConfig(type_policy=type_policy(registry, "exact", "exact"), registry=registry)


# -- pairing and fields --------------------------------------------------------------------


class CallPair(NamedTuple):
    """An expected call, the call that stands for it and the check of the one against the
    other (the calls in no pair are left unpaired)."""

    expected: int
    actual: int
    check: CallCheck


def score_fields(
    expected: object, actual: object, options: Mapping[str, object]
) -> list[FieldResult]:
    """Both sides read as calls, paired, and every call's rows. The cyclic collector is
    paused meanwhile (core/gc_pause.py): a comparison of many calls makes a few records a
    call (the calls, their checks, their rows), none in a cycle, and at Python's default
    each of its passes walked every one of them and the answer's values again (100,000
    calls: five full passes, a third of the comparison's time)."""
    with collector_paused():
        return _score_fields(expected, actual, options)


def _score_fields(
    expected: object, actual: object, options: Mapping[str, object]
) -> list[FieldResult]:
    settings = read_settings(options)
    wanted = read_expected_calls(expected)
    calls = calls_read(actual, "actual")
    tools = wanted.tools if wanted.tools is not None else settings.tools
    if settings.rules == "bfcl":
        pairs, _ = import_module(BFCL_RULES, __package__).bfcl_pairs(wanted, calls, tools, settings)
        checks = {pair.expected: pair.check for pair in pairs}
        paired = {pair.expected: pair.actual for pair in pairs}
        return _field_results(wanted.calls, calls, paired, lambda e, a: checks[e], "bfcl")
    check = _default_check(wanted.calls, calls, tools)
    paired = _pairs(wanted.calls, calls, check, settings.order)
    return _field_results(wanted.calls, calls, paired, check, "tool_call")


# the check of the expected call ``e`` against the call ``a`` (by their indices)
PairCheck = Callable[[int, int], CallCheck]


def _default_check(
    expected: Sequence[ExpectedCall], calls: list[ToolCall], tools: Sequence[ToolDoc] | None
) -> PairCheck:
    """The check of a pair: the call against the expected one and its function's tool,
    where ``tools`` declares it (the first tool of that name)."""
    by_name: dict[str, ToolDoc] = {}
    for tool in tools or ():
        by_name.setdefault(tool.name, tool)

    def check(e: int, a: int) -> CallCheck:
        want = expected[e]
        return check_arguments(want, by_name.get(want.name), calls[a])

    return check


def _pairs(
    expected: Sequence[ExpectedCall], calls: list[ToolCall], check: PairCheck, order: str
) -> dict[int, int]:
    """Expected index -> the index of the call that stands for it."""
    if order == "strict" or len(expected) * len(calls) <= 1:  # (or no choice to make)
        return dict(zip(range(len(expected)), range(len(calls))))
    return _best_pairs(expected, calls, check)


def _best_pairs(
    expected: Sequence[ExpectedCall], calls: list[ToolCall], check: PairCheck
) -> dict[int, int]:
    """The pairing that matches the most fields, calls of the expected function first: an
    optimal assignment (pairing/call_pairing.py), a pair of one function gaining 1 plus its
    share of matched fields; past the budget (pairing/__init__.py), each function's calls in
    order. The calls left over then pair in order (their names mismatch)."""
    exact = ArgRule("exact")  # (every function's, as the budget weighs it: each value compared)
    wanted = Calls("expected", range(len(expected)), expected, lambda name: exact)
    made = Calls("run", range(len(calls)), calls, lambda name: exact)

    def gain(i: int, j: int) -> float:
        fields = check(i, j).fields
        return 1.0 + sum(1 for f in fields if f.status == MATCH) / len(fields)

    found = assigned(wanted, made, gain, PairBudget(PairBudget.STEPS), keep_above=-1.0)
    if found is None:
        found = leftovers_in_order({}, wanted, made)
    taken = set(found.values())
    left = [j for j in range(len(calls)) if j not in taken]
    lone = [i for i in range(len(expected)) if i not in found]
    found.update(zip(lone, left))
    return found


def _prefixes(names: Sequence[str]) -> list[str]:
    """Each call's path: its function's name, indexed where the name repeats."""
    counts, seen = Counter(names), Counter[str]()
    out = []
    for name in names:
        base = key_segment("", name)
        if counts[name] > 1:
            base = index_segment(base, seen[name])
            seen[name] += 1
        out.append(base)
    return out


def _field_results(
    expected: Sequence[ExpectedCall],
    calls: list[ToolCall],
    paired: Mapping[int, int],
    check: PairCheck,
    comparator: str,
) -> list[FieldResult]:
    """The rows of every call, in the expected calls' order and then the calls not expected:
    a call paired (``paired``: expected index -> call index), its ``check``'s verdicts, made
    as its rows are; an expected call not made, its name and each argument that is not
    optional omitted; a call not expected, all of it invented."""
    e_paths = _prefixes([want.name for want in expected])
    a_paths = _prefixes([call.name for call in calls])
    out: list[FieldResult] = []
    for e, want in enumerate(expected):
        a = paired.get(e)
        where, other = None, None  # (the call's place; its own path where of another function)
        verdicts: Sequence[FieldVerdict]
        if a is None:
            kept = [(arg, vs) for arg, vs in want.accepted.items() if arg not in want.optional]
            verdicts = unpaired_verdicts(want.name, [(k, shown_values(v)) for k, v in kept], True)
        else:
            call = calls[a]
            verdicts, where = check(e, a).fields, call.where or None
            if call.name != want.name:
                other = (a_paths[a], key_segment("", call.name))
        out += call_rows(verdicts, e_paths[e], key_segment("", want.name), comparator, where, other)
    taken = set(paired.values())
    for a, call in enumerate(calls):
        if a not in taken:
            verdicts = unpaired_verdicts(call.name, call.arguments.items(), expected_side=False)
            field = key_segment("", call.name)
            out += call_rows(verdicts, a_paths[a], field, comparator, call.where or None)
    return out


def decoded_form(value: object, kind: type) -> list[tuple[str, JsonObject]] | None:
    """``value`` as (name, arguments) pairs when it is in BFCL's form ``[{name: {arg:
    value}}]`` and every argument's value is a ``kind`` (dict: anything; list: the lists of
    possible answers), else None (read it the general way, which names what is wrong)."""
    if type(value) is not list:
        return None
    out = []
    for item in value:
        if type(item) is not dict or len(item) != 1:
            return None
        for name, arguments in item.items():
            if type(arguments) is not dict:
                return None
            if kind is list:
                for v in arguments.values():
                    if type(v) is not list:
                        return None
            out.append((name, arguments))
    return out


TOOL_CALLS = Metric(
    "tool_calls",
    _OPTIONS,
    _configure,
    headline="f_beta",
    allow_array=True,
    score_fields=score_fields,
    description="tool calls: names and arguments field by field (BFCL's rules on request)",
)
