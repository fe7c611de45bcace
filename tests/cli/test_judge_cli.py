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
    # what Retry-After asks (two 429s of 1 s each), and scores as if nothing had happened
    srv = JudgeServer()
    srv.storm, srv.after = 2, "1"
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
    assert srv.started[2] - srv.started[0] >= 2.0  # the waits Retry-After asked for


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
