"""A baseline is validated whole before a gate is held against it (reporting/run_model/validation.py):
the shipped report schema, plus what a schema cannot say. Every refusal names the file and
the JSON path, and nothing half-read is used."""

from __future__ import annotations

import copy
import json

import pytest

from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison, ReportedField, Status
from pytest_jsonmatch.reporting.verdicts.baseline import BaselineError, load_baseline
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report, load_report, report_text


def _comparison(case_id: str, score: float, status: str = "passed") -> Comparison:
    return Comparison(
        case_id=case_id,
        nodeid=case_id,
        metric="field_f1",
        score=score,
        threshold=0.5,
        status=Status(status),
        precision=score,
        recall=score,
        f1=score,
        fields=(ReportedField("a", "a", "match" if score == 1 else "mismatch", score),),
    )


def _report(*comparisons: Comparison) -> dict:
    summary = summarize(comparisons)
    # as the file holds it: each comparison's fields rows of a table of heads
    return json.loads(
        report_text(build_report(summary, comparisons, decision_of(summary, GateSettings())))
    )


GOOD = _report(_comparison("x", 1.0), _comparison("y", 0.5))


def _write(tmp_path, data) -> str:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_a_good_baseline_loads(tmp_path):
    baseline = load_baseline(_write(tmp_path, GOOD))
    assert sorted(baseline.cases) == ["x", "y"] and baseline.version == 4


def _forged(change) -> dict:
    data = copy.deepcopy(GOOD)
    change(data)
    return data


def _set(path, value):
    def change(data):
        target = data
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "where"),
    [
        # a forged duplicate would halve a case's baseline score when averaged in
        (
            lambda d: d["comparisons"].append(copy.deepcopy(d["comparisons"][0])),
            "$.comparisons[2]: case 'x' run 0 is listed twice",
        ),
        # y's field scored 0.5: its row holds its score, [head, 0.5]
        (
            _set(("comparisons", 1, "fields", 0, 1), 7),
            "$.comparisons[1].fields[0]: score 7 is not a number in [0, 1]",
        ),
        (
            _set(("comparisons", 1, "fields", 0, 1), -1e9),
            "$.comparisons[1].fields[0]: score -1000000000.0 is not a number in [0, 1]",
        ),
        (
            _set(("comparisons", 1, "fields", 0, 1), "NaN"),
            "$.comparisons[1].fields[0]: score a str is not a number in [0, 1]",
        ),
        (
            _set(("comparisons", 1, "fields", 0, 1), True),
            "$.comparisons[1].fields[0]: score True is not a number in [0, 1]",
        ),
        (
            _set(("comparisons", 0, "fields", 0, 0), 9),
            "$.comparisons[0].fields[0]: head 9 is not one of the 2 heads",
        ),
        (
            _set(("comparisons", 0, "fields", 0), [0, 1.0]),
            "$.comparisons[0].fields[0]: holds 1 values, not what its head says",
        ),
        (
            _set(("comparisons", 0, "fields", 0), []),
            "$.comparisons[0].fields[0]: ",
        ),
        (_set(("comparisons", 0, "heads"), 1), "$.comparisons[0].heads: 1 is not one of the 1"),
        (_set(("comparisons", 0, "heads"), -1), "$.comparisons[0].heads: "),
        (
            _set(("field_heads", 0, 0, 2), "great"),
            "$.field_heads[0][0]: status is not a field status (batch_error, hallucination, ",
        ),
        (
            _set(("field_heads", 0, 0, 3), "x"),
            "$.field_heads[0][0]: sides is not one of '=', 'ea'",
        ),
        (
            _set(("field_heads", 0, 0, 4), 0.5),
            "$.field_heads[0][0]: score 0.5 is not 1.0, 0.0 or null",
        ),
        (_set(("field_heads", 0, 0), ["a", "a"]), "$.field_heads[0][0]: not a head of five"),
        (_set(("field_heads", 0), {}), "$.field_heads[0]: not a list of heads"),
        (_set(("comparisons", 1, "status"), "bogus"), "$.comparisons[1].status: "),
        (_set(("comparisons", 1, "threshold"), 5), "$.comparisons[1].threshold: "),
        (_set(("comparisons", 0, "precision"), -3), "$.comparisons[0].precision: "),
        (_set(("comparisons", 0, "repeat"), -1), "$.comparisons[0].repeat: "),
        (_set(("comparisons", 0, "score"), True), "$.comparisons[0].score: "),
        (_set(("comparisons", 0, "case_id"), 12), "$.comparisons[0].case_id: "),
    ],
    ids=[
        "duplicate",
        "field-score-7",
        "field-score-huge-negative",
        "field-score-nan-string",
        "field-score-bool",
        "head-index",
        "row-values",
        "row-empty",
        "heads-table",
        "heads-negative",
        "head-status",
        "head-sides",
        "head-score",
        "head-shape",
        "heads-not-list",
        "status",
        "threshold",
        "precision",
        "repeat",
        "bool-score",
        "numeric-id",
    ],
)
def test_a_forged_baseline_is_refused_naming_file_and_path(tmp_path, change, where):
    path = _write(tmp_path, _forged(change))
    with pytest.raises(BaselineError) as info:
        load_baseline(path)
    assert str(info.value).startswith(f"the baseline {path}: {where}"), str(info.value)


@pytest.mark.parametrize("version", ["true", "1.0", '"2"', '"3"', "null"])
def test_a_version_that_is_not_a_number_we_wrote_is_refused(tmp_path, version):
    text = json.dumps(GOOD).replace('"version": 4', f'"version": {version}', 1)
    with pytest.raises(BaselineError, match="is not a jsonmatch report"):
        load_baseline(_write(tmp_path, text))


@pytest.mark.parametrize("version", [1, 2, 3, 5])
@pytest.mark.parametrize("reader", ["baseline", "report"])
def test_a_report_of_another_version_is_refused_naming_file_and_version(tmp_path, version, reader):
    # version 3 held each field as an object: refused by its version alone
    path = _write(tmp_path, {**GOOD, "version": version})
    with pytest.raises(BaselineError) as info:
        load_baseline(path) if reader == "baseline" else load_report(path)
    named = f"the baseline {path}" if reader == "baseline" else path
    assert str(info.value) == f"{named}: $.version: not a version-4 jsonmatch report"


def test_a_baseline_with_no_usable_case_is_an_error(tmp_path):
    # every case xfail-marked: 0 shared cases, and a gate that would pass whatever happens
    data = _report(_comparison("x", 1.0, "xfailed"), _comparison("y", 0.0, "xfailed"))
    path = _write(tmp_path, data)
    with pytest.raises(BaselineError, match="holds no case a run can be held against"):
        load_baseline(path)
    path = _write(tmp_path, _report())
    with pytest.raises(BaselineError, match="holds no case a run can be held against"):
        load_baseline(path)


def test_a_value_nested_deeper_than_json_writes_is_described_in_the_report():
    from pytest_jsonmatch.reporting.run_model.comparisons import kept_value

    deep: list = []
    inner = deep
    for _ in range(5000):
        inner.append([])
        inner = inner[0]
    # CPython 3.11's encoder refuses this depth (described instead); 3.13's writes it (cut to
    # the short form): either way one short string, and no RecursionError
    value, cut = kept_value(deep, "short")
    assert cut and isinstance(value, str) and len(value) <= 200
