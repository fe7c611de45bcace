"""What a report records of how its run was made (``run.settings``, ``run.provenance``), and
what reads it: pytest-split's shards, ``jsonmatch merge`` refusing shards of different
settings, golden sets, prompt versions or judges, and a baseline, ``diff`` and
``compare-runs`` naming a different prompt version or golden set."""

from __future__ import annotations

import hashlib
import json

from pytest_jsonmatch.cli.app import main
from tests.cli.test_merge import GOLDEN, INI, SUITE, TARGETS
from tests.helpers.plugin_cases import ARGS


def _report(pytester, name):
    return json.loads((pytester.path / name).read_text())


def _shard(pytester, i, count, selection, *extra):
    name = f"s{i}.json"
    pytester.runpytest_inprocess(
        *ARGS,
        "-k",
        selection,
        f"--jsonmatch-shard={i}/{count}",
        f"--jsonmatch-report={name}",
        *extra,
    )
    return str(pytester.path / name)


def _golden(pytester):
    pytester.makepyfile(targets=TARGETS)
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "g.jsonmatch.yaml").write_text(GOLDEN)
    pytester.makeini(INI)


# -- pytest-split -----------------------------------------------------------------------------


def test_pytest_splits_group_marks_a_shard_and_its_shards_merge_into_the_whole(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=whole.json").assert_outcomes(passed=6)
    paths = []
    for group in (1, 2):
        result = pytester.runpytest_inprocess(
            *ARGS, "--splits", "2", "--group", str(group), f"--jsonmatch-report=p{group}.json"
        )
        assert result.ret == 0
        result.stdout.fnmatch_lines([f"*[[]pytest-split[]] Running group {group}/2*"])
        result.stdout.fnmatch_lines([f"*not judged: this run is shard {group} of 2*"])
        report = _report(pytester, f"p{group}.json")
        assert report["run"]["shard"] == {"index": group, "count": 2}
        assert 0 < report["count"] < 6  # pytest-split ran a part of the suite
        paths.append(str(pytester.path / f"p{group}.json"))
    out = str(pytester.path / "run.json")
    assert main(["merge", *paths, "-o", out]) == 0
    merged, whole = _report(pytester, "run.json"), _report(pytester, "whole.json")
    assert merged["overall"] == whole["overall"] == 0.75  # 4.5 / 6 (test_merge.py's SUITE)
    assert [c["case_id"] for c in merged["cases"]] == [c["case_id"] for c in whole["cases"]]


def test_a_shard_setting_and_pytest_split_that_disagree_stop_the_run(pytester):
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_inprocess(
        *ARGS, "--splits", "2", "--group", "2", "--jsonmatch-shard=1/2"
    )
    assert result.ret != 0
    assert (
        "jsonmatch_shard 1/2 and pytest-split's --splits 2 --group 2 name different shards"
        in result.stdout.str() + result.stderr.str()
    )
    # the same shard said twice is that shard
    same = pytester.runpytest_inprocess(
        *ARGS, "--splits", "2", "--group", "2", "--jsonmatch-shard=2/2", "--jsonmatch-report=r.json"
    )
    assert _report(pytester, "r.json")["run"]["shard"] == {"index": 2, "count": 2}
    assert same.ret == 0


# -- what a report records ---------------------------------------------------------------------


def test_a_report_records_its_settings_golden_set_fingerprints_and_judge(pytester):
    _golden(pytester)
    pytester.makeini(INI + "jsonmatch_judge = model=judge-a endpoint=http://127.0.0.1:9/v1\n")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    run = _report(pytester, "r.json")["run"]
    assert run["settings"]["fail_under"] == "0.7"
    assert run["settings"]["field_floors"] == ["vendor=0.5"]
    assert run["settings"]["max_drop"] == "0.5 strict"
    assert run["settings"]["max_case_drop"] == "0.6 allow=1"
    assert run["settings"]["reference"] == "base"
    assert run["settings"]["targets"] == ["base", "cheap"]
    assert run["settings"]["repeat"] == "mean"
    provenance = run["provenance"]
    digest = hashlib.sha256((pytester.path / "cases" / "g.jsonmatch.yaml").read_bytes())
    assert provenance["golden"] == {"cases/g.jsonmatch.yaml": digest.hexdigest()}
    assert len(provenance["golden_digest"]) == 64
    assert sorted(provenance["targets"]) == ["base", "cheap"]
    # a named target's fingerprint is its own function's code
    assert list(provenance["targets"]["cheap"]["code"]) == ["targets.py::cheap"]
    from pytest_jsonmatch.engine.judge import JudgeSettings

    judge = JudgeSettings(model="judge-a", endpoint="http://127.0.0.1:9/v1")
    assert provenance["judge"] == judge.fingerprint


# -- refusals ------------------------------------------------------------------------------------


def test_shards_of_different_settings_are_refused_naming_them_and_the_setting(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    one = _shard(
        pytester, 1, 2, "test_a or test_b or test_c", "-o", "jsonmatch_gates=fail_under=0.7"
    )
    two = _shard(pytester, 2, 2, "test_d or test_e or test_f")
    assert main(["merge", one, two]) == 2
    err = capsys.readouterr().err
    assert f"the shards are of different settings: {one} and {two} differ in" in err
    assert "jsonmatch_gates fail_under: '0.7' and None" in err
    # --partial merges missing shards, never shards of different runs
    assert main(["merge", one, two, "--partial"]) == 2


def test_shards_of_different_golden_sets_are_refused(pytester, capsys):
    _golden(pytester)
    one = _shard(pytester, 1, 2, "acme or ibm")
    cases = pytester.path / "cases" / "g.jsonmatch.yaml"
    cases.write_text(GOLDEN.replace("total: 6", "total: 7"))
    two = _shard(pytester, 2, 2, "sap or oracle")
    assert main(["merge", one, two]) == 2
    err = capsys.readouterr().err
    assert (
        f"the shards ran different golden sets: case file cases/g.jsonmatch.yaml differs "
        f"between {one} and {two}" in err
    )


def test_shards_of_different_prompt_versions_are_refused(pytester, capsys):
    _golden(pytester)
    one = _shard(pytester, 1, 2, "acme or ibm")
    pytester.makepyfile(targets=TARGETS.replace("len(text) > 3", "len(text) > 2"))
    two = _shard(pytester, 2, 2, "sap or oracle")
    assert main(["merge", one, two]) == 2
    err = capsys.readouterr().err
    assert f"the shards ran different prompt versions: {one} and {two}" in err
    assert "different prompt version: target cheap: code targets.py::cheap" in err


def test_shards_of_different_judges_are_refused(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    judge = "jsonmatch_judge=model={} endpoint=http://127.0.0.1:9/v1"
    one = _shard(pytester, 1, 2, "test_a or test_b or test_c", "-o", judge.format("a"))
    two = _shard(pytester, 2, 2, "test_d or test_e or test_f", "-o", judge.format("b"))
    assert main(["merge", one, two]) == 2
    assert "the shards ran different judges: fingerprint" in capsys.readouterr().err


# -- a different prompt version or golden set, said -------------------------------------------

LLM = """
PROMPT = "Extract the vendor."

def extract(text):
    return {"vendor": text.upper(), "n": len(PROMPT) > 0}
"""
ONE_TARGET = "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n"
CASES = "cases:\n  - {id: acme, input: acme, expected: {vendor: ACME, n: true}}\n"


def test_a_baseline_diff_and_compare_runs_name_a_different_prompt_version(pytester, capsys):
    pytester.makepyfile(llm=LLM)
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    pytester.makeini(ONE_TARGET)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=before.json").assert_outcomes(passed=1)
    pytester.makepyfile(llm=LLM.replace("the vendor.", "the vendor's name."))
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=after.json", "--jsonmatch-baseline=before.json"
    )
    said = "different prompt version: the target: code llm.py"
    # said loudly, not failed: the scores are the same and every gate passes
    assert result.ret == 0
    assert said in result.stdout.str()
    assert said in _report(pytester, "after.json")["gates"]["warnings"]
    capsys.readouterr()
    assert main(["diff", "before.json", "after.json", "--color", "never"]) == 0
    assert said in capsys.readouterr().out
    assert main(["compare-runs", "before.json", "after.json"]) == 0
    assert f"compare-runs: after.json against before.json: {said}" in capsys.readouterr().err
    # the same prompt, another golden set: said as such
    (pytester.path / "c.jsonmatch.yaml").write_text(
        CASES + "  - {id: b, actual: {a: 1}, expected: {a: 1}}\n"
    )
    main(["diff", "after.json", "after.json"])
    assert "different" not in capsys.readouterr().out
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=third.json", "--jsonmatch-baseline=after.json"
    )
    assert "different golden set: 1 case file differs: c.jsonmatch.yaml" in result.stdout.str()
    assert "different prompt version" not in result.stdout.str()


# -- merge's options over the recorded settings ------------------------------------------------


def test_merge_options_override_the_recorded_reference_floors_and_baseline(pytester, capsys):
    _golden(pytester)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=base.json")
    baseline = ("-o", "jsonmatch_baseline=base.json")
    one = _shard(pytester, 1, 2, "acme or ibm", *baseline)
    two = _shard(pytester, 2, 2, "sap or oracle", *baseline)
    (pytester.path / "base.json").rename(pytester.path / "elsewhere.json")
    assert main(["merge", one, two]) == 2
    assert (
        "the shards were held against the baseline base.json (jsonmatch_baseline), which is not"
        in capsys.readouterr().err
    )
    out = str(pytester.path / "run.json")
    argv = ["merge", one, two, "-o", out, "--baseline", "elsewhere.json"]
    assert main([*argv, "--reference", "cheap", "--field-floor", "vendor=0.9"]) == 1
    merged = _report(pytester, "run.json")
    assert merged["targets"]["reference"] == "cheap"
    assert merged["baseline"]["path"].endswith("elsewhere.json")
    # each target's table held to the floor: cheap's vendor matches in acme and oracle only
    # ("ibm", "sap" are not upper-cased) -> 2 / 4; base's, 4 / 4, holds
    assert merged["gates"]["failures"][0] == (
        "field vendor (field_match [cheap]): mean score 0.5000 is below its floor 0.9000"
    )
    assert merged["run"]["settings"]["field_floors"] == ["vendor=0.9"]
    assert merged["run"]["settings"]["reference"] == "cheap"
    # the recorded gates, no baseline: cheap's 2.5 / 4 = 0.625 is under fail_under 0.7
    assert main(["merge", one, two, "-o", out, "--no-baseline"]) == 1
    assert _report(pytester, "run.json")["gates"]["failures"] == [
        "target cheap: overall score 0.6250 is below jsonmatch_gates fail_under 0.7000"
    ]
    assert "baseline" not in _report(pytester, "run.json")
