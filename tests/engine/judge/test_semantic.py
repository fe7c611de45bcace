"""The built-in judge (engine/judge/: semantic.py, http_transport.py) against a real
OpenAI-compatible server on 127.0.0.1 (tests/helpers/judge_server.py), called through the
standard library's HTTP client: batching counted at the server, the equality short-circuit,
each malformed reply, memory of verdicts, a judge that is down, costs worked out by hand."""

from __future__ import annotations

import json
import socket
import time
import types

import pytest

from pytest_jsonmatch import (
    REGISTRY,
    ConfigError,
    JudgeReply,
    JudgeSettings,
    evaluate_records,
    match_json,
)
from pytest_jsonmatch.engine.judge import sending
from pytest_jsonmatch.engine.judge.verdicts import read_verdicts
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

SEM = {"comparator": "semantic"}


@pytest.fixture
def server():
    srv = JudgeServer()
    before = REGISTRY.state()
    with serving(srv):
        REGISTRY.configure_judge(JudgeSettings(model="judge-1", endpoint=srv.url), transport=None)
        try:
            yield srv
        finally:
            REGISTRY.restore(before)


def _statuses(result):
    return {f.path: (f.status, f.score, f.reason) for f in result.fields}


def test_one_request_per_record_and_the_field_path_travels(server):
    server.same.add(frozenset(("pvd", "physical vapour deposition")))
    r = match_json(
        {"method": "PVD", "note": "cold", "items": [{"d": "blue"}, {"d": "red"}]},
        {
            "method": "physical vapour deposition",
            "note": "warm",
            "items": [{"d": "navy"}, {"d": "red"}],
        },
        fields={"method": SEM, "note": SEM, "items[].d": SEM},
    )
    # one request for the record; "red" == "red" never sent: 3 items in it
    assert server.total == 1
    assert [i[0] for i in server.items_sent[0]] == ["method", "note", "items[].d"]
    got = _statuses(r)
    assert got["method"][:2] == ("match", 1.0)
    assert got["note"][:2] == ("mismatch", 0.0)
    assert got["items[0].d"][:2] == ("mismatch", 0.0)
    assert got["items[1].d"][:2] == ("match", 1.0)
    # 2 of 4 fields match: precision = recall = 0.5
    assert r.precision == 0.5 and r.recall == 0.5
    assert server.bodies[0]["model"] == "judge-1" and server.bodies[0]["temperature"] == 0


def test_batch_size_splits_a_record(server):
    REGISTRY.configure_judge(JudgeSettings(model="judge-1", endpoint=server.url, batch=2))
    fields = dict.fromkeys("abcde", SEM)
    match_json({k: k + "x" for k in "abcde"}, {k: k + "y" for k in "abcde"}, fields=fields)
    # five items, at most two a request: 2 + 2 + 1
    assert [len(items) for items in server.items_sent] == [2, 2, 1]


def test_equal_after_the_fields_transforms_is_never_sent(server):
    r = match_json(
        {"a": "  Paris ", "b": "Lyon"},
        {"a": "paris", "b": "Lyon"},
        fields={"a": {"comparator": "semantic", "transform": ["strip", "lowercase"]}, "b": SEM},
    )
    assert server.total == 0
    assert r.score == 1.0
    assert REGISTRY.judge.figures.equal == 2


def test_extract_eval_schema_spelling(server):
    schema = {
        "type": "object",
        "properties": {"summary": {"type": "string", "x-eval-compare": "semantic"}},
    }
    run = evaluate_records(
        [{"summary": "ships Monday"}, {"summary": "two boxes"}],
        [{"summary": "Ships monday"}, {"summary": "three boxes"}],
        schema=schema,
    )
    # record 1 equal ignoring case but not after transforms: sent, judged 1; record 2: 0
    assert [r.fields[0].status for r in run.records] == ["match", "mismatch"]
    assert server.total == 2


@pytest.mark.parametrize(
    ("content", "finish", "want"),
    [
        # too few verdicts: the third item is undecided
        ('{"results": [1, 0]}', "stop", ["match", "mismatch", "batch_error"]),
        # a value other than 0/1 leaves exactly that item undecided
        ('{"results": [1, 0.5, "0"]}', "stop", ["match", "batch_error", "mismatch"]),
        # prose: nothing decided
        ("They all look the same to me.", "stop", ["batch_error"] * 3),
        # cut off after two complete verdicts; the third may have been cut inside
        ('{"results": [1, 0, 1', "length", ["match", "mismatch", "batch_error"]),
        # verdicts past the items are ignored (extract-eval's rule)
        ('{"results": [0, 1, 1, 0]}', "stop", ["mismatch", "match", "match"]),
        # fenced JSON is read
        ('```json\n{"results": [true, false, "1"]}\n```', "stop", ["match", "mismatch", "match"]),
    ],
)
def test_malformed_replies_leave_exactly_the_undecided_items(server, content, finish, want):
    server.answer = lambda items: content
    server.finish = finish
    r = match_json(
        {"a": "1", "b": "2", "c": "3"},
        {"a": "x", "b": "y", "c": "z"},
        fields={"a": SEM, "b": SEM, "c": SEM},
    )
    assert [f.status for f in r.fields] == want
    for f in r.fields:
        if f.status == "batch_error":
            assert f.reason.startswith("judge 'judge-1' at http://127.0.0.1:")
    if "batch_error" in want:
        assert r.batch_errors == want.count("batch_error")


def test_reasons_say_what_was_wrong():
    reply = JudgeReply('{"results": [1]}')
    assert read_verdicts(reply, 2) == [1.0, "the judge gave 1 verdicts for 2 items"]
    assert read_verdicts(JudgeReply('{"results": ["maybe"]}'), 1) == [
        "the judge's verdict 'maybe' is not 0 or 1"
    ]
    cut = read_verdicts(JudgeReply('{"results": [1, ', "length"), 2)
    assert cut == [1.0, "the judge's reply was cut off by its token limit after 1 verdicts"]
    assert read_verdicts(JudgeReply("[1]"), 1) == ["the judge's reply has no 'results' list: '[1]'"]


def test_a_reply_nested_past_the_json_readers_depth_leaves_its_items_undecided():
    # json.loads recurses once per level: 100,000 levels are a RecursionError, not a verdict
    for text, finish in (("[" * 100_000, None), ('{"a":' * 100_000, "length")):
        verdicts = read_verdicts(JudgeReply(text, finish), 2)
        assert len(verdicts) == 2
        assert all(v.startswith("the judge's reply nests too deep to read: ") for v in verdicts)


def test_identical_items_are_asked_once_in_a_run(server):
    for _ in range(3):
        match_json({"a": "one", "b": "one"}, {"a": "uno", "b": "uno"}, fields={"a": SEM, "b": SEM})
    # a and b are different fields: 2 items, one request; the next two records reuse them
    assert server.total == 1
    assert REGISTRY.judge.figures.reused == 4
    # the same values under one field in two elements: sent once
    match_json(
        {"xs": [{"n": "alpha"}, {"n": "alpha"}]},
        {"xs": [{"n": "ALFA"}, {"n": "ALFA"}]},
        fields={"xs[].n": SEM},
    )
    assert len(server.items_sent[1]) == 1


def test_cost_and_tokens_worked_out_by_hand(server):
    REGISTRY.configure_judge(
        JudgeSettings(model="judge-1", endpoint=server.url, batch=1, price_in=2.0, price_out=8.0)
    )
    match_json({"a": "x", "b": "y"}, {"a": "p", "b": "q"}, fields={"a": SEM, "b": SEM})
    f = REGISTRY.judge.figures
    # two requests of 100 tokens in and 10 out each (the server's usage)
    assert (f.requests, f.input_tokens, f.output_tokens) == (2, 200, 20)
    # 200 * 2.0 / 1e6 + 20 * 8.0 / 1e6 = 0.0004 + 0.00016
    assert f.cost == pytest.approx(0.00056, rel=1e-12)


def test_the_key_is_read_from_the_variable_named(server, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", "sk-test-123")
    REGISTRY.configure_judge(
        JudgeSettings(model="judge-1", endpoint=server.url, key_env="JUDGE_KEY_FOR_TEST")
    )
    match_json({"a": "x"}, {"a": "y"}, fields={"a": SEM})
    assert server.auth == ["Bearer sk-test-123"]


def jitter_low(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's backoff jitter held at its low end (0.25 s, then 0.5 s): a wait as
    ``Retry-After`` asks is then told apart from a backoff."""
    monkeypatch.setattr(sending, "random", types.SimpleNamespace(random=lambda: 0.0))


def test_a_judge_that_is_down_is_asked_once_and_named(monkeypatch):
    # the backoff's jitter held at its low end (0.25 s, then 0.5 s; 0.5 s then 1 s at most):
    # the attempts and the name are the promise, not how long the backoff happened to be
    jitter_low(monkeypatch)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    before = REGISTRY.state()
    try:
        REGISTRY.configure_judge(f"model=judge-1 endpoint=http://127.0.0.1:{port}/v1")
        start = time.monotonic()
        results = [match_json({"a": f"x{i}"}, {"a": f"y{i}"}, fields={"a": SEM}) for i in range(20)]
        assert time.monotonic() - start < 5
        first, later = results[0].fields[0], results[-1].fields[0]
        assert first.status == later.status == "batch_error"
        assert f"judge 'judge-1' at http://127.0.0.1:{port}/v1" in first.reason
        assert "cannot reach" in first.reason and "(3 attempts)" in first.reason
        assert "not asked" in later.reason and "unreachable earlier" in later.reason
        # one request, tried three times (two retries, backing off), then never again
        assert (REGISTRY.judge.figures.requests, REGISTRY.judge.figures.attempts) == (1, 3)
    finally:
        REGISTRY.restore(before)


def test_evaluate_records_retries_a_429_storm_as_retry_after_says(server, monkeypatch):
    # outside pytest no runner sends the judge's requests: the judge retries them itself,
    # as the runner would. Two 429s asking for 0.5 s each, then answers (a fractional
    # Retry-After, as retry_after.py reads it; tests/plugin/test_judge.py keeps an integer
    # one waited at its full second). The backoff's jitter held at its low end: a judge
    # that backed off instead of waiting as asked would wait 0.25 s, then 0.5 s
    jitter_low(monkeypatch)
    server.storm, server.after = 2, "0.5"
    start = time.monotonic()
    run = evaluate_records(
        [{"s": "ships Monday"}, {"s": "two boxes"}],
        [{"s": "Ships monday"}, {"s": "three boxes"}],
        fields={"s": SEM},
    )
    took = time.monotonic() - start
    assert [r.fields[0].status for r in run.records] == ["match", "mismatch"]
    # record 1: two 429s and its answer; record 2: one request
    assert server.total == 4
    assert (REGISTRY.judge.figures.requests, REGISTRY.judge.figures.attempts) == (2, 4)
    assert took >= 1.0  # both waits Retry-After asked for


def test_a_judge_answering_only_errors_costs_evaluate_records_a_bounded_time(server, monkeypatch):
    # every request a 503 asking to wait 0.4 s, against a budget of 0.6 s of waits (30 s
    # in use, scaled down here with the wait to keep the test short): the second wait would
    # pass the budget, so the first request gives up after two attempts and the rest are
    # never sent. (The backoff's jitter held low: backing off, not waiting as asked, would
    # wait 0.25 s first)
    monkeypatch.setattr(sending, "RETRY_BUDGET_S", 0.6)
    jitter_low(monkeypatch)
    server.storm, server.after, server.status = 1000, "0.4", 503
    start = time.monotonic()
    run = evaluate_records(
        [{"s": f"a{i}"} for i in range(10)], [{"s": f"b{i}"} for i in range(10)], fields={"s": SEM}
    )
    took = time.monotonic() - start
    assert took >= 0.4  # the one wait the server asked for, within the budget
    assert took < 0.6 + 10  # the budget, and a generous margin
    assert server.total == 2
    reasons = [r.fields[0].reason for r in run.records]
    assert "HTTP 503" in reasons[0] and "(2 attempts)" in reasons[0]
    assert all("unreachable earlier in this run" in r for r in reasons[1:])


def test_a_users_transport_keeps_the_projects_rules(server):
    seen = []

    def transport(request):
        seen.append(request)
        return JudgeReply(json.dumps({"results": [1] * request.items}), "stop", 7, 1)

    REGISTRY.configure_judge(transport=transport)
    r = match_json({"a": "x", "b": "k"}, {"a": "y", "b": "k"}, fields={"a": SEM, "b": SEM})
    assert r.score == 1.0 and len(seen) == 1 and seen[0].items == 1
    assert server.total == 0  # the transport replaced the HTTP client


def test_settings_are_checked(tmp_path, server):
    (tmp_path / "p.txt").write_text("judge these: {items}")
    with pytest.raises(ConfigError, match=r"has no \{pairs\} placeholder"):
        REGISTRY.configure_judge(f"model=m prompt={tmp_path / 'p.txt'}")
    with pytest.raises(ConfigError, match="give key_env=NAME"):
        REGISTRY.configure_judge("model=m key=sk-123")
    with pytest.raises(ConfigError, match=r"unknown key 'modle' \(did you mean 'model'\?\)"):
        REGISTRY.configure_judge("modle=m")
    with pytest.raises(ConfigError, match="batch must be a whole number"):
        REGISTRY.configure_judge("model=m batch=0")


def test_semantic_without_a_judge_is_a_config_error():
    before = REGISTRY.state()
    try:
        REGISTRY.configure_judge(None)
        with pytest.raises(ConfigError, match="comparator 'semantic' needs a judge"):
            match_json({"a": "x"}, {"a": "y"}, fields={"a": SEM})
    finally:
        REGISTRY.restore(before)


def test_a_custom_prompt_template_is_used(tmp_path, server):
    (tmp_path / "p.txt").write_text('Shipping judge. {"keep": "braces"}\n{pairs}\nJSON only.')
    REGISTRY.configure_judge(f"model=m endpoint={server.url} prompt={tmp_path / 'p.txt'}")
    match_json({"a": "x"}, {"a": "y"}, fields={"a": SEM})
    prompt = server.bodies[0]["messages"][0]["content"]
    assert prompt.startswith('Shipping judge. {"keep": "braces"}\n1. field "a": reference')
