"""``jsonmatch merge`` holds each shard's report to itself: reports written by real shard runs,
then edited as an attacker with write access to a shard's artifact would (JSON loaded,
changed, dumped), are refused by the merge, naming the shard and the case; a shard names no
baseline outside the directory the merge runs in; the merged report is never written over a
shard being merged."""

from __future__ import annotations

import json
import os

import pytest

from pytest_jsonmatch.cli.app import main
from tests.cli.test_merge import SUITE, TARGETS
from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

HALF = "test_a or test_b or test_c"
OTHER_HALF = "test_d or test_e or test_f"


def _shard(pytester, i, count, selection, name=None):
    name = name or f"s{i}.json"
    pytester.runpytest_inprocess(
        *ARGS, "-k", selection, f"--jsonmatch-shard={i}/{count}", f"--jsonmatch-report={name}"
    )
    return str(pytester.path / name)


def _edit(path, change):
    """The report at ``path`` loaded, changed by ``change`` and written back."""
    with open(path) as f:
        report = json.load(f)
    change(report)
    with open(path, "w") as f:
        json.dump(report, f)


def _comparison(report, test):
    (found,) = [c for c in report["comparisons"] if c["case_id"].endswith(f"::{test}")]
    return found


def _suite(pytester):
    pytester.makepyfile(test_suite=SUITE)
    return _shard(pytester, 1, 2, HALF), _shard(pytester, 2, 2, OTHER_HALF)


def _refused(capsys, argv, *said):
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    for text in said:
        assert text in err, (text, err)
    assert "Traceback" not in err
    return err


# -- a comparison's figures against its field rows ----------------------------------------------


def test_a_comparison_lifted_to_one_while_its_rows_say_mismatch_is_refused(pytester, capsys):
    one, two = _suite(pytester)
    # honest, the two merge: 4.5 / 6 (test_merge.py's SUITE)
    assert main(["merge", one, two, "--fail-under", "0.75"]) == 0

    def lift(report):
        # test_e: both fields mismatch (score 0, recall 0): set to 1.0 and passed
        c = _comparison(report, "test_e")
        c["score"], c["status"] = 1.0, "passed"

    _edit(two, lift)
    _refused(
        capsys,
        ["merge", one, two],
        "s2.json",
        "test_suite.py::test_e",
        "score 1.0 is not what field_match makes of its precision 0.0, recall 0.0",
    )


def test_precision_and_recall_not_what_the_rows_give_are_refused(pytester, capsys):
    one, two = _suite(pytester)

    def lift(report):
        # every figure lifted: but test_e's two rows are mismatches scoring 0, which count
        # for 1 each (no weight recorded): 0 / 2
        c = _comparison(report, "test_e")
        c.update(score=1.0, precision=1.0, recall=1.0, f1=1.0, status="passed")

    _edit(two, lift)
    _refused(
        capsys,
        ["merge", one, two],
        "s2.json",
        "test_e",
        "precision 1.0 and recall 1.0 are not what its 2 field rows give (0.0, 0.0)",
    )


def test_figures_of_weights_an_unweighted_comparison_did_not_have_are_refused(pytester, capsys):
    one, two = _suite(pytester)

    def lift(report):
        # test_c: a matches, b does not, each counting for 1: 1/2. Its figures lifted to
        # those of a weight 0 on b (1 / 1), which its rows do not record
        c = _comparison(report, "test_c")
        c.update(score=1.0, precision=1.0, recall=1.0, f1=1.0)

    _edit(one, lift)
    _refused(
        capsys,
        ["merge", one, two],
        "s1.json",
        "test_suite.py::test_c",
        "precision 1.0 and recall 1.0 are not what its 2 field rows give (0.5, 0.5)",
    )


def test_a_passed_status_below_its_threshold_is_refused(pytester, capsys):
    one, two = _suite(pytester)

    def passed(report):
        # test_c scores 1/2 (one of its two fields match): held to threshold 1 and passed
        c = _comparison(report, "test_c")
        c["threshold"] = 1.0
        c["status"] = "passed"

    _edit(one, passed)
    _refused(
        capsys,
        ["merge", one, two],
        "s1.json",
        "test_c",
        "it passed with score 0.5 below its threshold 1.0",
    )


def test_a_case_listed_with_a_status_its_runs_do_not_give_is_refused(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE.replace("threshold=0", "threshold=1"))
    one, two = _shard(pytester, 1, 2, HALF), _shard(pytester, 2, 2, OTHER_HALF)

    def passed(report):
        # test_c's one run scores 1/2 under threshold 1: failed
        (case,) = [c for c in report["cases"] if c["case_id"].endswith("::test_c")]
        case["status"] = "passed"

    _edit(one, passed)
    _refused(
        capsys,
        ["merge", one, two],
        "s1.json",
        "test_c",
        "listed as 'passed' over 1 runs; its comparisons make it failed over 1",
    )


# -- field weights and floors, as the rows record them ------------------------------------------

# two tests whose fields have weights and floors, beside one without
WEIGHTED = """
from pytest_jsonmatch import assert_json_match

def test_w():
    assert_json_match(
        {"a": 1, "b": 3}, {"a": 1, "b": 2}, metric="field_match", threshold=0,
        fields={"b": {"weight": 3}},
    )

def test_floor():
    assert_json_match(
        {"a": 1, "b": 3}, {"a": 1, "b": 2}, metric="field_match", threshold=0,
        fields={"b": {"min_score": 0.5}},
    )

def test_plain():
    assert_json_match({"a": 1}, {"a": 1}, metric="field_match", threshold=0)
"""


def _weighted(pytester):
    pytester.makepyfile(test_suite=WEIGHTED)
    return _shard(pytester, 1, 2, "test_w or test_plain"), _shard(pytester, 2, 2, "test_floor")


def _fields_of(path, test):
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    (c,) = [c for c in load_report(path)["comparisons"] if c["case_id"].endswith(f"::{test}")]
    return c["fields"]


def test_a_weight_the_rows_do_not_record_is_refused(pytester, capsys):
    one, two = _weighted(pytester)
    # the rows record b's weight: a matches (1), b does not and counts for 3:
    # recall = precision = 1 / (1 + 3) = 0.25
    assert [f.get("weight", 1.0) for f in _fields_of(one, "test_w")] == [1.0, 3.0]
    assert main(["merge", one, two]) == 0

    def lift(report):
        # the figures of a weight 0 on b (a alone: 1 / 1), rows left as they are
        c = _comparison(report, "test_w")
        c.update(score=1.0, precision=1.0, recall=1.0, f1=1.0)

    _edit(one, lift)
    _refused(
        capsys,
        ["merge", one, two],
        "s1.json",
        "test_suite.py::test_w",
        "precision 1.0 and recall 1.0 are not what its 2 field rows and the weights they "
        "record give (0.25, 0.25)",
    )


def test_a_floor_failure_dropped_from_a_shard_is_refused(pytester, capsys):
    one, two = _weighted(pytester)
    # test_floor scores 1/2 (threshold 0) but b scores 0, below its floor 0.5: failed, and
    # b's row records the floor
    assert [f.get("min_score") for f in _fields_of(two, "test_floor")] == [None, 0.5]
    capsys.readouterr()
    assert main(["merge", one, two]) == 0

    def dropped(report):
        c = _comparison(report, "test_floor")
        c["floor_failures"], c["status"] = [], "passed"
        (case,) = [k for k in report["cases"] if k["case_id"].endswith("::test_floor")]
        case["status"] = "passed"

    _edit(two, dropped)
    _refused(
        capsys,
        ["merge", one, two],
        "s2.json",
        "test_suite.py::test_floor",
        "it passed with field 'b' scoring 0.0 below its floor 0.5",
    )


def test_a_head_with_a_weight_that_is_not_a_number_is_refused(pytester, capsys):
    one, two = _weighted(pytester)

    def broken(report):
        for table in report["field_heads"]:
            for head in table:
                if len(head) == 6:  # test_w's b, [..., 3.0]
                    head[5] = -1

    _edit(one, broken)
    _refused(capsys, ["merge", one, two], "s1.json", "weight -1 is not a number >= 0")


# -- a case's runs against the run's settings ----------------------------------------------------

GOLDEN = """
metric: field_match
cases:
  - {id: acme, input: acme, expected: {vendor: ACME, total: 4}}
  - {id: ibm, input: ibm, expected: {vendor: IBM, total: 9}}
  - {id: sap, input: sap, repeat: 3, expected: {vendor: SAP, total: 3}}
"""
INI = """
[pytest]
pythonpath = .
jsonmatch_record = once
jsonmatch_targets =
    base = targets:base
jsonmatch_field_floors =
    total=0.9
"""


def _golden(pytester):
    """Two shards of golden cases: acme (1.0) and ibm (1/2: its total is not 9) in the
    first, sap (run 3 times, its own repeat) in the second."""
    pytester.makepyfile(targets=TARGETS)
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "g.jsonmatch.yaml").write_text(GOLDEN)
    pytester.makeini(INI)
    return _shard(pytester, 1, 2, "acme or ibm"), _shard(pytester, 2, 2, "sap")


def _runs(report, case):
    return [c for c in report["comparisons"] if f"::{case}[" in c["case_id"]]


def test_extra_runs_of_a_passing_case_are_refused(pytester, capsys):
    one, two = _golden(pytester)
    out = str(pytester.path / "run.json")
    # honest: sap's three runs, as its case file says, merge; the field total scores
    # (1 + 0 + 1 + 1 + 1) / 5 over acme, ibm and sap's three runs = 0.8, under its floor 0.9
    capsys.readouterr()
    assert main(["merge", one, two, "-o", out]) == 1
    assert "field total (field_match [base]): mean score 0.8000 is below its floor 0.9000" in (
        capsys.readouterr().out
    )

    def repeated(report):
        # 50 more runs of acme, which scores 1: total would be (1 + 50 + 0 + 3) / 55 = 0.98
        (run,) = _runs(report, "acme")
        for k in range(1, 51):
            report["comparisons"].append({**run, "repeat": k})
        (case,) = [c for c in report["cases"] if "::acme[" in c["case_id"]]
        case["runs"] = 51

    _edit(one, repeated)
    _refused(
        capsys,
        ["merge", one, two],
        "s1.json",
        "'cases/g.jsonmatch.yaml::acme[base]' has 51 runs",
        "give 1",
    )


def test_a_run_more_than_a_cases_own_repeat_is_refused(pytester, capsys):
    one, two = _golden(pytester)

    def repeated(report):
        runs = _runs(report, "sap")
        report["comparisons"].append({**runs[0], "repeat": 3})
        report["cases"][0]["runs"] = 4

    _edit(two, repeated)
    _refused(capsys, ["merge", one, two], "s2.json", "sap[base]' has 4 runs", "give 3")


def test_a_run_of_a_case_added_to_another_shard_is_refused(pytester, capsys):
    one, two = _golden(pytester)
    with open(one) as f:
        (acme,) = _runs(json.load(f), "acme")

    def added(report):
        # acme's run 0 is shard 1's; a run 1 of it in shard 2 is the same case in two shards
        report["comparisons"].append({**acme, "repeat": 1, "heads": 0, "fields": []})

    _edit(two, added)
    _refused(capsys, ["merge", one, two], "acme[base] is in two shards", "s1.json", "s2.json")


def test_runs_numbered_with_a_gap_are_refused(pytester, capsys):
    one, two = _golden(pytester)

    def renumbered(report):
        _runs(report, "sap")[2]["repeat"] = 7

    _edit(two, renumbered)
    _refused(
        capsys,
        ["merge", one, two],
        "s2.json",
        "sap[base]': its runs are numbered 0, 1, 7, not 0 to 2",
    )


def _as_older_plugin(report):
    """A report as a plugin that recorded no count of a case's runs wrote it."""
    for c in report["comparisons"]:
        c.pop("repeats", None)


def test_a_case_file_that_differs_from_the_shards_is_not_read_for_its_repeat(pytester, capsys):
    one, two = _golden(pytester)
    # a shard that records no count of sap's runs (an older plugin's): its case file in the
    # merge's root, changed after the shards ran, cannot tell its three runs
    _edit(two, _as_older_plugin)
    path = pytester.path / "cases" / "g.jsonmatch.yaml"
    path.write_text(GOLDEN.replace("repeat: 3", "repeat: 4"))
    _refused(capsys, ["merge", one, two], "s2.json", "sap[base]", "is not the one the shard ran")


def test_a_case_that_records_its_runs_is_counted_without_its_case_file(pytester, capsys):
    one, two = _golden(pytester)
    # sap's runs record the three they were asked for: its case file, changed since, is not
    # read (the merge needs neither it nor what reading it takes: a judge, plugins)
    path = pytester.path / "cases" / "g.jsonmatch.yaml"
    path.write_text(GOLDEN.replace("repeat: 3", "repeat: 4"))
    capsys.readouterr()
    assert main(["merge", one, two]) == 1  # (the floor of total, as in the honest merge above)
    assert capsys.readouterr().err == ""


# -- a shard's baseline ---------------------------------------------------------------------------


def _with_baseline(pytester, name):
    """The two shards of the suite, each recording the baseline ``name``; a real baseline
    report (the whole suite's) at outside/base.json, beside the root dir."""
    pytester.makepyfile(test_suite=SUITE)
    outside = pytester.path.parent / "outside"
    outside.mkdir(exist_ok=True)
    pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-report={outside / 'base.json'}")
    pytester.makeini(f"[pytest]\njsonmatch_baseline = {name}\n")
    return _shard(pytester, 1, 2, HALF), _shard(pytester, 2, 2, OTHER_HALF)


def test_a_shards_baseline_outside_the_root_is_not_read(pytester, capsys):
    one, two = _with_baseline(pytester, "../outside/base.json")
    _refused(
        capsys,
        ["merge", one, two],
        "s1.json",
        "the shards' baseline ../outside/base.json (run.settings.baseline) lies outside",
    )
    # given by the user on the command line, it is the user's to give
    assert main(["merge", one, two, "--baseline", "../outside/base.json"]) == 0


def test_a_shards_absolute_or_symlinked_baseline_outside_the_root_is_not_read(pytester, capsys):
    outside = str(pytester.path.parent / "outside" / "base.json")
    one, two = _with_baseline(pytester, outside)
    _refused(capsys, ["merge", one, two], "s1.json", f"baseline {outside} (run.settings")
    # a link inside the root to the file outside: resolved, and refused alike
    os.symlink(outside, pytester.path / "base.json")

    def linked(report):
        report["run"]["settings"]["baseline"] = "base.json"

    _edit(one, linked)
    _edit(two, linked)
    _refused(capsys, ["merge", one, two], "s1.json", "the shards' baseline base.json")


def test_a_shards_baseline_inside_the_root_is_read(pytester, capsys):
    pytester.makepyfile(test_suite=SUITE)
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=base.json")
    pytester.makeini("[pytest]\njsonmatch_baseline = ./sub/../base.json\n")
    (pytester.path / "sub").mkdir()
    one, two = _shard(pytester, 1, 2, HALF), _shard(pytester, 2, 2, OTHER_HALF)
    out = str(pytester.path / "run.json")
    assert main(["merge", one, two, "-o", out]) == 0
    with open(out) as f:
        assert json.load(f)["baseline"]["shared"] == 6  # the six tests, each unchanged


# -- the merged report's file --------------------------------------------------------------------


def test_the_merged_report_is_never_written_over_a_shard(pytester, capsys):
    one, two = _suite(pytester)
    with open(one, "rb") as f:
        before = f.read()
    _refused(capsys, ["merge", one, two, "-o", one], f"-o/--json {one} is the shard {one}")
    # the same file by another name: a relative path, a symlink, a hard link
    os.chdir(pytester.path)
    _refused(capsys, ["merge", one, two, "-o", "./s1.json"], "is the shard")
    os.symlink(one, pytester.path / "link.json")
    _refused(capsys, ["merge", one, two, "-o", "link.json"], "is the shard")
    os.link(two, pytester.path / "hard.json")
    _refused(capsys, ["merge", one, two, "-o", "hard.json"], f"is the shard {two}")
    _refused(capsys, ["merge", one, two, "--output", one], f"--output {one} is the shard")
    with open(one, "rb") as f:
        assert f.read() == before
    # elsewhere, it is written
    assert main(["merge", one, two, "-o", "run.json"]) == 0
    with open("run.json") as f:
        assert json.load(f)["run"]["shards"] == 2
