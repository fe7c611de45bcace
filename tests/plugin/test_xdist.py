"""Under pytest-xdist each comparison travels to the controller with its test's report; the
controller alone prints the summary and writes the report: the numbers equal a serial run's,
and a worker that dies loses nothing but the test it was running, which counts as an error."""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from tests.helpers.plugin_cases import ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# Six tests over two modules, with different scores and metrics, so that both workers
# get some of them.
MODULE_A = """
import pytest
from pytest_jsonmatch import assert_json_match

@pytest.mark.parametrize("b", ["x", "y", "xy"])
def test_a(b):
    assert_json_match({"a": 1, "b": b}, {"a": 1, "b": "x"}, threshold=0)
"""
MODULE_B = """
from pytest_jsonmatch import assert_json_match

def test_similar():
    assert_json_match({"vendor": "ACME", "total": 80}, {"vendor": "ACME Corp", "total": 100},
                      metric="json_similarity", threshold=0)

def test_items():
    assert_json_match({"items": [{"sku": "B"}, {"sku": "A"}]},
                      {"items": [{"sku": "A"}, {"sku": "B"}, {"sku": "C"}]},
                      metric="structural_f1", threshold=0)

def test_failing():
    assert_json_match({"a": 2}, {"a": 1})
"""


def _run(pytester, *extra):
    # the test dependencies' plugins slow every process down: left out (ARGS)
    result = pytester.runpytest_subprocess(*ARGS, *extra)
    result.assert_outcomes(passed=5, failed=1)
    return result


def test_serial_and_two_workers_give_the_same_report(pytester):
    pytester.makepyfile(test_mod_a=MODULE_A, test_mod_b=MODULE_B)
    serial = _run(pytester, "--jsonmatch-report=serial.json")
    spread = _run(pytester, "-n", "2", "--jsonmatch-report=spread.json")
    spread.stdout.fnmatch_lines(["created: 2/2 workers*"])
    a = json.loads((pytester.path / "serial.json").read_text())
    b = json.loads((pytester.path / "spread.json").read_text())
    assert a["count"] == 6  # every comparison reached the controller
    assert a.pop("run")["command"] != b.pop("run")["command"]  # when and how differ, nothing else
    assert a == b  # comparisons, cases, metrics, fields and overall identical to the last bit

    # the summary is printed once, by the controller, with the same numbers
    def section(result):
        lines = result.outlines
        start = next(i for i, line in enumerate(lines) if "= jsonmatch =" in line)
        end = next(i for i, line in enumerate(lines) if line.startswith("report written"))
        return lines[start + 1 : end]

    assert sum("= jsonmatch =" in line for line in spread.outlines) == 1
    assert section(serial) == section(spread)


DYING = """
import os
from pytest_jsonmatch import assert_json_match

def test_first():
    assert_json_match({"a": 1}, {"a": 1})

def test_second():
    assert_json_match({"a": 1, "b": 2}, {"a": 1, "b": 3}, threshold=0)

def test_third():
    assert_json_match({"a": 1}, {"a": 1})

def test_dies():
    os._exit(3)
"""


def test_a_worker_that_dies_leaves_a_complete_report_for_the_rest(pytester):
    pytester.makepyfile(test_dying=DYING)
    result = pytester.runpytest_subprocess(
        *ARGS,
        "-n",
        "2",
        "-p",
        "no:randomly",
        "--jsonmatch-report=r.json",
    )
    data = json.loads((pytester.path / "r.json").read_text())
    cases = {c["case_id"]: (c["status"], c["mean_score"]) for c in data["cases"]}
    # the three finished tests are all there; the lost one is an error scored 0:
    # overall (1 + 0.5 + 1 + 0) / 4 = 0.625
    assert cases == {
        "test_dying.py::test_first": ("passed", 1.0),
        "test_dying.py::test_second": ("passed", 0.5),
        "test_dying.py::test_third": ("passed", 1.0),
        "test_dying.py::test_dies": ("error", 0.0),
    }
    assert data["overall"] == 0.625 and data["errors"] == 1
    errors = [c["error"] for c in data["comparisons"] if c["status"] == "error"]
    assert len(errors) == 1 and re.fullmatch(
        "the xdist worker gw[0-9] died running this test, and no other call was in flight",
        errors[0],
    )
    assert result.ret != 0


# -- a target that kills its worker while other calls run ahead ------------------------------

# Every case's call but the killer's waits (at most 2 s) for the killer's call to have
# started, so that a worker always dies with another test's call in flight: c3 is the
# killer; xdist sends c0, c1 to one worker and c2, c3 to the other (two per worker to start
# with), and the second starts c3's call ahead while c2 is the running test.
KILLER = """
import os, signal, time
from pathlib import Path

def extract(text):
    if text == "c3":
        Path("killer-started").touch()
        {kill}
    deadline = time.monotonic() + 2
    while not Path("killer-started").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return {{"name": text}}
"""
KILLS = {"os._exit": "os._exit(3)", "SIGKILL": "os.kill(os.getpid(), signal.SIGKILL)"}


def _killer_suite(pytester, kill, cases):
    pytester.makepyfile(llm=KILLER.format(kill=KILLS[kill]))
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n")
    (pytester.path / "golden").mkdir()
    (pytester.path / "golden" / "c.jsonmatch.yaml").write_text(
        "cases:\n"
        + "".join(f"  - {{id: {c}, input: {c}, expected: {{name: {c}}}}}\n" for c in cases)
    )


def _run_killer(pytester, *extra):
    result = pytester.runpytest_subprocess(
        *ARGS,
        "-p",
        "no:randomly",
        "--jsonmatch-report=r.json",
        *extra,
    )
    report = json.loads((pytester.path / "r.json").read_text())
    ids = [c["case_id"] for c in report["comparisons"]]
    assert len(ids) == len(set(ids)), ids  # no case recorded twice, though xdist ran some again
    return result, report


def test_a_target_that_kills_its_worker_is_blamed_and_the_test_it_killed_runs_again(pytester):
    _killer_suite(pytester, "os._exit", ["c0", "c1", "c2", "c3"])
    # concurrency 4 for the session: 2 calls at a time in each of the 2 workers
    result, report = _run_killer(pytester, "-n", "2", "--jsonmatch-calls=concurrency=4")
    name = "golden/c.jsonmatch.yaml::"
    statuses = {c["case_id"].removeprefix(name): c["status"] for c in report["comparisons"]}
    assert statuses == {"c0": "passed", "c1": "passed", "c2": "passed", "c3": "error"}
    (error,) = [c["error"] for c in report["comparisons"] if c["status"] == "error"]
    assert re.fullmatch(
        r"the xdist worker gw\d+ died running this test, and no other call was "
        r"in flight",
        error,
    )
    # the first death: c3's call ran ahead while c2 was the running test, which is sent back
    # (run again, alone, and passed); the second: c3 ran alone, and is blamed
    first, second = report["run"]["worker_deaths"]
    assert (first["running"], first["verdict"]) == (name + "c2", "sent back")
    assert name + "c3" in first["calls_in_flight"]
    assert (second["running"], second["calls_in_flight"], second["verdict"]) == (
        name + "c3",
        [name + "c3"],
        "blamed",
    )
    assert report["run"]["complete"] is True and report["errors"] == 1
    out = result.stdout.str()
    assert re.search(
        r"gw\d+ died running golden/c.jsonmatch.yaml::c2, with the calls of\s+"
        r"golden/c.jsonmatch.yaml::c3 in flight: blamed on no one",
        out,
    ), out
    result.assert_outcomes(passed=3, failed=1)  # pytest's own count: c2 once, as passed
    assert "1 rerun" in out
    assert _processes_in(pytester.path) == []  # no worker, dead or replacing one, is left


def _processes_in(folder, grace=3.0):
    """The processes (but this one) whose working folder is ``folder``, once they had
    ``grace`` seconds to end; [] where /proc cannot tell (not Linux)."""
    deadline = time.monotonic() + grace
    while True:
        left = []
        for pid in os.listdir("/proc") if os.path.isdir("/proc/self") else ():
            try:
                if (
                    pid.isdigit()
                    and int(pid) != os.getpid()
                    and os.readlink(f"/proc/{pid}/cwd") == str(folder)
                ):
                    left.append(int(pid))
            except OSError:  # ended meanwhile, or not ours to read
                continue
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def test_calls_that_cannot_run_again_are_lost_calls_that_blame_no_one(pytester):
    # one worker, no replacement: c3's call, run ahead, kills it (SIGKILL) while c0 is the
    # running test.
    # Neither runs again: each is a lost call, the running test is not blamed, and the run
    # is partial
    _killer_suite(pytester, "SIGKILL", ["c0", "c3"])
    result, report = _run_killer(
        pytester, "-n", "1", "--max-worker-restart=0", "--jsonmatch-calls=concurrency=2"
    )
    errors = {c["case_id"]: c["error"] for c in report["comparisons"]}
    assert sorted(errors) == ["golden/c.jsonmatch.yaml::c0", "golden/c.jsonmatch.yaml::c3"]
    assert all(
        re.fullmatch(
            r"lost call: the xdist worker gw0 died while this test or its call "
            r"was in flight beside the calls of others, and it did not run "
            r"again; blamed on no one",
            e,
        )
        for e in errors.values()
    ), errors
    assert [(d["running"], d["verdict"]) for d in report["run"]["worker_deaths"]] == [
        ("golden/c.jsonmatch.yaml::c0", "sent back")
    ]
    assert report["run"]["complete"] is False
    assert report["run"]["stopped"] == "2 lost calls in dead xdist workers: 0 of 2 tests ran"
    result.stdout.fnmatch_lines(
        [
            "could not be scored (counted as 0): 2 cases, 1 cause",
            "  2 cases (golden/c.jsonmatch.yaml::c0, golden/c.jsonmatch.yaml::c3): lost call:*",
        ]
    )
    assert result.ret != 0
