"""``jsonmatch merge``: a suite run whole and run in shards (jsonmatch_shard) give the same
report once the shards' reports are merged; shards that are not one run's are refused."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.plugin_cases import ARGS

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


def _strip(report: dict) -> dict:
    """A report without what may differ between runs: the run's stamps and times."""
    out = {k: v for k, v in report.items() if k != "run"}
    for c in out["comparisons"]:
        c.pop("duration_s", None)
    for c in out["cases"]:
        c.pop("duration_s", None)
    return out


@pytest.mark.parametrize("count", [2, 3])
def test_merged_shards_equal_the_whole_run(pytester, count, capsys):
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=whole.json", "-o", "jsonmatch_fail_under=0.7"
    ).assert_outcomes(passed=6)
    paths = []
    for i, selection in enumerate(SHARDS[count], 1):
        extra = ("-n", "2") if i == 1 else ()
        result = pytester.runpytest_subprocess(
            *ARGS,
            *extra,
            "-k",
            selection,
            f"--jsonmatch-shard={i}/{count}",
            f"--jsonmatch-report=shard{i}.json",
        )
        assert result.ret == 0
        result.stdout.fnmatch_lines([f"*shard {i} of {count}*"])
        shard = json.loads((pytester.path / f"shard{i}.json").read_text())
        assert shard["run"]["shard"] == {"index": i, "count": count}
        assert shard["gates"]["checked"] == []
        paths.append(str(pytester.path / f"shard{i}.json"))
    out = str(pytester.path / "run.json")
    assert main(["merge", *paths, "-o", out, "--fail-under", "0.7"]) == 0
    merged = json.loads(open(out).read())
    whole = json.loads((pytester.path / "whole.json").read_text())
    assert merged["overall"] == 0.75  # 4.5 / 6, worked out above
    assert merged["run"]["shards"] == count
    assert merged["run"]["complete"] is True
    assert _strip(merged)["cases"] == _strip(whole)["cases"]
    for key in ("overall", "count", "metrics", "fields", "groups", "comparisons", "errors"):
        assert _strip(merged)[key] == _strip(whole)[key], key
    assert merged["gates"] == whole["gates"] and merged["gates"]["checked"]
    # the summary a person reads of either report is the same
    capsys.readouterr()
    main(["report", out, "-f", "text", "--color", "never"])
    from_merged = capsys.readouterr().out
    main(["report", str(pytester.path / "whole.json"), "-f", "text", "--color", "never"])
    assert from_merged == capsys.readouterr().out
    # judged once: the whole run's 0.75 is under 0.8
    assert main(["merge", *paths, "--fail-under", "0.8"]) == 1


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
