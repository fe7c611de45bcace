"""Test files shared by the plugin tests (pytester runs them), and the flags every inner
run uses: hypothesis, pytest-benchmark and anyio (which the test extra's openai brings) would
otherwise load their plugins in each inner session (a subprocess's start, imported again),
and the cache would write into the test folders."""

ARGS = (
    *("-p", "no:cacheprovider", "-p", "no:hypothesispytest"),
    *("-p", "no:benchmark", "-p", "no:anyio"),
)

# test_pass: a and b match -> 1.0. test_fail: a match, b mismatch, c hallucinated, d omitted:
# TP = 1, P = 1/3, R = 1/3, F1 = 1/3 < 0.9 -> fails.
TWO_TESTS = """
from pytest_jsonmatch import assert_json_match

def test_pass(json_match):
    json_match({"a": 1, "b": "x"}, {"a": 1, "b": "x"})

def test_fail():
    assert_json_match({"a": 1, "b": "y", "c": [1, 2]}, {"a": 1, "b": "x", "d": 3}, threshold=0.9)
"""

ONE_TEST = """
from pytest_jsonmatch import assert_json_match

def test_one():
    assert_json_match({"a": 1, "b": 2}, {"a": 1, "b": 2}, metric="field_match", threshold=0.5)
"""


def write(pytester, relpath, text):
    """Write a file below the pytester folder (text dedented; bytes as they are)."""
    import textwrap
    from pathlib import Path

    path = Path(pytester.path, relpath)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# A target whose runs of a case answer, in turn, the letters answers.json (in the test's root)
# gives the case's input: {"a": 1, "b": letter}, or a RuntimeError for the letter "E". With
# expected {a: 1, b: x} at threshold 1 a run passes only with x: the tests of repeated runs
# (flaky cases, pass^k) say each case's runs by a string such as "xxyxy".
ALTERNATING_TARGET = """
import collections, json, pathlib

seen = collections.Counter()

def pytest_jsonmatch_target(case, config):
    answers = json.loads((pathlib.Path(str(config.rootpath)) / "answers.json").read_text())
    letters = answers[case.input]
    i = seen[case.input]
    seen[case.input] += 1
    letter = letters[i % len(letters)]
    if letter == "E":
        raise RuntimeError("the model is down")
    return {"a": 1, "b": letter}
"""


def configured_settings(pytester, ini, *flags):
    """The typed settings a session reads from ``ini`` lines and ``flags``: its config made
    and configured here, unconfigured when the test ends. pytest 8.4 and later collect
    garbage five times as a config is unconfigured (for unraisable exceptions): over this
    process's heap, seconds a test, so the config skips it, as pytester's own in-process
    runs have theirs skip it (pytest 7 has no such collection, and no such key)."""
    from pytest_jsonmatch.plugin.session import SESSION

    pytester.makeini("[pytest]\n" + ini)
    config = pytester.parseconfigure(*flags)
    try:
        from _pytest.unraisableexception import gc_collect_iterations_key
    except ImportError:
        pass
    else:
        config.stash[gc_collect_iterations_key] = 0
    return config.stash[SESSION].settings
