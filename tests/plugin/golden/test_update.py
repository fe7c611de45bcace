"""--jsonmatch-update=create|fix|all through pytest (golden.py, session.py, case_edit.py):
which cases are written, the summary of what changed, every other byte of the files kept,
refusal under CI, one write per file by the xdist controller, a run killed mid-write, and
a run right after ``all`` passing every updated case."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.helpers.plugin_cases import ARGS
from tests.helpers.timeout import GENEROUS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# The target answers {"vendor": <input upper-cased>, "total": 10}.
TARGET = """
def pytest_jsonmatch_target(case, config):
    return {"vendor": case.input.upper(), "total": 10}
"""

CASES = (
    "threshold: 0.9\n"
    "cases:\n"
    "  - id: new            # written without expected\n"
    "    input: acme\n"
    "  - id: wrong\n"
    "    expected: {vendor: ACME, total: 12}   # the total is off\n"
    "    input: acme\n"
    "  - id: close\n"
    "    threshold: 0.5\n"
    "    expected: {vendor: ACME, total: 11}\n"
    "    input: acme\n"
    "  - id: same\n"
    "    expected: {vendor: INITECH, total: 10}\n"
    "    input: initech\n"
)


def _suite(pytester, cases=CASES, name="c"):
    pytester.makeconftest(TARGET)
    path = pytester.path / f"{name}.jsonmatch.yaml"
    path.write_text(cases)  # these bytes exactly (pytester.makefile would strip the last newline)
    return path


def _run(pytester, *flags):
    return pytester.runpytest_inprocess(*ARGS, *flags)


def test_without_update_a_case_without_expected_says_how_to_create_it(pytester):
    _suite(pytester)
    result = _run(pytester)
    result.stdout.fnmatch_lines(
        [
            "c.jsonmatch.yaml:3: case 'new': missing 'expected' (the mapping "
            "the output should match); run pytest with "
            "--jsonmatch-update=create to write it from the actual output"
        ]
    )


def test_create_writes_only_the_cases_without_expected(pytester):
    path = _suite(pytester)
    result = _run(pytester, "--jsonmatch-update=create")
    # 'wrong' still fails (0.5 < 0.9): create touches nothing else
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:", "  c.jsonmatch.yaml:3 new"])
    assert path.read_text() == CASES.replace(
        "    input: acme\n  - id: wrong",
        "    input: acme\n    expected: {vendor: ACME, total: 10}\n  - id: wrong",
        1,
    )


def test_fix_writes_the_failing_cases_and_passes_them(pytester):
    path = _suite(
        pytester,
        CASES.replace("  - id: new            # written without expected\n    input: acme\n", ""),
    )
    result = _run(pytester, "--jsonmatch-update=fix")
    # wrong: vendor matches, total 12 vs 10: 0.5 < 0.9, fixed; close: 0.5 >= 0.5, kept
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:", "  c.jsonmatch.yaml:3 wrong"])
    assert "expected: {vendor: ACME, total: 10}   # the total is off" in path.read_text()
    assert "expected: {vendor: ACME, total: 11}\n" in path.read_text()


def test_all_writes_every_case_that_differs_and_the_next_run_passes(pytester):
    path = _suite(
        pytester,
        CASES.replace("  - id: new            # written without expected\n    input: acme\n", ""),
    )
    before = path.read_text()
    result = _run(pytester, "--jsonmatch-update=all")
    result.stdout.fnmatch_lines(
        ["updated 2 cases in 1 file:", "  c.jsonmatch.yaml:3 wrong", "  c.jsonmatch.yaml:6 close"]
    )
    after = path.read_text()
    assert after == before.replace("total: 12}", "total: 10}").replace("total: 11}", "total: 10}")
    again = _run(pytester)
    again.assert_outcomes(passed=3)


def test_all_leaves_a_case_that_scores_one_though_its_text_differs(pytester):
    # 'spelt': the target answers "ACME", the case expects "Acme" under the normalized metric,
    # which folds case: a score of 1.0, a right answer spelt otherwise, so its expected stays
    # as written; 'wrong' (total 12 against 10) scores 0.5 and is rewritten
    path = _suite(
        pytester,
        "cases:\n"
        "  - id: spelt\n"
        "    metric: field_match_normalized\n"
        "    expected: {vendor: Acme, total: 10}\n"
        "    input: acme\n"
        "  - id: wrong\n"
        "    expected: {vendor: ACME, total: 12}\n"
        "    input: acme\n",
    )
    before = path.read_text()
    result = _run(pytester, "--jsonmatch-update=all")
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:", "  c.jsonmatch.yaml:6 wrong"])
    assert path.read_text() == before.replace("total: 12}", "total: 10}")


def test_an_update_that_cannot_be_written_names_the_file(pytester):
    # the kernel refuses the write, as on the user's full file system: a file-size limit of
    # 64 bytes (the case file is larger) makes every longer write fail with EFBIG, "File too
    # large", the error the report quoted without its file
    path = _suite(
        pytester,
        CASES.replace("  - id: new            # written without expected\n    input: acme\n", ""),
    )
    before = path.read_text()
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error, not a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, limits[1]))
    try:
        result = _run(pytester, "--jsonmatch-update=fix")
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, previous)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED: could not update c.jsonmatch.yaml: File too large"])
    assert path.read_text() == before


def test_folder_defaults_and_actual_file_cases_are_updated_in_their_case_file(pytester):
    pytester.makeconftest(TARGET)
    (pytester.path / "jsonmatch.yaml").write_text("threshold: 1.0\n")
    (pytester.path / "out.txt").write_text('The answer: {"vendor": "ACME", "total": 3}')
    path = pytester.path / "c.jsonmatch.yaml"
    path.write_text("expected:\n  vendor: ACME\n  total: 4\nactual_file: out.txt\n")
    result = _run(pytester, "--jsonmatch-update=fix")
    result.assert_outcomes(passed=1)
    assert path.read_text() == "expected:\n  vendor: ACME\n  total: 3\nactual_file: out.txt\n"
    assert (pytester.path / "out.txt").read_text().endswith("3}")  # the output file untouched


def test_updates_refuse_to_run_in_ci_unless_asked(pytester, monkeypatch):
    monkeypatch.setenv("CI", "true")
    path = _suite(pytester)
    before = path.read_text()
    result = _run(pytester, "--jsonmatch-update=all")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: refusing to update golden case files "
            "because the CI environment variable is set; pass "
            "--jsonmatch-update=all,ci to update them anyway"
        ]
    )
    assert path.read_text() == before
    result = _run(pytester, "--jsonmatch-update=create,ci")
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:"])


def test_under_xdist_the_controller_writes_each_file_once(pytester):
    pytester.makeconftest(TARGET)
    cases = "cases:\n" + "".join(f"  - id: c{i}\n    input: v{i}\n" for i in range(6))
    path, other = pytester.path / "c.jsonmatch.yaml", pytester.path / "d.jsonmatch.yaml"
    path.write_text(cases)
    other.write_text("input: y\n")
    result = pytester.runpytest_subprocess(*ARGS, "-n", "2", "--jsonmatch-update=create")
    result.stdout.fnmatch_lines(["updated 7 cases in 2 files:"])
    text = path.read_text()
    for i in range(6):  # every case of the file, from both workers, in one write
        assert (
            f"  - id: c{i}\n    input: v{i}\n    expected:\n      vendor: V{i}\n      total: 10\n"
            in text
        )
    assert other.read_text() == "input: y\nexpected:\n  vendor: Y\n  total: 10\n"


def test_a_run_killed_while_writing_leaves_the_old_file_and_the_next_run_cleans_up(pytester):
    path = _suite(pytester)
    before = path.read_text()
    (pytester.path / "conftest.py").write_text(
        textwrap.dedent(TARGET)
        + textwrap.dedent("""
        import os
        import pytest_jsonmatch.reporting.run_model.atomic as atomic

        if os.environ.get("DIE_WHILE_WRITING"):
            def dying_fsync(fd):
                os._exit(9)  # the machine lost power half way through the write
            atomic.os.fsync = dying_fsync
    """)
    )
    env = {**os.environ, "DIE_WHILE_WRITING": "1"}
    died = subprocess.run(
        [sys.executable, "-m", "pytest", *ARGS, "--jsonmatch-update=create"],
        cwd=pytester.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=GENEROUS,
    )
    assert died.returncode == 9
    assert path.read_text() == before  # never half a file
    leftovers = [p for p in os.listdir(pytester.path) if p.endswith(".tmp")]
    assert len(leftovers) == 1
    result = _run(pytester, "--jsonmatch-update=create")
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:"])
    assert [p for p in os.listdir(pytester.path) if p.endswith(".tmp")] == []


def test_fix_changes_only_the_lines_of_the_values_that_changed(pytester):
    # the user's report: fix re-indented indentless lists and re-quoted plain dates it did not
    # change; now the diff holds the changed values' lines and nothing else
    pytester.makeconftest("""
def pytest_jsonmatch_target(case, config):
    return {"vendor": "ACME", "date": "2024-01-13", "note": "net 30",
            "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 6}], "total": 10}
""")
    cases = (
        "cases:\n"
        "- id: invoice\n"
        "  expected:\n"
        '    vendor: "ACME"\n'
        "    date: 2024-01-13   # as printed\n"
        "    note: 'net 30'\n"
        "    lines:\n"
        "    - sku: A-1\n"
        "      qty: 2\n"
        "    - sku: B-2\n"
        "      qty: 5\n"
        "    total: 10\n"
        "  input: x\n"
    )
    path = pytester.path / "c.jsonmatch.yaml"
    path.write_text(cases)
    result = _run(pytester, "--jsonmatch-update=all")
    result.stdout.fnmatch_lines(["updated 1 case in 1 file:", "  c.jsonmatch.yaml:2 invoice"])
    assert path.read_text() == cases.replace("      qty: 5\n", "      qty: 6\n")


def test_an_update_run_does_not_judge_the_scores_it_replaced_and_a_later_run_does(pytester):
    # 'wrong' scores 0.5 (vendor matches, total 12 vs 10), so the overall mean over the three
    # cases is (0.5 + 1 + 1) / 3 = 0.8333 < fail_under 0.95; --jsonmatch-update=fix rewrites it
    path = _suite(
        pytester,
        CASES.replace(
            "  - id: new            # written without expected\n    input: acme\n", ""
        ).replace(
            "  - id: close\n    threshold: 0.5\n    expected: {vendor: ACME, total: 11}\n",
            "  - id: close\n    expected: {vendor: ACME, total: 10}\n",
        ),
    )
    (pytester.path / "pytest.ini").write_text("[pytest]\njsonmatch_gates = fail_under=0.95\n")
    before = _run(pytester)
    assert before.ret == 1  # judged: the suite as it stands fails the floor
    before.stdout.fnmatch_lines(
        ["*overall score 0.8333 is below jsonmatch_gates fail_under 0.9500*"]
    )
    result = _run(
        pytester,
        "--jsonmatch-update=fix",
        "--jsonmatch-report=out/r.json",
        "--jsonmatch-report=out/r.md",
    )
    result.assert_outcomes(passed=3)
    assert result.ret == 0  # every test passed; the old scores do not fail the run
    result.stdout.fnmatch_lines(
        [
            "jsonmatch gates: not judged: this run updated 1 case, so its scores are those of the "
            "expected values it replaced; run again without --jsonmatch-update to judge them"
        ]
    )
    assert "FAILED: jsonmatch gates" not in result.stdout.str()
    import json

    gates = json.loads((pytester.path / "out" / "r.json").read_text())["gates"]
    assert gates["failures"] == [] and gates["checked"] == [] and "not_judged" in gates
    assert "**Gates: not judged**" in (pytester.path / "out" / "r.md").read_text()
    assert "total: 10}   # the total is off" in path.read_text()
    after = _run(pytester)  # judged again, on the suite as updated: (1 + 1 + 1) / 3 = 1.0
    assert after.ret == 0
    after.stdout.fnmatch_lines(
        [
            "jsonmatch gates passed: overall score 1.0000 is at least jsonmatch_gates fail_under 0.9500"
        ]
    )


def test_an_update_run_that_updates_nothing_is_judged(pytester):
    _suite(
        pytester,
        "cases:\n  - id: same\n    expected: {vendor: INITECH, total: 10}\n    input: initech\n",
    )
    (pytester.path / "pytest.ini").write_text("[pytest]\njsonmatch_gates = fail_under=0.95\n")
    result = _run(pytester, "--jsonmatch-update=fix")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "jsonmatch gates passed: overall score 1.0000 is at least jsonmatch_gates fail_under 0.9500"
        ]
    )
