"""Where comparisons go (channel.py): each session owns a Channel; golden items and the
``json_match`` fixture record through their session's, ``assert_json_match`` through the one a
context variable names while a session runs. A session run inside a test (pytester, in the
same process) has its own, and gives the outer test its channel back when it ends."""

from __future__ import annotations

import ast
import contextvars
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_jsonmatch import assert_json_match
from pytest_jsonmatch.session import channel
from tests.helpers.plugin_cases import ARGS, ONE_TEST, TWO_TESTS, write

SESSION = "jsonmatch-session"


def session_of(config: pytest.Config) -> Any:
    return config.pluginmanager.get_plugin(SESSION)


class Probe:
    """A plugin watching one session: its channel, every outcome that reaches that channel
    while a test runs (by test), and the comparisons the session gathered."""

    def __init__(self, decoy: channel.Channel | None = None) -> None:
        self.decoy = decoy  # made the current channel while each test runs, when given
        self.channel: channel.Channel | None = None
        self.current: list[channel.Channel] = []  # the current channel while each test ran
        self.outcomes: list[tuple[str, channel.Outcome]] = []
        self.comparisons: list[Any] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        session_channel = session_of(item.config).channel
        self.channel = session_channel
        recorder = session_channel.sink  # the session's record of this test

        def seen(outcome: channel.Outcome) -> None:
            self.outcomes.append((item.name, outcome))
            recorder(outcome)

        previous = session_channel.activate(seen)
        token = channel.enter(self.decoy) if self.decoy is not None else None
        self.current.append(channel.current())
        try:
            return (yield)
        finally:
            if token is not None:
                channel.leave(token)
            session_channel.activate(previous)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.comparisons = list(session_of(session.config).comparisons)


# -- a session inside a test ------------------------------------------------------------------


def test_a_session_run_inside_a_test_leaves_the_outer_tests_records_to_the_outer_session(
    pytester, request
):
    outer = session_of(request.config)
    assert channel.current() is outer.channel
    recorder = outer.channel.sink  # this test's, activated by the outer session
    assert recorder is not None
    before = len(outer.pending)

    pytester.makepyfile(TWO_TESTS)
    probe = Probe()
    pytester.runpytest_inprocess(*ARGS, plugins=[probe]).assert_outcomes(passed=1, failed=1)

    # the inner session recorded its two tests through a channel of its own ...
    assert probe.channel is not None and probe.channel is not outer.channel
    assert probe.current == [probe.channel, probe.channel]
    assert sorted(c.nodeid.split("::")[1] for c in probe.comparisons) == ["test_fail", "test_pass"]
    # ... and nothing of theirs reached this test's record
    assert len(outer.pending) == before
    # the outer channel is current again, with this test's sink: this comparison is ours
    assert channel.current() is outer.channel and outer.channel.sink is recorder
    assert_json_match({"a": 1}, {"a": 1}, metric="field_match")
    assert len(outer.pending) == before + 1
    assert outer.pending[-1].nodeid == request.node.nodeid
    assert outer.pending[-1].metric == "field_match"


def test_two_sessions_have_distinct_channels_each_receiving_only_its_own_comparisons(pytester):
    write(pytester, "first/test_first.py", ONE_TEST)  # field_match, threshold 0.5
    write(
        pytester,
        "second/test_second.py",
        """\
        from pytest_jsonmatch import assert_json_match

        def test_two(json_match):
            json_match({"a": 1}, {"a": 1})
            assert_json_match({"a": 1}, {"a": 2}, threshold=0.0)
        """,
    )
    first, second = Probe(), Probe()
    pytester.runpytest_inprocess(*ARGS, "first", plugins=[first]).assert_outcomes(passed=1)
    pytester.runpytest_inprocess(*ARGS, "second", plugins=[second]).assert_outcomes(passed=1)

    assert first.channel is not None and second.channel is not None
    assert first.channel is not second.channel
    assert [(name, o.metric, o.threshold) for name, o in first.outcomes] == [
        ("test_one", "field_match", 0.5)
    ]
    assert [(name, o.metric, o.threshold) for name, o in second.outcomes] == [
        ("test_two", "field_f1", 1.0),
        ("test_two", "field_f1", 0.0),
    ]
    assert [c.nodeid for c in first.comparisons] == ["first/test_first.py::test_one"]
    assert [c.nodeid for c in second.comparisons] == ["second/test_second.py::test_two"] * 2


# -- golden items and the fixture go through their session's channel ----------------------------


def test_the_fixture_and_golden_items_record_through_the_sessions_channel_object(pytester):
    write(
        pytester,
        "pytest.ini",
        """\
        [pytest]
        jsonmatch_metric = field_match
        jsonmatch_threshold = 0.5
        """,
    )
    write(
        pytester,
        "c.jsonmatch.yaml",
        """\
        id: golden
        expected: {vendor: ACME, total: 10}
        actual: {vendor: ACME, total: 10}
        """,
    )
    write(
        pytester,
        "test_calls.py",
        """\
        from pytest_jsonmatch import assert_json_match

        def test_fixture(json_match):
            json_match({"a": 1, "b": 2}, {"a": 1, "b": 3})  # field_match: 1/2 = 0.5

        def test_free():
            assert_json_match({"a": 1}, {"a": 1})
        """,
    )
    # while each test runs, another channel is the current one: only the free function,
    # which has no session at hand, goes there; the fixture and the case do not
    decoy_outcomes: list[channel.Outcome] = []
    decoy = channel.Channel(channel.Defaults(metric="json_similarity", threshold=0.25))
    decoy.activate(decoy_outcomes.append)
    probe = Probe(decoy)
    pytester.runpytest_inprocess(*ARGS, plugins=[probe]).assert_outcomes(passed=3)

    session_channel = probe.channel
    assert session_channel is not None and session_channel is not decoy
    assert session_channel.defaults.metric == "field_match"
    assert session_channel.sink is None  # no test runs now
    by_test = {name: (o.metric, o.threshold, o.result.score) for name, o in probe.outcomes}
    assert by_test == {
        "test_fixture": ("field_match", 0.5, 0.5),
        "golden": ("field_match", 0.5, 1.0),
    }
    assert [(o.metric, o.threshold) for o in decoy_outcomes] == [("json_similarity", 0.25)]
    assert sorted(c.nodeid.split("::")[-1] for c in probe.comparisons) == ["golden", "test_fixture"]


def test_activate_sends_the_running_tests_comparisons_to_a_sink_on_the_sessions_channel(request):
    session_channel = session_of(request.config).channel
    outcomes: list[channel.Outcome] = []
    previous = channel.activate(outcomes.append)
    try:
        assert session_channel.sink == outcomes.append and channel.active() == outcomes.append
        assert_json_match({"a": 1}, {"a": 2}, threshold=0.0)
    finally:
        assert channel.activate(previous) == outcomes.append
    assert session_channel.sink is previous
    assert [(o.metric, o.threshold, o.passed) for o in outcomes] == [("field_f1", 0.0, True)]


def test_a_thread_given_the_tests_context_records_to_the_session(request):
    outer = session_of(request.config)
    before = len(outer.pending)
    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(assert_json_match, {"a": 1}, {"a": 1}))
    thread.start()
    thread.join()
    assert [c.nodeid for c in outer.pending[before:]] == [request.node.nodeid]


def test_a_plain_thread_in_a_test_records_to_the_session(request):
    # a ThreadPoolExecutor starts its threads with an empty context: they fall back to the
    # session entered last, so no comparison made in a test is lost from the aggregates
    from concurrent.futures import ThreadPoolExecutor

    outer = session_of(request.config)
    before = len(outer.pending)
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda k: assert_json_match({"a": k}, {"a": k}), range(3)))
    assert [c.nodeid for c in outer.pending[before:]] == [request.node.nodeid] * 3


# -- outside pytest, and the module itself ------------------------------------------------------


def test_outside_pytest_nothing_is_recorded_and_the_defaults_are_field_f1_at_1():
    code = textwrap.dedent("""
        from pytest_jsonmatch import assert_json_match
        from pytest_jsonmatch.session import channel

        assert channel.active() is None
        defaults = channel.defaults()
        print(defaults.metric, defaults.threshold, dict(defaults.options))
        assert_json_match({"a": 1}, {"a": 1})  # recorded nowhere
        try:
            assert_json_match({"a": 1}, {"a": 2})
        except AssertionError as exc:
            print(str(exc).splitlines()[0])
        seen = []
        previous = channel.activate(seen.append)  # a caller's own sink still hears them
        assert_json_match({"a": 1}, {"a": 1})
        channel.activate(previous)
        print(previous, len(seen))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "field_f1 1.0 {}",
        "field_f1: score 0.0000 < threshold 1.0000 (precision 0.0000, recall 0.0000, F1 0.0000)",
        "None 1",
    ]


def test_channel_py_has_no_global_statement():
    path = Path(channel.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    assert not [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Global)]


def test_a_fixture_call_records_through_its_channel_and_changes_nothing_process_wide():
    from pytest_jsonmatch.session.assertion import JsonMatcher

    before_current, before_entered = channel.current(), list(channel._ENTERED)
    mine = channel.Channel()
    seen: list[tuple[object, list[channel.Channel], object]] = []

    def sink(outcome: object) -> None:  # (called during the call: what a thread would see)
        fallback: list[object] = []
        thread = threading.Thread(target=lambda: fallback.append(channel.current()))
        thread.start()
        thread.join()
        seen.append((channel.current(), list(channel._ENTERED), fallback[0]))

    mine.activate(sink)
    matcher = JsonMatcher(mine)
    assert matcher({"a": 1}, {"a": 1}).score == 1.0
    with pytest.raises(AssertionError):  # (a failing call is recorded too, and raises)
        matcher({"a": 1}, {"a": 2})
    assert len(seen) == 2
    for current, entered, in_other_thread in seen:
        assert current is mine  # recorded through the fixture's channel
        assert entered == before_entered  # the process-wide list untouched
        assert in_other_thread is not mine  # another thread's channel not moved
    assert channel.current() is before_current and channel._ENTERED == before_entered
