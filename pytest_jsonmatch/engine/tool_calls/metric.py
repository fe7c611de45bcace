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

from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import NamedTuple

from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig
from ..core.errors import ConfigError, ParseError, did_you_mean, shown
from ..core.paths import index_segment, key_segment
from ..core.values import MISSING, JsonObject
from ..metrics.base import Metric, option_choice, type_policy
from ..pairing.call_pairing import Calls, assigned, leftovers_in_order
from ..pairing.pair_budget import PairBudget
from ..reading.agent_messages import ToolCall, read_calls
from ..results.field_results import HALLUCINATION, MATCH, OMISSION, FieldResult
from .argument_checks import ArgRule, CallCheck, FieldVerdict, check_arguments, shown_values
from .expected_calls import ExpectedCall, ExpectedCalls, ToolDoc, read_expected_calls, read_tools

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
    rules = _choice(options, "rules", RULES, "default")
    order = _choice(options, "order", ORDERS, "any")
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
    if dots is None:
        dots = False
    elif not isinstance(dots, bool):
        raise ConfigError("tool_calls option underscore_to_dot must be true or false")
    tools = options.get("tools")
    read = None if tools is None else _tools_option(tools)
    return ToolCallSettings(rules, order, language, category, dots, read)


def _tools_option(tools: object) -> tuple[ToolDoc, ...]:
    try:
        return read_tools(tools, "option tools")
    except ParseError as error:
        raise ConfigError(str(error)) from None


def _choice(options: Mapping[str, object], name: str, known: tuple[str, ...], default: str) -> str:
    return option_choice("tool_calls", options, name, known, default)


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
    expected: int | None
    actual: int | None
    check: CallCheck | None


def score_fields(
    expected: object, actual: object, options: Mapping[str, object]
) -> list[FieldResult]:
    settings = read_settings(options)
    wanted = read_expected_calls(expected)
    calls = read_calls(actual)
    tools = wanted.tools if wanted.tools is not None else settings.tools
    if settings.rules == "bfcl":
        pairs, _ = import_module(BFCL_RULES, __package__).bfcl_pairs(wanted, calls, tools, settings)
        comparator = "bfcl"
    else:
        pairs = _pairs(wanted, calls, tools, settings.order)
        comparator = "tool_call"
    return _field_results(wanted.calls, calls, pairs, comparator)


def _tool_of(tools: Sequence[ToolDoc] | None, name: str) -> ToolDoc | None:
    if tools is None:
        return None
    return next((tool for tool in tools if tool.name == name), None)


def _default_check(
    want: ExpectedCall, call: ToolCall, tools: Sequence[ToolDoc] | None
) -> CallCheck:
    tool = _tool_of(tools, want.name)
    return check_arguments(
        want.name,
        want.accepted,
        want.optional,
        tool.properties if tool is not None else None,
        tool.required if tool is not None else (),
        call.name,
        call.arguments,
    )


def _pairs(
    wanted: ExpectedCalls, calls: list[ToolCall], tools: Sequence[ToolDoc] | None, order: str
) -> list[CallPair]:
    expected = wanted.calls
    if not expected or not calls:
        paired = []
    elif order == "strict" or len(expected) == 1 and len(calls) == 1:
        paired = list(zip(range(len(expected)), range(len(calls))))
    else:
        paired = _best_pairs(expected, calls, tools)
    pairs = [CallPair(e, a, _default_check(expected[e], calls[a], tools)) for e, a in paired]
    return with_unpaired(pairs, len(expected), len(calls))


def _best_pairs(
    expected: Sequence[ExpectedCall], calls: list[ToolCall], tools: Sequence[ToolDoc] | None
) -> list[tuple[int, int]]:
    """The pairing that matches the most fields, calls of the expected function first: an
    optimal assignment (pairing/call_pairing.py), a pair of one function gaining 1 plus its
    share of matched fields; past the budget (pairing/__init__.py), each function's calls in
    order. The calls left over then pair in order (their names mismatch)."""
    named = [_Named(w.name, {k: list(v) for k, v in w.accepted.items()}) for w in expected]
    wanted = Calls("expected", range(len(expected)), named, _rule)
    made = Calls("run", range(len(calls)), calls, _rule)

    def gain(i: int, j: int) -> float:
        fields = _default_check(expected[i], calls[j], tools).fields
        return 1.0 + sum(1 for f in fields if f.status == MATCH) / len(fields)

    found = assigned(wanted, made, gain, PairBudget(PairBudget.STEPS), keep_above=-1.0)
    if found is None:
        found = leftovers_in_order({}, wanted, made)
    taken = set(found.values())
    left = [j for j in range(len(calls)) if j not in taken]
    lone = [i for i in range(len(expected)) if i not in found]
    return sorted([*found.items(), *zip(lone, left)])


class _Named(NamedTuple):
    """An expected call as the pairing weighs it: its name, its acceptable values."""

    name: str
    arguments: JsonObject


_EXACT = ArgRule("exact")


def _rule(name: str) -> ArgRule:
    """Every function's rule as the budget weighs it: a check compares each value."""
    return _EXACT


def with_unpaired(pairs: list[CallPair], n_expected: int, n_actual: int) -> list[CallPair]:
    seen_e = {p.expected for p in pairs}
    seen_a = {p.actual for p in pairs}
    pairs = sorted(pairs, key=lambda p: p.expected if p.expected is not None else -1)
    pairs += [CallPair(i, None, None) for i in range(n_expected) if i not in seen_e]
    pairs += [CallPair(None, j, None) for j in range(n_actual) if j not in seen_a]
    return pairs


def _prefixes(names: Sequence[str]) -> list[str]:
    """Each call's path: its function's name, indexed where the name repeats."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for name in names:
        base = key_segment("", name)
        if counts[name] > 1:
            k = seen.get(name, 0)
            seen[name] = k + 1
            base = index_segment(base, k)
        out.append(base)
    return out


def _field_results(
    expected: Sequence[ExpectedCall], calls: list[ToolCall], pairs: list[CallPair], comparator: str
) -> list[FieldResult]:
    e_paths = _prefixes([want.name for want in expected])
    a_paths = _prefixes([call.name for call in calls])
    out: list[FieldResult] = []
    for pair in sorted(pairs, key=_pair_order):
        if pair.check is None:
            out.extend(_unpaired_results(expected, calls, pair, e_paths, a_paths, comparator))
            continue
        assert pair.expected is not None and pair.actual is not None
        want, call = expected[pair.expected], calls[pair.actual]
        prefix = e_paths[pair.expected]
        other = a_paths[pair.actual] if call.name != want.name else None
        out.extend(
            _results(pair.check.fields, prefix, want.name, other, comparator, call.name, call.where)
        )
    return out


def _unpaired_results(
    expected: Sequence[ExpectedCall],
    calls: list[ToolCall],
    pair: CallPair,
    e_paths: list[str],
    a_paths: list[str],
    comparator: str,
) -> list[FieldResult]:
    """The fields of a call left unpaired: an expected call not made (its name and each
    argument that is not optional omitted), or a call not expected (all of it invented)."""
    if pair.expected is not None:
        want = expected[pair.expected]
        verdicts = [FieldVerdict(None, OMISSION, want.name, MISSING, "call not made")] + [
            FieldVerdict(arg, OMISSION, shown_values(values), MISSING, "call not made")
            for arg, values in want.accepted.items()
            if arg not in want.optional
        ]
        prefix, name = e_paths[pair.expected], want.name
    else:
        assert pair.actual is not None
        call = calls[pair.actual]
        verdicts = [FieldVerdict(None, HALLUCINATION, MISSING, call.name, "call not expected")] + [
            FieldVerdict(arg, HALLUCINATION, MISSING, value, "call not expected")
            for arg, value in call.arguments.items()
        ]
        prefix, name = a_paths[pair.actual], call.name
    where = calls[pair.actual].where if pair.actual is not None else None
    return _results(verdicts, prefix, name, None, comparator, where=where)


def _pair_order(pair: CallPair) -> tuple[int, int]:
    if pair.expected is not None:
        return (0, pair.expected)
    return (1, pair.actual if pair.actual is not None else 0)


def _results(
    verdicts: Sequence[FieldVerdict],
    prefix: str,
    name: str,
    other_prefix: str | None,
    comparator: str,
    other_name: str | None = None,
    where: str | None = None,
) -> list[FieldResult]:
    """FieldResults of a call's verdicts: the name at ``prefix``, each argument below it
    (the hallucinated arguments of a call of another function below that call's path).
    ``where``: the actual call's place in the answer, the ``actual_path`` of what it
    invented (an answer cut off while the call was written spares it: match.py)."""
    out = []
    for v in verdicts:
        at, fn = prefix, name
        if other_prefix is not None and v.status == HALLUCINATION and v.argument is not None:
            at, fn = other_prefix, other_name or name
        path = at if v.argument is None else key_segment(at, v.argument)
        field_path = key_segment("", fn)
        if v.argument is not None:
            field_path = key_segment(field_path, v.argument)
        expected = MISSING if v.status == HALLUCINATION else v.expected
        actual = MISSING if v.status == OMISSION else v.actual
        out.append(
            FieldResult(
                path,
                v.status,
                1.0 if v.status == MATCH else 0.0,
                expected,
                actual,
                comparator,
                v.reason,
                field_path,
                where if v.status == HALLUCINATION and where else None,
            )
        )
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
