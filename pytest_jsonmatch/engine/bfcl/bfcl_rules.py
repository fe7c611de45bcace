"""BFCL's rules for one call: the Berkeley Function Calling Leaderboard's AST checker, field
by field.

The leaderboard checks a model's call against a possible answer (every argument a list of
acceptable values, ``""`` meaning it may be left out) and a function document (each
parameter's type, the required ones) and says valid or not, naming the first thing wrong.
:func:`check_call` applies the same rules in the same order but goes on after the first
failure, giving each field (the function's name, every argument) its own verdict; the call
is valid exactly when every field matches. The rules, as the checker has them:

- the name must equal the document's (``.`` read as ``_`` for models that cannot use dots);
- every parameter the document requires must be given; every argument given must be
  declared and be in the possible answer;
- a value is converted by its declared type first (Java and JavaScript values are source
  text, :mod:`.bfcl_java_js`; in Python an integer is taken where a float is declared), its
  type checked (one level into arrays; a value of the possible answers' own type is taken
  as a variable, compared as it is), then compared with the acceptable values: strings
  (also inside lists and dicts) with spaces, ``,./-_*^`` removed, lowercased and ``'`` read
  as ``"``; dicts key by key; lists of dicts element by element; the rest by Python
  equality;
- an argument of the possible answer that is not given must be allowed to be left out.

Where the checker raises (an undeclared type, a value it cannot convert, a malformed
possible answer), :class:`BfclRaises` is raised, at the point where it would raise: a
failure found before that point ends its check, so it does not reach the error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..core.values import MISSING, JsonValue
from ..pairing.call_pairing import first_fit
from ..pairing.pair_budget import UNWEIGHED_PAIRS
from ..results.field_results import HALLUCINATION, MATCH, MISMATCH, OMISSION
from ..tool_calls.argument_checks import CallCheck, FieldVerdict
from .bfcl_java_js import JAVA_TYPES, JS_TYPES, Unconvertible, java_value, js_value

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
# the Python scalar types (their possible answers of the same type: compared at once)
_SCALARS = {"string": str, "integer": int, "float": float, "boolean": bool}
# declared types whose elements are type-checked too, per language
_NESTED = {
    "python": frozenset({"array", "tuple"}),
    "java": frozenset({"Array", "ArrayList", "array"}),
    "javascript": frozenset({"Array", "ArrayList", "array"}),
}
_T = TypeVar("_T")
_PUNCTUATION = re.compile(r"[ \,\.\/\-\_\*\^]")  # (one character class: linear)


# an expected call's possible answer: each argument's acceptable values ('' for: it may be
# left out), a list read by index and by iteration, as the checker reads it
Answers = Mapping[str, Sequence[JsonValue]]


class BfclRaises(Exception):
    """BFCL's checker raises on this input instead of giving a verdict."""


def standardize(text: str) -> str:
    """A string as BFCL compares it: spaces and ``,./-_*^`` removed, lowercased, ``'`` as
    ``"`` (kept per string: the same acceptable values are compared call after call)."""
    done = STANDARDIZED.get(text)
    if done is None:
        done = _PUNCTUATION.sub("", text).lower().replace("'", '"')
        if len(STANDARDIZED) >= _STANDARD_LIMIT:
            STANDARDIZED.clear()
        STANDARDIZED[text] = done
    return done


STANDARDIZED: dict[str, str] = {}
_STANDARD_LIMIT = 100_000


def call_error(
    doc: Any,
    name: str,
    arguments: Mapping[str, JsonValue],
    answers: Answers,
    language: str = "python",
    underscore_to_dot: bool = False,
) -> str:
    """:func:`check_call`'s verdict alone, as the checker reaches it: the first failure's
    reason ('' when the call is valid), without the fields after it."""
    return raised_as_checker(
        name, _call_error, doc, name, arguments, answers, language, underscore_to_dot
    )


def raised_as_checker(name: str, check: Callable[..., _T], *args: Any) -> _T:
    """``check(*args)``, any other exception in it (a fault of the data: a malformed
    document or possible answer, read as the checker reads it) raised as BfclRaises naming
    the function ``name``, where the checker raises."""
    try:
        return check(*args)
    except BfclRaises:
        raise
    except Exception as error:  # noqa: BLE001 (as in check_call)
        raise BfclRaises(f"function {name!r}: {error!r}") from None


def _call_error(
    doc: Any,
    name: str,
    arguments: Mapping[str, JsonValue],
    answers: Answers,
    language: str,
    underscore_to_dot: bool,
) -> str:
    try:
        details = doc["parameters"]["properties"]
        required = doc["parameters"]["required"]
        expected_name = tool_name(doc["name"], underscore_to_dot)
    except Exception as error:  # noqa: BLE001 (where the checker raises)
        raise BfclRaises(f"malformed function document: {error!r}") from None
    if name != expected_name:
        return f"function {expected_name!r} not called (called {name!r})"
    for param in required:
        if param not in arguments:
            return f"required parameter {param!r} missing"
    for param, value in arguments.items():
        if param not in details:
            return f"parameter {param!r} not declared"
        if param not in answers:
            return f"parameter {param!r} not in the possible answer"
        problem = value_problem(param, value, answers[param], details, language)
        if problem:
            return problem
    for param, values in answers.items():
        if param not in arguments and not _contains(values, ""):
            return f"parameter {param!r} left out and not optional"
    return ""


def tool_name(name: str, underscore_to_dot: bool) -> str:
    """The name a model is expected to call: dots as underscores where the model's API
    allows no dots (BFCL's ``underscore_to_dot`` models)."""
    return name.replace(".", "_") if underscore_to_dot and "." in name else name


def check_call(
    doc: Any,
    name: str,
    arguments: Mapping[str, JsonValue],
    possible: Mapping[str, Answers],
    language: str = "python",
    underscore_to_dot: bool = False,
) -> CallCheck:
    """The call ``name(**arguments)`` against one possible answer (``{name: {arg:
    [values]}}``) and the function document ``doc``, under BFCL's rules."""
    try:
        answers, details, required, expected_name = _read_call_entry(
            doc, possible, underscore_to_dot
        )
        if name != expected_name:
            return _other_function(expected_name, name, arguments, answers, required)
        fields: list[FieldVerdict] = [FieldVerdict(None, MATCH, expected_name, name, "")]
        missing_required = [param for param in required if param not in arguments]
        error = ""
        for param in missing_required:
            reason = f"required parameter {param!r} missing"
            error = error or reason
            fields.append(
                FieldVerdict(param, OMISSION, answers.get(param, MISSING), MISSING, reason)
            )
        error = _given_arguments(fields, error, arguments, answers, details, language)
        error = _left_out_arguments(fields, error, arguments, answers, missing_required)
        return CallCheck(tuple(fields), not error, error)
    except BfclRaises:
        raise
    except Exception as error:  # noqa: BLE001 (a malformed document, read as the checker reads it)
        raise BfclRaises(f"function {name!r}: {error!r}") from None


def _read_call_entry(
    doc: Any, possible: Mapping[str, Answers], underscore_to_dot: bool
) -> tuple[Answers, Any, Any, str]:
    """The possible answer's arguments, the document's parameters and required ones and the
    function's name as the call must give it; BfclRaises where the checker raises."""
    try:
        answers = next(iter(possible.values()))
        details = doc["parameters"]["properties"]
        required = doc["parameters"]["required"]
        expected_name = tool_name(doc["name"], underscore_to_dot)
    except Exception as exc:  # noqa: BLE001 (where the checker raises, on any fault of the data)
        raise BfclRaises(f"malformed function document or possible answer: {exc!r}") from None
    return answers, details, required, expected_name


def _other_function(
    expected_name: str,
    name: str,
    arguments: Mapping[str, JsonValue],
    answers: Answers,
    required: Any,
) -> CallCheck:
    """A call of another function than the one expected: its name a mismatch, the expected
    arguments that count omitted, the ones given invented."""
    error = f"function {expected_name!r} not called (called {name!r})"
    fields = [FieldVerdict(None, MISMATCH, expected_name, name, error)]
    fields.extend(
        FieldVerdict(arg, OMISSION, values, MISSING, "its function was not called")
        for arg, values in answers.items()
        if "" not in values or arg in required
    )
    fields.extend(
        FieldVerdict(arg, HALLUCINATION, MISSING, value, "given to another function")
        for arg, value in arguments.items()
    )
    return CallCheck(tuple(fields), False, error)


def _given_arguments(
    fields: list[FieldVerdict],
    error: str,
    arguments: Mapping[str, JsonValue],
    answers: Answers,
    details: Any,
    language: str,
) -> str:
    """Each given argument's verdict appended to ``fields``; the call's first error (``error``
    when there was one already)."""
    for param, value in arguments.items():
        if param not in details or param not in answers:
            reason = (
                f"parameter {param!r} not declared"
                if param not in details
                else f"parameter {param!r} not in the possible answer"
            )
            error = error or reason
            fields.append(FieldVerdict(param, HALLUCINATION, MISSING, value, reason))
            continue
        try:
            problem = value_problem(param, value, answers[param], details, language)
        except BfclRaises:
            if error:  # the checker returned before reaching this value
                problem = "not checked: BFCL's checker cannot read it"
            else:
                raise
        error = error or problem
        fields.append(
            FieldVerdict(param, MISMATCH if problem else MATCH, answers[param], value, problem)
        )
    return error


def _left_out_arguments(
    fields: list[FieldVerdict],
    error: str,
    arguments: Mapping[str, JsonValue],
    answers: Answers,
    missing_required: list[str],
) -> str:
    """The verdict of each possible answer's argument the call left out (optional ones
    match), appended to ``fields``; the call's first error."""
    for param, values in answers.items():
        if param in arguments or param in missing_required:
            continue
        if _contains(values, ""):
            fields.append(FieldVerdict(param, MATCH, values, MISSING, "optional, left out"))
        else:
            reason = f"parameter {param!r} left out and not optional"
            error = error or reason
            fields.append(FieldVerdict(param, OMISSION, values, MISSING, reason))
    return error


def _contains(values: Sequence[JsonValue], item: JsonValue) -> bool:
    try:
        return bool(item in values)
    except Exception as exc:  # noqa: BLE001 (where the checker raises)
        raise BfclRaises(f"malformed possible answer {values!r}: {exc!r}") from None


def value_problem(
    param: str, value: Any, answers: Any, details: Mapping[str, Any], language: str
) -> str:
    """Why ``value`` is not accepted for ``param`` ('' when it is); BfclRaises where the
    checker raises. The usual case is decided here at once: a Python scalar whose possible
    answers are of its declared type (no variable), as :func:`_problem` would decide it."""
    try:
        if language == "python" and type(answers) is list:
            declared = details[param]["type"]
            scalar = _SCALARS.get(declared)
            if scalar is not None:
                kind = None
                for answer in answers:
                    if answer != "":
                        kind = type(answer)
                        break
                if kind is scalar:
                    if type(value) is int and declared == "float":
                        value = float(value)
                    if type(value) is not scalar:
                        return f"type of {param!r}: expected {declared}, got {type(value).__name__}"
                    if scalar is str:
                        # (the kept form looked up here, standardize called on a miss)
                        given = STANDARDIZED.get(value) or standardize(value)
                        for answer in answers:
                            if (
                                type(answer) is str
                                and (STANDARDIZED.get(answer) or standardize(answer)) == given
                            ):
                                return ""
                    elif value in answers:
                        return ""
                    return f"value of {param!r}: {value!r} is not one of {answers!r}"
        return _problem(param, value, answers, details, language)
    except BfclRaises:
        raise
    except Exception as error:  # noqa: BLE001 (where the checker raises)
        raise BfclRaises(f"parameter {param!r}: {error!r}") from None


def _problem(
    param: str, value: Any, answers: Any, details: Mapping[str, Any], language: str
) -> str:
    declared = details[param]["type"]
    nested: type | None = None
    if language == "python":
        expected_type = PYTHON_TYPES[declared]
        if declared in _NESTED["python"]:
            nested = PYTHON_TYPES[details[param]["items"]["type"]]
        if declared == "float" and type(value) is int:
            value = float(value)
        if declared == "tuple" and type(value) is tuple:  # (BFCL's decoder gives tuples)
            value = list(value)
    else:
        table, convert = (JAVA_TYPES, java_value) if language == "java" else (JS_TYPES, js_value)
        expected_type = table[declared]
        if type(value) is not str:
            return f"type of {param!r}: {language} values are given as text, not {type(value).__name__}"
        try:
            if declared in _NESTED[language]:
                item_type = details[param]["items"]["type"]
                nested = table[item_type]
                value = convert(value, declared, item_type)
            else:
                value = convert(value, declared)
        except Unconvertible as error:
            raise BfclRaises(str(error)) from None
    valid, variable = _type_check(value, answers, expected_type, nested)
    if not valid:
        return f"type of {param!r}: expected {declared}, got {type(value).__name__}"
    if not variable:
        if expected_type is dict:
            ok = _dict_ok(value, answers)
        elif expected_type is list and nested is dict:
            ok = _dict_list_ok(value, answers)
        elif expected_type is str:
            ok = standardize(value) in [standardize(a) for a in _items(answers) if type(a) is str]
        elif expected_type is list:
            ok = _list_ok(value, answers)
        else:
            ok = value in answers
    else:
        ok = value in answers
    return "" if ok else f"value of {param!r}: {value!r} is not one of {answers!r}"


def _items(values: Any) -> list[Any]:
    """``values`` read by index, as the checker reads them (a string's characters too)."""
    return [values[i] for i in range(len(values))]


def _answer_type(answers: Any) -> type | None:
    for answer in answers:
        if answer != "":
            return type(answer)
    return None


def _type_check(
    value: Any, answers: Any, expected_type: type, nested: type | None
) -> tuple[bool, bool]:
    """(whether the type is accepted, whether the value is taken as a variable): a value of
    the declared type; or, where the possible answers are of another type, a value of
    theirs (a variable's name, compared as it is). Array elements one level down."""
    answer_type = _answer_type(answers)
    variable = answer_type is not None and answer_type is not expected_type
    nested_failed = False
    if type(value) is expected_type:
        if nested is None:
            return True, variable
        for answer in answers:
            if type(answer) is not list or all(
                _type_check(item, answer, nested, None)[0]
                for item in value  # type: ignore[attr-defined]
            ):
                return True, variable
        nested_failed = True
    if answer_type is not None and type(value) is answer_type:
        return not nested_failed, True
    return False, variable


def _standard(value: Any) -> Any:
    return standardize(value) if type(value) is str else value


def _list_ok(value: list[Any], answers: Any) -> bool:
    given = [_standard(item) for item in value]
    return given in [[_standard(item) for item in _items(answer)] for answer in answers]


def _dict_ok(value: Any, answers: Any) -> bool:
    for answer in _items(answers):
        if answer == "":
            continue
        ok = True
        for key, item in value.items():
            if key not in answer or _standard(item) not in [
                _standard(a) for a in _items(answer[key])
            ]:
                ok = False
                break
        for key, accepted in answer.items():
            if key not in value and "" not in accepted:
                ok = False
                break
        if ok:
            return True
    return False


def _dict_list_ok(value: list[Any], answers: Any) -> bool:
    for answer in answers:
        if len(value) != len(answer):
            continue
        if all(_dict_ok(value[i], [answer[i]]) for i in range(len(value))):
            return True
    return False


def parallel_fit(
    n: int, m: int, fits: Callable[[int, int], bool], stop: bool = False, live: bool = True
) -> dict[int, int]:
    """BFCL's parallel pairing of ``n`` expected calls and ``m`` calls made (expected index ->
    call index): each expected call, in order, takes the first call not yet taken that
    ``fits`` it (every field matches), as the checker tries them (its verdict depends on
    that order), by the shared first fit (pairing/call_pairing.py) held to the budget
    (pairing/pair_budget.py: 40,000 pairs) before any pair is tried. ``live``: the checker
    reaches the pairing (the counts agree): past the budget it is refused (BfclRaises);
    otherwise the count already fails it, and past the budget no pair is tried ({}).
    ``stop``: end at the first expected call that finds none. A check raising BfclRaises
    once an expected call found none (from the start, where not live) pairs nothing."""
    if n * m <= UNWEIGHED_PAIRS:
        return first_fit(range(n), range(m), fits, stop, BfclRaises, live)
    if live:
        raise _past_cut_off(n, m)
    return {}


def _past_cut_off(n: int, m: int) -> BfclRaises:
    """The refusal of a parallel pairing past the budget."""
    return BfclRaises(
        f"{n} expected calls against {m} calls made are {n * m:,} pairs for its parallel "
        f"pairing, past the cut-off of {UNWEIGHED_PAIRS:,}"
    )


def parallel_error(
    n: int, m: int, fits: Callable[[int, int], bool], expected: Sequence[Any], at: int
) -> str:
    """The checker's verdict on a parallel category's calls (its first failure, '' when
    valid): as many calls as expected, each expected call finding one that ``fits`` it
    (:func:`parallel_fit`); item ``at`` of each of the ``expected`` calls names its
    function, for the message."""
    if n != m:
        return f"wrong number of calls: {m} made, {n} expected"
    if n * m > UNWEIGHED_PAIRS:
        raise _past_cut_off(n, m)
    found = len(first_fit(range(n), range(m), fits, True, BfclRaises))
    return "" if found == n else missed(found, expected[found][at])


def missed(e: int, name: str) -> str:
    """The checker's failure where expected call ``e`` (of function ``name``) found no call."""
    return f"no call matches expected call {e} ({name!r})"


def calls_error(
    docs: Any,
    calls: Sequence[tuple[str, Mapping[str, JsonValue]]],
    answers: Sequence[tuple[str, Answers]],
    category: str,
    language: str = "python",
    underscore_to_dot: bool = False,
) -> str:
    """The checker's verdict on a model's calls (name, arguments) against the possible
    answers (name, {arg: [values]}) of a category: the first failure ('' when valid). The
    category sets the pairing as the checker's does: ``parallel`` ones in any order, each
    expected call taking the first call left that it accepts; ``multiple`` ones the first
    call against the first expected, its document found by name; the others (simple) the
    only call against the first document."""
    n, m = len(answers), len(calls)
    if "parallel" in category:
        found: dict[int, Any] = {}  # (each expected call's document, found when first tried)

        def fits(i: int, j: int) -> bool:
            wanted, accepted = answers[i]
            if i not in found:
                found[i] = doc_named(docs, wanted)
            name, arguments = calls[j]
            return not call_error(found[i], name, arguments, accepted, language, underscore_to_dot)

        return parallel_error(n, m, fits, answers, 0)
    multiple = "multiple" in category
    if m != (n if multiple else 1):
        return f"wrong number of calls: {m} made, {n} expected"
    if not answers:
        raise BfclRaises("no possible answer to check the call against")
    if multiple:
        doc = doc_named(docs, answers[0][0])
    else:
        try:
            doc = docs[0]
        except Exception as error:  # noqa: BLE001 (where the checker raises)
            raise BfclRaises(f"no function document: {error!r}") from None
    name, arguments = calls[0]
    return call_error(doc, name, arguments, answers[0][1], language, underscore_to_dot)


def doc_named(docs: Any, name: str) -> Any:
    """The document of function ``name`` (None when there is none; a single document
    given alone is every function's, as the checker takes it)."""
    if type(docs) is not list:
        return docs
    for doc in docs:
        if doc["name"] == name:
            return doc
    return None
