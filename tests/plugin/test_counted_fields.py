"""A session that writes no report file counts each comparison's fields into the per-field
tables as it is recorded, and keeps no field record (reporting/verdicts/field_counts.py, chosen by
report.summary_reads): its terminal summary is the one a session keeping every record
prints, with -v too; a report file, a baseline and xdist keep the records, and print the same
summary again."""

from __future__ import annotations

import json

import pytest

from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

TESTS = """
import pytest
from pytest_jsonmatch import assert_json_match

def test_pass(json_match):
    json_match({"a": 1, "b": "x"}, {"a": 1, "b": "x"})

def test_fail():
    assert_json_match({"a": 1, "b": "y", "c": [1, 2]}, {"a": 1, "b": "x", "d": 3}, threshold=0.9)

def test_two_metrics():
    assert_json_match({"a": 1, "n": {"m": 2}}, {"a": 1, "n": {"m": 3}}, threshold=0)
    assert_json_match({"v": "ACME"}, {"v": "ACME Corp"}, metric="json_similarity", threshold=0)

def test_ignored_and_cut():
    assert_json_match({"a": 1, "note": "x"}, {"a": 1, "note": "y"}, ignore=["note"])
    assert_json_match('{"a": 1, "items": [1, 2', {"a": 1, "items": [1, 2, 3]},
                      truncated="close", threshold=0)

@pytest.mark.xfail(reason="known")
def test_known():
    assert_json_match({"a": 5, "z": 1}, {"a": 1})

def test_caught():
    with pytest.raises(AssertionError):
        assert_json_match({"q": 2}, {"q": 1})
"""

CASES = """
cases:
  - id: same
    expected: {total: 10, items: [{sku: A, qty: 1}, {sku: B, qty: 2}]}
    actual: {total: 10, items: [{sku: A, qty: 1}, {sku: B, qty: 2}]}
  - id: wrong-total
    expected: {total: 10, items: [{sku: A, qty: 1}]}
    actual: {total: 12, items: [{sku: A, qty: 1}], extra: true}
  - id: similar
    metric: json_similarity
    threshold: 0
    expected: {vendor: ACME, total: 100}
    actual: {vendor: ACME Corp, total: 80}
  - id: no-json
    expected: {total: 1}
    actual: "I could not read it"
"""

# what each session kept: whether it counted its fields, and whether a comparison kept any
CONFTEST = """
import json

def pytest_unconfigure(config):
    from pytest_jsonmatch.plugin.session import SESSION

    session = config.stash.get(SESSION, None)
    if session is None or session.worker:
        return
    with open("kept.json", "w") as fh:
        json.dump({"counted": session.counts is not None,
                   "records": sum(len(c.fields) for c in session.comparisons),
                   "comparisons": len(session.comparisons)}, fh)
"""


@pytest.fixture
def project(pytester):
    pytester.makepyfile(test_mod=TESTS)
    write(pytester, "golden/invoices.jsonmatch.yaml", CASES)
    pytester.makeconftest(CONFTEST)
    return pytester


def _section(result) -> list[str]:
    """The ``jsonmatch`` section of a session's output, without the line naming the report
    file written (the one line a report file adds)."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "= jsonmatch =" in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("=")), len(lines))
    return [line for line in lines[start:end] if not line.startswith("report written to")]


def _run(pytester, *flags, subprocess=False):
    run = pytester.runpytest_subprocess if subprocess else pytester.runpytest_inprocess
    result = run(*ARGS, *flags)
    result.assert_outcomes(passed=6, failed=3, xfailed=1)
    return _section(result), json.loads((pytester.path / "kept.json").read_text())


@pytest.mark.parametrize("verbose", [[], ["-v"]], ids=["plain", "verbose"])
def test_the_summary_counted_is_the_summary_of_the_records(project, verbose):
    counted, kept = _run(project, *verbose)
    assert kept == {"counted": True, "records": 0, "comparisons": 12}
    whole, kept = _run(project, *verbose, "--jsonmatch-report=r.json")
    assert not kept["counted"] and kept["records"] > 20
    assert counted == whole
    # a per-field table per metric, the unscored case, the cut answer, the xfailed one apart
    text = "\n".join(counted)
    for seen in (
        "fields of metric field_f1",
        "fields of metric json_similarity",
        "could not be scored (counted as 0):",
        "truncated: 1 case scored from an answer cut off",
        "not counted (expected to fail): 2 xfailed",
        "note",
    ):
        assert seen in text, seen
    if verbose:
        assert "more field" not in text


def test_a_baseline_keeps_the_records_and_prints_the_same_fields(project):
    whole, _ = _run(project, "--jsonmatch-report=base.json")
    against, kept = _run(project, "--jsonmatch-baseline=base.json")
    assert not kept["counted"] and kept["records"] > 20
    assert against[: against.index("")] == whole[: whole.index("")]  # the metric table
    # (the case that could not be scored is not compared: 9 of the 10 are; the words are read
    # together, as the line naming the baseline file wraps where the file's path ends)
    said = " ".join("\n".join(against).split())
    assert "baseline " in said and "9 cases shared" in said and "1 not compared" in said
    counted, _ = _run(project)
    assert [line for line in counted if line] == [line for line in against if line][
        : len([line for line in counted if line])
    ]


def test_two_xdist_workers_print_the_summary_of_a_serial_counted_session(project):
    counted, kept = _run(project)
    assert kept["counted"]
    spread, kept = _run(project, "-n", "2", subprocess=True)
    assert not kept["counted"] and kept["records"] > 20  # the controller's, from the wire
    assert spread == counted


def test_a_session_whose_comparisons_all_stand_apart_still_prints_its_summary(pytester):
    pytester.makepyfile("""
        import pytest
        from pytest_jsonmatch import assert_json_match

        @pytest.mark.xfail(reason="known")
        def test_known():
            assert_json_match({"a": 5}, {"a": 1})
    """)
    pytester.makeconftest(CONFTEST)
    sections = []
    for flags in ([], ["--jsonmatch-report=r.json"]):
        result = pytester.runpytest_inprocess(*ARGS, *flags)
        result.assert_outcomes(xfailed=1)
        sections.append(_section(result))
    assert sections[0] == sections[1]
    assert "not counted (expected to fail): 1 xfailed, 0 xpassed" in sections[0]
    assert json.loads((pytester.path / "kept.json").read_text())["comparisons"] == 1
