"""Every number the gates print is one a table shows, and every table's deltas are its own.

Two runs built by hand, with two field tables (grouped by metric) that both hold a field
``total``: the baseline run and the run now. Every delta, floor and regression below is
worked out from the records by hand.

    case  metric       baseline: score  total  vendor     now: score  total  vendor
    a     field_f1                1.0    1.0    1.0             1.0    1.0    1.0
    b     field_f1                1.0    1.0    1.0             0.7    0.4    1.0
    c     field_f1                0.5    0.0    1.0             0.5    0.0    1.0
    d     field_match             1.0    1.0                    1.0    1.0
    e     field_match             1.0    1.0                    1.0    1.0
    f     field_f1                 (not in the baseline)        1.0    1.0    1.0

The field_f1 table now: total = (1 + 0.4 + 0 + 1) / 4 = 0.6, vendor = 1.0.
The field_match table now: total = (1 + 1) / 2 = 1.0.
(Pooled across both tables, total would be (1 + 0.4 + 0 + 1 + 1 + 1) / 6 = 0.7333: a number
that appears in no table, and the old floor gate's.)
Deltas over the shared cases of each group: field_f1 total (0 - 0.6 + 0) / 3 = -0.2, from
(1 + 1 + 0) / 3 = 0.6667 to (1 + 0.4 + 0) / 3 = 0.4667; field_f1 vendor 0; field_match
total 0. (Pooled: -0.6 / 5 = -0.12, what both tables used to show.)
Overall over the 5 shared cases: from (1 + 1 + 0.5 + 1 + 1) / 5 = 0.9 to
(1 + 0.7 + 0.5 + 1 + 1) / 5 = 0.84, a change of -0.06; case b dropped by 0.3.
"""

from __future__ import annotations

import pytest

from pytest_jsonmatch.cli.options import GATE_NAMES as CLI_NAMES
from pytest_jsonmatch.reporting.render.text import passed_line, summary_lines, verdict_lines
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import (
    FAILED,
    PASSED,
    Comparison,
    ReportedField,
)
from pytest_jsonmatch.reporting.verdicts.baseline import Baseline, cases_of, compare
from pytest_jsonmatch.reporting.verdicts.gate_settings import GateNames, GateSettings, parse_floors
from pytest_jsonmatch.reporting.verdicts.gates import decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report

LINES = {"a": 1, "b": 7, "c": 13, "d": 1, "e": 5, "f": 19}
# the plugin's ini settings, as its messages name them (the command line's: CLI_NAMES)
PLUGIN_NAMES = GateNames(
    fail_under="jsonmatch_gates fail_under",
    floors="jsonmatch_field_floors",
    max_drop="jsonmatch_gates max_drop",
    max_case_drop="jsonmatch_gates max_case_drop",
    allow_regressions="jsonmatch_allow_regressions",
    strict="jsonmatch_strict = true",
)


def _case(case_id: str, metric: str, score: float, **fields: float) -> Comparison:
    records = tuple(
        ReportedField(name, name, "match" if value == 1.0 else "mismatch", value)
        for name, value in fields.items()
    )
    threshold = 0.5
    return Comparison(
        case_id=case_id,
        nodeid=case_id,
        metric=metric,
        score=score,
        threshold=threshold,
        status=PASSED if score >= threshold else FAILED,
        precision=score,
        recall=score,
        f1=score,
        file="golden/invoices.yaml" if metric == "field_f1" else "golden/totals.yaml",
        line=LINES[case_id],
        fields=records,
    )


BEFORE = [
    _case("a", "field_f1", 1.0, total=1.0, vendor=1.0),
    _case("b", "field_f1", 1.0, total=1.0, vendor=1.0),
    _case("c", "field_f1", 0.5, total=0.0, vendor=1.0),
    _case("d", "field_match", 1.0, total=1.0),
    _case("e", "field_match", 1.0, total=1.0),
]
NOW = [
    _case("a", "field_f1", 1.0, total=1.0, vendor=1.0),
    _case("b", "field_f1", 0.7, total=0.4, vendor=1.0),
    _case("c", "field_f1", 0.5, total=0.0, vendor=1.0),
    _case("d", "field_match", 1.0, total=1.0),
    _case("e", "field_match", 1.0, total=1.0),
    _case("f", "field_f1", 1.0, total=1.0, vendor=1.0),
]


def _floors(*lines: str):
    return parse_floors(lines, PLUGIN_NAMES.floors)


def _judged(**settings):
    summary = summarize(NOW)
    against = compare(cases_of(NOW), Baseline("base.json", 3, cases_of(BEFORE)))
    verdict = decision_of(summary, GateSettings(**{"names": PLUGIN_NAMES, **settings}), against)
    return summary, against, verdict


def test_each_table_holds_its_own_numbers_and_its_own_deltas():
    summary, against, _ = _judged()
    assert summary.groups["field_f1"]["total"].mean_score == pytest.approx(0.6)
    assert summary.groups["field_f1"]["vendor"].mean_score == 1.0
    assert summary.groups["field_match"]["total"].mean_score == 1.0
    deltas = {(d.group, d.path): d for d in against.fields}
    assert set(deltas) == {("field_f1", "total"), ("field_f1", "vendor"), ("field_match", "total")}
    total = deltas["field_f1", "total"]
    assert total.difference.mean == pytest.approx(-0.2)
    assert (total.before, total.after) == (pytest.approx(2 / 3), pytest.approx(1.4 / 3))
    assert total.difference.n == 3
    assert deltas["field_f1", "vendor"].difference.mean == 0.0
    assert deltas["field_match", "total"].difference.mean == 0.0
    assert (against.before, against.after) == (pytest.approx(0.9), pytest.approx(0.84))
    assert against.difference.mean == pytest.approx(-0.06)
    assert against.added == ("f",) and against.shared == 5


def test_the_baseline_table_shows_each_group_s_rows_and_they_reconcile():
    summary, against, verdict = _judged()
    report = build_report(summary, NOW, verdict, against)
    lines = summary_lines(report, width=100)
    f1_table = lines.index("fields of metric field_f1")
    match_table = lines.index("fields of metric field_match")
    f1_rows = {
        line.split()[0]: line.split() for line in lines[f1_table:match_table] if line.strip()
    }
    # the run's own tables: field, score, match, mismatch, omission, halluc. (no baseline mix)
    assert f1_rows["total"] == ["total", "0.6000", "2", "2", "0", "0"]
    # the baseline's tables, one per group, on the numbers its gate uses (per shared case
    # of the group): field, cases, base, now, change = now - base, interval, p, Holm p
    start = next(i for i, line in enumerate(lines) if "fields against the baseline" in line)
    assert lines[start + 1] == "  metric field_f1" and lines[start + 5] == "  metric field_match"
    rows = [line.split() for line in lines[start + 3 : start + 5] + lines[start + 7 : start + 8]]
    assert [row[:5] for row in rows] == [
        ["total", "3", "0.6667", "0.4667", "-0.2000"],  # most dropped first
        ["vendor", "3", "1.0000", "1.0000", "+0.0000"],
        ["total", "2", "1.0000", "1.0000", "+0.0000"],
    ]
    for row in rows:  # now - base = change, to the printed digit
        assert round(float(row[3]) - float(row[2]), 4) == float(row[4])
    assert report["baseline"]["groups"]["field_f1"]["total"]["difference"]["mean"] == pytest.approx(
        -0.2
    )


def test_a_floor_is_held_in_every_table_and_quotes_the_row_it_fails():
    # total=0.7: the field_f1 row (0.6) fails, the field_match row (1.0) holds; pooled
    # (0.7333) it would have passed
    floors = _floors("total=0.7", "field_match:total=0.95", "field_f1:vendor=1.0")
    _, _, verdict = _judged(floors=floors, allow_regressions=1)
    assert verdict.failures == [
        "field total (field_f1): mean score 0.6000 is below its floor 0.7000"
    ]
    assert "jsonmatch_field_floors: 3 field rows at or above their floor" in verdict.checked


def test_a_floor_of_one_group_ignores_the_other_tables():
    _, _, verdict = _judged(floors=_floors("field_match:total=0.95"), allow_regressions=1)
    assert verdict.failures == []
    _, _, verdict = _judged(floors=_floors("field_f1:total=0.61"), allow_regressions=1)
    assert verdict.failures == [
        "field total (field_f1): mean score 0.6000 is below its floor 0.6100"
    ]


def test_a_floor_naming_no_group_or_no_field_is_loud_and_suggests():
    _, _, verdict = _judged(floors=_floors("field_f2:total=0.5", "totl=0.5"), allow_regressions=1)
    assert verdict.warnings[:2] == [
        "floor 'field_f2:total' names no group of this run; did you mean 'field_f1' or "
        "'field_match'? "
        "(jsonmatch_strict = true fails the run)",
        "floor 'totl' matched no scored field of this run; did you mean 'total'? "
        "(jsonmatch_strict = true fails the run)",
    ]
    _, _, verdict = _judged(
        floors=_floors("totl=0.5"), allow_regressions=1, strict=True, names=CLI_NAMES
    )
    assert verdict.failures == [
        "floor 'totl' matched no scored field of this run; did you mean 'total'?"
    ]


def test_a_case_that_dropped_fails_the_run_whatever_its_threshold():
    # b (0.7) still passes its threshold 0.5, and the mean drop may be noise: only the
    # per-case rule stops it, naming its place and both scores
    _, _, verdict = _judged()
    assert verdict.failures == [
        "case b (golden/invoices.yaml:7) dropped from 1.0000 to 0.7000, "
        "by more than jsonmatch_gates max_drop 0.0000"
    ]
    assert verdict.warnings[0].startswith(
        "overall score dropped by 0.0600 (0.9000 -> 0.8400 "
        "over 5 shared cases), more than jsonmatch_gates max_drop "
        "0.0000, but it may be noise"
    )
    assert verdict.warnings[1].startswith(
        "field total (field_f1): mean score dropped by 0.2000 "
        "(0.6667 -> 0.4667 over 3 shared cases)"
    )


def test_a_case_drop_within_the_limit_or_the_allowance_passes():
    _, _, verdict = _judged(max_case_drop=0.3)  # b dropped by exactly 0.3: not more
    assert verdict.failures == []
    assert (
        "case regressions: no shared case of 5 dropped by more than jsonmatch_gates max_case_drop "
        "0.3000" in verdict.checked
    )
    _, _, verdict = _judged(max_case_drop=0.29)
    assert verdict.failures == [
        "case b (golden/invoices.yaml:7) dropped from 1.0000 to 0.7000, "
        "by more than jsonmatch_gates max_case_drop 0.2900"
    ]
    _, _, verdict = _judged(allow_regressions=1)
    assert verdict.failures == []
    assert (
        "1 case dropped by more than jsonmatch_gates max_drop 0.0000, allowed by "
        "jsonmatch_allow_regressions 1: b" in verdict.warnings
    )


def test_the_cli_names_its_own_flags():
    _, _, verdict = _judged(names=CLI_NAMES, max_case_drop=0.1)
    assert verdict.failures == [
        "case b (golden/invoices.yaml:7) dropped from 1.0000 to 0.7000, "
        "by more than --max-case-drop 0.1000"
    ]
    assert all("jsonmatch_" not in line for line in verdict.warnings + verdict.failures)


def test_the_banner_is_one_line_per_failed_gate_and_one_per_warning():
    summary, against, verdict = _judged(floors=_floors("total=0.7"))
    report = build_report(summary, NOW, verdict, against)
    failures, warnings = verdict_lines(report, width=80)
    assert failures == [
        "FAILED: jsonmatch gates: 2 failures",
        "  field total (field_f1): mean score 0.6000 is below its floor 0.7000",
        "  case b (golden/invoices.yaml:7) dropped from 1.0000 to 0.7000, by more than "
        "jsonmatch_gates max_drop 0.0000",
    ]
    # every warning on its own line, -v or not: none is folded behind another
    assert warnings == ["warning: " + w for w in verdict.warnings]
    assert len(warnings) == 2 and warnings[0].startswith("warning: overall score dropped by 0.0600")
    assert warnings[1].startswith("warning: field total (field_f1): mean score dropped by")
    assert verdict_lines(report, width=80, verbose=1)[1] == warnings
    assert passed_line(report) is None


def test_a_passing_run_says_which_gates_it_passed():
    summary, against, verdict = _judged(
        fail_under=0.5, floors=_floors("vendor=0.9"), max_drop=0.1, max_case_drop=0.5
    )
    report = build_report(summary, NOW, verdict, against)
    assert verdict.failures == []
    # overall now: (1 + 0.7 + 0.5 + 1 + 1 + 1) / 6 = 0.8667
    assert passed_line(report) == (
        "jsonmatch gates passed: overall score 0.8667 is at least jsonmatch_gates fail_under 0.5000; "
        "jsonmatch_field_floors: 1 field row at or above its floor; baseline (statistical): "
        "mean change -0.0600 over 5 shared cases, jsonmatch_gates max_drop 0.1000; case regressions: "
        "no shared case of 5 dropped by more than jsonmatch_gates max_case_drop 0.5000"
    )


def test_a_case_a_gate_failed_is_named_with_its_gate_in_the_text_and_markdown():
    # case b passed its threshold (0.7 >= 0.5) but dropped by 0.3 > max_drop 0.05
    from pytest_jsonmatch.reporting.render.markdown import render_markdown

    summary, against, verdict = _judged(max_drop=0.05)
    report = build_report(summary, NOW, verdict, against)
    assert report["gates"]["blocked"] == [{"case_id": "b", "gate": "jsonmatch_gates max_drop"}]
    assert report["gates"]["quoted"]["cases"] == ["b"]
    lines = summary_lines(report, width=100)
    assert "  b             1.0000  0.7000  -0.3000  gate failed" in lines
    markdown = render_markdown(report)
    assert (
        "| b | golden/invoices.yaml:7 | 0.7000 | failed the gate jsonmatch\\_gates max\\_drop "
        "\\(dropped against the baseline\\) |"
    ) in markdown
    assert "| b | 1.0000 | 0.7000 | -0.3000 | failed: jsonmatch\\_gates max\\_drop |" in markdown


def test_every_case_a_gate_quotes_is_in_the_changed_table_however_many(monkeypatch):
    # 8 cases, each dropped by a different amount: 7 beyond max_case_drop 0.05 (allowed:
    # none), one by 0.01; the terminal shows 5 rows unless -v, but all 7 quoted ones
    for i in range(8):
        monkeypatch.setitem(LINES, f"k{i}", i + 1)
    before = [_case(f"k{i}", "field_f1", 1.0, total=1.0) for i in range(8)]
    now = [
        _case(f"k{i}", "field_f1", 0.9 - 0.01 * i if i < 7 else 0.99, total=1.0) for i in range(8)
    ]
    against = compare(cases_of(now), Baseline("base.json", 3, cases_of(before)))
    verdict = decision_of(summarize(now), GateSettings(max_drop=0.5, max_case_drop=0.05), against)
    report = build_report(summarize(now), now, verdict, against)
    lines = summary_lines(report, width=100)
    start = next(i for i, line in enumerate(lines) if "changed most" in line)
    rows = [
        line.split()[0] for line in lines[start + 1 : start + 9] if line.strip().startswith("k")
    ]
    assert sorted(rows) == [f"k{i}" for i in range(7)]  # k7 (-0.01) is not quoted: left out
    assert "  ... 1 more changed case (-v shows all)" in lines
