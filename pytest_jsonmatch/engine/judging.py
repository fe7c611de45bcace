"""Batch comparators (an LLM judge, say): every field of a record that uses one is scored in
one call, and no field is ever asked about twice.

The walk hands each such field to the :class:`Judge` as it meets it and leaves a
placeholder; :meth:`Judge.resolve` then makes one call per comparator with everything
gathered. Array pairing may need a judge's scores before it can choose pairs: it gathers the
fields of every candidate pair instead, the judge notes that a second walk is needed
(``rewalk``), and that walk finds every score known.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .comparators import BoundComparator
from .errors import ComparatorError
from .paths import display_path
from .registry import BatchItem, Registry, check_score

# What identifies one judged field: comparator name, expected path, actual path.
JudgeKey = tuple[str, str, str]


class Judge:
    """The batch scores of one record: known ones, and those waiting for the call."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.known: dict[JudgeKey, float] = {}
        self.waiting: dict[JudgeKey, tuple[BoundComparator, BatchItem]] = {}
        self.rewalk = False

    def ask(self, comparator: BoundComparator, item: BatchItem, actual_path: str) -> float | None:
        """The score of ``item`` when known; else None, and the item waits for resolve()."""
        key = (comparator.name, item.path, actual_path)
        score = self.known.get(key)
        if score is None and key not in self.waiting:
            self.waiting[key] = (comparator, item)
        return score

    def score_of(self, comparator: BoundComparator, path: str, actual_path: str) -> float:
        """A score resolve() has obtained."""
        return self.known[(comparator.name, path, actual_path)]

    def resolve(self) -> None:
        """One call per batch comparator with every waiting field; scores become known. A
        comparator that fails, or leaves fields without a usable score, is a
        ComparatorError naming each field and why."""
        groups: dict[str, list[tuple[JudgeKey, BatchItem]]] = {}
        for key, (comparator, item) in self.waiting.items():
            groups.setdefault(comparator.name, []).append((key, item))
        self.waiting = {}
        for name, group in groups.items():
            self._call(name, group)

    def _call(self, name: str, group: list[tuple[JudgeKey, BatchItem]]) -> None:
        fn = self.registry.batch_function(name)
        items = [item for _, item in group]
        try:
            answers = list(fn(items))
        except Exception as exc:  # noqa: BLE001 - a judge failing is reported, named
            paths = ", ".join(display_path(item.path) for item in items)
            raise ComparatorError(
                f"batch comparator {name!r} failed for {len(items)} field(s) ({paths}): "
                f"{type(exc).__name__}: {exc}") from None
        failed = list(self._take(name, group, answers))
        if failed:
            raise ComparatorError(f"batch comparator {name!r} gave no usable score for: "
                                  + "; ".join(failed))

    def _take(self, name: str, group: list[tuple[JudgeKey, BatchItem]], answers: list[Any]
              ) -> Iterable[str]:
        """Record each usable answer; yield why each other field has none."""
        for k, (key, item) in enumerate(group):
            answer = answers[k] if k < len(answers) else None
            where = display_path(item.path)
            if answer is None:
                yield f"{where} (no answer)"
            elif isinstance(answer, BaseException):
                yield f"{where} ({answer!r})"
            else:
                try:
                    self.known[key] = check_score(name, answer)
                except ComparatorError as exc:
                    yield f"{where} ({exc})"
