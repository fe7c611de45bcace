"""BFCL's rules for one entry, read once and applied to any number of model outputs.

:mod:`.bfcl_rules` finds an expected call's function document and reads its parameters,
required names and name again at every check. Here an entry (its documents, its possible
answers, its category) is held once: each expected call finds its document the first time
it is checked and keeps what it read of it; each argument's value is checked by
:func:`.bfcl_rules.value_problem`, the same rules.

:class:`EntryRules` gives what callers need: ``error(calls)``, the checker's verdict as
:func:`.bfcl_rules.calls_error` gives it, and ``counts(calls)``, how many fields match,
mismatch, are omitted and are invented, as the ``tool_calls`` metric's field by field check
under ``rules="bfcl"`` finds them (the same pairing, without a record per field). Both
raise :class:`.bfcl_rules.BfclRaises` where the checker raises, at the same point: nothing
is read before the check that needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import filterfalse
from typing import NamedTuple, cast

from ..core.values import JsonObject, JsonValue
from ..pairing.call_pairing import left_beside
from .bfcl_rules import (
    BfclRaises,
    doc_named,
    missed,
    parallel_error,
    parallel_fit,
    raised_as_checker,
    tool_name,
    value_problem,
)

Call = tuple[str, Mapping[str, JsonValue]]
# an expected call's possible answer: each argument's acceptable values ('' for: may be
# left out)
Answers = Mapping[str, Sequence[JsonValue]]


class Counts(NamedTuple):
    """The fields of one pairing of expected and given calls, by status, and the first
    failure's reason ('' when every field matches)."""

    match: int
    mismatch: int
    omission: int
    hallucination: int
    error: str


# a pair the checker never reaches, whose check would raise: one field, shown as not checked
NOT_CHECKED = Counts(0, 1, 0, 0, "not checked")


class ExpectedCallRules:
    """One expected call (its name's possible answer ``answers``: ``{arg: [values]}``) with
    its function document, read on first use and kept."""

    __slots__ = ("answers", "doc", "language", "dots", "_head")

    def __init__(self, answers: Answers, doc: object, language: str, dots: bool) -> None:
        self.answers, self.doc = answers, doc
        self.language, self.dots = language, dots
        self._head: tuple[Mapping[str, JsonValue], Sequence[str], str] | str | None = None

    def _read(self, what: str) -> tuple[Mapping[str, JsonValue], Sequence[str], str]:
        """(the parameters' details, the required names, the name to call); BfclRaises
        (``what`` naming what was malformed) where the checker raises on the document."""
        head = self._head
        if head is None:
            try:  # (read as the checker reads it: any fault raises, and is kept)
                doc = cast(JsonObject, self.doc)
                parameters = cast(JsonObject, doc["parameters"])
                head = (
                    cast(JsonObject, parameters["properties"]),
                    cast("list[str]", parameters["required"]),
                    tool_name(cast(str, doc["name"]), self.dots),
                )
            except Exception as error:  # noqa: BLE001 (where the checker raises, on any fault)
                head = repr(error)
            self._head = head
        if isinstance(head, str):
            raise BfclRaises(f"{what}: {head}")
        return head

    def error(self, name: str, arguments: Mapping[str, JsonValue]) -> str:
        """The first failure of ``name(**arguments)``, as ``bfcl_rules.call_error``
        reaches it ('' when the call is valid)."""
        return raised_as_checker(name, self._error, name, arguments)

    def _error(self, name: str, arguments: Mapping[str, JsonValue]) -> str:
        details, required, expected_name = self._read("malformed function document")
        if name != expected_name:
            return f"function {expected_name!r} not called (called {name!r})"
        for param in required:
            if param not in arguments:
                return f"required parameter {param!r} missing"
        answers = self.answers
        for param, value in arguments.items():
            if param not in details:
                return f"parameter {param!r} not declared"
            if param not in answers:
                return f"parameter {param!r} not in the possible answer"
            problem = value_problem(param, value, answers[param], details, self.language)
            if problem:
                return problem
        for param, values in answers.items():
            if param not in arguments and "" not in values:
                return f"parameter {param!r} left out and not optional"
        return ""

    def counts(self, name: str, arguments: Mapping[str, JsonValue]) -> Counts:
        """The fields of ``name(**arguments)`` by status, as ``bfcl_rules.check_call``
        gives them."""
        return raised_as_checker(name, self._counts, name, arguments)

    def _counts(self, name: str, arguments: Mapping[str, JsonValue]) -> Counts:
        what = "malformed function document or possible answer"
        details, required, expected_name = self._read(what)
        answers = self.answers
        if name != expected_name:
            omitted = sum(
                1 for arg, values in answers.items() if "" not in values or arg in required
            )
            error = f"function {expected_name!r} not called (called {name!r})"
            return Counts(0, 1, omitted, len(arguments), error)
        match, mismatch, omitted, invented = 1, 0, 0, 0
        error = ""
        missing = [param for param in required if param not in arguments]
        if missing:
            omitted = len(missing)
            error = f"required parameter {missing[0]!r} missing"
        for param, value in arguments.items():
            if param not in details or param not in answers:
                invented += 1
                if not error:
                    error = (
                        f"parameter {param!r} not declared"
                        if param not in details
                        else f"parameter {param!r} not in the possible answer"
                    )
                continue
            try:
                problem = value_problem(param, value, answers[param], details, self.language)
            except BfclRaises:
                if not error:
                    raise
                problem = "not checked: BFCL's checker cannot read it"
            if problem:
                mismatch += 1
                error = error or problem
            else:
                match += 1
        for param, values in answers.items():
            if param in arguments or param in missing:
                continue
            if "" in values:
                match += 1
            else:
                omitted += 1
                error = error or f"parameter {param!r} left out and not optional"
        return Counts(match, mismatch, omitted, invented, error)


def _all_match(answers: Answers, arguments: Mapping[str, JsonValue]) -> Counts:
    """The fields of a call every field of which matches: its name, each argument given and
    each argument of the possible answer left out (optional, as it matched)."""
    left_out = sum(1 for param in answers if param not in arguments)
    return Counts(1 + len(arguments) + left_out, 0, 0, 0, "")


class EntryRules:
    """One BFCL entry: its function documents ``docs``, its possible answers ``answers``
    (``(name, {arg: [values]})`` per expected call) and its ``category``, which sets how
    calls pair; each expected call compiled on first use."""

    __slots__ = (
        "docs",
        "answers",
        "category",
        "language",
        "dots",
        "_calls",
        "_parallel",
        "_multiple",
    )

    def __init__(
        self,
        docs: Sequence[object],
        answers: Sequence[tuple[str, Answers]],
        category: str,
        language: str,
        dots: bool,
    ) -> None:
        self.docs, self.answers, self.category = docs, answers, category
        self._parallel, self._multiple = "parallel" in category, "multiple" in category
        self.language, self.dots = language, dots
        self._calls: dict[int, ExpectedCallRules] = {}

    def _call(self, i: int) -> ExpectedCallRules:
        """Expected call ``i`` with its document: found by name (parallel and multiple
        categories), else the first document (None when there is none)."""
        call = self._calls.get(i)
        if call is None:
            name, possible = self.answers[i]
            if self._parallel or self._multiple:
                doc = doc_named(self.docs, name)
            else:
                doc = self.docs[0] if self.docs else None
            call = self._calls[i] = ExpectedCallRules(possible, doc, self.language, self.dots)
        return call

    def error(self, calls: Sequence[Call]) -> str:
        """The checker's verdict on ``calls``: its first failure, '' when valid (the
        pairing of ``bfcl_rules.calls_error``)."""
        answers = self.answers
        n, m = len(answers), len(calls)
        if self._parallel:
            return parallel_error(n, m, self._fits(calls), answers, 0)
        multiple = self._multiple
        if m != (n if multiple else 1):
            return f"wrong number of calls: {m} made, {n} expected"
        if not answers:
            raise BfclRaises("no possible answer to check the call against")
        if not multiple and not self.docs:
            raise BfclRaises("no function document")
        name, arguments = calls[0]
        return self._call(0).error(name, arguments)

    def _fits(self, calls: Sequence[Call]) -> Callable[[int, int], bool]:
        """Whether expected call ``e`` accepts call ``a`` (every field matches): its first
        failure sought as the checker seeks it, stopping there."""

        def fits(e: int, a: int) -> bool:
            name, arguments = calls[a]
            return not self._call(e).error(name, arguments)

        return fits

    def counts(self, calls: Sequence[Call]) -> Counts:
        """Every field of ``calls`` against the expected calls by status, summed over the
        pairs the metric makes (``bfcl_checker._bfcl_checked``: a parallel category's calls
        matched by first fit, then those left over beside each other in order; the others
        in order) and the calls left unpaired, and the first failure."""
        answers = self.answers
        n, m = len(answers), len(calls)
        if not self._parallel:
            counted = n == m if self._multiple else m == 1
            error = "" if counted else f"wrong number of calls: {m} made, {n} expected"
            k = min(n, m)
            paired = [self._pair(e, calls[e], counted and e == 0) for e in range(k)]
            return self._tally(calls, paired, error, range(k, n), range(k, m))
        error = "" if n == m else f"wrong number of calls: {m} made, {n} expected"
        # (counts that differ fail it already: past the budget, the calls pair in order)
        fitted = parallel_fit(n, m, self._fits(calls), live=not error)
        if not error and len(fitted) < n:
            first = next(e for e in range(n) if e not in fitted)
            error = missed(first, answers[first][0])
        rest = list(left_beside(fitted, n, m))
        paired = [_all_match(answers[e][1], calls[a][1]) for e, a in fitted.items()]
        paired.extend(self._pair(e, calls[a], False) for e, a in rest)
        taken_e = {*fitted, *(e for e, _ in rest)}
        taken_a = {*fitted.values(), *(a for _, a in rest)}
        left_e = filterfalse(taken_e.__contains__, range(n))
        return self._tally(
            calls, paired, error, left_e, filterfalse(taken_a.__contains__, range(m))
        )

    def _tally(
        self,
        calls: Sequence[Call],
        paired: list[Counts],
        error: str,
        left_e: Iterable[int],
        left_a: Iterable[int],
    ) -> Counts:
        """The fields of the pairs (their counts ``paired``), of the expected calls left
        unpaired (``left_e``) and of the calls left unpaired (``left_a``), by status; the
        first failure (``error``, else the pairs')."""
        match = mismatch = omitted = invented = 0
        for c in paired:
            error = error or c.error
            match += c.match
            mismatch += c.mismatch
            omitted += c.omission
            invented += c.hallucination
        answers = self.answers
        for e in left_e:  # the name and every argument that may not be left out
            omitted += 1 + sum(1 for values in answers[e][1].values() if "" not in values)
        for a in left_a:  # the name and every argument
            invented += 1 + len(calls[a][1])
        return Counts(match, mismatch, omitted, invented, error)

    def _pair(self, e: int, call: Call, live: bool) -> Counts:
        try:
            return self._call(e).counts(call[0], call[1])
        except BfclRaises:
            if live:
                raise
            return NOT_CHECKED
