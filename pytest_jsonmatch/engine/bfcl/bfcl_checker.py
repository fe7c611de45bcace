"""BFCL's rules for one entry, read once and applied to many model outputs.

:class:`BfclChecker` takes a BFCL entry (its function documents, its possible answer, its
category) and gives, for any model output, the leaderboard's verdict (:meth:`verdict`,
what :func:`bfcl_verdict` gives) or the ``tool_calls`` metric's result under
``rules="bfcl"`` (:meth:`score`, what ``match_json(output, {"possible_answer": ...,
"function": ...}, metric="tool_calls", rules="bfcl", category=...)`` gives). The entry is
read once (bfcl_entry.py) and every output after the first reuses what was
read. :meth:`score` counts the fields by status, which is all the score, precision, recall
and F1 need, and makes the field records only when ``fields`` is first read: by the
metric's own field by field check, the records checked against the counts.

The entry and the outputs are read as BFCL's checker reads them, as given: a list of
function documents as it is (``match_json`` reads every document first, also the ones no
call names), a value that is not plain JSON (a tuple, a set) neither converted nor refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, NamedTuple, cast

from ..core.errors import ConfigError, JsonMatchError, ParseError
from ..core.values import JsonObject
from ..pairing.call_pairing import left_beside
from ..reading.agent_messages import CALL_FORM_KEYS, ToolCall, read_calls
from ..reading.intake import as_data
from ..reading.parse import parse_actual_checked
from ..results.field_results import (
    MAKE_FIELDS,
    FieldResult,
    MatchResult,
    f_beta,
    precision_recall,
)
from ..tool_calls.argument_checks import CallCheck, FieldVerdict
from ..tool_calls.expected_calls import (
    ExpectedCall,
    ExpectedCalls,
    ToolDoc,
    read_expected_calls,
    read_tools,
)
from ..tool_calls.metric import (
    TOOL_CALLS,
    CallPair,
    ToolCallSettings,
    decoded_form,
    read_settings,
    score_fields,
)
from . import bfcl_fast_pass
from .bfcl_entry import Answers, EntryRules
from .bfcl_rules import BfclRaises, calls_error, check_call, missed, parallel_fit


class BfclVerdict(NamedTuple):
    """BFCL's verdict on a model's calls: ``valid``, and when not, why (the first failure
    the leaderboard's checker would name, in this project's words)."""

    valid: bool
    error: str


class _Kind(NamedTuple):
    """What a checker's options set: the metric's settings and options, whether the fast
    path applies (a category is named), how the category's calls pair, the language."""

    settings: ToolCallSettings
    options: dict[str, object]
    fast: bool
    parallel: bool
    multiple: bool
    dots: bool
    language: str
    # (language, parallel, multiple, dots) where the fast path applies, else None
    pairing: tuple[str, bool, bool, bool] | None


# the kinds of the checkers made, kept per (category, language, underscore_to_dot), and per
# category alone for the usual options (no language given, no underscore_to_dot); and
# those categories' pairings, for bfcl_verdict
_KINDS: dict[tuple[object, str | None, bool], _Kind] = {}
_PLAIN: dict[str, _Kind] = {}
_PAIRINGS: dict[str, tuple[str, bool, bool, bool]] = {}
_VALID: Final = BfclVerdict(True, "")
_tuple_new = tuple.__new__  # (a verdict made without NamedTuple's own __new__, a Python call)
_new = object.__new__
_set = object.__setattr__  # (a frozen dataclass's state set whole)
# the state of a result BfclChecker.score gives, apart from its scores and its fields
_BUILT: Final = MatchResult._build(
    TOOL_CALLS.name, 0.0, 0.0, 0.0, 0.0, lambda r: (), (), ()
).__dict__


class BfclChecker:
    """One BFCL entry, ready to check model outputs against: ``functions`` (the entry's
    function documents), ``possible_answer`` (``[{name: {arg: [values]}}]``), ``category``
    (``simple_python``, ``parallel``, ``live_multiple``, ...; it sets the pairing and,
    unless ``language`` is given, the language); ``underscore_to_dot`` as in
    :func:`bfcl_verdict`. The entry is read when first needed and kept: it must not be
    changed while the checker is in use. ConfigError for a bad option."""

    def __init__(
        self,
        functions: object,
        possible_answer: object,
        category: str,
        *,
        language: str | None = None,
        underscore_to_dot: bool = False,
    ) -> None:
        kind = (
            _PLAIN.get(category)
            if type(category) is str and language is None and not underscore_to_dot
            else None
        )
        self._kind = kind or _kind_for(category, language, underscore_to_dot)
        self._settings, self._options = self._kind.settings, self._kind.options
        self.functions, self.possible_answer = functions, possible_answer
        self._rules: EntryRules | None = None
        self._expected: dict[str, object] | None = None
        self._count = 0  # (how many calls the possible answer expects, once planned)
        self._plan: list[bfcl_fast_pass.Expected] | None | bool = False  # (False: not made yet)

    def _fast(self) -> list[bfcl_fast_pass.Expected] | None:
        """The entry's plan for BFCL's decoded form (bfcl_fast_pass.py), made on first use; None
        where the general path checks (another language, another form)."""
        made = self._plan
        if made is False:
            kind = self._kind
            made = None
            possible = self.possible_answer
            if kind.fast and type(possible) is list and bfcl_fast_pass.SPECIALISE:
                made = bfcl_fast_pass.plan(
                    self.functions, possible, kind.parallel, kind.multiple, kind.dots
                )
                self._count = len(possible)
            self._plan = made
        return made  # type: ignore[return-value]

    def _entry(self) -> EntryRules:
        """The entry read for the general path (bfcl_entry.py), on first use, for the
        verdict and the counts alike (ParseError where it is malformed)."""
        entry = self._rules
        if entry is None:
            settings = self._settings
            docs = _docs(self.functions)
            answers = _answers(self.possible_answer)
            # (no category: parallel where several calls are expected, as the metric takes it)
            category = settings.category or ("parallel" if len(answers) > 1 else "multiple")
            entry = EntryRules(
                docs, answers, category, settings.language, settings.underscore_to_dot
            )
            self._rules = entry
        return entry

    # -- the verdict ---------------------------------------------------------------------

    def verdict(self, model_output: object) -> BfclVerdict:
        """BFCL's AST checker's verdict on ``model_output`` (the model's calls: BFCL's
        decoded form ``[{name: {arg: value}}]`` or any form ``tool_calls`` reads).
        ConfigError where the checker would raise."""
        expected = self._fast()
        if expected is not None:
            calls = bfcl_fast_pass.decoded_calls(model_output)
            if calls is not None:
                kind = self._kind
                n = self._count
                try:
                    error = bfcl_fast_pass.calls_error(
                        expected, calls, n, kind.language, kind.parallel, kind.multiple
                    )
                except BfclRaises as raised:
                    raise _refused(raised) from None
                if error is not None:
                    return _VALID if not error else _tuple_new(BfclVerdict, (False, error))
        entry = self._entry()
        calls = _model_calls(model_output)
        try:
            error = entry.error(calls)
        except BfclRaises as raised:
            raise _refused(raised) from None
        return _VALID if not error else _tuple_new(BfclVerdict, (False, error))

    # -- the metric ----------------------------------------------------------------------

    def score(self, model_output: object) -> MatchResult:
        """The ``tool_calls`` metric's result for ``model_output`` under ``rules="bfcl"``
        (score 1.0 exactly when the checker passes it): the result ``match_json`` gives
        against ``{"possible_answer": ..., "function": ...}`` for plain JSON, its
        ``fields`` made when first read (JsonMatchError if the entry or the output was
        changed in place since). Text (a model's raw reply) is read as ``match_json`` reads
        it."""
        counted, actual = self._counted(model_output)
        precision, recall, f1 = _scores(*counted)
        return self._result(actual, precision, recall, f1)

    def _counted(self, model_output: object) -> tuple[tuple[int, int, int, int], object]:
        """The fields of ``model_output`` by status (match, mismatch, omitted, invented),
        counted in one pass where it is in BFCL's decoded form, else read in any form; and
        the output as read (text parsed)."""
        if type(model_output) is list:
            planned = self._fast()
            if planned is not None:
                calls = _decoded_calls(model_output)
                if calls is not None:
                    kind = self._kind
                    try:
                        counted = bfcl_fast_pass.counts(
                            planned, calls, self._count, kind.language, kind.parallel
                        )
                    except BfclRaises as raised:
                        raise _refused(raised) from None
                    if counted is not None:
                        return counted, model_output
            return self._general_counts(model_output), model_output
        self._entry()  # (a malformed entry is named before the output is read)
        actual = model_output if type(model_output) is dict else _parsed(model_output)
        return self._general_counts(actual), actual

    def _result(self, actual: object, precision: float, recall: float, f1: float) -> MatchResult:
        """The result of these scores, its fields made by the metric's own check when first
        read and held to the scores."""
        if self._expected is None:
            self._expected = {"possible_answer": self.possible_answer, "function": self.functions}
        expected = self._expected
        options = self._options

        def make_fields(result: MatchResult) -> tuple[FieldResult, ...]:
            fields = tuple(score_fields(expected, actual, options))
            if precision_recall(fields) != (result.precision, result.recall):
                raise JsonMatchError(
                    "BfclChecker: the entry or the model output was changed in place after "
                    "it was scored; its fields no longer give its score"
                )
            return fields

        # (a result as MatchResult._build makes it, its state copied from one made so once:
        # a dict display instead of a call with nine keywords)
        result = _new(MatchResult)
        _set(
            result,
            "__dict__",
            {
                **_BUILT,
                "score": f1,
                "precision": precision,
                "recall": recall,
                "f1": f1,
                MAKE_FIELDS: make_fields,
            },
        )
        return result

    def _general_counts(self, actual: object) -> tuple[int, int, int, int]:
        """The fields of ``actual`` by status, read in any form (bfcl_entry.py)."""
        entry = self._entry()
        calls = _decoded_calls(actual)
        if calls is None:
            calls = [(c.name, c.arguments) for c in read_calls(actual)]
        try:
            c = entry.counts(calls)
        except BfclRaises as raised:
            raise _refused(raised) from None
        return c.match, c.mismatch, c.omission, c.hallucination


def _refused(raised: BfclRaises) -> ConfigError:
    """The error where BFCL's checker raises."""
    return ConfigError(f"BFCL's checker cannot check these calls: {raised}")


def _model_calls(model_output: object) -> list[tuple[str, JsonObject]]:
    """A model's calls as (name, arguments) pairs: BFCL's decoded form as it is, any other
    form ``tool_calls`` reads read (ParseError where it cannot)."""
    calls = decoded_form(model_output, dict)
    if calls is None:
        calls = [(c.name, c.arguments) for c in read_calls(model_output, "model_output")]
    return calls


def _scores(tp: int, mismatch: int, omitted: int, invented: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of fields counted by status, as the metric counts them (a
    side with nothing to count scores 1.0)."""
    compared = tp + mismatch
    if compared == tp and not invented and not omitted:
        return 1.0, 1.0, 1.0
    p_den, r_den = compared + invented, compared + omitted
    precision = tp / p_den if p_den else 1.0
    recall = tp / r_den if r_den else 1.0
    return precision, recall, f_beta(precision, recall)


def _parsed(model_output: object) -> object:
    """The model's output as match_json parses its actual side (text read leniently, a
    reply cut off a TruncatedError)."""
    if type(model_output) is list or type(model_output) is dict:
        return model_output
    try:
        parsed, _ = parse_actual_checked(
            as_data(model_output, "actual"), allow_array=True, truncated="error"
        )
    except ParseError as exc:
        exc.side = "actual"  # (as match_json: the answer itself could not be read)
        raise
    return parsed


def _kind_for(category: object, language: str | None, underscore_to_dot: bool) -> _Kind:
    """The metric's settings for BFCL's rules with these options (ConfigError for a bad
    one), the options, and how a Python category's calls pair; kept per (category,
    language, underscore_to_dot)."""
    key = (category, language, underscore_to_dot)
    kind = _KINDS.get(key) if type(category) is str else None
    if kind is None:
        options: dict[str, object] = {"rules": "bfcl", "category": category}
        if language is not None:
            options["language"] = language
        if underscore_to_dot:
            options["underscore_to_dot"] = True
        settings = read_settings(options)
        named = settings.category is not None
        parallel = settings.category is not None and "parallel" in settings.category
        multiple = settings.category is not None and "multiple" in settings.category
        dots, language_ = settings.underscore_to_dot, settings.language
        pairing = (language_, parallel, multiple, dots) if named else None
        kind = _Kind(settings, options, named, parallel, multiple, dots, language_, pairing)
        if type(category) is str and len(_KINDS) < 256:
            _KINDS[key] = kind
            if language is None and not underscore_to_dot:
                _PLAIN[category] = kind
                if pairing is not None:
                    _PAIRINGS[category] = pairing
    return kind


def _docs(functions: object) -> list[object]:
    """The function documents as BFCL's checker takes them: a list as it is, any other
    form of tools read into documents."""
    return functions if type(functions) is list else [t.doc for t in read_tools(functions)]


def _answers(possible_answer: object) -> list[tuple[str, Answers]]:
    """The possible answers as (name, {arg: [values]}) pairs (ParseError where malformed)."""
    # (decoded as lists of acceptable values: every argument's value is a list)
    answers = cast("list[tuple[str, Answers]] | None", decoded_form(possible_answer, list))
    if answers is None:
        answers = [
            (call.name, call.possible[call.name])
            for call in read_expected_calls({"possible_answer": possible_answer}).calls
        ]
    return answers


def _decoded_calls(value: object) -> list[tuple[str, JsonObject]] | None:
    """``value`` as (name, arguments) pairs when it is in BFCL's decoded form and
    read_calls would read it so too, else None."""
    calls = bfcl_fast_pass.decoded_calls(value)
    if calls is None:
        return None
    for name, _ in calls:
        if name in CALL_FORM_KEYS:  # (read_calls reads it as another form)
            return None
    return calls


def bfcl_verdict(
    functions: object,
    model_output: object,
    possible_answer: object,
    category: str,
    *,
    language: str | None = None,
    underscore_to_dot: bool = False,
) -> BfclVerdict:
    """BFCL's AST checker's verdict on one entry: ``functions`` (the entry's function
    documents), ``model_output`` (the model's calls: BFCL's decoded form ``[{name: {arg:
    value}}]`` or any form ``tool_calls`` reads), ``possible_answer`` (the entry's ground
    truth, ``[{name: {arg: [values]}}]``), ``category`` (``simple_python``, ``parallel``,
    ``live_multiple``, ...; it sets the pairing and, unless ``language`` is given, the
    language). ``underscore_to_dot``: the model's API writes dots in function names as
    underscores (BFCL's model setting). ConfigError where the checker would raise. To
    check many outputs against one entry, make a :class:`BfclChecker` once instead."""
    # (one output: checked in one pass over BFCL's decoded form where the fast pass takes
    # it, nothing kept)
    pairing = (
        _PAIRINGS.get(category)
        if type(category) is str and language is None and not underscore_to_dot
        else None
    )
    if pairing is None:
        pairing = _kind_for(category, language, underscore_to_dot).pairing
    error = None
    try:
        if pairing is not None and bfcl_fast_pass.SPECIALISE:
            lang, parallel, multiple, dots = pairing
            error = bfcl_fast_pass.verdict(
                functions, model_output, possible_answer, lang, parallel, multiple, dots
            )
        if error is None:  # (the general path: the output read in any form tool_calls reads)
            settings = _kind_for(category, language, underscore_to_dot).settings
            docs = _docs(functions)
            answers = _answers(possible_answer)
            calls = _model_calls(model_output)
            # (no category: parallel where several calls are expected, as the metric takes it)
            category = settings.category or ("parallel" if len(answers) > 1 else "multiple")
            error = calls_error(
                docs, calls, answers, category, settings.language, settings.underscore_to_dot
            )
    except BfclRaises as raised:
        raise _refused(raised) from None
    return _VALID if not error else _tuple_new(BfclVerdict, (False, error))


# -- the metric's rules="bfcl" (tool_calls/metric.py loads this module by name, BFCL_RULES) --
def bfcl_pairs(
    wanted: ExpectedCalls,
    calls: list[ToolCall],
    tools: Sequence[ToolDoc] | None,
    settings: ToolCallSettings,
) -> tuple[list[CallPair], str]:
    """The pairs BFCL's checker makes, each call's fields under its rules, and its error
    ('' when valid); ConfigError where the checker raises."""
    if tools is None:
        raise ConfigError(
            "rules='bfcl' needs the tools' function documents: give them beside the "
            "expected calls ('tools' or 'function') or as the tools option"
        )
    docs = [tool.doc for tool in tools]
    category = settings.category or ("parallel" if len(wanted.calls) > 1 else "multiple")
    try:
        return _bfcl_checked(wanted.calls, calls, docs, category, settings)
    except BfclRaises as error:
        raise _refused(error) from None


def _find_doc(docs: Sequence[JsonObject], name: str) -> JsonObject | None:
    return next((doc for doc in docs if doc.get("name") == name), None)


def _doc_of(docs: Sequence[JsonObject], want: ExpectedCall) -> JsonObject | None:
    """The document of the function an expected call's possible answer names."""
    return _find_doc(docs, next(iter(want.possible)))


# one pair's check: (expected index, call index, the document, whether the checker reaches it)
PairCheck = Callable[[int, int, "JsonObject | None", bool], CallCheck]


def _bfcl_checked(
    expected: Sequence[ExpectedCall],
    calls: list[ToolCall],
    docs: Sequence[JsonObject],
    category: str,
    settings: ToolCallSettings,
) -> tuple[list[CallPair], str]:
    check = _pair_check(expected, calls, settings.language, settings.underscore_to_dot)
    n, m = len(expected), len(calls)
    counted = n == m if ("parallel" in category or "multiple" in category) else m == 1
    error = "" if counted else f"wrong number of calls: {m} made, {n} expected"
    if "parallel" in category:
        pairs, error = _parallel_pairs(check, expected, docs, m, error)
    else:
        pairs, error = _pairs_in_order(check, expected, docs, category, m, counted, error)
    return pairs, error


def _pair_check(
    expected: Sequence[ExpectedCall], calls: list[ToolCall], language: str, dots: bool
) -> PairCheck:
    """The check of one pair under BFCL's rules; where the checker never reaches the pair
    (``live`` false) and would raise on it, a field 'not checked' instead of the raise."""

    def check(e: int, a: int, doc: JsonObject | None, live: bool) -> CallCheck:
        want, call = expected[e], calls[a]
        try:
            return check_call(doc, call.name, call.arguments, want.possible, language, dots)
        except BfclRaises:
            if live:
                raise
            return CallCheck(
                (FieldVerdict(None, "mismatch", want.name, call.name, "not checked"),),
                False,
                "not checked",
            )

    return check


def _parallel_pairs(
    check: PairCheck,
    expected: Sequence[ExpectedCall],
    docs: Sequence[JsonObject],
    m: int,
    error: str,
) -> tuple[list[CallPair], str]:
    """A parallel category's pairs as the checker makes them: each expected call, in order,
    takes the first call not taken that is valid for it (``bfcl_rules.parallel_fit``; where
    the count already fails it and the pairs are past the budget, none); then the expected
    calls left over beside the calls left over, in order (to show why). The pairs, and the
    first error."""
    n = len(expected)
    found = [_doc_of(docs, want) for want in expected]
    checks: dict[tuple[int, int], CallCheck] = {}

    def fits(e: int, a: int) -> bool:
        result = check(e, a, found[e], True)
        if result.valid:
            checks[e, a] = result
        return result.valid

    fitted = parallel_fit(n, m, fits, live=not error)
    if not error and len(fitted) < n:
        first = next(e for e in range(n) if e not in fitted)
        error = missed(first, expected[first].name)
    pairs = [CallPair(e, a, checks[e, a]) for e, a in fitted.items()]
    pairs.extend(CallPair(e, a, check(e, a, found[e], False)) for e, a in left_beside(fitted, n, m))
    return pairs, error


def _pairs_in_order(
    check: PairCheck,
    expected: Sequence[ExpectedCall],
    docs: Sequence[JsonObject],
    category: str,
    m: int,
    counted: bool,
    error: str,
) -> tuple[list[CallPair], str]:
    """Any other category's pairs: the calls beside the expected ones in order (a multiple
    category finds each call's document by name, else the first document is every call's);
    the checker reaches only the first, and only when the count is right."""
    pairs: list[CallPair] = []
    for e, a in zip(range(len(expected)), range(m)):
        if "multiple" in category:
            doc = _doc_of(docs, expected[e])
        else:
            doc = docs[0] if docs else None
        result = check(e, a, doc, counted and e == 0)
        error = error or result.error
        pairs.append(CallPair(e, a, result))
    return pairs, error
