"""The per-field tables of a session counted as its comparisons are recorded, instead of
from field records kept until the end.

A session whose report is read only by its terminal summary (report.summary_reads) needs of
each comparison's fields nothing but the per-field tables: per group, per field path, how
often each status occurred and the exact sum of the scores. :class:`FieldCounts` holds a
recorded comparison's fields until its status is known (the report of its test phase: an
xfail-marked test's comparisons count nowhere), then counts them by (field path, status,
score) into its group's ``Counter``; the comparison keeps no field record. The tables made
from the counts (aggregate.summarize) are those that counting the kept records gives: the
same statuses, scores and paths are counted (a record's field path is the engine's, ``""``
read as ``$``), every count is an integer and every sum exact, so neither the order of the
comparisons nor the grouping of the counts changes a number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import compress
from operator import itemgetter

from ...engine.results.field_results import (
    MATCH,
    MISMATCH,
    OMISSION,
    STATUS_OF,
    TALLY_OF,
    FieldResult,
    Tally,
)
from ..run_model.aggregate import group_key
from ..run_model.comparisons import ERROR, Comparison

_FIELD_PATH_OF = itemgetter(7)  # a FieldResult's field path ("": the root, read as "$")
# statuses of a field scored against an expected value (reliability._EXPECTED), and those
# of one that did not match it
_SCORED = frozenset((MATCH, MISMATCH, OMISSION)).__contains__
_MISSED = frozenset((MISMATCH, OMISSION)).__contains__

# False: every session keeps its field records and counts them at the end, as a report file
# needs them (report.summary_reads; the switch of this fast path: docs/architecture.md).
SPECIALISE = True


class FieldCounts:
    """Per group (a per-field table's key: aggregate.group_key under ``group_by``), the fields
    of the counted comparisons by (field path, status, score), as many times as each
    occurred; and the fields of the comparisons recorded and not counted yet, by case id
    and repeat (a test's comparisons differ in one or the other)."""

    __slots__ = ("groups", "group_by", "passes", "_held")

    def __init__(self, group_by: str = "metric") -> None:
        self.groups: dict[str, Counter[Tally]] = {}
        self.group_by = group_by
        # of each case, each field path with the scored runs in which it passed: what the
        # per-field pass^k of repeated cases is made from (reliability.FieldPasses)
        self.passes: dict[str, Counter[str]] = {}
        self._held: dict[tuple[str, int], Sequence[FieldResult]] = {}

    def add(self, group: str, fields: Iterable[FieldResult]) -> None:
        """Count one comparison's fields (the engine's FieldResults, or tallies in their
        slots) into ``group``'s table."""
        tallies = self.groups.get(group)
        if tallies is None:
            tallies = self.groups[group] = Counter()
        tallies.update(map(TALLY_OF, fields))  # counted in C (Counter's own loop)

    def hold(self, comparison: Comparison, fields: Sequence[FieldResult]) -> None:
        """Keep the fields of ``comparison``, recorded now, until :meth:`count` is given it
        (kept with it, not in a list beside the test's: a comparison made by a thread as
        its test's phase reports cannot count another's fields)."""
        if fields:
            self._held[comparison.case_id, comparison.repeat] = fields

    def count(self, made: Iterable[Comparison]) -> None:
        """Count the fields held for ``made``, the comparisons of a test phase with the
        statuses its report gave them; those that do not count (an xfail-marked test's)
        are dropped."""
        for comparison in made:
            fields = self._held.pop((comparison.case_id, comparison.repeat), None)
            if fields is not None and comparison.counted:
                self.add(group_key(comparison, self.group_by), fields)
                if comparison.status != ERROR:
                    self._passed(comparison.case_id, fields)

    def _passed(self, case_id: str, fields: Sequence[FieldResult]) -> None:
        """Count the field paths one scored run of ``case_id`` passed: each path scored
        against an expected value counts 1 when every field at it matched, else 0, as
        reliability.passed_fields counts a kept record's (``""`` read as ``$``). Every case
        counts them, since a case is known to repeat only when its second run comes; so
        they are counted in C: the statuses and paths taken out by ``map``, the paths
        scored and those missed gathered as sets, and the passed ones counted by the
        Counter's own loop (its Python loop only for the paths missed)."""
        statuses = list(map(STATUS_OF, fields))
        paths = list(map(_FIELD_PATH_OF, fields))
        if statuses.count(MATCH) == len(statuses):  # (most runs: every field matched)
            scored, missed = set(paths), set()
        else:
            scored = set(compress(paths, map(_SCORED, statuses)))
            missed = set(compress(paths, map(_MISSED, statuses)))
        for one in (scored, missed):
            if "" in one:
                one.discard("")
                one.add("$")
        tally = self.passes.get(case_id)
        if tally is None:
            tally = self.passes[case_id] = Counter()
        tally.update(scored - missed)
        for path in missed:
            tally[path] += 0  # (present: the field was scored in this run, and failed)
