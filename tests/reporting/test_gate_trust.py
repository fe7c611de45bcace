"""Gates that see what they compare (issue 51): no gate passes on what was not scored
(item 2), conformance counts every answer, per target (item 3), no figure outside what
scores allow (item 5), and a limit that cannot be checked names the side that lacks its
figure (item 6). Each output of one run is rendered and read, as a person reads it."""

from __future__ import annotations

import re

from pytest_jsonmatch.reporting.render.html import render_html
from pytest_jsonmatch.reporting.render.markdown import render_markdown
from pytest_jsonmatch.reporting.render.text import render_text
from pytest_jsonmatch.reporting.run_model.comparisons import (
    ERROR,
    FAILED,
    PASSED,
    Comparison,
    ReportedConformance,
    Status,
)
from pytest_jsonmatch.reporting.verdicts.baseline import Baseline, cases_of
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings
from pytest_jsonmatch.reporting.verdicts.report import conclude
from pytest_jsonmatch.reporting.verdicts.stats import paired_difference
from pytest_jsonmatch.reporting.verdicts.versus import Limit, VersusSettings


def _comparison(
    case: str,
    score: float,
    status: Status = PASSED,
    *,
    target: str = "",
    conformance: ReportedConformance | None = None,
    call: dict[str, object] | None = None,
) -> Comparison:
    case_id = f"g.yaml::{case}" + (f"[{target}]" if target else "")
    return Comparison(
        case_id=case_id,
        nodeid=case_id,
        metric="field_f1",
        score=score,
        threshold=0.5,
        status=status,
        precision=score,
        recall=score,
        f1=score,
        error="the judge is down" if status == ERROR else "",
        file="g.yaml",
        target=target,
        conformance=conformance,
        call=call,
        source="live" if call is not None else "case",
    )


def _outputs(report: dict) -> dict[str, str]:
    return {
        "text": render_text(report),
        "markdown": render_markdown(report),
        "html": render_html(report),
    }


def test_no_gate_passes_a_run_whose_cases_could_not_be_scored():
    # the judge was down in both runs: every case unscored, scored 0 alike on both sides, so
    # the baseline rules see no change at all and fail_under 0 is met
    down = [_comparison(f"c{i}", 0.0, ERROR) for i in range(4)]
    baseline = Baseline("main.json", 3, cases_of(down))
    report, verdict = conclude(
        down,
        GateSettings(fail_under=0.0),
        {},
        baseline=baseline,  # type: ignore[typeddict-item]
    )
    assert not verdict.passed and verdict.checked == []
    assert verdict.failures[0] == (
        "4 of 4 cases could not be scored, more than the 25% a passing gate allows: no gate "
        "is judged as passed on what was not scored"
    )
    outputs = _outputs(report)
    assert "gates passed" not in outputs["text"]
    assert "FAILED: jsonmatch gates" in outputs["text"]
    assert "**Gates: FAILED**" in outputs["markdown"]
    assert "**Gates: passed**" not in outputs["markdown"]
    assert "Gates FAILED" in outputs["html"] and "Gates passed" not in outputs["html"]
    assert report["gates"]["passed"] is False


def test_one_unscored_case_of_four_is_within_the_share_and_judged_as_ever():
    # 1 of 4 = 25%, not more than the documented share: the gates are judged on the scores
    comparisons = [_comparison("c0", 0.0, ERROR)] + [_comparison(f"c{i}", 1.0) for i in (1, 2, 3)]
    _, verdict = conclude(comparisons, GateSettings(fail_under=0.7), {})  # type: ignore[typeddict-item]
    # overall (0 + 1 + 1 + 1) / 4 = 0.75 >= 0.7
    assert verdict.passed and verdict.checked == [
        "overall score 0.7500 is at least fail_under 0.7000"
    ]


def test_a_target_whose_cases_all_went_unscored_passes_no_gate():
    # the pooled run is 4 of 8 unscored (more than 25%), and target b alone is 4 of 4
    comparisons = [_comparison(f"c{i}", 1.0, target="a") for i in range(4)] + [
        _comparison(f"c{i}", 0.0, ERROR, target="b") for i in range(4)
    ]
    _, verdict = conclude(
        comparisons,
        GateSettings(fail_under=0.0),
        {},  # type: ignore[typeddict-item]
        targets=("a", "b"),
    )
    assert (
        "target b: 4 of 4 cases could not be scored, more than the 25% a passing gate "
        "allows: no gate is judged as passed on what was not scored"
    ) in verdict.failures
    assert not any(f.startswith("target a: ") and "could not" in f for f in verdict.failures)


def test_an_answer_that_could_not_be_read_counts_as_invalid_per_target():
    valid, broken = ReportedConformance(), ReportedConformance((("total", "total", "minimum"),), 1)
    cut = ReportedConformance((("", "(answer)", "cut off"),), 1)
    comparisons = [
        _comparison("c1", 1.0, target="a", conformance=valid),
        _comparison("c2", 1.0, target="a", conformance=valid),
        _comparison("c1", 1.0, target="b", conformance=valid),
        _comparison("c2", 0.0, ERROR, target="b", conformance=cut),
        _comparison("c3", 1.0, target="a", conformance=valid),
        _comparison("c3", 1.0, FAILED, target="b", conformance=broken),
    ]
    report, verdict = conclude(
        comparisons,
        GateSettings(min_valid=0.9),
        {},  # type: ignore[typeddict-item]
        targets=("a", "b"),
    )
    # every answer counts: 4 of 6 valid pooled (the cut one among the 6), and per target
    # a 3 of 3, b 1 of 3
    assert report["metrics"]["field_f1"]["conformance"]["checked"] == 6
    assert report["metrics"]["field_f1"]["conformance"]["valid"] == 4
    assert (
        "target b: field_f1: valid share 0.3333 (1 of 3 answers valid against their schema) "
        "is below min_valid 0.9000"
    ) in verdict.failures
    assert (
        "target a: field_f1: valid share 1.0000 (3 of 3 answers valid against their schema) "
        "is at least min_valid 0.9000"
    ) in verdict.checked
    violated = report["metrics"]["field_f1"]["conformance"]["violated"]
    assert {"field_path": "(answer)", "keyword": "cut off", "answers": 1} in violated


def test_an_interval_never_leaves_the_range_scores_allow():
    # two cases, differences -1 and +0.5: mean -0.25, s = sqrt(2 * 0.75^2) = 1.0607,
    # SE = 0.75, t(0.975, 1) = 12.706: the t interval would run -9.78 to +9.28 and the
    # detectable drop 2.8016 * 0.75 = 2.10, both beyond what a score can do
    diff = paired_difference([-1.0, 0.5])
    assert (diff.low, diff.high) == (-1.0, 1.0)
    assert diff.detectable is None and diff.too_few
    # six cases of docs/ci.md's worked example: inside the range, kept as computed
    worked = paired_difference([-0.25, -0.25, 0.25, 0.0, 0.0, 0.0])
    assert round(worked.low, 4) == -0.2392 and round(worked.detectable, 4) == 0.2152
    assert not worked.too_few


def test_with_too_few_shared_cases_the_warning_says_so_instead_of_an_interval():
    base = [_comparison("c1", 1.0), _comparison("c2", 0.5)]
    now = [_comparison("c1", 0.0), _comparison("c2", 1.0)]
    report, verdict = conclude(
        now,
        GateSettings(max_drop=0.01, max_case_drop=1.0),
        {},  # type: ignore[typeddict-item]
        baseline=Baseline("main.json", 3, cases_of(base)),
    )
    (warning,) = [w for w in verdict.warnings if w.startswith("overall")]
    assert warning == (
        "overall score dropped by 0.2500 (0.7500 -> 0.5000 over 2 shared cases), more than "
        "max_drop 0.0100, but it may be noise: 2 shared cases are too few to tell a drop "
        "from noise (with their spread no drop a score can make would be detected), so the "
        "statistical rule passes it (mode strict fails it)"
    )
    outputs = _outputs(report)
    assert "95% interval -1.0000 to +1.0000, too few cases to detect any drop" in " ".join(
        outputs["text"].split()
    )
    assert "too few cases to detect any drop" in outputs["markdown"]
    assert "too few cases to detect any drop" in outputs["html"]
    for text in outputs.values():
        assert "-6." not in text and "detectable drop 1." not in text


def test_a_limit_that_cannot_be_checked_names_the_side_that_lacks_the_figure():
    def run(mine: object, theirs: object) -> list[str]:
        comparisons = [
            _comparison("c1", 1.0, target="large", call=theirs),  # type: ignore[arg-type]
            _comparison("c1", 1.0, target="small", call=mine),  # type: ignore[arg-type]
        ]
        _, verdict = conclude(
            comparisons,
            GateSettings(),
            {},  # type: ignore[typeddict-item]
            targets=("large", "small"),
            versus=VersusSettings(
                reference="large",
                latency_p95=Limit(value=1.2, ratio=True),
            ),
        )
        return [f for f in verdict.failures if "latency p95" in f]

    timed = {"latency_s": 0.5, "attempts": 1}
    untimed = {"attempts": 1}
    rule = "(jsonmatch_reference latency_p95=1.2x)"
    said = "target small against large: latency p95 cannot be checked: "
    assert run(untimed, untimed) == [
        f"{said}neither this target nor the reference reported one {rule}"
    ]
    assert run(untimed, timed) == [f"{said}this target reported none {rule}"]
    assert run(timed, untimed) == [f"{said}the reference reported none {rule}"]


# Scores whose exact difference (-0.03473) and printed one (0.4653 - 0.5001 = -0.0348) round
# apart: every output must print one of them, the same, wherever the change appears.
BEFORE, AFTER = 0.50006, 0.46533


def test_one_change_is_printed_one_way_in_every_output():
    comparisons = [
        _comparison("c1", BEFORE, target="large"),
        _comparison("c1", AFTER, target="small"),
    ]
    report, verdict = conclude(
        comparisons,
        GateSettings(mode="strict", max_case_drop=1.0),
        {},  # type: ignore[typeddict-item]
        targets=("large", "small"),
        versus=VersusSettings(reference="large"),
    )
    (failure,) = [f for f in verdict.failures if "overall score dropped" in f]
    assert "dropped by 0.0348 (0.5001 -> 0.4653 over 1 shared case)" in failure
    outputs = _outputs(report)
    # the targets table's change, in each rendering, is the gate's
    assert re.search(r"^small\s+1\s+0\.4653\s+0\s+-0\.0348\s", outputs["text"], re.MULTILINE)
    assert "| small | 1 | 0.4653 | 0 | -0.0348 |" in outputs["markdown"]
    assert ">-0.0348</td>" in outputs["html"]
    for text in outputs.values():  # (an HTML sort key may hold the exact value: not shown)
        assert "0.0347" not in re.sub(r' data-sort="[^"]*"', "", text)


def test_the_baseline_line_and_the_gate_passed_print_one_mean_change():
    # c1 BEFORE -> AFTER, c2 0.9 -> 0.8: means (0.50006 + 0.9) / 2 = 0.70003 ("0.7000") and
    # (0.46533 + 0.8) / 2 = 0.632665 ("0.6327"): printed change -0.0673, exact -0.067365
    base = cases_of([_comparison("c1", BEFORE), _comparison("c2", 0.9)])
    report, verdict = conclude(
        [_comparison("c1", AFTER), _comparison("c2", 0.8)],
        GateSettings(max_drop=1.0, max_case_drop=1.0),
        {},  # type: ignore[typeddict-item]
        baseline=Baseline("main.json", 3, base),
    )
    assert verdict.passed
    (passed,) = [c for c in verdict.checked if c.startswith("baseline")]
    assert passed.startswith("baseline (statistical): mean change -0.0673 over 2 shared cases")
    text = render_text(report)
    assert "mean change -0.0673 (0.7000 -> 0.6327)" in text
    assert "jsonmatch gates passed: baseline (statistical): mean change -0.0673" in text
    assert "0.0674" not in text
    assert "Mean change **-0.0673**" in render_markdown(report)


def test_side_by_side_field_columns_are_over_the_same_cases():
    from pytest_jsonmatch.reporting.run_model.comparisons import ReportedField

    def run(case: str, target: str, fields: dict[str, float]) -> Comparison:
        records = tuple(
            ReportedField(p, p, "match" if v == 1.0 else "mismatch", v) for p, v in fields.items()
        )
        return _comparison(case, 1.0, target=target).replace(fields=records)

    # "type" is in c1 and c2 for large, in c2 only for small: the row is over c2 alone,
    # and says so; before, large's column was over both (0.5) and small's over one (1.0)
    comparisons = [
        run("c1", "large", {"type": 0.0, "id": 1.0}),
        run("c2", "large", {"type": 1.0, "id": 1.0}),
        run("c1", "small", {"id": 1.0}),
        run("c2", "small", {"type": 1.0, "id": 1.0}),
    ]
    report, _ = conclude(
        comparisons,
        GateSettings(),
        {},
        targets=("large", "small"),  # type: ignore[typeddict-item]
    )
    rows = {row["path"]: row for row in report["targets"]["fields"]}
    assert (rows["type"]["cases"], rows["type"]["scores"]) == (1, [1.0, 1.0])
    assert (rows["id"]["cases"], rows["id"]["scores"]) == (2, [1.0, 1.0])
    assert re.search(r"^type\s+1\s+1\.0000\s+1\.0000\s+\+0\.0000$", render_text(report), re.M)
