"""One call of the run against one expected call: its arguments under the argument mode.

The argument modes are agentevals' (``tool_args_match_mode``), stated for the two sides it
names, the *output* call and the *reference* call:

- ``exact``: the arguments are equal (every argument a field);
- ``ignore``: the arguments are not compared (no argument field);
- ``subset``: every argument of the output is in the reference with an equal value (the
  output's arguments are the fields);
- ``superset``: every argument of the reference is in the output with an equal value (the
  reference's arguments are the fields).

A tool may have its own rule (``tool_args``): one of those modes, a list of argument names
(dotted for nested ones: ``filters.city``) compared for equality, an absent value and
``null`` alike, the others ignored (agentevals' list override), or a mapping of argument name
to a comparator spec of the registry (``{"query": "fuzzy"}``), each scoring its argument, the
others ignored. Values are equal as JSON values are (a boolean is never a number).

Which side is the output depends on the trajectory mode: in ``subset`` agentevals matches
the run's calls into the reference's, so the expected call stands as the output
(``swapped``) and ``subset`` and ``superset`` trade places. A pair is valid exactly when
every field it gives is a match, so that a pairing of valid pairs scores 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import isnan
from typing import NamedTuple

from ..comparing.comparators import BoundComparator
from ..comparing.registry import Registry
from ..core.errors import ComparatorError, ConfigError, did_you_mean, shown
from ..core.values import MISSING, JsonObject, json_equal
from ..results.field_results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SCORE_EPSILON

ARG_MODES = ("exact", "ignore", "subset", "superset")
# the rule of a list override, and of a mapping of comparators
FIELDS, COMPARE = "fields", "compare"
_SWAPPED = {"subset": "superset", "superset": "subset"}


class ArgRule(NamedTuple):
    """How one tool's arguments are compared: a mode of ARG_MODES, ``fields`` (the named
    ``keys`` compared for equality) or ``compare`` (each named argument by its comparator)."""

    mode: str
    keys: tuple[str, ...] = ()
    comparators: Mapping[str, BoundComparator] | None = None

    def facing(self, swapped: bool) -> ArgRule:
        """This rule with the expected call as agentevals' output (``swapped``)."""
        if swapped and self.mode in _SWAPPED:
            return self._replace(mode=_SWAPPED[self.mode])
        return self

    def both_ways(self) -> ArgRule:
        """The rule a pair must meet in both directions (``unordered``): ``subset`` and
        ``superset`` both ways are equality."""
        return self._replace(mode="exact") if self.mode in _SWAPPED else self


class ArgVerdict(NamedTuple):
    """One argument's verdict: its name, status, score and both values (MISSING: absent)."""

    argument: str
    status: str
    score: float
    expected: object
    actual: object


def read_rules(
    args: str, tool_args: object, registry: Registry
) -> tuple[ArgRule, dict[str, ArgRule]]:
    """The default rule (``args``) and each tool's own (``tool_args``), or ConfigError."""
    default = ArgRule(args)
    if tool_args is None:
        return default, {}
    if not isinstance(tool_args, Mapping):
        raise ConfigError(
            f"trajectory option tool_args must map tool names to a rule, not {shown(tool_args)}"
        )
    return default, {
        str(name): _rule(str(name), rule, registry) for name, rule in tool_args.items()
    }


def _rule(tool: str, rule: object, registry: Registry) -> ArgRule:
    if isinstance(rule, str):
        if rule not in ARG_MODES:
            raise ConfigError(
                f"trajectory option tool_args[{tool!r}] must be one of "
                f"{', '.join(map(repr, ARG_MODES))}, a list of argument names or a mapping of "
                f"argument to comparator, not {shown(rule)}{did_you_mean(rule, ARG_MODES)}"
            )
        return ArgRule(rule)
    if type(rule) is list and rule and all(isinstance(k, str) and k for k in rule):
        return ArgRule(FIELDS, tuple(rule))
    if isinstance(rule, Mapping) and rule:
        comparators = {}
        for argument, spec in rule.items():
            try:
                bound = registry.comparator(spec)
            except ConfigError as error:
                raise ConfigError(
                    f"trajectory option tool_args[{tool!r}][{argument!r}]: {error}"
                ) from None
            if bound.batch:
                raise ConfigError(
                    f"trajectory option tool_args[{tool!r}][{argument!r}]: {bound.name!r} is a "
                    f"batch comparator (an LLM judge); a trajectory's arguments take a plain one"
                )
            comparators[str(argument)] = bound
        return ArgRule(COMPARE, tuple(comparators), comparators)
    raise ConfigError(
        f"trajectory option tool_args[{tool!r}] must be an argument mode, a non-empty list of "
        f"argument names or a non-empty mapping of argument to comparator, not {shown(rule)}"
    )


def agrees(rule: ArgRule, expected: JsonObject, actual: JsonObject) -> bool:
    """Whether the pair is valid under ``rule`` (already facing its direction): the quick
    form of :func:`arg_verdicts`, every verdict a match."""
    mode = rule.mode
    if mode == "ignore":
        return True
    if mode == "exact":
        return json_equal(expected, actual)
    if mode == "superset":
        return all(k in actual and json_equal(v, actual[k]) for k, v in expected.items())
    if mode == "subset":
        return all(k in expected and json_equal(expected[k], v) for k, v in actual.items())
    return all(v.status == MATCH for v in arg_verdicts(rule, expected, actual))


def arg_verdicts(rule: ArgRule, expected: JsonObject, actual: JsonObject) -> list[ArgVerdict]:
    """Each compared argument's verdict under ``rule`` (already facing its direction)."""
    mode = rule.mode
    if mode == "ignore":
        return []
    if mode == FIELDS:
        return [_nested_verdict(key, expected, actual) for key in rule.keys]
    if mode == COMPARE:
        assert rule.comparators is not None
        return [
            _compared(key, comparator, expected.get(key, MISSING), actual.get(key, MISSING))
            for key, comparator in rule.comparators.items()
            if key in expected or key in actual
        ]
    if mode == "superset":
        keys: Sequence[str] = list(expected)
    elif mode == "subset":
        keys = list(actual)
    else:
        keys = list(expected) + [k for k in actual if k not in expected]
    return [_verdict(key, expected.get(key, MISSING), actual.get(key, MISSING)) for key in keys]


def counted(rule: ArgRule, arguments: JsonObject, expected_side: bool) -> list[str]:
    """The arguments of a call left unpaired that count as fields (omitted on the expected
    side, invented on the run's): the ones ``rule`` (facing its direction) compares there."""
    mode = rule.mode
    if mode == "ignore" or mode == ("subset" if expected_side else "superset"):
        return []
    if mode == FIELDS:
        return [key for key in rule.keys if _nested(arguments, key) is not None]
    if mode == COMPARE:
        return [key for key in rule.keys if key in arguments]
    return list(arguments)


def value_of(rule: ArgRule, arguments: JsonObject, key: str) -> object:
    if rule.mode == FIELDS:
        value = _nested(arguments, key)
        return MISSING if value is None else value
    return arguments.get(key, MISSING)


def _verdict(key: str, expected: object, actual: object) -> ArgVerdict:
    if expected is MISSING:
        return ArgVerdict(key, HALLUCINATION, 0.0, MISSING, actual)
    if actual is MISSING:
        return ArgVerdict(key, OMISSION, 0.0, expected, MISSING)
    if json_equal(expected, actual):
        return ArgVerdict(key, MATCH, 1.0, expected, actual)
    return ArgVerdict(key, MISMATCH, 0.0, expected, actual)


def _nested(arguments: JsonObject, key: str) -> object:
    """agentevals' reading of a dotted name: None where any part is absent or null."""
    current: object = arguments
    for part in key.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
        if current is None:
            return None
    return current


def _nested_verdict(key: str, expected: JsonObject, actual: JsonObject) -> ArgVerdict:
    e, a = _nested(expected, key), _nested(actual, key)
    if e is None and a is None:  # (both absent or null: agentevals' values are equal)
        return ArgVerdict(key, MATCH, 1.0, None, None)
    return _verdict(key, MISSING if e is None else e, MISSING if a is None else a)


def _compared(
    key: str, comparator: BoundComparator, expected: object, actual: object
) -> ArgVerdict:
    if expected is MISSING or actual is MISSING:
        return _verdict(key, expected, actual)
    score = comparator.score(expected, actual)
    if not isinstance(score, (int, float)) or isnan(score):
        raise ComparatorError(
            f"comparator {comparator.name!r} gave {shown(score)} for argument {key!r}, not a "
            f"score in [0, 1]"
        )
    score = min(1.0, max(0.0, float(score)))
    if score >= 1.0 - SCORE_EPSILON:
        return ArgVerdict(key, MATCH, 1.0, expected, actual)
    return ArgVerdict(key, MISMATCH, score, expected, actual)
