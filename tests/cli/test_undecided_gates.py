"""A comparison the judge left undecided passes no gate of the command line: ``jsonmatch
score`` with a judge that answers in prose or is down, ``report`` and ``diff`` of the report
that run wrote (its stored verdict is not what is read), and ``merge`` of shards whose
comparisons were left undecided (reporting/verdicts/undecided_verdicts.py). The judge is a real server on
127.0.0.1, or a port with nothing listening; the commands run as subprocesses."""

from __future__ import annotations

import json
import socket
from contextlib import contextmanager

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

from .run import jsonmatch

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "summary": {"type": "string", "x-eval-compare": "semantic"},
    },
}
GOLD = [{"id": 1, "summary": "two boxes, Monday"}, {"id": 2, "summary": "fragile"}]
PRED = [{"id": 1, "summary": "2 boxes on Monday"}, {"id": 2, "summary": "handle with care"}]
UNDECIDED = "the judge left 2 comparisons undecided ("
NO_GATE = "no gate passes on a comparison the judge did not decide"


@pytest.fixture
def dataset(tmp_path):
    (tmp_path / "s.schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLD))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PRED))
    return tmp_path


def _free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _judge(kind: str):
    """The judge's setting: a server that answers in prose, one that deems every pair the
    same, or a port with nothing listening."""
    if kind == "down":
        yield f"model=j endpoint=http://127.0.0.1:{_free_port()}/v1"
        return
    srv = JudgeServer()
    if kind == "prose":
        srv.answer = lambda items: "They all look the same to me."
    else:
        srv.same |= {
            frozenset(map(str.lower, (g["summary"], p["summary"]))) for g, p in zip(GOLD, PRED)
        }
    with serving(srv):
        yield f"model=j endpoint={srv.url}"


def _score(dataset, kind: str, report: str) -> object:
    with _judge(kind) as judge:
        return jsonmatch(
            *("score", "gold.jsonl", "pred.jsonl", "--schema", "s.schema.json"),
            *("--judge", judge, "--fail-under", "0.9", "--report", report),
            cwd=dataset,
        )


@pytest.mark.parametrize("kind", ["prose", "down"])
def test_score_fails_its_gate_when_the_judge_decides_nothing(dataset, kind):
    proc = _score(dataset, kind, "out.json")
    # each record's id matches and its summary was not judged: left out of precision and
    # recall, it once read 1.0 and passed --fail-under 0.9; undecided, it is an error (0)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert UNDECIDED in proc.stdout and NO_GATE in proc.stdout
    report = json.loads((dataset / "out.json").read_text())
    assert report["overall"] == 0.0
    assert report["gates"]["passed"] is False
    assert report["gates"]["failures"][0].startswith(UNDECIDED)
    assert [c["status"] for c in report["cases"]] == ["error", "error"]
    assert [c["undecided"] for c in report["comparisons"]] == [1, 1]
    assert all("1 field could not be scored" in c["error"] for c in report["comparisons"])
    assert report["metrics"]["field_f1"]["undecided"] == 2
    assert report["run"]["judge"]["not_judged"] == 2


@pytest.mark.parametrize("kind", ["prose", "down"])
def test_report_and_diff_of_a_saved_run_fail_on_its_undecided_comparisons(dataset, kind):
    assert _score(dataset, "decides", "base.json").returncode == 0  # both pairs the same
    assert _score(dataset, kind, "new.json").returncode == 1
    saved = json.loads((dataset / "new.json").read_text())
    # the stored verdict forged to a pass: what the report holds is read, not what it says
    saved["gates"] = {"passed": True, "failures": [], "warnings": [], "checked": ["forged"]}
    (dataset / "forged.json").write_text(json.dumps(saved))
    for name in ("new.json", "forged.json"):
        proc = jsonmatch("report", name, "-f", "text", cwd=dataset)
        assert proc.returncode == 1, (name, proc.stdout + proc.stderr)
        assert UNDECIDED in proc.stdout and NO_GATE in proc.stdout
        assert "forged" not in proc.stdout
    proc = jsonmatch("diff", "base.json", "forged.json", "--max-drop", "1", cwd=dataset)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert UNDECIDED in proc.stdout


def test_a_report_written_before_the_count_was_kept_is_read_by_its_fields(dataset):
    # a comparison whose fields hold a batch_error, saved as failed, its case as passed and
    # its gates as passed (what the command once wrote): undecided all the same
    assert _score(dataset, "decides", "base.json").returncode == 0
    saved = json.loads((dataset / "base.json").read_text())
    for comparison in saved["comparisons"]:
        comparison["status"] = "failed"
    for heads in saved["field_heads"]:  # (each field's path, status, ... as the file keeps it)
        for head in heads:
            if head[0] == "summary":
                head[2], head[4] = "batch_error", 0.0
    (dataset / "old.json").write_text(json.dumps(saved))
    proc = jsonmatch("report", "old.json", "-f", "text", cwd=dataset)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the judge left 2 comparisons undecided: " + NO_GATE in proc.stdout
    proc = jsonmatch("diff", "base.json", "old.json", "--max-drop", "1", cwd=dataset)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the judge left 2 comparisons undecided" in proc.stdout


MERGED_SUITE = """
from pytest_jsonmatch import assert_json_match

def test_a():
    assert_json_match({"id": 1}, {"id": 1})

def test_b():
    assert_json_match({"id": 2}, {"id": 2})

def test_c():
    assert_json_match({"id": 3}, {"id": 3})

def test_judged():
    assert_json_match(
        {"id": 4, "s": "2 boxes"}, {"id": 4, "s": "two boxes"},
        fields={"s": {"comparator": "semantic"}},
    )
"""


def test_merged_shards_fail_on_a_comparison_the_judge_left_undecided(pytester, capsys):
    # four tests, one of them judged by a judge that answers in prose: 1 of 4 unscored is
    # within the 25% the unscored rule allows, and the overall 3 / 4 = 0.75 meets 0.7; the
    # undecided comparison alone fails the merged run
    srv = JudgeServer()
    srv.answer = lambda items: "They all look the same to me."
    pytester.makepyfile(test_suite=MERGED_SUITE)
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = model=j endpoint={srv.url}\n")
    paths = []
    with serving(srv):
        for i, selection in ((1, "test_a or test_b"), (2, "test_c or test_judged")):
            name = f"s{i}.json"
            pytester.runpytest_inprocess(
                *ARGS, "-k", selection, f"--jsonmatch-shard={i}/2", f"--jsonmatch-report={name}"
            )
            paths.append(str(pytester.path / name))
    capsys.readouterr()
    assert main(["merge", *paths, "--fail-under", "0.7"]) == 1
    out = capsys.readouterr().out
    assert "the judge left 1 comparison undecided (" in out, out
    assert "overall score 0.7500" in out
