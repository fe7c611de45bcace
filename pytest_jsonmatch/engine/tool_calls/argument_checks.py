"""One call against one expected call, argument by argument: the rules of ``tool_calls``
and of ``trajectory``, the verdicts both give (and BFCL's rules: ``bfcl/bfcl_rules.py``),
and the one builder of a call's field rows from its verdicts (:func:`call_rows`).

``tool_calls``: fields are the function's name, then every argument either side has or the
tool requires. An argument given and expected matches when its value is JSON-equal to one
of the acceptable values and, where the tool declares its type, of that type (an integer is
a number; a boolean never is); given and not expected is a hallucination; expected and left
out is an omission unless the expected call lets it be left out and the tool does not
require it (then it matches: leaving it out was right); required by the tool and given by
neither side is an omission. A call of another function than expected has its name
mismatched, the expected arguments omitted and its own arguments hallucinated.

``trajectory``: agentevals' argument modes (``tool_args_match_mode``), stated for the two
sides it names, the *output* call and the *reference* call: ``exact``, the arguments are
equal (every argument a field); ``ignore``, not compared (no argument field); ``subset``,
every argument of the output is in the reference with an equal value (the output's arguments
are the fields); ``superset``, every argument of the reference is in the output with an
equal value (the reference's arguments are the fields). A tool may have its own rule
(``tool_args``): one of those modes, a list of argument names (dotted for nested ones:
``filters.city``) compared for equality, an absent value and ``null`` alike, the others
ignored (agentevals' list override), or a mapping of argument name to a comparator spec of
the registry (``{"query": "fuzzy"}``), each scoring its argument, the others ignored. Which
side is the output depends on the trajectory mode: in ``subset`` agentevals matches the
run's calls into the reference's, so the expected call stands as the output (``swapped``)
and ``subset`` and ``superset`` trade places. A pair is valid exactly when every field it
gives is a match, so that a pairing of valid pairs scores 1.0. A rule that compares by
equality alone (``exact``, ``ignore``, a list of names) gives each call an equality key
(:func:`equality_key`): two calls of one function agree exactly when their keys are equal,
so their pairs need no check; a check's cost is its calls' weight (pairing/pair_budget.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from math import isnan
from typing import NamedTuple

from ..comparing.comparators import BoundComparator
from ..comparing.registry import Registry
from ..core.errors import ComparatorError, ConfigError, did_you_mean, shown
from ..core.paths import KEY_FORMS, key_forms
from ..core.values import (
    ARRAY,
    MISSING,
    OBJECT,
    SCALAR_TYPES,
    TYPE_OF,
    JsonObject,
    JsonValue,
    MaybeJson,
    json_equal,
    json_type,
)
from ..pairing.pair_budget import Weight, steps_of
from ..reading.agent_messages import ToolCall
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SCORE_EPSILON,
    FieldResult,
)
from .expected_calls import ExpectedCall, ToolDoc


class FieldVerdict(NamedTuple):
    """One field of a call (under these rules or BFCL's): ``argument`` (None: the function's
    name), its status (match, mismatch, omission, hallucination), the expected and given
    values (MISSING: absent), why, and its score."""

    argument: str | None
    status: str
    expected: MaybeJson | Sequence[JsonValue]  # (an argument's acceptable values)
    actual: MaybeJson
    reason: str
    score: float | None = None  # (a comparator's; None: 1 for a match, else 0)


class CallCheck(NamedTuple):
    """A call checked: each field's verdict, whether the call is valid (every field
    matches), and the first failure's reason (BFCL's error) when it is not."""

    fields: tuple[FieldVerdict, ...]
    valid: bool
    error: str


# declared type names (JSON Schema's, and BFCL's Python ones) -> the JSON type they take;
# None: any value
_TYPE_NAMES: dict[str, str | None] = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "array": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "null": "null",
    "any": None,
}


def type_problem(value: JsonValue, schema: object) -> str:
    """Why ``value`` is not of the type ``schema`` declares ('' when it is, or when the
    schema declares no type this knows), one level of array items and object properties
    at a time, down the value."""
    if not isinstance(schema, Mapping):
        return ""
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list):
        return ""
    kinds = [_TYPE_NAMES.get(name, None) if isinstance(name, str) else None for name in names]
    if None in kinds:
        return ""
    if not any(_is_kind(value, kind) for kind in kinds):
        return f"expected {'/'.join(map(str, names))}, got {json_type(value)}"
    if type(value) is list:
        for i, item in enumerate(value):
            problem = type_problem(item, schema.get("items"))
            if problem:
                return f"[{i}]: {problem}"
    elif type(value) is dict:
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            for key, item in value.items():
                problem = type_problem(item, properties.get(key))
                if problem:
                    return f".{key}: {problem}"
    return ""


def _is_kind(value: JsonValue, kind: str | None) -> bool:
    tag = json_type(value)
    if kind == "integer":
        return tag == "number" and (type(value) is int or float(value).is_integer())  # type: ignore[arg-type]
    return tag == kind


def check_arguments(want: ExpectedCall, tool: ToolDoc | None, call: ToolCall) -> CallCheck:
    """``call`` against the expected call (each argument's acceptable values, and those it
    may leave out) and its tool's declared parameters (None: no tool given)."""
    properties = tool.properties if tool is not None else None
    required = tool.required if tool is not None else ()
    if call.name != want.name:
        return _other_function(want, required, call)
    arguments, accepted = call.arguments, want.accepted
    make = _make
    fields = [make(FieldVerdict, (None, MATCH, want.name, call.name, "", None))]
    valid = True
    for arg, values in accepted.items():
        if len(values) == 1 and not properties and arg in arguments:
            # (one acceptable value, no declared type: a value of its exact JSON scalar
            # type is judged by ``==``, as json_equal would judge it)
            value, ok = arguments[arg], values[0]
            kind = type(value)
            if kind is type(ok) and kind in _EQUAL_BY_VALUE:
                if value == ok:
                    fields.append(make(FieldVerdict, (arg, MATCH, ok, value, "", None)))
                else:
                    fields.append(make(FieldVerdict, (arg, MISMATCH, ok, value, _WRONG, None)))
                    valid = False
                continue
        verdict = _argument_verdict(arg, values, want.optional, properties, required, arguments)
        fields.append(verdict)
        valid = valid and verdict.status == MATCH
    for arg in required:
        if arg not in accepted and arg not in arguments:
            fields.append(
                make(FieldVerdict, (arg, OMISSION, MISSING, MISSING, _REQUIRED_LEFT_OUT, None))
            )
            valid = False
    for arg, value in arguments.items():
        if arg not in accepted:
            why = _why_invented(arg, properties)
            fields.append(make(FieldVerdict, (arg, HALLUCINATION, MISSING, value, why, None)))
            valid = False
    if valid:
        return CallCheck(tuple(fields), True, "")
    failed = next(f for f in fields if f.status != MATCH)
    return CallCheck(tuple(fields), False, failed.reason)


# the Python types whose values json_equal compares by ``==`` alone, both sides of that type
_EQUAL_BY_VALUE = frozenset({str, int, float, bool})
_WRONG, _REQUIRED_LEFT_OUT = "wrong value", "required by the tool, left out"
_make = tuple.__new__  # (a record made from its fields in order: FieldVerdict's own __new__
# is a Python function, called once per field)


def _other_function(want: ExpectedCall, required: Sequence[str], call: ToolCall) -> CallCheck:
    """A call of another function: its name a mismatch, the expected arguments that count
    omitted, the arguments given invented."""
    reason = f"called {call.name!r} instead of {want.name!r}"
    fields = [FieldVerdict(None, MISMATCH, want.name, call.name, reason)]
    fields.extend(
        FieldVerdict(arg, OMISSION, shown_values(values), MISSING, "its function was not called")
        for arg, values in want.accepted.items()
        if arg not in want.optional or arg in required
    )
    fields.extend(
        FieldVerdict(arg, HALLUCINATION, MISSING, value, "given to another function")
        for arg, value in call.arguments.items()
    )
    return CallCheck(tuple(fields), False, reason)


def _argument_verdict(
    arg: str,
    values: Sequence[JsonValue],
    optional: frozenset[str],
    properties: Mapping[str, JsonValue] | None,
    required: Sequence[str],
    arguments: Mapping[str, JsonValue],
) -> FieldVerdict:
    """The verdict of one expected argument: given (its declared type, then its acceptable
    values), or left out (optional or not)."""
    wanted = shown_values(values)
    if arg not in arguments:
        if arg in optional and arg not in required:
            return FieldVerdict(arg, MATCH, wanted, MISSING, "optional, left out")
        why = "required, left out" if arg in required else "left out"
        return FieldVerdict(arg, OMISSION, wanted, MISSING, why)
    value = arguments[arg]
    problem = type_problem(value, properties.get(arg)) if properties else ""
    if problem:
        return FieldVerdict(arg, MISMATCH, wanted, value, f"type: {problem}")
    for ok in values:
        if json_equal(value, ok):
            return FieldVerdict(arg, MATCH, wanted, value, "")
    why = "not an acceptable value" if len(values) > 1 else "wrong value"
    if not values:
        why = "expected to be left out"
    return FieldVerdict(arg, MISMATCH, wanted, value, why)


def _why_invented(arg: str, properties: Mapping[str, JsonValue] | None) -> str:
    """Why an argument no expected call names is invented."""
    if properties is not None and arg not in properties:
        return "not declared by the tool"
    return "not expected"


def shown_values(values: Sequence[JsonValue]) -> MaybeJson:
    """The expected value as a report shows it: the one acceptable value, or the list."""
    return values[0] if len(values) == 1 else list(values)


# -- the fields a call gives ----------------------------------------------------------------

NOT_MADE, NOT_EXPECTED = "call not made", "call not expected"


def unpaired_verdicts(
    name: str, arguments: Iterable[tuple[str, MaybeJson]], expected_side: bool
) -> list[FieldVerdict]:
    """The verdicts of a call with no partner: its name and each of ``arguments`` (those
    that count, with their values) omitted (``expected_side``) or invented."""
    status, why = (OMISSION, NOT_MADE) if expected_side else (HALLUCINATION, NOT_EXPECTED)
    out = []
    for argument, value in [(None, name), *arguments]:
        expected, actual = (value, MISSING) if expected_side else (MISSING, value)
        out.append(FieldVerdict(argument, status, expected, actual, why))
    return out


def call_rows(
    verdicts: Iterable[FieldVerdict],
    path: str,
    field: str,
    comparator: str,
    at: str | None = None,
    other: tuple[str, str] | None = None,
    compared: Callable[[str], str] | None = None,
) -> list[FieldResult]:
    """The field rows of one call's verdicts (``tool_calls``' and ``trajectory``'s): the
    function's name at ``path`` (``field`` in the per-field tables), each argument below it,
    scored by ``comparator`` (an argument's by ``compared``, where given). ``at``: the actual
    call's place in the answer, the ``actual_path`` of what it invented (an answer cut off
    while the call was written spares it: match.py). ``other``: the path and field of the
    actual call where it is of another function; its invented arguments stand below it."""
    out = []
    make, tail = _make, _ROW_DEFAULTS
    forms = KEY_FORMS  # (key_forms' own table: a key's forms found without a call)
    for v in verdicts:
        argument, status, expected, actual, reason, score = v
        at_path, at_field = path, field
        if argument is not None:
            if other is not None and status == HALLUCINATION:
                at_path, at_field = other
            found = forms.get(argument)
            root, below = key_forms(argument) if found is None else found
            at_path = at_path + below if at_path else root
            at_field = at_field + below if at_field else root
        if score is None:
            score = 1.0 if status == MATCH else 0.0
        if status == HALLUCINATION:
            expected, where = MISSING, at
        else:
            where = None
            if status == OMISSION:
                actual = MISSING
        by = comparator if compared is None or argument is None else compared(argument)
        row = (at_path, status, score, expected, actual, by, reason, at_field, where, *tail)
        out.append(make(FieldResult, row))
    return out


# FieldResult's fields after the nine call_rows sets, at their defaults (weight 1,
# nothing compared apart)
_ROW_DEFAULTS = tuple(FieldResult._field_defaults[f] for f in FieldResult._fields[9:])


# -- the trajectory's rules ------------------------------------------------------------------

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

    @property
    def checked(self) -> bool:
        """Whether each pair must be checked (else :func:`equality_key` decides)."""
        return self.mode not in ("exact", "ignore", FIELDS)

    def key(self, arguments: JsonObject) -> Hashable:
        return equality_key(self, arguments)

    def weight(self, arguments: JsonObject) -> Weight:
        return weigh(self, arguments)


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


def arg_verdicts(rule: ArgRule, expected: JsonObject, actual: JsonObject) -> list[FieldVerdict]:
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


def counted(
    rule: ArgRule, arguments: JsonObject, expected_side: bool
) -> list[tuple[str, MaybeJson]]:
    """The arguments of a call left unpaired that count as fields (omitted on the expected
    side, invented on the run's), with their values: the ones ``rule`` (facing its
    direction) compares there."""
    mode = rule.mode
    if mode == "ignore" or mode == ("subset" if expected_side else "superset"):
        return []
    if mode == FIELDS:
        values = [(key, _nested(arguments, key)) for key in rule.keys]
        return [(key, value) for key, value in values if value is not None]
    if mode == COMPARE:
        return [(key, arguments[key]) for key in rule.keys if key in arguments]
    return list(arguments.items())


def _verdict(key: str, expected: MaybeJson, actual: MaybeJson) -> FieldVerdict:
    if expected is MISSING:
        return FieldVerdict(key, HALLUCINATION, MISSING, actual, "")
    if actual is MISSING:
        return FieldVerdict(key, OMISSION, expected, MISSING, "")
    if json_equal(expected, actual):
        return FieldVerdict(key, MATCH, expected, actual, "")
    return FieldVerdict(key, MISMATCH, expected, actual, "")


def _nested(arguments: JsonObject, key: str) -> JsonValue:
    """agentevals' reading of a dotted name: None where any part is absent or null."""
    current: JsonValue = arguments
    for part in key.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
        if current is None:
            return None
    return current


def _nested_verdict(key: str, expected: JsonObject, actual: JsonObject) -> FieldVerdict:
    e, a = _nested(expected, key), _nested(actual, key)
    if e is None and a is None:  # (both absent or null: agentevals' values are equal)
        return FieldVerdict(key, MATCH, None, None, "")
    return _verdict(key, MISSING if e is None else e, MISSING if a is None else a)


def _compared(
    key: str, comparator: BoundComparator, expected: MaybeJson, actual: MaybeJson
) -> FieldVerdict:
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
        return FieldVerdict(key, MATCH, expected, actual, "")
    return FieldVerdict(key, MISMATCH, expected, actual, "", score)


# -- what a check costs, and the rules that need none ----------------------------------------


def weigh(rule: ArgRule, arguments: JsonObject) -> Weight:
    """The weight of a call's ``arguments`` as ``rule`` compares them (only the arguments it
    reads count)."""
    mode = rule.mode
    if mode == "ignore":
        return Weight(0)
    if mode == FIELDS:
        return Weight(sum(steps_of(_nested(arguments, key)) for key in rule.keys))
    if mode == COMPARE:
        assert rule.comparators is not None
        values = [arguments.get(key) for key in rule.keys]
        texts = tuple(
            len(v) if type(v) is str and not rule.comparators[key].unequal_zero else 0
            for key, v in zip(rule.keys, values)
        )  # (a comparator that equality decides compares texts as equality does)
        costs = tuple(rule.comparators[key].text_cost for key in rule.keys)
        return Weight(sum(steps_of(v) for v in values), texts, costs)
    return Weight(steps_of(arguments))


def equality_key(rule: ArgRule, arguments: JsonObject) -> Hashable:
    """A key under which two calls of one function agree under ``rule`` (one that compares
    by equality alone: not ``checked``) exactly when their keys are equal: ``exact``,
    the arguments' :func:`json_key`; ``ignore``, every call alike; a list of names, each
    named value's key, None for absent or null (which agentevals reads alike)."""
    mode = rule.mode
    if mode == "ignore":
        return ()
    if mode == FIELDS:
        values = [_nested(arguments, key) for key in rule.keys]
        return tuple(None if v is None else json_key(v) for v in values)
    return json_key(arguments)


def json_key(value: object) -> Hashable:
    """A hashable key of a JSON value: two values have equal keys exactly when they are
    equal by :func:`json_equal` (the door hands on no NaN, the one value unequal to itself).

    A flat object (scalar values only: the usual arguments) is keyed by its (key, JSON type,
    value) triples in key order, marked ``_FLAT``; it equals only flat objects, so the other
    form never meets it. Any other value is written out as tokens, depth first, each a (tag,
    payload) pair: an object its size and then, in key order, each key and its value's
    tokens; an array its length and then its elements; a scalar its JSON type and itself.
    With the type, a boolean is never a number, and equal numbers (1 and 1.0) give equal
    keys, as they compare equal; sizes make a writing read back one way only, so equal
    tokens mean equal values. Written without recursion, for values of any depth."""
    if type(value) is dict:
        try:  # (keys are distinct, so the sort never compares two values)
            return _FLAT, tuple((k, _SCALAR_TAGS[type(v)], v) for k, v in sorted(value.items()))
        except KeyError:  # (a value nests)
            pass
    tokens: list[tuple[str, object]] = []
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Key:
            tokens.append(("key", item.name))
            continue
        tag = json_type(item)
        if tag == OBJECT:
            assert isinstance(item, Mapping)
            tokens.append((OBJECT, len(item)))
            for key in sorted(item, reverse=True):  # (popped in key order)
                stack.append(item[key])
                stack.append(_Key(key))
        elif tag == ARRAY:
            assert isinstance(item, (list, tuple))
            tokens.append((ARRAY, len(item)))
            stack.extend(reversed(item))
        else:
            tokens.append((tag, item))
    return tuple(tokens)


_FLAT = "flat object"
_SCALAR_TAGS = {t: tag for t, tag in TYPE_OF.items() if t in SCALAR_TYPES}


class _Key(NamedTuple):
    """An object's key, in the stack of values :func:`json_key` writes out."""

    name: str
