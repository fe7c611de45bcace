"""Scores and their changes as every renderer prints them: four decimals, and a change worked
out from the two printed scores (``now - base``), so that on every printed row the subtraction
holds to the last digit. The exact change (a mean of paired differences) can differ from the
printed one by at most 0.0001; the gates decide on the exact one.

A 95% interval is printed around the printed change (:func:`printed_interval`): its two
margins (mean - low, high - mean) are rounded to four decimals and laid off from the printed
change, so that the printed change always lies within the printed bounds and an interval with
no spread prints both bounds equal to it. Every output (terminal, Markdown, HTML, the gates'
messages) prints an interval through this one rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from ...engine.core.slotted import Slotted

if TYPE_CHECKING:
    from ..run_model.report_types import (
        BaselineSectionDict,
        ChangedCaseDict,
        FieldDeltaDict,
        GatesDict,
        MetricTallyDict,
        QuotedDict,
    )

T = TypeVar("T")


def ten_thousandths(score: float) -> int:
    """``score`` as printed to four decimals, in units of 0.0001."""
    return round(float(f"{score:.4f}") * 10_000)


def printed_change(before: float, after: float) -> float:
    """``after - before`` as the two printed scores give it."""
    return (ten_thousandths(after) - ten_thousandths(before)) / 10_000


def signed(value: float) -> str:
    """``+0.0123``; never ``-0.0000``."""
    text = f"{value:+.4f}"
    return "+0.0000" if text == "-0.0000" else text


def change_text(before: float, after: float) -> str:
    """The printed change from ``before`` to ``after`` (``-0.0232``)."""
    return signed(printed_change(before, after))


def printed_interval(
    before: float, after: float, mean: float, low: float, high: float
) -> tuple[float, float]:
    """The bounds of the 95% interval of the change from ``before`` to ``after`` as printed:
    the printed change (:func:`printed_change`) minus the lower margin ``mean - low`` and plus
    the upper one ``high - mean``, each margin rounded to four decimals; ``mean`` is the exact
    mean difference the interval was computed around. The bounds stay in [-1, 1] (a bound cut
    to an end of that range, stats.py, prints as that end), and a bound on one side of zero is
    never printed on the other (a gate calls an interval wholly below zero from the exact
    bounds; its message must not print a positive top)."""
    change = ten_thousandths(after) - ten_thousandths(before)
    bottom = max(change - ten_thousandths(max(mean - low, 0.0)), -10_000)
    top = min(change + ten_thousandths(max(high - mean, 0.0)), 10_000)
    if low <= -1.0:
        bottom = -10_000
    if high >= 1.0:
        top = 10_000
    if high < 0.0:
        top = min(top, 0)
    if low > 0.0:
        bottom = max(bottom, 0)
    return bottom / 10_000, top / 10_000


def interval_text(
    before: float | None,
    after: float | None,
    mean: float,
    low: float | None,
    high: float | None,
    missing: str = "-",
) -> str:
    """``-0.0412 to -0.0096``: the interval as :func:`printed_interval` prints it beside the
    change from ``before`` to ``after``; ``missing`` when there is no interval."""
    if before is None or after is None or low is None or high is None:
        return missing
    bottom, top = printed_interval(before, after, mean, low, high)
    return f"{signed(bottom)} to {signed(top)}"


class FieldChange(Slotted):
    """A field row against the baseline: over the ``cases`` shared cases of its group that
    hold it, the mean of the field's per-case scores in the baseline and now, the exact mean
    of the paired differences, the paired 95% interval, the p-value and the Holm-adjusted one
    (None with fewer than two cases)."""

    __slots__ = ("group", "path", "cases", "before", "after", "mean", "low", "high", "p", "holm_p")

    def __init__(
        self,
        group: str,
        path: str,
        cases: int,
        before: float,
        after: float,
        mean: float,
        low: float | None,
        high: float | None,
        p: float | None,
        holm_p: float | None,
    ) -> None:
        self.group, self.path, self.cases = group, path, cases
        self.before, self.after = before, after
        self.mean, self.low, self.high = mean, low, high
        self.p, self.holm_p = p, holm_p

    @property
    def change(self) -> float:
        return printed_change(self.before, self.after)

    @property
    def interval(self) -> str:
        """The row's 95% interval as every table prints it."""
        return interval_text(self.before, self.after, self.mean, self.low, self.high)


def field_changes(
    baseline: BaselineSectionDict, gates: GatesDict | None, limit: int | None
) -> tuple[list[FieldChange], int]:
    """The rows of the fields-against-the-baseline table, most dropped first: the first
    ``limit`` (None: all) and every row a gate's failure or warning quotes; and how many
    rows are left out."""
    rows = []
    for group, fields in baseline["groups"].items():
        for path, d in fields.items():
            if d["before"] is None or d["after"] is None:
                continue
            diff = d["difference"]
            rows.append(
                FieldChange(
                    group,
                    path,
                    diff["n"],
                    d["before"],
                    d["after"],
                    diff["mean"],
                    diff["low"],
                    diff["high"],
                    diff["p_value"],
                    d.get("holm_p"),
                )
            )
    rows.sort(key=lambda r: (r.change, r.group, r.path))
    if limit is None or len(rows) <= limit:
        return rows, 0
    quoted = {(f["group"], f["path"]) for f in _quoted(gates)["fields"]}
    shown = [r for i, r in enumerate(rows) if i < limit or (r.group, r.path) in quoted]
    return shown, len(rows) - len(shown)


def regressed_first(
    rows: Sequence[tuple[str, T]], changes: Mapping[str, FieldDeltaDict] | None
) -> list[tuple[str, T]]:
    """A group's field rows (path first, worst first) as every rendering of the run's field
    table orders them against a baseline (``changes``: the group's fields against it): the
    fields whose printed mean dropped first, most dropped first, then the others in their
    order, so that the field that regressed leads rather than one that is always fuzzy."""
    if not changes:
        return list(rows)

    def place(row: tuple[str, T]) -> tuple[int, float]:
        change = changes.get(row[0])
        if change is None or change["before"] is None or change["after"] is None:
            return (1, 0.0)
        drop = printed_change(change["before"], change["after"])
        return (0, drop) if drop < 0 else (1, 0.0)

    return sorted(rows, key=place)


def changed_cases(
    baseline: BaselineSectionDict, gates: GatesDict | None, limit: int | None
) -> tuple[list[ChangedCaseDict], int]:
    """The shared cases that changed, most dropped first: the first ``limit`` (None: all)
    and every case a gate quotes; and how many are left out."""
    changed = baseline["changed"]
    if limit is None or len(changed) <= limit:
        return list(changed), 0
    quoted = set(_quoted(gates)["cases"])
    shown = [c for i, c in enumerate(changed) if i < limit or c["case_id"] in quoted]
    return shown, len(changed) - len(shown)


def p_text(value: float | None) -> str:
    """A p-value as the tables print it (``-`` when there is none)."""
    return "-" if value is None else f"{value:.4f}"


def _quoted(gates: GatesDict | None) -> QuotedDict:
    """What the gates' messages quote (nothing when they quote nothing)."""
    quoted = gates.get("quoted") if gates is not None else None
    return quoted if quoted is not None else {"cases": [], "fields": []}


def metric_cells(m: MetricTallyDict) -> list[str]:
    """A metric's row after its name, as the text and Markdown summaries print it: cases,
    passed, failed, errors, then the mean score, precision, recall and F1."""
    counts = [str(m["count"]), str(m["passed"]), str(m["failed"]), str(m["errors"])]
    return (
        counts
        + [f"{m['mean_score']:.4f}", f"{m['precision']:.4f}"]
        + [
            f"{m['recall']:.4f}",
            f"{m['f1']:.4f}",
        ]
    )
