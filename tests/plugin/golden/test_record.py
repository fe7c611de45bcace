"""--jsonmatch-record=off|once|none|all (recordings.py through golden.py), with a target that
counts its calls: what each mode calls and replays, where recordings live and what they hold,
stale recordings, repeats, the report's ``source`` and the summary's counts."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# The target counts its calls in calls.txt and answers {"vendor": <input upper-cased>}.
TARGET = """
import pathlib

def pytest_jsonmatch_target(case, config):
    counter = pathlib.Path(config.rootpath, "calls.txt")
    calls = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(calls + 1))
    return {"vendor": case.input.upper()}
"""
CASES = (
    "cases:\n  - id: acme\n    expected: {vendor: ACME}\n    input: acme\n"
    "  - id: given\n    expected: {vendor: X}\n    actual: {vendor: X}\n"
)


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(TARGET)
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    return pytester


def _calls(pytester):
    path = pytester.path / "calls.txt"
    return int(path.read_text()) if path.exists() else 0


def _run(pytester, *flags):
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json", *flags)
    report = json.loads((pytester.path / "r.json").read_text())
    return result, {
        c["case_id"].split("::")[1]: (c["source"], c["recording"]) for c in report["comparisons"]
    }


RECORDING = ("__recordings__", "c.jsonmatch.yaml", "acme.json")


def test_off_calls_the_target_every_time_and_records_nothing(suite):
    _run(suite)
    _, sources = _run(suite, "--jsonmatch-record=off")
    assert _calls(suite) == 2
    assert sources == {"acme": ("live", ""), "given": ("case", "")}
    assert not (suite.path / "__recordings__").exists()


def test_once_records_then_replays(suite):
    result, sources = _run(suite, "--jsonmatch-record=once")
    assert (_calls(suite), sources["acme"]) == (1, ("live", "recorded"))
    result.stdout.fnmatch_lines(["recordings: 1 recorded"])
    recording = json.loads(suite.path.joinpath(*RECORDING).read_text())
    assert recording["output"] == {"vendor": "ACME"} and recording["case_id"] == "acme"
    assert len(recording["input_sha256"]) == 64 and recording["recorded_at"].endswith("+00:00")
    result, sources = _run(suite, "--jsonmatch-record=once")
    assert (_calls(suite), sources["acme"]) == (1, ("replayed", ""))  # no second call
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["recordings: 1 replayed"])


def test_the_ini_option_sets_the_mode(suite):
    suite.makeini("[pytest]\njsonmatch_record = once\n")
    _run(suite)
    _run(suite)
    assert _calls(suite) == 1


def test_none_only_replays_and_says_how_to_record(suite):
    result, sources = _run(suite, "--jsonmatch-record=none")
    assert _calls(suite) == 0
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "c.jsonmatch.yaml:2: case 'acme': no recording of this case "
            "(__recordings__/c.jsonmatch.yaml/acme.json): record it with "
            "--jsonmatch-record=once"
        ]
    )
    assert sources["acme"][0] == "live"  # attempted, not scored: an error in the summary
    _run(suite, "--jsonmatch-record=once")
    result, sources = _run(suite, "--jsonmatch-record=none")
    assert (_calls(suite), sources["acme"]) == (1, ("replayed", ""))


def test_a_stale_recording_is_rerecorded_under_once_and_an_error_under_none(suite):
    _run(suite, "--jsonmatch-record=once")
    path = suite.path / "c.jsonmatch.yaml"
    path.write_text(path.read_text().replace("input: acme", "input: Acme"))  # the input changed
    result, _ = _run(suite, "--jsonmatch-record=none")
    result.stdout.fnmatch_lines(
        [
            "*the recording __recordings__/c.jsonmatch.yaml/acme.json is stale "
            "(the case's input changed since it was recorded): re-record it "
            "with --jsonmatch-record=once"
        ]
    )
    assert _calls(suite) == 1
    result, sources = _run(suite, "--jsonmatch-record=once")
    assert (_calls(suite), sources["acme"]) == (2, ("live", "stale"))
    result.stdout.fnmatch_lines(["recordings: 1 stale, re-recorded"])


def test_all_calls_the_target_and_leaves_an_unchanged_recording_byte_for_byte(suite):
    _run(suite, "--jsonmatch-record=once")
    path = suite.path.joinpath(*RECORDING)
    before = path.read_bytes()
    _, sources = _run(suite, "--jsonmatch-record=all")
    # called again, the same output: the file (its recorded_at too) is not rewritten
    assert (_calls(suite), sources["acme"]) == (2, ("live", ""))
    assert path.read_bytes() == before


def test_all_rewrites_a_recording_whose_output_changed(suite):
    _run(suite, "--jsonmatch-record=once")
    (suite.path / "conftest.py").write_text(TARGET.replace("upper()", "lower()"))
    _, sources = _run(suite, "--jsonmatch-record=all")
    assert sources["acme"] == ("live", "stale")
    assert json.loads(suite.path.joinpath(*RECORDING).read_text())["output"] == {"vendor": "acme"}


def test_a_repeated_case_has_a_recording_per_run(suite):
    (suite.path / "c.jsonmatch.yaml").write_text(
        CASES.replace("  - id: acme\n", "  - id: acme\n    repeat: 3\n")
    )
    _run(suite, "--jsonmatch-record=once")
    folder = suite.path / "__recordings__" / "c.jsonmatch.yaml"
    assert sorted(p.name for p in folder.iterdir()) == ["acme@0.json", "acme@1.json", "acme@2.json"]
    _, sources = _run(suite, "--jsonmatch-record=once")
    assert _calls(suite) == 3 and sources["acme"] == ("replayed", "")


def test_a_case_id_never_leads_outside_the_recordings_folder(pytester):
    pytester.makeconftest(TARGET)
    (pytester.path / "c.jsonmatch.yaml").write_text(
        "cases:\n  - id: ../../escape\n    expected: {vendor: A}\n    input: a\n"
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once")
    files = [p.relative_to(pytester.path).as_posix() for p in pytester.path.rglob("*.json")]
    assert files == ["__recordings__/c.jsonmatch.yaml/%2E.%2F..%2Fescape.json"]


def test_an_unreadable_recording_names_itself(suite):
    folder = suite.path.joinpath(*RECORDING[:2])
    folder.mkdir(parents=True)
    (folder / "acme.json").write_text("{half")
    result, _ = _run(suite, "--jsonmatch-record=once")
    result.stdout.fnmatch_lines(
        [
            "*the recording *acme.json cannot be read (*); delete it or "
            "re-record with --jsonmatch-record=all"
        ]
    )


def test_a_recording_nested_past_the_parsers_depth_names_itself(suite):
    # 100,000 nested arrays: json.loads runs out of stack (RecursionError), which is the
    # recording's fault and reads as one, never as a traceback from inside the plugin
    folder = suite.path.joinpath(*RECORDING[:2])
    folder.mkdir(parents=True)
    (folder / "acme.json").write_text("[" * 100_000 + "]" * 100_000)
    result, _ = _run(suite, "--jsonmatch-record=once")
    result.stdout.fnmatch_lines(["*the recording *acme.json cannot be read (*"])
    assert "RecursionError" not in result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str()


def test_recordings_no_collected_case_uses_are_listed_then_pruned(suite):
    _run(suite, "--jsonmatch-record=once")
    folder = suite.path / "__recordings__"
    # a case renamed (acme -> acme-2) and a case file deleted since they were recorded
    (suite.path / "c.jsonmatch.yaml").write_text(CASES.replace("id: acme\n", "id: acme-2\n"))
    (folder / "gone.jsonmatch.yaml").mkdir()
    (folder / "gone.jsonmatch.yaml" / "old.json").write_text("{}")
    result, _ = _run(suite, "--jsonmatch-record=once")
    result.stdout.fnmatch_lines(
        [
            "2 recording(s) no collected case uses (deleted or renamed cases): "
            "__recordings__/c.jsonmatch.yaml/acme.json, __recordings__/gone.jsonmatch.yaml/old.json; "
            "remove them with --jsonmatch-record='once prune'"
        ]
    )
    assert (folder / "c.jsonmatch.yaml" / "acme.json").exists()  # listed, not removed
    result, _ = _run(suite, "--jsonmatch-record=once prune")
    result.stdout.fnmatch_lines(["removed 2 unused recording(s): *"])
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == [
        "c.jsonmatch.yaml",
        "c.jsonmatch.yaml/acme-2.json",
    ]


def test_a_deselected_case_still_uses_its_recording(suite):
    _run(suite, "--jsonmatch-record=once")
    result, _ = _run(suite, "--jsonmatch-record=once prune", "-k", "given")
    result.stdout.no_fnmatch_line("*unused recording*")
    assert suite.path.joinpath(*RECORDING).exists()


def test_text_of_several_lines_is_recorded_as_its_lines(pytester):
    pytester.makeconftest(
        TARGET.replace(
            'return {"vendor": case.input.upper()}', 'return "Here:\\n" + \'{"vendor": "ACME"}\\n\''
        )
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    _, sources = _run(pytester, "--jsonmatch-record=once")
    recorded = json.loads(pytester.path.joinpath(*RECORDING).read_text())
    assert recorded["output_lines"] == ["Here:", '{"vendor": "ACME"}', ""]
    _, sources = _run(pytester, "--jsonmatch-record=none")
    assert sources["acme"] == ("replayed", "")


# -- replay equals live ------------------------------------------------------------------------


def test_an_output_that_is_not_json_is_the_same_error_live_and_is_never_recorded(pytester):
    # {1: "ACME"}: an integer key; JSON would write it as "1", and a replay would score a
    # value the target never returned
    pytester.makeconftest(
        TARGET.replace('return {"vendor": case.input.upper()}', "return {1: case.input.upper()}")
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    live, _ = _run(pytester, "--jsonmatch-record=off")
    recorded, sources = _run(pytester, "--jsonmatch-record=once")
    reason = "$: key 1 in actual is not a string (JSON keys are strings)"
    for result in (live, recorded):
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines([f"*case 'acme'*{reason}*"])
    assert not pytester.path.joinpath(*RECORDING).exists()
    again, _ = _run(pytester, "--jsonmatch-record=once")  # nothing to replay: live, same error
    again.stdout.fnmatch_lines([f"*case 'acme'*{reason}*"])
    assert _calls(pytester) == 3


def test_a_target_that_changes_its_input_still_replays(pytester):
    pytester.makeconftest(
        TARGET.replace(
            'return {"vendor": case.input.upper()}',
            'case.input["seen"] = True\n    return {"vendor": case.input["name"].upper()}',
        )
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(
        "cases:\n  - id: acme\n    expected: {vendor: ACME}\n    input: {name: acme}\n"
    )
    _run(pytester, "--jsonmatch-record=once")
    result, sources = _run(pytester, "--jsonmatch-record=none")
    result.assert_outcomes(passed=1)
    assert sources["acme"] == ("replayed", "") and _calls(pytester) == 1


def test_an_output_with_a_lone_surrogate_reads_back_as_it_was(pytester):
    pytester.makeconftest(
        TARGET.replace('return {"vendor": case.input.upper()}', 'return {"vendor": "AC\\ud800ME"}')
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(CASES)
    live, sources = _run(pytester, "--jsonmatch-record=once")
    assert sources["acme"] == ("live", "recorded")
    replay, sources = _run(pytester, "--jsonmatch-record=none")
    assert sources["acme"] == ("replayed", "")
    recorded = json.loads(pytester.path.joinpath(*RECORDING).read_text(encoding="utf-8"))
    assert recorded["output"] == {"vendor": "AC\ud800ME"}
    for result in (live, replay):  # the same mismatch, live and replayed
        result.assert_outcomes(passed=1, failed=1)
