"""The run against its baseline as every format shows it: the mean change (its interval and
the smallest drop the run could detect), the cases whose score changed (before, after,
change, the gate a case failed) and each field's mean per shared case (cases, base, now,
change, 95% interval, p, Holm p). The figures of every row are made here once, as text;
text.py, markdown.py and html.py only lay them out, each with its escapes and markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.core.slotted import Slotted
from ..verdicts.changes import (
    FieldChange,
    change_text,
    changed_cases,
    field_changes,
    interval_text,
    p_text,
    signed,
)

if TYPE_CHECKING:
    from ..run_model.report_types import BaselineSectionDict, GatesDict

FIELD_HEADER = ["cases", "base", "now", "change", "95% interval", "p", "Holm p"]


def mean_change(
    baseline: BaselineSectionDict, separator: str, detectable: str
) -> tuple[str, float, float, str] | None:
    """The run's mean change against the baseline as a format words it: the printed change,
    both means, and ``, 95% interval -0.0412 to -0.0096`` with, after ``separator``, the
    smallest drop detectable in the format's ``detectable`` words (empty with fewer than two
    shared cases); None where no case is shared."""
    before, after = baseline["before"], baseline["after"]
    if not baseline["shared"] or before is None or after is None:
        return None
    diff = baseline["difference"]
    low, high, least = diff["low"], diff["high"], diff["detectable"]
    interval = ""
    if low is not None and high is not None:
        interval = f", 95% interval {interval_text(before, after, diff['mean'], low, high)}"
        interval += separator + (
            f"{detectable} {least:.4f}" if least is not None else "too few cases to detect any drop"
        )
    return change_text(before, after), before, after, interval


class ChangedRow(Slotted):
    """A shared case whose score changed: its id, its figures (before, after, change) and
    the gate it failed (None: none)."""

    __slots__ = ("case_id", "figures", "gate")

    @staticmethod
    def header(case: str, gate: str) -> list[str]:
        """The changed cases' header: the case's column named ``case``, the gate's ``gate``."""
        return [case, "before", "after", "change", gate]

    def __init__(self, case_id: str, figures: list[str], gate: str | None) -> None:
        self.case_id, self.figures, self.gate = case_id, figures, gate


def changed_rows(
    baseline: BaselineSectionDict, gates: GatesDict, limit: int | None
) -> tuple[list[ChangedRow], int]:
    """The changed cases' rows, most dropped first (changes.changed_cases: the first
    ``limit``, None: all, and every case a gate quotes), and how many are left out."""
    blocked = {b["case_id"]: b["gate"] for b in gates.get("blocked", [])}
    shown, hidden = changed_cases(baseline, gates, limit)
    rows = [
        ChangedRow(
            c["case_id"],
            [f"{c['before']:.4f}", f"{c['after']:.4f}", change_text(c["before"], c["after"])],
            blocked.get(c["case_id"]),
        )
        for c in shown
    ]
    return rows, hidden


class FieldTable(Slotted):
    """The fields' rows against the baseline (changes.field_changes), how many are left out,
    and how many rows of the whole table Holm's correction was taken across (those with a
    p-value)."""

    __slots__ = ("rows", "hidden", "tested")

    def __init__(self, rows: list[FieldChange], hidden: int, tested: int) -> None:
        self.rows, self.hidden, self.tested = rows, hidden, tested

    @staticmethod
    def header(group: bool) -> list[str]:
        """The table's header, with a column of the row's group where ``group``."""
        return ["field", *(["group"] if group else []), *FIELD_HEADER]

    @staticmethod
    def cells(row: FieldChange) -> list[str]:
        """A row's figures, as :data:`FIELD_HEADER` names them."""
        return [
            str(row.cases),
            f"{row.before:.4f}",
            f"{row.after:.4f}",
            signed(row.change),
            row.interval,
            p_text(row.p),
            p_text(row.holm_p),
        ]


def baseline_fields(
    baseline: BaselineSectionDict, gates: GatesDict, limit: int | None
) -> FieldTable:
    """The fields' table against the baseline: the first ``limit`` rows (None: all) and every
    row a gate quotes."""
    rows, hidden = field_changes(baseline, gates, limit)
    every = rows if limit is None else field_changes(baseline, gates, None)[0]
    return FieldTable(rows, hidden, sum(r.p is not None for r in every))
