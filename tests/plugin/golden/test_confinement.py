"""What a careless or hostile case file cannot make the plugin do: read a schema reference or
write a recording outside the test root (symlinks followed before every read and write), or
have two cases share a recording.

Every test makes its own test root with pytester; "outside" is a sibling folder of it."""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

TARGET = """
def pytest_jsonmatch_target(case, config):
    return {"vendor": case.input.upper()}
"""


def _outside(pytester):
    folder = pytester.path.parent / f"{pytester.path.name}-outside"
    folder.mkdir(exist_ok=True)
    return folder


# -- recordings ------------------------------------------------------------------------------


def test_a_repeated_case_and_a_case_named_like_its_run_record_apart(pytester):
    # 'x' repeated twice and a case 'x.1' once: before, both wrote x.1.json
    pytester.makeconftest(TARGET)
    (pytester.path / "c.jsonmatch.yaml").write_text(
        "cases:\n  - id: x\n    repeat: 2\n    expected: {vendor: A}\n    input: a\n"
        "  - id: x.1\n    expected: {vendor: B}\n    input: b\n"
    )
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once").assert_outcomes(passed=2)
    folder = pytester.path / "__recordings__" / "c.jsonmatch.yaml"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["x.1.json", "x@0.json", "x@1.json"]
    assert json.loads((folder / "x.1.json").read_text())["output"] == {"vendor": "B"}


@pytest.mark.parametrize("length", [236, 250, 300, 2000])
def test_a_long_case_id_records_under_a_stable_short_name(pytester, length):
    case_id = "a" * length
    pytester.makeconftest(TARGET)
    (pytester.path / "c.jsonmatch.yaml").write_text(
        f"cases:\n  - id: {case_id}\n    expected: {{vendor: A}}\n    input: a\n"
    )
    for _ in range(2):  # recorded, then replayed from the same name
        pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once").assert_outcomes(passed=1)
    (name,) = [p.name for p in (pytester.path / "__recordings__" / "c.jsonmatch.yaml").iterdir()]
    assert len(name.encode()) <= 200 and name.endswith(".json")
    assert (name == f"{case_id}.json") == (length <= 180)


def test_a_symlinked_recordings_folder_is_refused_and_nothing_is_written_outside(pytester):
    outside = _outside(pytester)
    pytester.makeconftest(TARGET)
    (pytester.path / "c.jsonmatch.yaml").write_text(
        "cases:\n  - id: acme\n    expected: {vendor: ACME}\n    input: acme\n"
    )
    os.symlink(outside, pytester.path / "__recordings__")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-record=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*the recording __recordings__/c.jsonmatch.yaml/acme.json "
            f"resolves to {outside}/c.jsonmatch.yaml/acme.json, outside the "
            f"test root *: refused*"
        ]
    )
    assert list(outside.iterdir()) == []


# -- schema references -------------------------------------------------------------------------

CASE_WITH_SCHEMA = "schema: s.json\nexpected: {a: x}\nactual: {a: x}\n"


def _schema_with_ref(pytester, ref: str) -> None:
    (pytester.path / "s.json").write_text(
        json.dumps({"type": "object", "properties": {"a": {"$ref": ref}}})
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(CASE_WITH_SCHEMA)


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "file-uri", "symlink"])
def test_a_reference_outside_the_root_is_refused_unread(pytester, kind):
    outside = _outside(pytester)
    (outside / "x.json").write_text('{"type": "string"}')
    ref = {
        "dotdot": f"../{outside.name}/x.json",
        "absolute": str(outside / "x.json"),
        "file-uri": (outside / "x.json").as_uri(),
        "symlink": "link/x.json",
    }[kind]
    if kind == "symlink":
        os.symlink(outside, pytester.path / "link")
    _schema_with_ref(pytester, ref)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*$ref * reads outside *: refused, unread (a case file's schema "
            "reads only there; jsonmatch_golden's schema_dirs lists more folders)*"
        ]
    )


def test_a_refused_reference_says_nothing_of_the_file_it_names(pytester):
    # /etc/shadow exists on this machine and is not JSON: the refusal must not tell
    _schema_with_ref(pytester, "/etc/shadow")
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.no_fnmatch_line("*not JSON*")
    result.stdout.no_fnmatch_line("*does not exist*")
    result.stdout.fnmatch_lines(["*$ref 'file:///etc/shadow' reads outside*refused, unread*"])


def test_a_folder_listed_in_the_golden_schema_dirs_may_be_read(pytester):
    outside = _outside(pytester)
    (outside / "x.json").write_text('{"type": "string"}')
    _schema_with_ref(pytester, f"../{outside.name}/x.json")
    pytester.makeini(f"[pytest]\njsonmatch_golden = schema_dirs=../{outside.name}\n")
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


def test_a_reference_inside_the_root_is_read(pytester):
    (pytester.path / "defs").mkdir()
    (pytester.path / "defs" / "x.json").write_text('{"type": "string"}')
    _schema_with_ref(pytester, "defs/x.json")
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


# -- sizes ---------------------------------------------------------------------------------------


def test_a_file_of_more_cases_than_the_limit_is_one_collection_error(pytester):
    pytester.makeini("[pytest]\njsonmatch_golden = max_cases=3\n")
    cases = "cases:\n" + "".join(
        f"  - id: c{i}\n    expected: {{a: 1}}\n    actual: {{a: 1}}\n" for i in range(4)
    )
    (pytester.path / "c.jsonmatch.yaml").write_text(cases)
    result = pytester.runpytest_inprocess(*ARGS)
    result.stdout.fnmatch_lines(
        [
            "*c.jsonmatch.yaml:1: 4 cases in one file, more than "
            "jsonmatch_golden's max_cases (3); split the file, or raise the setting*"
        ]
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error
    pytester.makeini("[pytest]\njsonmatch_golden = max_cases=4\n")
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=4)


def test_an_object_of_too_many_keys_is_one_line_in_bounded_time(pytester, monkeypatch):
    # a model answer of 150,001 keys: refused by the door at once, naming the limit's setting
    monkeypatch.setenv("JSONMATCH_MAX_KEYS", "150000")
    from pytest_jsonmatch.engine.reading import intake

    monkeypatch.setattr(intake, "MAX_KEYS", intake._max_keys())
    big = json.dumps({f"k{i}": i for i in range(150_001)})
    (pytester.path / "out.txt").write_text(big)
    (pytester.path / "c.jsonmatch.yaml").write_text("expected: {k0: 0}\nactual_file: out.txt\n")
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*an object of 150,001 keys in actual, more than the 150,000 one "
            "object may hold (the environment variable JSONMATCH_MAX_KEYS "
            "raises it)*"
        ]
    )


# -- updates -------------------------------------------------------------------------------------

UPDATE_TARGET = """
import pathlib

def pytest_jsonmatch_target(case, config):
    if case.input == "edit":  # someone edits the case file while the run goes on
        path = pathlib.Path(config.rootpath, "c.jsonmatch.yaml")
        path.write_text(path.read_text() + "# edited meanwhile\\n")
    return {"vendor": case.input.upper()}
"""


def test_an_update_of_a_file_changed_since_it_was_read_is_refused(pytester):
    pytester.makeconftest(UPDATE_TARGET)
    path = pytester.path / "c.jsonmatch.yaml"
    path.write_text("cases:\n  - id: one\n    expected: {vendor: X}\n    input: edit\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED: could not update c.jsonmatch.yaml: changed on disk since "
            "this run read it (another run or an editor?): not updated; run "
            "again to update it"
        ]
    )
    assert path.read_text().endswith("input: edit\n# edited meanwhile\n")  # the edit kept
    # run again: the file is read as it is now, and updated
    pytester.makeconftest(TARGET)
    path.write_text("cases:\n  - id: one\n    expected: {vendor: X}\n    input: acme\n")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix").stdout.fnmatch_lines(
        ["updated 1 case in 1 file:"]
    )
    assert "expected: {vendor: ACME}" in path.read_text()


def test_a_case_file_behind_a_symlinked_folder_is_not_updated_outside_the_root(pytester):
    outside = _outside(pytester)
    (outside / "c.jsonmatch.yaml").write_text(
        "cases:\n  - id: one\n    expected: {vendor: X}\n    input: acme\n"
    )
    before = (outside / "c.jsonmatch.yaml").read_text()
    pytester.makeconftest(TARGET)
    os.symlink(outside, pytester.path / "golden")
    result = pytester.runpytest_inprocess(*ARGS, "golden", "--jsonmatch-update=fix")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"FAILED: could not update golden/c.jsonmatch.yaml: resolves to "
            f"{outside}/c.jsonmatch.yaml, outside the test root *: not "
            f"updated; the plugin writes only inside the root"
        ]
    )
    assert (outside / "c.jsonmatch.yaml").read_text() == before
