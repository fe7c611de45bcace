"""Under pytest-xdist each comparison travels to the controller with its test's report; the
controller alone prints the summary and writes the report: the numbers equal a serial run's,
and a worker that dies loses nothing but the test it was running, which counts as an error."""

from __future__ import annotations

import json
import re

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
    # hypothesis's and pytest-benchmark's plugins slow every process down: leave them out
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                           "-p", "no:benchmark", *extra)
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
        return lines[start + 1:end]

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
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                           "-p", "no:benchmark", "-n", "2", "-p", "no:randomly",
                                           "--jsonmatch-report=r.json")
    data = json.loads((pytester.path / "r.json").read_text())
    cases = {c["case_id"]: (c["status"], c["mean_score"]) for c in data["cases"]}
    # the three finished tests are all there; the lost one is an error scored 0:
    # overall (1 + 0.5 + 1 + 0) / 4 = 0.625
    assert cases == {"test_dying.py::test_first": ("passed", 1.0),
                     "test_dying.py::test_second": ("passed", 0.5),
                     "test_dying.py::test_third": ("passed", 1.0),
                     "test_dying.py::test_dies": ("error", 0.0)}
    assert data["overall"] == 0.625 and data["errors"] == 1
    errors = [c["error"] for c in data["comparisons"] if c["status"] == "error"]
    assert len(errors) == 1 and re.fullmatch(
        "the xdist worker gw[0-9] died running this test, and no other call was in flight", errors[0])
    assert result.ret != 0
