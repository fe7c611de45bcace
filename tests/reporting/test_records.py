"""What a comparison records (reporting/records.py): its status is an enum that writes as
its plain value everywhere, and its dict form is plain data (it crosses the xdist wire)."""

from __future__ import annotations

import json
import pickle

import pytest

from pytest_jsonmatch.reporting.records import PASSED, STATUSES, Comparison, Status


@pytest.mark.parametrize("status", list(Status))
def test_a_status_writes_as_its_value(status: Status) -> None:
    value = status.value
    assert type(value) is str and status == value and hash(status) == hash(value)
    assert str(status) == f"{status}" == "%s" % status == format(status, "") == value
    assert f"{status:>9}" == f"{value:>9}"
    assert json.dumps({"status": status, status: 1}) == json.dumps({"status": value, value: 1})
    assert json.dumps([status], indent=2) == json.dumps([value], indent=2)
    assert pickle.loads(pickle.dumps(status)) is status


def test_the_statuses_are_the_report_schemas() -> None:
    assert [s.value for s in STATUSES] == ["passed", "failed", "error", "xfailed", "xpassed"]
    assert Status("xfailed") is Status.XFAILED and PASSED is Status.PASSED


def test_the_dict_form_is_plain_data_and_reads_back() -> None:
    comparison = Comparison(case_id="c", nodeid="t.py::c", metric="field_f1", score=0.5,
                            threshold=0.8, status=Status.FAILED, file="t.py", line=3)
    data = comparison.to_dict()
    assert type(data["status"]) is str and data["status"] == "failed"
    back = Comparison.from_dict(data)
    assert back == comparison and back.status is Status.FAILED


def test_an_unknown_status_is_refused() -> None:
    data = Comparison(case_id="c", nodeid="c", metric="field_f1", score=1.0, threshold=0.5,
                      status=PASSED).to_dict()
    with pytest.raises(ValueError):
        Comparison.from_dict({**data, "status": "skipped"})


def test_where_a_cut_answer_ends_crosses_the_wire_and_counts_on_its_case() -> None:
    from pytest_jsonmatch.reporting.aggregate import case_result

    runs = [Comparison(case_id="c", nodeid="c", metric="field_f1", score=score, threshold=0.5,
                       status=PASSED, repeat=repeat, truncated=cut)
            for repeat, (score, cut) in enumerate([(0.75, (3, 12, 140)), (1.0, None)])]
    data = runs[0].to_dict()
    assert data["truncated"] == {"line": 3, "column": 12, "chars": 140}
    assert "truncated" not in runs[1].to_dict()
    assert [Comparison.from_dict(json.loads(json.dumps(r.to_dict()))) for r in runs] == runs
    case = case_result(runs)
    assert case.truncated == 1 and case.to_dict()["truncated"] == 1  # 1 of its 2 runs was cut
    assert "truncated" not in case_result(runs[1:]).to_dict()


EDGE_VALUES = {
    "short": "abc", "long": "x" * 40, "escaped": "\u00e9" * 34, "int": 10**15 - 1,
    "big int": 10**15, "huge": 10**30, "float": -0.0, "none": None, "flag": True,
    "list": [1, 2], "deep": {"a": {"b": ["c" * 300]}},
}


@pytest.mark.parametrize("values", ["short", "full", "none"])
def test_a_comparison_written_from_the_engine_fields_is_its_recorded_form(values: str) -> None:
    """comparison_dict (a dataset's report, no FieldRecord per field) writes exactly what
    the comparison recorded with its fields writes: every kind of value, cut or whole, a
    side missing."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.reporting.records import comparison_dict

    actual = {k: (v if k in ("short", "int", "deep") else 0) for k, v in EDGE_VALUES.items()
              if k != "none"}
    result = match_json({**actual, "extra": "y" * 50}, EDGE_VALUES, "field_f1")
    recorded = Comparison.of_result(result, case_id="c", nodeid="c", threshold=1.0,
                                    passed=False, values=values)  # type: ignore[arg-type]
    bare = Comparison.of_result(result, case_id="c", nodeid="c", threshold=1.0,
                                passed=False, values=None)
    written = comparison_dict(bare, result.fields, values)
    assert json.dumps(written) == json.dumps(recorded.to_dict())
    assert {f["status"] for f in written["fields"]} >= {"match", "mismatch", "omission",
                                                         "hallucination"}
