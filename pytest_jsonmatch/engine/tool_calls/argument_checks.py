"""One tool call against one expected call, field by field, under the metric's own rules.

Fields: the function's name, then every argument either side has or the tool requires.
An argument given and expected matches when its value is JSON-equal to one of the
acceptable values and, where the tool declares its type, of that type (an integer is a
number; a boolean never is); given and not expected is a hallucination; expected and left
out is an omission unless the expected call lets it be left out and the tool does not
require it (then it matches: leaving it out was right); required by the tool and given by
neither side is an omission. A call of another function than expected has its name
mismatched, the expected arguments omitted and its own arguments hallucinated.

(BFCL's rules, which differ in strings, types and conversions, are in ``bfcl_rules.py``.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..core.values import MISSING, JsonValue, MaybeJson, json_equal, json_type
from ..results.field_results import HALLUCINATION, MATCH, MISMATCH, OMISSION
from .bfcl_rules import CallCheck, FieldVerdict

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
    fields: list[FieldVerdict] = []
    if name != expected_name:
        reason = f"called {name!r} instead of {expected_name!r}"
        fields.append(FieldVerdict(None, MISMATCH, expected_name, name, reason))
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
    fields.append(FieldVerdict(None, MATCH, expected_name, name, ""))
    for arg, values in accepted.items():
        shown = _shown(values)
        if arg in arguments:
            value = arguments[arg]
            problem = type_problem(value, properties.get(arg)) if properties else ""
            if problem:
                fields.append(FieldVerdict(arg, MISMATCH, shown, value, f"type: {problem}"))
            elif any(json_equal(value, ok) for ok in values):
                fields.append(FieldVerdict(arg, MATCH, shown, value, ""))
            else:
                why = "not an acceptable value" if len(values) > 1 else "wrong value"
                if not values:
                    why = "expected to be left out"
                fields.append(FieldVerdict(arg, MISMATCH, shown, value, why))
        elif arg in optional and arg not in required:
            fields.append(FieldVerdict(arg, MATCH, shown, MISSING, "optional, left out"))
        else:
            why = "required, left out" if arg in required else "left out"
            fields.append(FieldVerdict(arg, OMISSION, shown, MISSING, why))
    for arg in required:
        if arg not in accepted and arg not in arguments:
            fields.append(
                FieldVerdict(arg, OMISSION, MISSING, MISSING, "required by the tool, left out")
            )
    for arg, value in arguments.items():
        if arg not in accepted:
            why = (
                "not declared by the tool"
                if properties is not None and arg not in properties
                else "not expected"
            )
            fields.append(FieldVerdict(arg, HALLUCINATION, MISSING, value, why))
    error = next((f.reason for f in fields if f.status != MATCH), "")
    return CallCheck(tuple(fields), not error and all(f.status == MATCH for f in fields), error)


def _shown(values: Sequence[JsonValue]) -> MaybeJson:
    """The expected value as a report shows it: the one acceptable value, or the list."""
    return values[0] if len(values) == 1 else list(values)
