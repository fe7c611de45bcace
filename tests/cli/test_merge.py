"""``jsonmatch merge``: a suite run whole and run in shards (jsonmatch_shard) give the same
report once the shards' reports are merged; shards that are not one run's are refused."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# six tests, each one comparison: scores 1, 1, 1/2 (field_match: a matches, b does not),
# 1, 0 (both differ), 1 -> mean 4.5 / 6 = 0.75
SUITE = """
from pytest_jsonmatch import assert_json_match

def test_a():
    assert_json_match({"a": 1, "b": 2}, {"a": 1, "b": 2}, metric="field_match", threshold=0)

def test_b():
    assert_json_match({"a": 1}, {"a": 1}, metric="field_match", threshold=0)

def test_c():
    assert_json_match({"a": 1, "b": 3}, {"a": 1, "b": 2}, metric="field_match", threshold=0)

def test_d():
    assert_json_match({"x": "s"}, {"x": "s"}, metric="field_match", threshold=0)

def test_e():
    assert_json_match({"a": 2, "b": 3}, {"a": 1, "b": 2}, metric="field_match", threshold=0)

def test_f():
    assert_json_match({"b": 2}, {"b": 2}, metric="field_match", threshold=0)
"""

SHARDS = {
    2: ["test_a or test_b or test_c", "test_d or test_e or test_f"],
    3: ["test_a or test_b", "test_c or test_d", "test_e or test_f"],
}

# Golden cases run by two named targets, replayed from recordings: field_match scores the
# fraction of the two fields that match.
TARGETS = """
def base(text):
    return {"vendor": text.upper(), "total": len(text)}

def cheap(text):
    return {"vendor": text.upper() if len(text) > 3 else text, "total": len(text)}
"""
# base: acme 1, ibm 1, sap 1/2 (total 3 is not 9), oracle 1 -> 3.5
# cheap: acme 1, ibm 1/2 ("ibm" is not IBM), sap 0 (neither field), oracle 1 -> 2.5
GOLDEN = """
metric: field_match
cases:
  - {id: acme, input: acme, expected: {vendor: ACME, total: 4}}
  - {id: ibm, input: ibm, expected: {vendor: IBM, total: 3}}
  - {id: sap, input: sap, expected: {vendor: SAP, total: 9}}
  - {id: oracle, input: oracle, expected: {vendor: ORACLE, total: 6}}
"""
# the same suite, but for the recorded golden set of the baseline: sap's total was 3 (base 1,
# cheap 1/2), so against it sap[base] drops by 1/2 and sap[cheap] by 1/2
GOLDEN_BEFORE = GOLDEN.replace("total: 9", "total: 3")
INI = """
[pytest]
pythonpath = .
jsonmatch_record = once
jsonmatch_targets =
    base = targets:base
    cheap = targets:cheap
jsonmatch_reference = base
jsonmatch_gates = fail_under=0.7 max_drop=0.5 strict max_case_drop=0.6 allow=1
jsonmatch_field_floors =
    vendor=0.5
"""
GOLDEN_SHARDS = {
    2: ["acme or ibm", "sap or oracle"],
    3: ["acme", "ibm or sap", "oracle"],
}


def _strip(report: dict) -> dict:
    """A report without what may differ between runs: the run's stamps and times."""
    out = {k: v for k, v in report.items() if k != "run"}
    for c in out["comparisons"]:
        c.pop("duration_s", None)
    for c in out["cases"]:
        c.pop("duration_s", None)
    return out


def _golden_suite(pytester) -> str:
    """The suite with golden cases, recorded, and a baseline report (of the cases before sap's
    expected total changed); gives the whole run's report path."""
    pytester.makepyfile(test_suite=SUITE, targets=TARGETS)
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "g.jsonmatch.yaml").write_text(GOLDEN_BEFORE)
    pytester.makeini(INI)
    # ibm[cheap] and sap[cheap] score 1/2, under threshold 1
    base = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=base.json")
    base.assert_outcomes(passed=12, failed=2)
    (pytester.path / "cases" / "g.jsonmatch.yaml").write_text(GOLDEN)
    pytester.makeini(INI + "jsonmatch_baseline = base.json\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=whole.json")
    result.assert_outcomes(passed=11, failed=3)  # ibm[cheap], sap[base], sap[cheap]
    return str(pytester.path / "whole.json")


@pytest.mark.parametrize("count", [2, 3])
def test_merged_shards_equal_the_whole_run(pytester, count, capsys):
    whole_path = _golden_suite(pytester)
    paths = []
    for i, (tests, cases) in enumerate(zip(SHARDS[count], GOLDEN_SHARDS[count]), 1):
        # the first shard under xdist (a process of its own), the others in this process
        run = pytester.runpytest_subprocess if i == 1 else pytester.runpytest_inprocess
        extra = ("-n", "2") if i == 1 else ()
        result = run(
            *ARGS,
            *extra,
            "-k",
            f"{tests} or {cases}",
            f"--jsonmatch-shard={i}/{count}",
            f"--jsonmatch-report=shard{i}.json",
        )
        result.stdout.fnmatch_lines([f"*shard {i} of {count}*"])
        shard = json.loads((pytester.path / f"shard{i}.json").read_text())
        assert shard["run"]["shard"] == {"index": i, "count": count}
        assert shard["gates"]["checked"] == [] and shard["gates"]["failures"] == []
        assert {c["source"] for c in shard["comparisons"]} >= {"replayed"}
        paths.append(str(pytester.path / f"shard{i}.json"))
    out = str(pytester.path / "run.json")
    # no gate option: merge judges by the settings the shards recorded, baseline included
    code = main(["merge", *paths, "-o", out])
    merged = json.loads(open(out).read())
    whole = json.loads(open(whole_path).read())
    # 6 tests (4.5) + base's cases (3.5) + cheap's (2.5), worked out above: 10.5 / 14
    assert merged["overall"] == whole["overall"] == 0.75
    assert merged["run"]["shards"] == count
    assert merged["run"]["complete"] is True
    assert merged["run"]["settings"] == whole["run"]["settings"]
    assert merged["run"]["provenance"] == whole["run"]["provenance"]
    assert _strip(merged)["cases"] == _strip(whole)["cases"]
    keys = ("overall", "count", "metrics", "fields", "groups", "comparisons", "errors")
    for key in (*keys, "baseline", "targets"):
        assert _strip(merged)[key] == _strip(whole)[key], key
    # judged identically: the same gates checked, failed and warned of, the same exit status
    assert merged["gates"] == whole["gates"]
    checked = " | ".join(whole["gates"]["checked"])
    for gate in (
        "jsonmatch_gates fail_under",
        "jsonmatch_field_floors",
        "jsonmatch_gates max_drop",
    ):
        assert gate in checked, gate
    assert "cheap" in checked  # held to the reference target
    assert (code == 0) is whole["gates"]["passed"]
    # the baseline ran another golden set: said by both, failed by neither
    said = "different golden set: 1 case file differs: cases/g.jsonmatch.yaml"
    assert said in whole["gates"]["warnings"]
    # the summary a person reads of either report is the same
    capsys.readouterr()
    main(["report", out, "-f", "text", "--color", "never"])
    from_merged = capsys.readouterr().out
    main(["report", whole_path, "-f", "text", "--color", "never"])
    assert from_merged == capsys.readouterr().out
    # an option overrides the setting the shards recorded: 0.75 is under 0.8
    assert main(["merge", *paths, "--fail-under", "0.8"]) == 1
    assert (
        "overall score 0.7500 is below jsonmatch_gates fail_under 0.8000" in capsys.readouterr().out
    )


def _shard(pytester, i, count, selection, name=None):
    name = name or f"s{i}.json"
    pytester.runpytest_inprocess(
        *ARGS, "-k", selection, f"--jsonmatch-shard={i}/{count}", f"--jsonmatch-report={name}"
    )
    return str(pytester.path / name)


def test_missing_twice_and_overlapping_shards_are_refused(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    one = _shard(pytester, 1, 2, "test_a or test_b or test_c")
    two = _shard(pytester, 2, 2, "test_c or test_d or test_e or test_f")
    assert main(["merge", one]) == 2
    assert "shard 2 of 2 missing" in capsys.readouterr().err
    assert main(["merge", one, one]) == 2
    assert "shard 1 given twice" in capsys.readouterr().err
    assert main(["merge", one, two]) == 2
    err = capsys.readouterr().err
    assert "test_c is in two shards" in err and "s1.json" in err and "s2.json" in err
    other = _shard(pytester, 2, 3, "test_d", "other.json")
    assert main(["merge", one, other]) == 2
    assert "different splits" in capsys.readouterr().err
    whole = str(pytester.path / "whole.json")
    pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-report={whole}")
    assert main(["merge", one, whole]) == 2
    assert "not a shard's report" in capsys.readouterr().err


def test_a_partial_merge_is_marked_and_passes_no_gate(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    one = _shard(pytester, 1, 2, "test_a or test_b or test_c")
    out = str(pytester.path / "run.json")
    assert main(["merge", one, "--partial", "-o", out, "--fail-under", "0"]) == 1
    merged = json.loads(open(out).read())
    assert merged["run"]["complete"] is False
    assert "shard 2 of 2 missing" in merged["run"]["stopped"]
    assert merged["count"] == 3


def test_a_bad_shard_setting_is_a_config_error(pytester):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-shard=3/2")
    assert result.ret != 0
    assert "i must be between 1 and N" in result.stdout.str() + result.stderr.str()


def test_the_markdown_summary_carries_one_marker_line_for_a_sticky_comment(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    one = _shard(pytester, 1, 2, "test_a or test_b or test_c")
    two = _shard(pytester, 2, 2, "test_d or test_e or test_f")
    capsys.readouterr()
    assert main(["merge", one, two, "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "## jsonmatch"
    assert lines.count("<!-- jsonmatch-report -->") == 1
    assert lines[-1] == "<!-- jsonmatch-report -->"


# Golden cases whose total counts for 3 and has a floor of 1/2, run by the base target:
# acme 1 (both fields match); sap: vendor matches, total (3, not 9) does not and counts for
# 3: 1 / (1 + 3) = 1/4, and its total scores 0, below its floor: failed
WEIGHTED_GOLDEN = """
metric: field_match
options: {fields: {total: {weight: 3, min_score: 0.5}}}
cases:
  - {id: acme, input: acme, expected: {vendor: ACME, total: 4}}
  - {id: sap, input: sap, expected: {vendor: SAP, total: 9}}
"""
# beside tests of their own weights and floors (test_forged_shards.py): test_w 1/4, test_floor
# 1/2 (failed by its floor), test_plain 1
WEIGHTED_SHARDS = ["acme or test_w or test_plain", "sap or test_floor"]


def _comparisons(path: str) -> list[dict]:
    """A report's comparisons as the reader gives them (each field from its row and head),
    without their times."""
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    out = [dict(c) for c in load_report(path)["comparisons"]]
    for c in out:
        c.pop("duration_s", None)
    return sorted(out, key=lambda c: c["case_id"])


def test_merged_weighted_shards_equal_the_whole_run(pytester, capsys):
    from tests.cli.test_forged_shards import WEIGHTED

    pytester.makepyfile(test_suite=WEIGHTED, targets=TARGETS)
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "g.jsonmatch.yaml").write_text(WEIGHTED_GOLDEN)
    pytester.makeini(
        "[pytest]\npythonpath = .\njsonmatch_record = once\n"
        "jsonmatch_targets =\n    base = targets:base\n"
    )
    pytester.runpytest_inprocess(*ARGS)  # recorded: every later run replays
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=whole.json")
    paths = [_shard(pytester, i, 2, tests) for i, tests in enumerate(WEIGHTED_SHARDS, 1)]
    out = str(pytester.path / "run.json")
    main(["merge", *paths, "-o", out])
    whole_path = str(pytester.path / "whole.json")
    merged, whole = _comparisons(out), _comparisons(whole_path)
    assert merged == whole
    # 1 + 1/4 + 1/4 + 1/2 + 1 over five comparisons = 3 / 5
    assert (
        json.loads(open(out).read())["overall"]
        == json.loads(open(whole_path).read())["overall"]
        == pytest.approx(0.6)
    )
    (sap,) = [c for c in merged if "::sap[" in c["case_id"]]
    assert (sap["score"], sap["status"]) == (0.25, "failed")
    # the rows record the total's weight, and the floor it scored below; acme met its floor
    assert [(f["path"], f.get("weight"), f.get("min_score")) for f in sap["fields"]] == [
        ("vendor", None, None),
        ("total", 3.0, 0.5),
    ]
    (acme,) = [c for c in merged if "::acme[" in c["case_id"]]
    assert [(f["path"], f.get("weight"), f.get("min_score")) for f in acme["fields"]] == [
        ("vendor", None, None),
        ("total", 3.0, None),
    ]
