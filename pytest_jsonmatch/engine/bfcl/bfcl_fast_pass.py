"""BFCL's rules on BFCL's decoded form, in one pass per call: the verdict and the counts.

BFCL's model outputs and possible answers come decoded, ``[{name: {arg: value}}]`` and
``[{name: {arg: [values]}}]``: there is nothing to read into another form. The functions
here take both sides as they are. A call is checked in one loop over its arguments
(:func:`_call_error`, :func:`_call_counts`), with no record made: in Python, an argument
whose value is of the type its document declares (a scalar, ``any``, or an array whose
items are all of the declared item type, not dicts) and is one of the acceptable values as
it is, is accepted at once (every rule accepts it: compared as a value of its type, or,
where the possible answers are of another type, as a variable, by Python equality); any
other value goes to :func:`.bfcl_rules.value_problem`, the one rule used everywhere.
Calls tried one against another (a parallel category's pairing) and the counts decide a
value without making the reason (:func:`_accepts`, :func:`_value_ok`). A single expected call met by a single call (most entries) is checked
straight from the data (:func:`verdict`); otherwise the entry is first read into a plan
(:func:`plan`: each expected call with what its document says), which a
:class:`~pytest_jsonmatch.BfclChecker` keeps for every output it checks
(:func:`calls_error`, :func:`counts`).

Every function answers ``None`` where it does not apply (a side not in the decoded form)
or where the data is malformed (a document without its parameters, an expected call with
no document, a value that cannot be compared): the caller then takes the general path
(:mod:`.bfcl_rules`, :mod:`.bfcl_entry`), which gives the verdict, the counts or the
exception it always gave. Nothing here is kept or changed, so falling back costs only the
time spent here. ``BfclRaises`` from ``value_problem`` goes through where the general
path lets it through too (the checker raises there, at that point).
"""

from __future__ import annotations

from functools import partial
from typing import Final, TypeAlias

from ..core.values import JsonObject, JsonValue
from ..pairing.call_pairing import left_beside
from .bfcl_rules import (
    PYTHON_TYPES,
    STANDARDIZED,
    BfclRaises,
    doc_named,
    parallel_error,
    parallel_fit,
    standardize,
    value_problem,
)

# The switch (docs/architecture.md, "Fast paths"): False sends every check the general way.
SPECIALISE = True

# the declared types whose value, of the Python type declared and equal to an acceptable
# value as it is, every rule accepts ("any" is checked as a string)
_EXACT: Final[dict[object, type]] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "any": str,
}
_ARRAYS: Final = frozenset({"array", "tuple"})  # (Python's declared types of lists)
_NO: Final = object()  # (no such key)

# an expected call as checked: the name to call (dots as underscores where the model writes
# them so), its document's parameters' details, the required names, the possible answer
# ({arg: [values]}) and the name it is given under
Expected: TypeAlias = tuple[str, JsonObject, list[str], JsonObject, str]
Calls: TypeAlias = list[tuple[str, JsonObject]]
# (match, mismatch, omission, hallucination): a pairing's fields by status
Counted: TypeAlias = tuple[int, int, int, int]


def verdict(
    docs: object,
    output: object,
    possible: object,
    language: str,
    parallel: bool,
    multiple: bool,
    dots: bool,
) -> str | None:
    """The checker's verdict (its first failure, '' when valid) on a model's ``output``
    against an entry's ``possible`` answers and function ``docs``, all in BFCL's decoded
    form, paired as ``bfcl_rules.calls_error`` pairs them for the category (``parallel``,
    ``multiple``); None where the general path must decide."""
    if type(output) is not list or type(possible) is not list or type(docs) is not list:
        return None
    if parallel or len(possible) != 1 or len(output) != 1 or not docs:
        calls = decoded_calls(output)
        if calls is None or not docs:
            return None
        try:  # (plan's reading, its checks above made once)
            expected = _plan(docs, possible, parallel, multiple, dots)
        except Exception:  # noqa: BLE001 (a malformed document: the general path says so)
            return None
        if expected is None:
            return None
        return calls_error(expected, calls, len(possible), language, parallel, multiple)
    item, call = possible[0], output[0]
    if type(item) is not dict or len(item) != 1 or type(call) is not dict or len(call) != 1:
        return None
    (wanted,) = item  # (its one key: cheaper than unpacking its items)
    answers = item[wanted]
    (name,) = call
    arguments = call[name]
    if type(answers) is not dict or type(arguments) is not dict:
        return None
    try:
        doc = doc_named(docs, wanted) if multiple else docs[0]
        want = _expected(doc, wanted, answers, dots)
        return None if want is None else _call_error(want, name, arguments, language)
    except BfclRaises:
        raise
    except Exception:  # noqa: BLE001 (malformed data: the general path says what the checker does)
        return None


def plan(
    docs: object, possible: object, parallel: bool, multiple: bool, dots: bool
) -> list[Expected] | None:
    """The expected calls of an entry to check against: every one in a parallel category,
    else the first (the one the checker checks), its document found by name in a multiple
    category, else the first document; None unless the possible answers are in the
    decoded form and each document needed is well formed."""
    if type(possible) is not list or type(docs) is not list or not docs:
        return None
    try:
        return _plan(docs, possible, parallel, multiple, dots)
    except Exception:  # noqa: BLE001 (a malformed document: the general path says so)
        return None


def _plan(
    docs: list[JsonValue], possible: list[JsonValue], parallel: bool, multiple: bool, dots: bool
) -> list[Expected] | None:
    out: list[Expected] = []
    for item in possible:
        if type(item) is not dict or len(item) != 1:
            return None
        (wanted,) = item  # (its one key, as in verdict)
        accepted = item[wanted]
        if type(accepted) is not dict:
            return None
        for values in accepted.values():
            if type(values) is not list:
                return None
        if parallel or not out:
            doc = doc_named(docs, wanted) if parallel or multiple else docs[0]
            want = _expected(doc, wanted, accepted, dots)
            if want is None:
                return None
            out.append(want)
    return out


def _expected(doc: object, wanted: str, answers: JsonObject, dots: bool) -> Expected | None:
    """An expected call with what its document says; None where the document is not
    well formed (the general path reads it and says what the checker does)."""
    if type(doc) is not dict:
        return None
    parameters = doc.get("parameters")
    if type(parameters) is not dict:
        return None
    details = parameters.get("properties")
    required = parameters.get("required")
    name = doc.get("name")
    if type(details) is not dict or type(required) is not list or type(name) is not str:
        return None
    if dots and "." in name:
        name = name.replace(".", "_")
    return name, details, required, answers, wanted


def decoded_calls(output: object) -> Calls | None:
    """A model's output in BFCL's decoded form as (name, arguments) pairs; None if it is
    in another form (``tool_calls.metric.decoded_form(output, dict)``, read here with one
    lookup per call instead of a view of its items or a loop over its one key: this runs
    for every output checked)."""
    if type(output) is not list:
        return None
    calls: Calls = []
    for item in output:
        if type(item) is not dict or len(item) != 1:
            return None
        (name,) = item
        arguments = item[name]
        if type(arguments) is not dict:
            return None
        calls.append((name, arguments))
    return calls


def calls_error(
    expected: list[Expected],
    calls: Calls,
    n: int,
    language: str,
    parallel: bool,
    multiple: bool,
) -> str | None:
    """The checker's verdict on ``calls`` (its first failure, '' when valid) against an
    entry's :func:`plan` of ``n`` expected calls, paired as ``bfcl_rules.calls_error``
    pairs them; None where the general path must decide."""
    m = len(calls)
    try:
        if parallel:
            return parallel_error(n, m, partial(_accepts, expected, calls, language), expected, 4)
        if m != (n if multiple else 1):
            return f"wrong number of calls: {m} made, {n} expected"
        if not expected:
            return None
        name, arguments = calls[0]
        return _call_error(expected[0], name, arguments, language)
    except BfclRaises:
        raise
    except Exception:  # noqa: BLE001 (malformed data: the general path says what the checker does)
        return None


def _call_error(want: Expected, name: str, arguments: JsonObject, language: str) -> str | None:
    """``bfcl_rules.call_error`` on one expected call, in one loop; None where an
    acceptable value is not a list (the possible answer is not in the decoded form)."""
    expected, details, required, answers, _ = want
    error = ""
    if name != expected:
        error = f"function {expected!r} not called (called {name!r})"
    else:
        for param in required:
            if param not in arguments:
                error = f"required parameter {param!r} missing"
                break
        else:
            python = language == "python"
            for param, value in arguments.items():
                detail = details.get(param, _NO)
                if detail is _NO:
                    error = f"parameter {param!r} not declared"
                    break
                accepted = answers.get(param)  # (None: not there; a null is no list)
                if accepted is None:
                    error = f"parameter {param!r} not in the possible answer"
                    break
                if python and (  # (accepted as it is: see _accepts)
                    type(value) is _EXACT.get(detail["type"])  # type: ignore[index]
                    and value in accepted  # type: ignore[operator]
                    or type(value) is list
                    and _same_list(value, accepted, detail)
                ):
                    continue
                if type(accepted) is not list:
                    return None
                try:
                    error = value_problem(param, value, accepted, details, language)
                except BfclRaises:
                    if all(type(values) is list for values in answers.values()):
                        raise
                    return None
                if error:
                    break
    for param, values in answers.items():
        if type(values) is not list:
            return None
        if not error and param not in arguments and "" not in values:
            error = f"parameter {param!r} left out and not optional"
    return error


def _same_list(value: list[JsonValue], accepted: JsonValue, detail: object) -> bool:
    """Whether an array (or tuple) argument's ``value`` is accepted as one of its
    acceptable values as it is: every item of the Python type its document declares for
    items (not a dict: lists of dicts are compared key by key), and the list equal to an
    acceptable value (its type check passes on the first acceptable value; as a list of
    the declared type, or as a variable, it is then compared equal)."""
    if detail["type"] not in _ARRAYS:  # type: ignore[index]
        return False
    nested = PYTHON_TYPES.get(detail["items"]["type"])  # type: ignore[index]
    if nested is None or nested is dict:
        return False
    for item in value:
        if type(item) is not nested:
            return False
    return value in accepted  # type: ignore[operator]


def _accepts(planned: list[Expected], calls: Calls, language: str, e: int, a: int) -> bool:
    """Whether planned expected call ``e`` accepts call ``a`` (``name(**arguments)``):
    :func:`_call_error` giving '', found without the reasons (a parallel category's calls
    are tried one against another, and the reasons of those that do not pair are never
    shown). Bound to an entry's calls (``functools.partial``), the pairing's check of a pair."""
    name, arguments = calls[a]
    expected, details, required, answers, _ = planned[e]
    if name != expected:
        return False
    for param in required:
        if param not in arguments:
            return False
    python = language == "python"
    for param, value in arguments.items():
        detail = details.get(param, _NO)
        accepted = answers.get(param)  # (None: not there; a null is no list)
        if detail is _NO or accepted is None:
            return False
        # a Python argument of the type its document declares (a scalar, ``any``) and one
        # of the acceptable values, or an array of the declared item type equal to one
        # (:func:`_same_list`), is accepted as it is: every rule accepts it (written out
        # here and in the two loops like this one: it runs for every argument checked)
        if python and (
            type(value) is _EXACT.get(detail["type"])  # type: ignore[index]
            and value in accepted  # type: ignore[operator]
            or type(value) is list
            and _same_list(value, accepted, detail)
        ):
            continue
        if not _value_ok(param, value, accepted, detail, details, python, language):
            return False
    for param, values in answers.items():
        if param not in arguments and "" not in values:  # type: ignore[operator]
            return False
    return True


def _value_ok(
    param: str,
    value: JsonValue,
    accepted: JsonValue,
    detail: object,
    details: JsonObject,
    python: bool,
    language: str,
) -> bool:
    """Whether ``value`` is accepted for ``param``: ``not value_problem(...)``, a Python
    scalar decided as ``value_problem`` decides it, without making the reason; BfclRaises
    where it raises."""
    declared = detail["type"]  # type: ignore[index]
    if python:
        scalar = _EXACT.get(declared)
        if scalar is not None and declared != "any":
            kind = None
            for answer in accepted:  # type: ignore[union-attr]
                if answer != "":
                    kind = type(answer)
                    break
            if kind is scalar:
                if type(value) is int and scalar is float:
                    value = float(value)
                if type(value) is not scalar:
                    return False
                if scalar is str:
                    given = STANDARDIZED.get(value) or standardize(value)  # type: ignore[arg-type]
                    for answer in accepted:  # type: ignore[union-attr]
                        if (
                            type(answer) is str
                            and (STANDARDIZED.get(answer) or standardize(answer)) == given
                        ):
                            return True
                    return False
                return value in accepted  # type: ignore[operator]
    if type(accepted) is not list:
        raise _NotDecoded
    return not value_problem(param, value, accepted, details, language)


class _NotDecoded(Exception):
    """A possible answer's acceptable values are not a list: the general path reads it."""


def counts(
    expected: list[Expected], calls: Calls, n: int, language: str, parallel: bool
) -> Counted | None:
    """How many fields of ``calls`` match, mismatch, are omitted and are invented against
    an entry's :func:`plan` of ``n`` expected calls, as ``bfcl_entry.EntryRules.counts``
    counts them, for a parallel category whose calls are as many as expected, or a single
    expected call met by a single call; None otherwise (the general path counts)."""
    m = len(calls)
    try:
        if not parallel:
            if n != 1 or m != 1:
                return None
            name, arguments = calls[0]
            return _call_counts(expected[0], name, arguments, language, True)
        if n != m:
            return None
        return _parallel_counts(expected, calls, language)
    except BfclRaises:
        raise
    except Exception:  # noqa: BLE001 (as in calls_error)
        return None


def _parallel_counts(expected: list[Expected], calls: Calls, language: str) -> Counted:
    """A parallel category's counts, as many calls as expected: each expected call, in
    order, takes the first call not taken that it accepts (all its fields match: each
    argument given is expected, and the name); the expected calls left over are counted
    beside the calls left over, in order."""
    n = len(expected)
    fitted = parallel_fit(n, n, partial(_accepts, expected, calls, language))
    match = mismatch = omitted = invented = 0
    for e in fitted:
        match += 1 + len(expected[e][3])
    if len(fitted) == n:  # (every call paired: none left over)
        return match, 0, 0, 0
    for e, a in left_beside(fitted, n, n):
        name, arguments = calls[a]
        c = _call_counts(expected[e], name, arguments, language, False)
        match += c[0]
        mismatch += c[1]
        omitted += c[2]
        invented += c[3]
    return match, mismatch, omitted, invented


def _call_counts(
    want: Expected, name: str, arguments: JsonObject, language: str, live: bool
) -> Counted:
    """``bfcl_entry.ExpectedCallRules.counts`` on one expected call, without the reasons;
    ``live``: the checker reaches this call (a value it cannot read raises), else the call
    is shown as not checked where a value raises."""
    expected, details, required, answers, _ = want
    if name != expected:
        return _other_function_counts(answers, required, arguments)
    match, mismatch, invented = 1, 0, 0
    missing = [param for param in required if param not in arguments]
    failed = bool(missing)
    python = language == "python"
    for param, value in arguments.items():
        detail = details.get(param, _NO)
        accepted = answers.get(param)  # (None: not there; a null is no list)
        if detail is _NO or accepted is None:
            invented += 1
            failed = True
            continue
        if python and (  # (accepted as it is: see _accepts)
            type(value) is _EXACT.get(detail["type"])  # type: ignore[index]
            and value in accepted  # type: ignore[operator]
            or type(value) is list
            and _same_list(value, accepted, detail)
        ):
            match += 1
            continue
        try:
            ok = _value_ok(param, value, accepted, detail, details, python, language)
        except BfclRaises:
            if not failed:
                if live:
                    raise
                return 0, 1, 0, 0  # (bfcl_entry.NOT_CHECKED)
            ok = False  # (not checked: BFCL's checker cannot read it)
        if ok:
            match += 1
        else:
            mismatch += 1
            failed = True
    optional, omitted = _left_out_counts(answers, arguments, missing)
    return match + optional, mismatch, omitted, invented


def _other_function_counts(
    answers: JsonObject, required: list[str], arguments: JsonObject
) -> Counted:
    """A call of another function: its name a mismatch, the expected arguments that count
    omitted, every argument given invented."""
    omitted = 0
    for arg, values in answers.items():
        if "" not in values or arg in required:  # type: ignore[operator]
            omitted += 1
    return 0, 1, omitted, len(arguments)


def _left_out_counts(
    answers: JsonObject, arguments: JsonObject, missing: list[str]
) -> tuple[int, int]:
    """The possible answer's arguments the call left out: how many were optional (a match
    each), and how many omitted, the required ones already found ``missing`` included."""
    optional, omitted = 0, len(missing)
    for param, values in answers.items():
        if param in arguments or param in missing:
            continue
        if "" in values:  # type: ignore[operator]
            optional += 1
        else:
            omitted += 1
    return optional, omitted
