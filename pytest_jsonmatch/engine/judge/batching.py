"""Batch comparators (an LLM judge, say): every field of a record that uses one is scored in
one call, and no field is ever asked about twice.

The walk hands each such field to the :class:`BatchScores` as it meets it and leaves a
placeholder; :meth:`BatchScores.resolve` then makes one call per comparator with everything
gathered. Array pairing may need a judge's scores before it can choose pairs: it gathers the
fields of every candidate pair instead, the judge notes that a second walk is needed
(``rewalk``), and that walk finds every score known.

A judge that fails (raises, answers None or an exception for a field, answers too few
fields, or gives a score outside [0, 1]) does not end the comparison: each field it could not
score becomes a ``batch_error`` (as extract-eval does), with the reason, and is never asked
about again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..core.errors import ComparatorError, JsonMatchError
from ..core.numbers import check_score

# What identifies one judged field: comparator name, expected path, actual path.
JudgeKey = tuple[str, str, str]


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class Batched(Protocol):
        """What batching reads of a field handed to a batch comparator (comparing's
        ``BatchItem``): its instance path. The item itself goes to the comparator whole."""

        @property
        def path(self) -> str: ...


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class Comparator(Protocol):
        """What batching reads of a bound comparator: its name, which groups the fields."""

        @property
        def name(self) -> str: ...


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class BatchFunctions(Protocol):
        """Where batching finds each batch comparator's function (comparing's ``Registry``).
        The function takes the registry's own items, so its argument is typed loosely here:
        this stage sits below comparing and never names them."""

        def batch_function(self, name: str) -> Callable[[list[Any]], Sequence[object]]: ...


class Failed(str):
    """Why a batch comparator gave a field no usable score (the field's ``batch_error``
    reason)."""

    __slots__ = ()


class BatchScores:
    """The batch scores of one record: known ones, failed ones, and those waiting for the
    call."""

    def __init__(self, registry: BatchFunctions) -> None:
        self.registry = registry
        self.known: dict[JudgeKey, float | Failed] = {}
        self.waiting: dict[JudgeKey, tuple[Comparator, Batched]] = {}
        self.rewalk = False

    def ask(self, comparator: Comparator, item: Batched, actual_path: str) -> float | Failed | None:
        """The score of ``item`` when known (a :class:`Failed` when the comparator could not
        give one); else None, and the item waits for resolve()."""
        key = (comparator.name, item.path, actual_path)
        score = self.known.get(key)
        if score is None and key not in self.waiting:
            self.waiting[key] = (comparator, item)
        return score

    def score_of(self, comparator: Comparator, path: str, actual_path: str) -> float | Failed:
        """A score (or failure) resolve() has obtained."""
        return self.known[(comparator.name, path, actual_path)]

    def resolve(self) -> None:
        """One call per batch comparator with every waiting field; scores (or failures)
        become known."""
        groups: dict[str, list[tuple[JudgeKey, Batched]]] = {}
        for key, (comparator, item) in self.waiting.items():
            groups.setdefault(comparator.name, []).append((key, item))
        self.waiting = {}
        for name, group in groups.items():
            self._call(name, group)

    def _call(self, name: str, group: list[tuple[JudgeKey, Batched]]) -> None:
        fn = self.registry.batch_function(name)
        items = [item for _, item in group]
        try:
            answers = list(fn(items))
        except Exception as exc:
            if isinstance(exc, JsonMatchError) and getattr(exc, "stops_comparison", False):
                raise  # a replay-only run's verdict that was never recorded: the case's error
            why = Failed(f"batch comparator {name!r} raised {type(exc).__name__}: {exc}")
            for key, _ in group:
                self.known[key] = why
            return
        self._take(name, group, answers)

    def _take(
        self, name: str, group: list[tuple[JudgeKey, Batched]], answers: Sequence[object]
    ) -> None:
        """Record each answer: a score, or why the field has none."""
        for k, (key, _) in enumerate(group):
            answer = answers[k] if k < len(answers) else None
            if answer is None:
                self.known[key] = Failed(f"batch comparator {name!r} gave no answer")
            elif isinstance(answer, JsonMatchError):  # the comparator's own words
                self.known[key] = Failed(str(answer))
            elif isinstance(answer, BaseException):
                self.known[key] = Failed(f"batch comparator {name!r} answered {answer!r}")
            else:
                try:
                    self.known[key] = check_score(name, answer)
                except ComparatorError as exc:
                    self.known[key] = Failed(str(exc))


class Unasked(BatchScores):
    """The judge of the records no judge can score a field of (``walk.walk_counted``): one
    for them all, since none asks it; a record that did would break its caller's promise."""

    def __init__(self) -> None:  # (no registry: nothing is ever resolved)
        self.known, self.waiting, self.rewalk = {}, {}, False

    def ask(self, comparator: Comparator, item: Batched, actual_path: str) -> float | Failed | None:
        raise AssertionError(f"a field ({item.path}) asked a judge that is never asked")


UNASKED = Unasked()
