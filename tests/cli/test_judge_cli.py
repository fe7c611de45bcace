"""The command line's judge and plugins (cli/extensions.py): one schema file with a
``semantic`` field and a project's own comparator serves ``jsonmatch score`` as it serves
pytest. The judge is a real OpenAI-compatible server on 127.0.0.1, called by the command
(a subprocess) through the standard library's HTTP client."""

from __future__ import annotations

import json

import pytest

from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer

from .run import jsonmatch

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "summary": {"type": "string", "x-eval-compare": "semantic"},
        "port": {"type": "string", "x-eval-compare": "same_port"},
    },
}
PLUGIN = """
from pytest_jsonmatch import register_comparator

def pytest_jsonmatch_register(registry):
    registry.register_comparator(
        "same_port", lambda e, a, params: float(e.split()[0] == a.split()[0])
    )
"""


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "manifest.schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "ports.py").write_text(PLUGIN)
    gold = [
        {"id": 1, "summary": "two boxes, Monday", "port": "Rotterdam NL"},
        {"id": 2, "summary": "fragile", "port": "Hamburg"},
    ]
    pred = [
        {"id": 1, "summary": "2 boxes on Monday", "port": "Rotterdam"},
        {"id": 2, "summary": "sturdy", "port": "Hamburg DE"},
    ]
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pred))
    return tmp_path


def test_score_loads_the_plugin_and_the_judge(suite):
    srv = JudgeServer()
    srv.same.add(frozenset(("two boxes, monday", "2 boxes on monday")))
    with serving(srv):
        proc = jsonmatch(
            "score",
            "gold.jsonl",
            "pred.jsonl",
            "--schema",
            "manifest.schema.json",
            "--plugins",
            "ports",
            "--judge",
            f"model=j endpoint={srv.url}",
            "--format",
            "json",
            cwd=suite,
        )
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    scores = [c["mean_score"] for c in report["cases"]]
    # record 1: id, summary (judged 1), port all match: 1.0; record 2: id and port match,
    # summary judged 0: 2 of 3 fields, precision = recall = F1 = 2/3
    assert scores == pytest.approx([1.0, 2 / 3])
    assert srv.total == 2  # one request per record


def test_score_retries_a_429_storm_as_retry_after_says(suite):
    # no runner sends the command's judge requests: the judge retries them itself, waiting
    # what Retry-After asks (two 429s of 0.6 s each: fractional seconds, as retry_after.py
    # reads them), and scores as if nothing had happened. 0.6 s is past the backoff's first
    # wait (0.25 to 0.5 s), which a judge backing off instead would wait
    srv = JudgeServer()
    srv.storm, srv.after = 2, "0.6"
    srv.same.add(frozenset(("two boxes, monday", "2 boxes on monday")))
    with serving(srv):
        proc = jsonmatch(
            "score",
            *("gold.jsonl", "pred.jsonl", "--schema", "manifest.schema.json"),
            *("--plugins", "ports", "--judge", f"model=j endpoint={srv.url}", "-f", "json"),
            cwd=suite,
        )
    assert proc.returncode in (0, 1), proc.stderr
    scores = [c["mean_score"] for c in json.loads(proc.stdout)["cases"]]
    assert scores == pytest.approx([1.0, 2 / 3])  # as without the storm (the test above)
    assert srv.total == 4  # record 1: two 429s and its answer; record 2: one request
    assert srv.started[1] - srv.started[0] >= 0.55  # the first wait as asked, not backed off
    assert srv.started[2] - srv.started[0] >= 1.2  # the waits Retry-After asked for


def test_without_the_plugin_the_schema_is_refused_naming_the_comparator(suite):
    proc = jsonmatch(
        "score",
        "gold.jsonl",
        "pred.jsonl",
        "--schema",
        "manifest.schema.json",
        "--judge",
        "model=j",
        cwd=suite,
    )
    assert proc.returncode == 2
    assert "unknown comparator 'same_port'" in proc.stderr


def test_a_semantic_schema_without_a_judge_says_how_to_give_one(suite):
    proc = jsonmatch(
        "score",
        "gold.jsonl",
        "pred.jsonl",
        "--schema",
        "manifest.schema.json",
        "--plugins",
        "ports",
        cwd=suite,
    )
    assert proc.returncode == 2
    assert "comparator 'semantic' needs a judge" in proc.stderr
    assert "--judge" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--plugins", "no_such_module_here"), "--plugins no_such_module_here: cannot import it"),
        (("--judge", "model=j retries=3"), "--judge: retries are for the pytest plugin's runner"),
        (("--judge", "model=j key=sk-1"), "--judge: give key_env=NAME"),
    ],
)
def test_bad_extension_options_are_named(suite, args, message):
    proc = jsonmatch("score", "gold.jsonl", "pred.jsonl", *args, cwd=suite)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_score_says_what_the_judge_did_in_every_output(suite):
    # two records, one judged field each, neither equal: two requests of one item each; the
    # server reports 100 prompt and 10 completion tokens a request, so 200 in and 20 out,
    # at 1 and 2 per million tokens: 200 * 1e-6 + 20 * 2e-6 = 0.00024
    srv = JudgeServer()
    srv.same.add(frozenset(("two boxes, monday", "2 boxes on monday")))
    judge = f"model=j endpoint={srv.url} price_in=1 price_out=2"
    args = ("gold.jsonl", "pred.jsonl", "--schema", "manifest.schema.json", "--plugins", "ports")
    with serving(srv):
        out = {
            fmt: jsonmatch("score", *args, "--judge", judge, "-f", fmt, cwd=suite)
            for fmt in ("json", "text", "markdown", "html")
        }
    assert srv.total == 4 * 2  # each output's run judged its two records
    for fmt, proc in out.items():
        assert proc.returncode in (0, 1), (fmt, proc.stderr)
    figures = json.loads(out["json"].stdout)["run"]["judge"]
    assert figures["requests"] == figures["attempts"] == figures["sent"] == 2
    assert (figures["input_tokens"], figures["output_tokens"]) == (200, 20)
    assert figures["cost"] == pytest.approx(0.00024)
    assert (figures["equal"], figures["reused"], figures["not_judged"]) == (0, 0, 0)
    assert "<h2>The judge</h2>" in out["html"].stdout  # (no target was called)
    for fmt in ("text", "markdown", "html"):  # (Markdown escapes the brackets)
        shown = out[fmt].stdout.replace("\\(", "(").replace("\\)", ")")
        assert "judge: 2 requests (2 attempts, " in shown, (fmt, shown[-800:])
        assert (
            "2 items sent, 0 equal (not sent), 0 reused, 0 not judged; tokens 200 in, 20 out"
            in shown
        )


def test_a_run_without_a_judged_field_reports_no_judge(suite):
    proc = jsonmatch("score", "gold.jsonl", "pred.jsonl", "-f", "json", cwd=suite)
    assert proc.returncode in (0, 1), proc.stderr
    assert "judge" not in json.loads(proc.stdout)["run"]


THREADED = (
    PLUGIN
    + """
import threading

# a thread of its own (a client's pool, say): the command's workers are then spawned, not
# forked (cli/parallel.py), and each must load this module and the judge itself
_idle = threading.Event()
threading.Thread(target=_idle.wait, daemon=True).start()
"""
)


def test_spawned_workers_load_the_plugins_and_the_judge_the_command_was_given(suite):
    (suite / "threaded.py").write_text(THREADED)
    srv = JudgeServer()
    srv.same.add(frozenset(("two boxes, monday", "2 boxes on monday")))
    args = ("gold.jsonl", "pred.jsonl", "--schema", "manifest.schema.json", "-f", "json")
    with serving(srv):
        runs = {
            jobs: jsonmatch(
                "score",
                *args,
                *("--plugins", "threaded", "--judge", f"model=j endpoint={srv.url}"),
                *("-j", str(jobs)),
                cwd=suite,
            )
            for jobs in (1, 2)
        }
    reports = {}
    for jobs, proc in runs.items():
        assert proc.returncode in (0, 1), (jobs, proc.stderr)
        reports[jobs] = json.loads(proc.stdout)
    # as test_score_loads_the_plugin_and_the_judge scores them, -j 2 as -j 1
    for report in reports.values():
        assert [c["mean_score"] for c in report["cases"]] == pytest.approx([1.0, 2 / 3])
        assert report["run"]["judge"]["requests"] == 2  # counted in the workers too
    assert srv.total == 4
