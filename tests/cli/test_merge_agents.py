"""``jsonmatch merge`` of an agent suite (issue 73, B1 and B2): shards holding failing agent
replies (``expected`` and ``expected_calls``), failing whole runs (``expected_run``,
``expected_state`` and ``expected``) and a repeated case whose case file names the
``semantic`` judge merge into the run one process makes of the suite, figure by figure.

The suite is the case-path matrix's (tests/helpers/matrix_suite.py: its stand-in model and
its reply, run and repeated folders), run for real once for the module: one pytest process,
then three shards as docs/ci.md's workflow splits them (pytest-split beside
``--jsonmatch-shard``), each a subprocess, the judge a real server on 127.0.0.1
(tests/helpers/judge_server.py). Each test merges copies of the shards' reports in this
process, the shards' root its working directory; the edited ones are edited as an older
plugin or an attacker with write access to a shard's artifact would leave them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.matrix_checks import Row, same_figures
from tests.helpers.matrix_runs import PYTEST, environment
from tests.helpers.matrix_suite import AGENT, CASE_FILES, SAME_MEANING

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

INI = """
[pytest]
pythonpath = .
jsonmatch_golden = golden
jsonmatch_target = agent:answer
jsonmatch_judge = model=judge-1 endpoint={judge}
jsonmatch_report = group_by=folder
jsonmatch_gates = fail_under=0.3 pass_k=2 min_pass_hat_k=0.2
"""
KINDS = ("reply", "run", "repeated")
SHARDS = 3
TIMEOUT = 120  # seconds one inner session may take: a hang fails the module, never the run


def _build(folder: Path, judge: str) -> None:
    folder.mkdir()
    (folder / "pytest.ini").write_text(INI.format(judge=judge).lstrip())
    (folder / "agent.py").write_text(AGENT.lstrip())
    for kind in KINDS:
        path = folder / "golden" / kind / "cases.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(textwrap.dedent(CASE_FILES[kind]).lstrip())


def _sessions(folder: Path) -> list[list[str]]:
    """The one-process run and the three shards, as argument lists."""
    shards = [
        [
            *("--splits", str(SHARDS), "--group", str(i)),
            f"--jsonmatch-shard={i}/{SHARDS}",
            f"--jsonmatch-report={folder / f'shard-{i}.json'}",
        ]
        for i in range(1, SHARDS + 1)
    ]
    return [[f"--jsonmatch-report={folder / 'one.json'}"], *shards]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The suite's folder once its four sessions ran (at once: each is a process of its
    own), holding ``one.json`` and ``shard-1.json`` to ``shard-3.json``."""
    judge = JudgeServer()
    judge.same.update(frozenset(pair) for pair in SAME_MEANING)
    folder = tmp_path_factory.mktemp("agents") / "suite"
    with serving(judge):
        _build(folder, judge.url)
        started = [
            subprocess.Popen(
                [*PYTEST, *argv],
                cwd=folder,
                env=environment(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for argv in _sessions(folder)
        ]
        said = [p.communicate(timeout=TIMEOUT)[0] for p in started]
    # each session's exit status and output, shown where the sessions did not run the suite
    shown = "\n".join(
        f"-- {argv} exited {p.returncode}:\n{out}"
        for argv, p, out in zip(_sessions(folder), started, said)
    )
    for name in ("one.json", *(f"shard-{i}.json" for i in range(1, SHARDS + 1))):
        assert (folder / name).is_file(), shown
    # the shards between them ran each run of each case the one process ran, once
    shards = [run for i in range(1, SHARDS + 1) for run in _runs(folder / f"shard-{i}.json")]
    assert sorted(shards) == sorted(_runs(folder / "one.json")), shown
    yield folder


@pytest.fixture
def root(suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the suite, its shards' reports included, as the working directory."""
    copy = tmp_path / "suite"
    shutil.copytree(suite, copy)
    monkeypatch.chdir(copy)
    return copy


def _read(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _runs(path: Path) -> list[tuple[str, int]]:
    """The runs a report holds, as (case, run)."""
    return [(c["case_id"], c["repeat"]) for c in _read(path)["comparisons"]]


def _edit(path: Path, change: Any) -> None:
    report = _read(path)
    change(report)
    path.write_text(json.dumps(report), encoding="utf-8")


def _shard_of(root: Path, case: str) -> Path:
    """The shard's report that ran ``case`` (its id's end)."""
    for i in range(1, SHARDS + 1):
        path = root / f"shard-{i}.json"
        if any(c["case_id"].endswith(f"::{case}") for c in _read(path)["comparisons"]):
            return path
    raise AssertionError(f"no shard ran {case}")


def _merge(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    shards = [f"shard-{i}.json" for i in range(1, SHARDS + 1)]
    code = main(["merge", *shards, "-o", "run.json", "--format", "json", *extra])
    return code, capsys.readouterr().err


def _comparison(report: Any, case: str, repeat: int = 0) -> Any:
    (found,) = [
        c
        for c in report["comparisons"]
        if c["case_id"].endswith(f"::{case}") and c["repeat"] == repeat
    ]
    return found


# -- honest shards ---------------------------------------------------------------------------


def test_honest_shards_of_failing_replies_and_runs_merge_as_one_process_scores_them(root, capsys):
    code, err = _merge(capsys)
    assert err == ""
    one, merged = _read(root / "one.json"), _read(root / "run.json")
    # the gates' verdict, as the one process judged it (exit status 1 where a gate failed)
    assert code == (0 if one["gates"]["passed"] else 1)
    assert same_figures(one, merged, Row("main"), "merged") == []
    for kind in KINDS:  # (each kind's cases, comparisons, rows and field tables too)
        assert same_figures(one, merged, Row("main", kind), "merged") == []
    # chatty: its answer's 3 rows score F1 0, its call's 4 rows F1 6/7: (3 * 0 + 4 * 6/7) / 7
    # = 24/49, under the F1 3/5 of all its 7 rows (3 of 5 on each side match)
    chatty = _comparison(merged, "chatty")
    assert chatty["score"] == pytest.approx(24 / 49)
    assert (chatty["precision"], chatty["recall"], chatty["f1"]) == pytest.approx((0.6, 0.6, 0.6))
    assert chatty["parts"] == [
        {"name": "answer", "metric": "field_f1", "rows": 3, "score": 0.0},
        {"name": "calls", "metric": "tool_calls", "rows": 4, "score": pytest.approx(6 / 7)},
    ]
    # rome: its answer (2 rows, 1), its run (6 rows, 4 match: 2/3), its state (3 rows, 2/3):
    # (2 * 1 + 6 * 2/3 + 3 * 2/3) / 11 = 8/11
    rome = _comparison(merged, "rome")
    assert rome["metric"] == "field_f1+trajectory+state"
    assert rome["score"] == pytest.approx(8 / 11)
    assert [p["rows"] for p in rome["parts"]] == [2, 6, 3]
    assert [p["name"] for p in rome["parts"]] == ["answer", "trajectory", "state"]


def test_a_repeated_case_whose_file_names_the_judge_merges_without_reading_it(root, capsys):
    # the case file that names the semantic judge (merge has none) is not read: each run of
    # the repeated cases records the runs it was asked for; gone from the merge's root, the
    # file is not missed
    (root / "golden" / "repeated" / "cases.yaml").unlink()
    code, err = _merge(capsys)
    assert err == "" and code in (0, 1)
    one, merged = _read(root / "one.json"), _read(root / "run.json")
    assert same_figures(one, merged, Row("main", "repeated"), "merged") == []
    (flaky,) = [c for c in merged["cases"] if c["case_id"].endswith("::flaky")]
    assert flaky["runs"] == 3
    assert {_comparison(merged, "flaky", k)["repeats"] for k in range(3)} == {3}


# -- shards an older plugin wrote ------------------------------------------------------------


def _as_older_plugin(report: Any) -> None:
    """A report as a plugin that recorded no count of a case's runs wrote it."""
    for c in report["comparisons"]:
        c.pop("repeats", None)


def _each_shard(root: Path, change: Any) -> None:
    for i in range(1, SHARDS + 1):
        _edit(root / f"shard-{i}.json", change)


def test_an_older_shard_whose_case_file_needs_the_judge_is_refused_saying_what_to_do(root, capsys):
    _each_shard(root, _as_older_plugin)
    code, err = _merge(capsys)
    assert code == 2
    assert err.startswith("jsonmatch: error: shard-")
    assert ": case 'golden/repeated/cases.yaml::" in err
    assert "comparator 'semantic' needs a judge" in err
    assert "run the shards with this version" in err
    assert "Traceback" not in err and "\n" not in err.strip()


def test_shards_written_before_parts_were_named_merge_and_name_them(root, capsys):
    def unnamed(report: Any) -> None:
        for c in report["comparisons"]:
            for part in c.get("parts", ()):
                del part["name"]

    _each_shard(root, unnamed)
    code, err = _merge(capsys)
    assert err == "" and code in (0, 1)
    one, merged = _read(root / "one.json"), _read(root / "run.json")
    assert same_figures(one, merged, Row("main"), "merged") == []
    # each part named by what scored it and where it stands, as the one process named it
    for case in ("chatty", "rome"):
        assert _comparison(merged, case)["parts"] == _comparison(one, case)["parts"]


def test_an_older_shard_whose_case_file_needs_no_judge_still_merges(root, capsys):
    # the repeated cases' file without its judged field (as the shards ran it: their record
    # of its SHA-256 made the new file's): read for the cases' runs, as before comparisons
    # recorded them
    path = root / "golden" / "repeated" / "cases.yaml"
    text = path.read_text()
    path.write_text(text.replace("options: {fields: {note: {comparator: semantic}}}\n", ""))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()

    def older(report: Any) -> None:
        _as_older_plugin(report)
        golden = report["run"]["provenance"]["golden"]
        if "golden/repeated/cases.yaml" in golden:
            golden["golden/repeated/cases.yaml"] = digest
        report["run"]["provenance"].pop("golden_digest", None)

    _each_shard(root, older)
    code, err = _merge(capsys)
    assert err == "" and code in (0, 1)


# -- forged shards ---------------------------------------------------------------------------


def _forged(root: Path, case: str, change: Any) -> Path:
    path = _shard_of(root, case)
    _edit(path, lambda r: change(_comparison(r, case)))
    return path


def test_a_reply_lifted_to_its_parts_f1_over_all_rows_is_refused(root, capsys):
    # the score the merge used to rescore chatty with (F1 of all rows, 0.6) is not the
    # engine's: its parts make 24/49
    path = _forged(root, "chatty", lambda c: c.update(score=0.6))
    code, err = _merge(capsys)
    assert code == 2
    assert f"{path.name}: case 'golden/reply/cases.yaml::chatty' run 0: score 0.6 is not" in err
    assert "weighted by their rows (0.4897959183673469)" in err


def test_a_part_scored_other_than_its_rows_give_is_refused(root, capsys):
    # the answer's part of wrong_date lifted to 1.0 and its score to what that makes:
    # (3 * 1 + 3 * 2/3) / 6 = 5/6; its 3 answer rows (1 match of 2 fields, a note made up)
    # give F1 0.4
    def lifted(c: Any) -> None:
        c["parts"][0]["score"] = 1.0
        c["score"] = 5 / 6

    path = _forged(root, "wrong_date", lifted)
    code, err = _merge(capsys)
    assert code == 2
    assert f"{path.name}: case 'golden/reply/cases.yaml::wrong_date' run 0: its field_f1 " in err
    assert "part (part 1) scores 1.0, not what field_f1 makes of the precision" in err
    assert "and recall 0.5 of its 3 field rows" in err


def test_parts_that_hold_other_rows_than_the_comparisons_are_refused(root, capsys):
    # the run's part of rome given one row of the state's: the rows no longer add up
    def moved(c: Any) -> None:
        c["parts"][1]["rows"] += 1

    _forged(root, "rome", moved)
    code, err = _merge(capsys)
    assert code == 2
    assert "rome' run 0: its 3 parts hold 12 field rows, not its 11" in err


def test_runs_that_record_different_counts_are_refused(root, capsys):
    path = _shard_of(root, "flaky")

    def recount(report: Any) -> None:
        _comparison(report, "flaky", 2)["repeats"] = 2

    _edit(path, recount)
    code, err = _merge(capsys)
    assert code == 2
    assert "flaky': its runs record different counts of runs asked for (repeats: 2, 3)" in err


def test_a_run_dropped_from_a_case_that_records_its_runs_is_refused(root, capsys):
    # flaky's failing run (run 1, scoring 1/2) dropped, the last run renumbered 1: two runs
    # of the three it records it was asked for, and the shard did not stop early
    def dropped(report: Any) -> None:
        runs = [c for c in report["comparisons"] if c["case_id"].endswith("::flaky")]
        report["comparisons"].remove(runs[1])
        runs[2]["repeat"] = 1
        for case in report["cases"]:
            if case["case_id"].endswith("::flaky"):
                case["runs"] = 2

    path = _shard_of(root, "flaky")
    _edit(path, dropped)
    code, err = _merge(capsys)
    assert code == 2
    assert f"{path.name}: case 'golden/repeated/cases.yaml::flaky' has 2 runs" in err
    assert "give 3" in err
