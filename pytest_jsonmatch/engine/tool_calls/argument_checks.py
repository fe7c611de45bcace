"""One tool call against one expected call, field by field, under the metric's own rules.

Fields: the function's name, then every argument either side has or the tool requires.
An argument given and expected matches when its value is JSON-equal to one of the
acceptable values and, where the tool declares its type, of that type (an integer is a
number; a boolean never is); given and not expected is a hallucination; expected and left
out is an omission unless the expected call lets it be left out and the tool does not
require it (then it matches: leaving it out was right); required by the tool and given by
neither side is an omission. A call of another function than expected has its name
mismatched, the expected arguments omitted and its own arguments hallucinated.

(BFCL's rules, which differ in strings, types and conversions: ``bfcl/bfcl_rules.py``.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..core.values import MISSING, JsonValue, MaybeJson, json_equal, json_type
from ..results.field_results import HALLUCINATION, MATCH, MISMATCH, OMISSION


class FieldVerdict(NamedTuple):
    """One field of a call (under these rules or BFCL's): ``argument`` (None: the function's
    name), its status (match, mismatch, omission, hallucination), the expected and given
    values, and why."""

    argument: str | None
    status: str
    expected: MaybeJson | Sequence[JsonValue]  # (an argument's acceptable values)
    actual: MaybeJson
    reason: str


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


def check_arguments(
    expected_name: str,
    accepted: Mapping[str, Sequence[JsonValue]],
    optional: frozenset[str],
    properties: Mapping[str, JsonValue] | None,
    required: Sequence[str],
    name: str,
    arguments: Mapping[str, JsonValue],
) -> CallCheck:
    """The call ``name(**arguments)`` against the expected call (``accepted``: each
    argument's acceptable values; ``optional``: those it may leave out) and its tool's
    ``properties`` and ``required`` (None: no tool given)."""
    if name != expected_name:
        return _other_function(expected_name, accepted, optional, required, name, arguments)
    fields = [FieldVerdict(None, MATCH, expected_name, name, "")]
    fields.extend(
        _argument_verdict(arg, values, optional, properties, required, arguments)
        for arg, values in accepted.items()
    )
    fields.extend(
        FieldVerdict(arg, OMISSION, MISSING, MISSING, "required by the tool, left out")
        for arg in required
        if arg not in accepted and arg not in arguments
    )
    fields.extend(
        FieldVerdict(arg, HALLUCINATION, MISSING, value, _why_invented(arg, properties))
        for arg, value in arguments.items()
        if arg not in accepted
    )
    error = next((f.reason for f in fields if f.status != MATCH), "")
    return CallCheck(tuple(fields), not error and all(f.status == MATCH for f in fields), error)


def _other_function(
    expected_name: str,
    accepted: Mapping[str, Sequence[JsonValue]],
    optional: frozenset[str],
    required: Sequence[str],
    name: str,
    arguments: Mapping[str, JsonValue],
) -> CallCheck:
    """A call of another function: its name a mismatch, the expected arguments that count
    omitted, the arguments given invented."""
    reason = f"called {name!r} instead of {expected_name!r}"
    fields = [FieldVerdict(None, MISMATCH, expected_name, name, reason)]
    fields.extend(
        FieldVerdict(arg, OMISSION, _shown(values), MISSING, "its function was not called")
        for arg, values in accepted.items()
        if arg not in optional or arg in required
    )
    fields.extend(
        FieldVerdict(arg, HALLUCINATION, MISSING, value, "given to another function")
        for arg, value in arguments.items()
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
    shown = _shown(values)
    if arg not in arguments:
        if arg in optional and arg not in required:
            return FieldVerdict(arg, MATCH, shown, MISSING, "optional, left out")
        why = "required, left out" if arg in required else "left out"
        return FieldVerdict(arg, OMISSION, shown, MISSING, why)
    value = arguments[arg]
    problem = type_problem(value, properties.get(arg)) if properties else ""
    if problem:
        return FieldVerdict(arg, MISMATCH, shown, value, f"type: {problem}")
    if any(json_equal(value, ok) for ok in values):
        return FieldVerdict(arg, MATCH, shown, value, "")
    why = "not an acceptable value" if len(values) > 1 else "wrong value"
    if not values:
        why = "expected to be left out"
    return FieldVerdict(arg, MISMATCH, shown, value, why)


def _why_invented(arg: str, properties: Mapping[str, JsonValue] | None) -> str:
    """Why an argument no expected call names is invented."""
    if properties is not None and arg not in properties:
        return "not declared by the tool"
    return "not expected"


def _shown(values: Sequence[JsonValue]) -> MaybeJson:
    """The expected value as a report shows it: the one acceptable value, or the list."""
    return values[0] if len(values) == 1 else list(values)
