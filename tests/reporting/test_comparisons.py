"""What a comparison records (reporting/run_model/comparisons.py): its status is an enum that writes as
its plain value everywhere, and its dict form is plain data (it crosses the xdist wire)."""

from __future__ import annotations

import io
import json
import os
import pickle

import pytest

from pytest_jsonmatch.reporting.run_model.comparisons import PASSED, STATUSES, Comparison, Status
from pytest_jsonmatch.reporting.run_model.field_rows import Heads, StoredFields, stored_comparison


@pytest.mark.parametrize("status", list(Status))
def test_a_status_writes_as_its_value(status: Status) -> None:
    value = status.value
    assert type(value) is str and status == value and hash(status) == hash(value)
    percent_form = "%s" % status  # noqa: UP031 (the %-form too)
    assert str(status) == f"{status}" == percent_form == format(status, "") == value
    assert f"{status:>9}" == f"{value:>9}"
    assert json.dumps({"status": status, status: 1}) == json.dumps({"status": value, value: 1})
    assert json.dumps([status], indent=2) == json.dumps([value], indent=2)
    assert pickle.loads(pickle.dumps(status)) is status


def test_the_statuses_are_the_report_schemas() -> None:
    assert [s.value for s in STATUSES] == [
        "passed",
        "failed",
        "error",
        "xfailed",
        "xpassed",
        "simulator",
    ]
    assert Status("xfailed") is Status.XFAILED and PASSED is Status.PASSED


def test_the_dict_form_is_plain_data_and_reads_back() -> None:
    comparison = Comparison(
        case_id="c",
        nodeid="t.py::c",
        metric="field_f1",
        score=0.5,
        threshold=0.8,
        status=Status.FAILED,
        file="t.py",
        line=3,
    )
    data = comparison.to_dict()
    assert type(data["status"]) is str and data["status"] == "failed"
    back = Comparison.from_dict(data)
    assert back == comparison and back.status is Status.FAILED


def test_an_unknown_status_is_refused() -> None:
    data = Comparison(
        case_id="c", nodeid="c", metric="field_f1", score=1.0, threshold=0.5, status=PASSED
    ).to_dict()
    with pytest.raises(ValueError):
        Comparison.from_dict({**data, "status": "skipped"})


def test_where_a_cut_answer_ends_crosses_the_wire_and_counts_on_its_case() -> None:
    from pytest_jsonmatch.reporting.run_model.aggregate import case_result

    runs = [
        Comparison(
            case_id="c",
            nodeid="c",
            metric="field_f1",
            score=score,
            threshold=0.5,
            status=PASSED,
            repeat=repeat,
            truncated=cut,
        )
        for repeat, (score, cut) in enumerate([(0.75, (3, 12, 140)), (1.0, None)])
    ]
    data = runs[0].to_dict()
    assert data["truncated"] == {"line": 3, "column": 12, "chars": 140}
    assert "truncated" not in runs[1].to_dict()
    assert [Comparison.from_dict(json.loads(json.dumps(r.to_dict()))) for r in runs] == runs
    case = case_result(runs)
    assert case.truncated == 1 and case.to_dict()["truncated"] == 1  # 1 of its 2 runs was cut
    assert "truncated" not in case_result(runs[1:]).to_dict()


def test_conformance_crosses_the_wire_and_counts_per_case_and_metric() -> None:
    from pytest_jsonmatch.engine.match import match_json
    from pytest_jsonmatch.reporting.run_model.aggregate import Aggregates, case_result
    from pytest_jsonmatch.reporting.run_model.comparisons import VIOLATIONS_KEPT

    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "xs": {"items": {"type": "string"}}},
    }
    # run 0: valid; run 1: n a string (type) and 25 numbers in xs (25 type violations);
    # run 2 (another case): n a string
    results = [
        match_json({"n": 1}, {"n": 1}, schema=schema),
        match_json({"n": "1", "xs": list(range(25))}, {"n": 1}, schema=schema),
        match_json({"n": "2"}, {"n": 1}, schema=schema),
    ]
    runs = [
        Comparison.of_result(
            r,
            case_id=case,
            nodeid=case,
            threshold=0.0,
            passed=True,
            values="none",
            repeat=repeat,
            invalid_fails=case == "b",
        )
        for r, case, repeat in zip(results, ["a", "a", "b"], [0, 1, 0])
    ]
    record = runs[1].conformance
    assert record is not None and not record.valid and record.total == 26
    assert len(record.violations) == VIOLATIONS_KEPT  # 20 kept of 26
    assert record.violations[:2] == (("n", "n", "type"), ("xs[0]", "xs[]", "type"))
    assert runs[0].conformance is not None and runs[0].conformance.valid
    back = [Comparison.from_dict(json.loads(json.dumps(r.to_dict()))) for r in runs]
    assert back == runs
    a, b = case_result(runs[:2]), case_result(runs[2:])
    # case a: 2 runs checked, 1 valid; its places (n, type) and (xs[], type) once each
    assert (a.checked, a.valid, a.violated) == (2, 1, (("n", "type"), ("xs[]", "type")))
    assert a.status == PASSED  # an invalid answer fails its case only when the setting says so
    assert b.status == Status.FAILED and runs[2].to_dict()["conformance"]["fails"] is True
    total = Aggregates()
    for case, its_runs in ((a, runs[:2]), (b, runs[2:])):
        total.add_case(case, its_runs)
    # 3 answers, 1 valid; (n, type) broken in 2 answers, (xs[], type) in 1
    assert total.metrics["field_f1"].to_dict()["conformance"] == {
        "checked": 3,
        "valid": 1,
        "share": 1 / 3,
        "violated": [
            {"field_path": "n", "keyword": "type", "answers": 2},
            {"field_path": "xs[]", "keyword": "type", "answers": 1},
        ],
    }


EDGE_VALUES = {
    "short": "abc",
    "long": "x" * 40,
    "escaped": "\u00e9" * 34,
    "int": 10**15 - 1,
    "big int": 10**15,
    "huge": 10**30,
    "float": -0.0,
    "none": None,
    "flag": True,
    "quoted": 'a "b"\n\u2028</script>',
    "cut": "y" * 199 + '"',
    "fraction": 0.1 + 0.2,
    "list": [1, 2],
    "deep": {"a": {"b": ["c" * 300]}},
}


@pytest.mark.parametrize("values", ["short", "full", "none"])
def test_a_comparison_written_from_the_engine_fields_is_its_recorded_form(values: str) -> None:
    """comparison_dict (a dataset's report, no ReportedField per field) writes exactly what
    the comparison recorded with its fields writes: every kind of value, cut or whole, a
    side missing."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.reporting.run_model.comparison_lines import comparison_line
    from pytest_jsonmatch.reporting.run_model.comparisons import comparison_dict
    from pytest_jsonmatch.reporting.run_model.spool import json_line

    same = ("short", "int", "deep", "quoted", "cut", "fraction")
    actual = {k: (v if k in same else 0) for k, v in EDGE_VALUES.items() if k != "none"}
    result = match_json({**actual, "extra": "y" * 50}, EDGE_VALUES, "field_f1")
    recorded = Comparison.of_result(
        result, case_id="c", nodeid="c", threshold=1.0, passed=False, values=values
    )  # type: ignore[arg-type]
    bare = Comparison.of_result(
        result, case_id="c", nodeid="c", threshold=1.0, passed=False, values=None
    )
    written = comparison_dict(bare, result.fields, values)
    assert json.dumps(written) == json.dumps(recorded.to_dict())
    # the dataset's report line, pieced together from the fields' text: the same bytes
    # as the report stores it: the fields rows of a table of heads (field_rows.py)
    assert comparison_line(bare, result.fields, values, Heads()) == json_line(
        stored_comparison(recorded.to_dict(), Heads(), 0)
    )
    assert {f["status"] for f in written["fields"]} >= {
        "match",
        "mismatch",
        "omission",
        "hallucination",
    }


@pytest.mark.parametrize("held", [1 << 18, 0], ids=["held", "in-a-file"])
@pytest.mark.parametrize("to_file", [False, True], ids=["text", "utf8-file"])
@pytest.mark.parametrize("block", [1, 7, 64, 1 << 18])
def test_a_spool_copied_into_a_report_a_block_at_a_time(
    tmp_path, monkeypatch, block: int, to_file: bool, held: int
) -> None:
    """Spool.write_items gives a report's list (each item on an indented line, commas
    between) whatever the blocks it copies: cut inside a line, right after a newline
    (block 1: every byte or character a block, a UTF-8 character cut too), or the whole
    spool at once; into a text buffer, or as bytes into a UTF-8 file after what was
    written to it as text; from a spool held in memory or one moved to a file."""
    from pytest_jsonmatch.reporting.run_model import spool as spool_module

    monkeypatch.setattr(spool_module, "_COPIED", block)
    monkeypatch.setattr(spool_module, "HELD", held)
    items = [{"a": 1}, {"b": "x\ny"}, {"c": [1, 2], "d": "\u2028é"}]
    with spool_module.Spool[dict](str(tmp_path)) as kept:  # type: ignore[type-var]
        for item in items:
            kept.append(item)
        assert (kept.path is None) == (held > 0)
        if to_file:
            with open(tmp_path / "report.json", "w", encoding="utf-8") as fh:
                fh.write("[")
                kept.write_items(fh)
                fh.write("]")
            written = (tmp_path / "report.json").read_text(encoding="utf-8")[1:-1]
        else:
            out = io.StringIO()
            kept.write_items(out)
            written = out.getvalue()
    lines = [json.dumps(item, ensure_ascii=False) for item in items]
    assert written == "\n    " + ",\n    ".join(lines) + "\n  "
    assert json.loads("[" + written + "]") == items


def test_a_spool_moves_to_a_file_past_its_bound_and_reads_back_the_same(
    tmp_path, monkeypatch
) -> None:
    """A spool holds its lines in memory (no file) until they pass ``HELD`` bytes, then
    moves them to a file in its folder and keeps writing there: read back, the objects
    and lines are those written, in order, whichever side of the move they were written
    on; closing removes the file."""
    from pytest_jsonmatch.reporting.run_model import spool as spool_module

    items = [{"n": i, "text": "é\u2028" * i} for i in range(40)]
    kept_bytes = [
        len((spool_module.ITEM + spool_module.json_line(item)).encode()) for item in items
    ]
    bound = sum(kept_bytes[:10])  # the 11th line moves the spool: 10 lines fit exactly
    monkeypatch.setattr(spool_module, "HELD", bound)
    kept = spool_module.Spool[dict](str(tmp_path))  # type: ignore[type-var]
    for at, item in enumerate(items[:10]):
        kept.append(item)
        assert kept.path is None, at  # held, no file made
    assert list(tmp_path.iterdir()) == []
    assert list(kept) == items[:10]  # read back while held
    kept.append(items[10])
    assert kept.path is not None and os.path.dirname(kept.path) == str(tmp_path)
    for item in items[11:]:
        kept.append(item)
    assert list(kept) == items and len(kept) == 40
    assert list(kept.lines()) == [spool_module.json_line(item) for item in items]
    kept.close()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"line": 12, "file": 'data\\\\gold "v2".jsonl', "error": "", "seq": 3, "repeat": 1},
        {"case_id": 'ünï \u2028 "q"', "nodeid": "n\ttab", "recording": "stale", "source": "live"},
        {"pairings": (("items", 0, 1, 0.5),)},  # written by the dict, as before
        {"score": float("inf")},  # not JSON: the dict's path refuses it
    ],
)
def test_a_plain_comparison_line_is_the_entry_json_writes(extra) -> None:
    """A dataset comparison's line written from a template (strings, whole numbers and
    finite floats, nothing optional) is the bytes ``json_line(comparison_dict(...))``
    writes; any other entry takes the dict."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.reporting.run_model.comparison_lines import comparison_line
    from pytest_jsonmatch.reporting.run_model.comparisons import comparison_dict
    from pytest_jsonmatch.reporting.run_model.spool import json_line

    result = match_json(
        {"a": "x", "b": 2.5, "c": None}, {"a": "y", "b": 2.5, "d": True}, "field_f1"
    )
    bare = Comparison.of_result(
        result, case_id="7", nodeid="7", threshold=0.9, passed=False, values=None
    )
    bare = bare.replace(**extra)
    if "score" in extra:
        with pytest.raises(ValueError):
            json_line(stored_comparison(comparison_dict(bare, result.fields, "short"), Heads(), 0))
        with pytest.raises(ValueError):
            comparison_line(bare, result.fields, "short", Heads())
        return
    heads = Heads()
    line = comparison_line(bare, result.fields, "short", heads)
    assert line == json_line(
        stored_comparison(comparison_dict(bare, result.fields, "short"), Heads(), 0)
    )
    back = StoredFields([heads.heads], "line", ValueError).comparison(json.loads(line), 0)
    assert back["fields"][0]["expected"] == "y"


@pytest.mark.parametrize("group_by", ["metric", "file", "folder"])
@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"line": None, "error": 'gold "é"\n\u2028', "status": Status.ERROR, "low": -0.0},
        {"file": "a\\\\b/c.jsonl", "case_id": "ü", "passed_runs": 0, "runs": 2},
        {"truncated": 1},  # the optional keys: written by the dict, as before
        {"checked": 1, "valid": 1},
        {"target": "cheap"},
        {"threshold": 1},  # an int is written as the dict writes it
    ],
)
def test_a_case_line_is_the_case_json_writes(extra, group_by) -> None:
    """A dataset case's line written from a template is the bytes
    ``json_line(case_dict(...))`` writes, for every grouping; any other case takes the
    dict."""
    from pytest_jsonmatch.reporting.run_model.aggregate import CaseResult, case_dict
    from pytest_jsonmatch.reporting.run_model.comparison_lines import case_line
    from pytest_jsonmatch.reporting.run_model.spool import json_line

    case = CaseResult(
        "12",
        "field_f1",
        0.9,
        PASSED,
        1,
        0.75,
        0.5,
        1.0,
        1,
        0.8,
        0.7,
        0.7466666666666667,
        "data/gold.jsonl",
        12,
        "",
    )
    case = case.replace(**extra)
    assert case_line(case, group_by) == json_line(case_dict(case, group_by))
    with pytest.raises(ValueError):  # not JSON: refused on either path
        case_line(case.replace(mean=float("nan")), group_by)
