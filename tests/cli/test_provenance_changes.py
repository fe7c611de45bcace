"""Provenance covers everything a score was made from, and ``jsonmatch diff`` names each
part that changed: a folder's ``jsonmatch.yaml``, a schema file (its ``$ref``'d files too),
the judge's prompt template; an update run records the case file as it was read, not as it
was rewritten; shards of different folder settings are refused at merge.

Each suite is run for real (pytester), its report saved, one input edited, the suite run
again and the two reports diffed."""

from __future__ import annotations

import hashlib
import json

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# expected {x: 1, y: 2}, actual {x: 1, y: 3}, field_match: x matches, y does not -> 1/2 = 0.5;
# with y ignored (or skipped by the schema) only x counts -> 1/1 = 1.0
CASE = "expected: {x: 1, y: 2}\nactual: {x: 1, y: 3}\n"
FOLDER = "metric: field_match\n"


def _report(pytester, name):
    return json.loads((pytester.path / name).read_text())


def _run(pytester, name, *extra):
    return pytester.runpytest_inprocess(*ARGS, f"--jsonmatch-report={name}", *extra)


def _diff(capsys, before="before.json", after="after.json"):
    capsys.readouterr()
    main(["diff", before, after, "--color", "never", "-v"])  # -v: every warning
    return capsys.readouterr().out


def _sha(pytester, name):
    return hashlib.sha256((pytester.path / name).read_bytes()).hexdigest()


def test_a_folders_changed_settings_are_recorded_and_named_by_diff(pytester, capsys):
    write(pytester, "cases/jsonmatch.yaml", FOLDER)
    write(pytester, "cases/inv.jsonmatch.yaml", CASE)
    _run(pytester, "before.json").assert_outcomes(failed=1)
    write(pytester, "cases/jsonmatch.yaml", FOLDER + "threshold: 0.1\noptions: {ignore: [y]}\n")
    _run(pytester, "after.json").assert_outcomes(passed=1)
    before, after = _report(pytester, "before.json"), _report(pytester, "after.json")
    assert (before["overall"], after["overall"]) == (0.5, 1.0)
    # what the review found: the case file and the run's settings are the same in both
    assert before["run"]["settings"] == after["run"]["settings"]
    assert before["run"]["provenance"]["golden"] == after["run"]["provenance"]["golden"]
    sha = _sha(pytester, "cases/jsonmatch.yaml")
    assert after["run"]["provenance"]["folder_settings"] == {"cases/jsonmatch.yaml": sha}
    assert "folder settings changed: cases/jsonmatch.yaml" in _diff(capsys)


def test_a_folder_settings_file_added_where_a_case_file_lies_is_named(pytester, capsys):
    write(pytester, "cases/inv.jsonmatch.yaml", "metric: field_match\n" + CASE)
    write(pytester, "other/o.jsonmatch.yaml", CASE)
    _run(pytester, "before.json")
    assert _report(pytester, "before.json")["run"]["provenance"]["folder_settings"] == {}
    write(pytester, "cases/jsonmatch.yaml", "options: {ignore: [y]}\n")
    write(pytester, "unrelated/jsonmatch.yaml", "threshold: 0.2\n")  # no case file below it
    _run(pytester, "after.json")
    said = _diff(capsys)
    assert "folder settings added: cases/jsonmatch.yaml" in said
    assert "unrelated" not in said
    # and the other way round
    assert "folder settings removed: cases/jsonmatch.yaml" in _diff(
        capsys, "after.json", "before.json"
    )


SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}


def test_a_schemas_x_eval_skip_is_recorded_and_named_by_diff(pytester, capsys):
    write(pytester, "schemas/invoice.json", json.dumps(SCHEMA))
    write(pytester, "cases/inv.jsonmatch.yaml", FOLDER + "schema: ../schemas/invoice.json\n" + CASE)
    _run(pytester, "before.json").assert_outcomes(failed=1)
    skipping = json.loads(json.dumps(SCHEMA))
    skipping["properties"]["y"]["x-eval-skip"] = True
    write(pytester, "schemas/invoice.json", json.dumps(skipping))
    _run(pytester, "after.json").assert_outcomes(passed=1)
    before, after = _report(pytester, "before.json"), _report(pytester, "after.json")
    assert (before["overall"], after["overall"]) == (0.5, 1.0)
    assert (
        before["run"]["provenance"]["golden_digest"] == after["run"]["provenance"]["golden_digest"]
    )
    sha = _sha(pytester, "schemas/invoice.json")
    assert after["run"]["provenance"]["schemas"] == {"schemas/invoice.json": sha}
    assert "schema changed: schemas/invoice.json" in _diff(capsys)


def test_a_schema_files_refs_are_recorded_as_read(pytester):
    refd = {"type": "object", "properties": {"x": {"$ref": "money.json"}, "y": {}}}
    write(pytester, "schemas/invoice.json", json.dumps(refd))
    write(pytester, "schemas/money.json", '{"type": "integer"}')
    write(pytester, "cases/inv.jsonmatch.yaml", FOLDER + "schema: ../schemas/invoice.json\n" + CASE)
    # a subprocess: a fresh schema cache, so both files are read in this very run
    pytester.runpytest_subprocess(*ARGS, "--jsonmatch-report=r.json")
    assert _report(pytester, "r.json")["run"]["provenance"]["schemas"] == {
        "schemas/invoice.json": _sha(pytester, "schemas/invoice.json"),
        "schemas/money.json": _sha(pytester, "schemas/money.json"),
    }


def test_an_update_run_records_the_case_file_as_read_not_as_rewritten(pytester):
    write(pytester, "cases/inv.jsonmatch.yaml", FOLDER + CASE)
    original = _sha(pytester, "cases/inv.jsonmatch.yaml")
    _run(pytester, "r.json", "--jsonmatch-update=all")
    assert _sha(pytester, "cases/inv.jsonmatch.yaml") != original  # expected rewritten
    provenance = _report(pytester, "r.json")["run"]["provenance"]
    assert provenance["golden"] == {"cases/inv.jsonmatch.yaml": original}


@pytest.fixture
def server():
    srv = JudgeServer()
    with serving(srv):
        yield srv


JUDGED = (
    "expected: {id: 1, summary: 'two boxes, Monday'}\n"
    "actual: {id: 1, summary: '2 boxes on Monday'}\n"
    "options: {fields: {summary: {comparator: semantic}}}\n"
)


def test_a_changed_judge_prompt_is_named_and_no_key_is_recorded(
    pytester, capsys, server, monkeypatch
):
    monkeypatch.setenv("JM_TEST_KEY", "sk-never-in-a-report")
    judge = f"model=j endpoint={server.url} key_env=JM_TEST_KEY prompt=prompts/judge.txt"
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {judge}\n")
    write(pytester, "prompts/judge.txt", "v1:\n{pairs}")
    write(pytester, "cases/m.jsonmatch.yaml", JUDGED)
    _run(pytester, "before.json")
    write(pytester, "prompts/judge.txt", "v2, reworded:\n{pairs}")
    _run(pytester, "after.json")
    setup = _report(pytester, "after.json")["run"]["provenance"]["judge_setup"]
    assert setup == {
        "model": "j",
        "endpoint": server.url,
        "prompt_file": "prompts/judge.txt",
        "prompt_sha256": _sha(pytester, "prompts/judge.txt"),
        "max_tokens": None,
    }
    assert "sk-never-in-a-report" not in (pytester.path / "after.json").read_text()
    said = _diff(capsys)
    assert "judge prompt changed: prompts/judge.txt" in said
    assert "judge model changed" not in said


def test_an_older_report_without_the_new_parts_is_unknown_not_changed(pytester, capsys):
    write(pytester, "cases/jsonmatch.yaml", FOLDER)
    write(pytester, "cases/inv.jsonmatch.yaml", CASE)
    _run(pytester, "after.json")
    old = _report(pytester, "after.json")
    for part in ("folder_settings", "schemas"):
        del old["run"]["provenance"][part]
    (pytester.path / "before.json").write_text(json.dumps(old))
    said = _diff(capsys)
    assert "changed" not in said.replace("unknown whether the folder settings, schemas changed", "")
    assert (
        "unknown whether the folder settings, schemas changed: one run records them and the "
        "other not (an older report)" in said
    )


def test_shards_of_different_folder_settings_are_refused_naming_the_file(pytester, capsys):
    write(pytester, "cases/jsonmatch.yaml", FOLDER)
    write(pytester, "cases/a.jsonmatch.yaml", "id: alpha\n" + CASE)
    write(pytester, "cases/b.jsonmatch.yaml", "id: beta\n" + CASE)
    _run(pytester, "s1.json", "-k", "alpha", "--jsonmatch-shard=1/2").assert_outcomes(failed=1)
    write(pytester, "cases/jsonmatch.yaml", FOLDER + "options: {ignore: [y]}\n")
    _run(pytester, "s2.json", "-k", "beta", "--jsonmatch-shard=2/2").assert_outcomes(passed=1)
    capsys.readouterr()
    assert main(["merge", "s1.json", "s2.json", "-o", "run.json"]) == 2
    assert (
        "the shards ran different folder settings: cases/jsonmatch.yaml differs between "
        "s1.json and s2.json" in capsys.readouterr().err
    )


def test_under_xdist_the_workers_send_what_they_read(pytester):
    # the controller reads no case file: each part comes from the workers with their reports
    write(pytester, "schemas/invoice.json", json.dumps(SCHEMA))
    write(pytester, "cases/jsonmatch.yaml", FOLDER + "schema: ../schemas/invoice.json\n")
    for name in ("a", "b", "c"):
        write(pytester, f"cases/{name}.jsonmatch.yaml", CASE)
    pytester.runpytest_subprocess(*ARGS, "-n", "2", "--jsonmatch-report=r.json")
    provenance = _report(pytester, "r.json")["run"]["provenance"]
    names = ("cases/a.jsonmatch.yaml", "cases/b.jsonmatch.yaml", "cases/c.jsonmatch.yaml")
    assert provenance["golden"] == {name: _sha(pytester, name) for name in names}
    assert provenance["folder_settings"] == {
        "cases/jsonmatch.yaml": _sha(pytester, "cases/jsonmatch.yaml")
    }
    assert provenance["schemas"] == {"schemas/invoice.json": _sha(pytester, "schemas/invoice.json")}
