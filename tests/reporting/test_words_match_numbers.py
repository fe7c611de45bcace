"""A gate's words state the rule that decided it, and every number it quotes is in a row of
a table the same report prints (issue: "Every warning matches its numbers").

Two runs built by hand, five shared cases, three fields of one table (field_f1). In the
baseline every field scores 1.0 in every case; now ``x`` scores 0.99, 0.95, 0.98, 0.94, 0.99
(per-case differences -0.01, -0.05, -0.02, -0.06, -0.01: mean -0.03), and ``y`` and ``z``
stay at 1.0 (differences all 0: p = 1). The t interval of x lies below zero (its p is under
0.05), but Holm's correction across the three rows multiplies the smallest p by 3, above
0.05: a warning, and it must say Holm decided, with both p-values.
"""

from __future__ import annotations

import math
import re

import pytest
from scipy import stats

from pytest_jsonmatch.reporting.render.markdown import render_markdown
from pytest_jsonmatch.reporting.render.text import summary_lines, verdict_lines
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import PASSED, Comparison, ReportedField
from pytest_jsonmatch.reporting.verdicts.baseline import Baseline, cases_of, compare
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report

X_NOW = [0.99, 0.95, 0.98, 0.94, 0.99]


def _run(x_scores: list[float]) -> list[Comparison]:
    out = []
    for i, x in enumerate(x_scores):
        fields = (
            ReportedField("x", "x", "match" if x == 1.0 else "mismatch", x),
            ReportedField("y", "y", "match", 1.0),
            ReportedField("z", "z", "match", 1.0),
        )
        score = (x + 2.0) / 3
        out.append(
            Comparison(
                case_id=f"c{i}",
                nodeid=f"c{i}",
                metric="field_f1",
                score=score,
                threshold=0.5,
                status=PASSED,
                precision=score,
                recall=score,
                f1=score,
                file="g.yaml",
                line=1 + 4 * i,
                fields=fields,
            )
        )
    return out


def _expected_p() -> tuple[float, float, float, float]:
    """x's paired t test, from scipy: (p, Holm-adjusted p = 3 p, interval low, high)."""
    d = [x - 1.0 for x in X_NOW]
    mean = math.fsum(d) / 5  # -0.03
    se = math.sqrt(math.fsum((v - mean) ** 2 for v in d) / 4 / 5)  # sqrt(0.0022 / 4 / 5)
    p = 2 * stats.t.sf(abs(mean / se), 4)
    half = stats.t.ppf(0.975, 4) * se
    return p, min(1.0, 3 * p), mean - half, mean + half


@pytest.fixture()
def report():
    before, now = _run([1.0] * 5), _run(X_NOW)
    against = compare(cases_of(now), Baseline("base.json", 3, cases_of(before)))
    summary = summarize(now)
    verdict = decision_of(summary, GateSettings(max_drop=0.01, max_case_drop=0.5), against)
    return build_report(summary, now, verdict, against)


def test_the_scenario_is_the_one_described():
    p, holm_p, low, high = _expected_p()
    assert 0.0167 < p < 0.05 and holm_p > 0.05 and high < 0.0  # significant alone, not after Holm


def test_a_warning_decided_by_holm_names_the_correction_and_both_p_values(report):
    p, holm_p, low, high = _expected_p()
    assert report["gates"]["failures"] == []
    (warning,) = report["gates"]["warnings"]
    assert warning == (
        f"field x (field_f1): mean score dropped by 0.0300 (1.0000 -> 0.9700 over 5 shared "
        f"cases), more than max_drop 0.0100; worse in 5 cases (c3, c1, c2, c0, c4), but it may "
        f"be noise: the 95% interval {low:+.4f} to {high:+.4f} lies below zero (p = {p:.4f}), "
        f"yet Holm's correction across 3 field rows raises p to {holm_p:.4f}, above 0.05, so "
        f"the statistical rule passes it (mode strict fails it, and so does a floor field "
        f"floors field_f1:x=0.99)"
    )
    assert "includes no change" not in warning  # the interval does not include zero


def test_includes_no_change_is_said_only_of_an_interval_that_includes_zero():
    # x alone, with a spread that leaves zero inside the interval: -0.01, -0.09, +0.02, ...
    before, now = _run([1.0] * 5), _run([0.99, 0.91, 1.0, 0.98, 0.97])
    against = compare(cases_of(now), Baseline("base.json", 3, cases_of(before)))
    verdict = decision_of(summarize(now), GateSettings(max_drop=0.01, max_case_drop=0.5), against)
    (warning,) = [w for w in verdict.warnings if w.startswith("field x")]
    low, high = (
        float(v) for v in re.search(r"interval (\S+) to (\S+) includes no change", warning).groups()
    )
    assert low <= 0.0 <= high


def test_every_number_the_warning_quotes_is_in_the_row_of_its_field(report):
    (warning,) = report["gates"]["warnings"]
    quoted = set(re.findall(r"[-+]?\d+\.\d{4}", warning))
    lines = summary_lines(report, width=120)
    start = next(i for i, line in enumerate(lines) if "fields against the baseline" in line)
    assert "Holm across 3 rows" in lines[start]
    row = next(line.split() for line in lines[start + 2 :] if line.split()[0] == "x")
    assert lines[start + 1].split()[:2] == ["field", "cases"]  # one group: no group heading
    # field, cases, base, now, change, low, "to", high, p, Holm p
    assert row[:5] == ["x", "5", "1.0000", "0.9700", "-0.0300"]
    shown = set(row) | {row[4].lstrip("-")}  # the drop is the change without its sign
    quoted.discard("0.0100")  # max_drop: the setting, quoted as it was given
    assert quoted <= shown, quoted - shown
    # the Markdown report shows the same row
    markdown = render_markdown(report)
    assert "| x | 5 | 1.0000 | 0.9700 | -0.0300 |" in markdown
    for number in quoted:
        assert number in markdown


def test_the_verdict_lines_print_the_warning_whole(report):
    _, warnings = verdict_lines(report, 120, verbose=1)
    assert warnings == ["warning: " + report["gates"]["warnings"][0]]
