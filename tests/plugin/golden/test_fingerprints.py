"""Replay that sees every change (calls/fingerprints.py through the plugin): a recording is
held to the input and to what made it. An edit to the module defining the target (a prompt
constant), a named prompt file, or a declared model name makes it stale: ``once`` re-records
it, ``none`` fails naming what changed. An edit to an unrelated module does not."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# The target module: a prompt constant, a prompt file read at call time, a declared setting.
TARGET = """
import pathlib

PROMPT = "Extract the vendor."
MODEL = "model-a"


def extract(text):
    prompt = pathlib.Path(__file__).with_name("prompt.txt").read_text()
    return {"vendor": text.upper(), "_prompt": len(PROMPT) + len(prompt)}


def settings():
    return {"model": MODEL}
"""
CASES = "cases:\n  - id: acme\n    expected: {vendor: ACME}\n    input: acme\n"
INI = (
    "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n"
    'jsonmatch_options = {"ignore": ["_prompt"]}\n'
)


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(llm=TARGET, helpers="VALUE = 1\n")
    (pytester.path / "prompt.txt").write_text("You are careful.")
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    pytester.makeini(INI)
    return pytester


def _run(pytester, mode, extra=""):
    record = f"--jsonmatch-record={mode} files=prompt.txt fingerprint=llm:settings {extra}"
    result = pytester.runpytest_inprocess(*ARGS, record.strip(), "--jsonmatch-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    return result, [(c["source"], c["recording"], c["error"]) for c in report["comparisons"]]


def _recording(pytester):
    return json.loads(
        (pytester.path / "__recordings__" / "c.jsonmatch.yaml" / "acme.json").read_text()
    )


def test_a_recording_holds_what_made_it(suite):
    _run(suite, "once")
    fingerprint = _recording(suite)["fingerprint"]
    assert sorted(fingerprint["code"]) == ["llm.py"] and list(fingerprint["files"]) == [
        "prompt.txt"
    ]
    assert fingerprint["declared"] == {"model": "model-a"}
    assert _run(suite, "once")[1] == [("replayed", "", "")]


@pytest.mark.parametrize(
    "edit, changed",
    [
        (
            lambda p: (p.path / "llm.py").write_text(
                TARGET.replace("Extract the vendor.", "Extract the vendor's name.")
            ),
            "target code llm.py",
        ),
        (lambda p: (p.path / "prompt.txt").write_text("You are careless."), "file prompt.txt"),
        (
            lambda p: (p.path / "llm.py").write_text(TARGET.replace('"model-a"', '"model-b"')),
            'target code llm.py; the declared fingerprint ({"model":"model-a"} -> '
            '{"model":"model-b"})',
        ),
    ],
)
def test_a_change_makes_replay_stale(suite, edit, changed):
    _run(suite, "once")
    edit(suite)
    result, outcomes = _run(suite, "none")
    assert outcomes == [
        (
            "live",
            "",
            "the recording __recordings__/c.jsonmatch.yaml/acme.json is "
            f"stale ({changed} changed since it was recorded): "
            "re-record it with --jsonmatch-record=once",
        )
    ]
    result.assert_outcomes(failed=1)
    assert _run(suite, "once")[1] == [("live", "stale", "")]  # once re-records it
    assert _run(suite, "none")[1] == [("replayed", "", "")]


def test_a_declared_change_alone_makes_replay_stale(suite):
    # the declared value is read from another module, whose source is not the target's
    (suite.path / "llm.py").write_text(
        TARGET.replace(
            'return {"model": MODEL}',
            'import model_choice\n    return {"model": model_choice.NAME}',
        )
    )
    suite.makepyfile(model_choice='NAME = "a"\n')
    _run(suite, "once")
    (suite.path / "model_choice.py").write_text('NAME = "b"\n')
    _, outcomes = _run(suite, "none")
    assert 'the declared fingerprint ({"model":"a"} -> {"model":"b"})' in outcomes[0][2]


def test_an_edit_to_an_unrelated_module_does_not_make_replay_stale(suite):
    _run(suite, "once")
    (suite.path / "helpers.py").write_text("VALUE = 2\n")
    assert _run(suite, "none")[1] == [("replayed", "", "")]


def test_a_files_pattern_that_matches_nothing_stops_the_session(suite):
    result = suite.runpytest_inprocess(*ARGS, "--jsonmatch-record=once files=promt.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: pytest-jsonmatch: jsonmatch_record: files=promt.txt matches no file under *"]
    )


# Two named targets in one module, each with its own model name (issue 51, item 8).
TWO_TARGETS = """
LARGE_MODEL = "large-v1"
SMALL_MODEL = "small-v1"


def _answer(text, model):
    return {"vendor": text.upper(), "_model": model}


def large(text):
    return _answer(text, LARGE_MODEL)


def small(text):
    return _answer(text, SMALL_MODEL)
"""


def test_one_targets_model_change_leaves_the_others_recordings_valid(pytester):
    pytester.makepyfile(models=TWO_TARGETS)
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    pytester.makeini(
        "[pytest]\npythonpath = .\njsonmatch_targets =\n    large = models:large\n"
        "    small = models:small\n"
        'jsonmatch_options = {"ignore": ["_model"]}\n'
    )
    args = (*ARGS, "--jsonmatch-record=once", "--jsonmatch-report=r.json")
    pytester.runpytest_inprocess(*args).assert_outcomes(passed=2)
    (pytester.path / "models.py").write_text(TWO_TARGETS.replace("large-v1", "large-v2"))
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=none", "--jsonmatch-report=r.json"
    )
    report = json.loads((pytester.path / "r.json").read_text())
    by_target = {c["target"]: c for c in report["comparisons"]}
    # small's recording replays; large's is stale, naming its own code
    assert by_target["small"]["source"] == "replayed" and by_target["small"]["error"] == ""
    assert by_target["large"]["status"] == "error"
    assert "target code models.py::large changed" in by_target["large"]["error"]
    result.assert_outcomes(passed=1, failed=1)
    # a change to what both use (the shared helper) makes both stale
    (pytester.path / "models.py").write_text(TWO_TARGETS.replace("text.upper()", "text.title()"))
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=none", "--jsonmatch-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text())
    assert [c["status"] for c in report["comparisons"]] == ["error", "error"]


def test_a_declared_fingerprint_may_say_each_targets_own(pytester):
    pytester.makepyfile(
        models=TWO_TARGETS + "\n\ndef settings(target):\n    return {'model': target}\n"
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    pytester.makeini(
        "[pytest]\npythonpath = .\njsonmatch_targets =\n    large = models:large\n"
        "    small = models:small\n"
        'jsonmatch_options = {"ignore": ["_model"]}\n'
    )
    pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-record=once fingerprint=models:settings"
    ).assert_outcomes(passed=2)
    folder = pytester.path / "__recordings__" / "c.jsonmatch.yaml"
    declared = {
        json.loads((folder / f"acme[{t}].json").read_text())["fingerprint"]["declared"]["model"]
        for t in ("large", "small")
    }
    assert declared == {"large", "small"}


def test_a_prompt_file_the_target_reads_makes_replay_stale_without_files(suite):
    # no files=: the target reads prompt.txt at call time, and that is noticed
    args = (*ARGS, "--jsonmatch-report=r.json")
    suite.runpytest_inprocess(*args, "--jsonmatch-record=once").assert_outcomes(passed=1)
    recording = _recording(suite)
    assert set(recording["fingerprint"]["read"]) == {"prompt.txt"}  # llm.py is code, not data
    # unchanged: replayed
    suite.runpytest_inprocess(*args, "--jsonmatch-record=none").assert_outcomes(passed=1)
    (suite.path / "prompt.txt").write_text("You are very careful.")
    result = suite.runpytest_inprocess(*args, "--jsonmatch-record=none")
    result.assert_outcomes(failed=1)
    report = json.loads((suite.path / "r.json").read_text())
    assert report["comparisons"][0]["error"] == (
        "the recording __recordings__/c.jsonmatch.yaml/acme.json is stale (file prompt.txt "
        "(read by the target) changed since it was recorded): re-record it with "
        "--jsonmatch-record=once"
    )
