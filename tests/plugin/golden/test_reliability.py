"""Repeated golden cases as a reliability measure, in real sessions: pass^k and pass@k in the
summary and the JSON report, flaky cases named, the gates on them (a floor, k above a case's
runs, a drop against a baseline, cases that became flaky), and the same figures from one
process, from xdist workers and from shards merged by ``jsonmatch merge``."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.cli.app import main
from tests.helpers.plugin_cases import ALTERNATING_TARGET, ARGS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

# Each case's runs answer, in turn, the letters answers.json gives its input: x matches the
# expected b, y does not. Under field_f1 a run scores 1.0 or 0.5; at threshold 1 it passes
# only with x. A case's runs all run in one process, so whatever worker or shard runs the
# case, its runs give the same answers (in whatever order its calls return).
CASES = """
threshold: 1
cases:
  - {id: three-of-five, repeat: 5, expected: {a: 1, b: x}, input: a}
  - {id: steady, repeat: 5, expected: {a: 1, b: x}, input: b}
  - {id: never, repeat: 5, expected: {a: 1, b: x}, input: c}
  - {id: once, expected: {a: 1, b: x}, input: b}
"""
ANSWERS = {"a": "xxyxy", "b": "x", "c": "y"}
# at k = 5 (every repeated case ran 5 times):
#   three-of-five: 3 of 5; pass^5 = C(3, 5) / C(5, 5) = 0; pass@5 = 1 - C(2, 5) / 1 = 1
#   steady: 5 of 5 -> 1 and 1; never: 0 of 5 -> 0 and 0
#   pass^5 = (0 + 1 + 0) / 3 = 1/3, pass@5 = (1 + 1 + 0) / 3 = 2/3
# at k = 2: three-of-five: pass^2 = C(3, 2) / C(5, 2) = 3 / 10, pass@2 = 1 - 1 / 10 = 0.9
#   pass^2 = (0.3 + 1 + 0) / 3 = 0.4333, pass@2 = (0.9 + 1 + 0) / 3 = 0.6333


def _suite(pytester, answers=None, ini=""):
    pytester.makeconftest(ALTERNATING_TARGET)
    pytester.makefile(".jsonmatch.yaml", c=CASES)
    (pytester.path / "answers.json").write_text(json.dumps(answers or ANSWERS))
    if ini:
        pytester.makeini("[pytest]\n" + ini)


def _reliability(pytester, name="r.json"):
    return json.loads((pytester.path / name).read_text())["reliability"]


def test_the_summary_and_the_report_give_pass_hat_k_and_pass_at_k(pytester):
    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.stdout.fnmatch_lines(
        [
            "reliability of 3 repeated cases at k = 5 (the fewest runs of a repeated case):",
            "          cases    mean      95% interval",
            "  pass^5      3  0.3333  0.0000 to 1.0000",
            "  pass@5      3  0.6667  0.0000 to 1.0000",
            "*",
            "flaky cases (runs that disagree): 1 of 3",
            "repeated case                    runs  scored  passed  pass^5  pass@5",
            "c.jsonmatch.yaml::never             5       5       0  0.0000  0.0000",
            "c.jsonmatch.yaml::steady            5       5       5  1.0000  1.0000",
            "c.jsonmatch.yaml::three-of-five     5       5       3  0.0000  1.0000  flaky",
        ]
    )
    section = _reliability(pytester)
    assert (section["k"], section["k_given"], section["repeated"]) == (5, False, 3)
    assert section["pass_hat_k"]["mean"] == 1 / 3 and section["pass_at_k"]["mean"] == 2 / 3
    assert section["flaky"] == ["c.jsonmatch.yaml::three-of-five"]
    assert "once" not in json.dumps(section["cases"])  # a case run once is not repeated


def test_each_field_has_its_own_pass_hat_k_and_pass_at_k(pytester):
    # a is 1 in every run of every case: 1 and 1 over the 3 repeated cases; b is what the
    # run's pass turned on, so its figures are the run's, worked out at the top of this file
    _suite(pytester, ini="jsonmatch_gates = pass_k=2\n")
    result = pytester.runpytest_inprocess(*ARGS, "-v", "--jsonmatch-report=r.json")
    result.stdout.fnmatch_lines(
        [
            "pass^2 and pass@2 per field of the repeated cases:",
            "field  cases  pass^2  pass@2",
            "a          3  1.0000  1.0000",
            "b          3  0.4333  0.6333",
        ]
    )
    fields = _reliability(pytester)["fields"]
    assert list(fields) == ["a", "b"]
    assert fields["a"]["cases"] == 3
    assert fields["a"]["pass_hat_k"] == {"mean": 1.0, "low": 1.0, "high": 1.0, "cases": 3}
    assert fields["a"]["pass_at_k"] == {"mean": 1.0, "low": 1.0, "high": 1.0, "cases": 3}
    # b: (0.3 + 1 + 0) / 3 and (0.9 + 1 + 0) / 3
    assert fields["b"]["pass_hat_k"]["mean"] == pytest.approx(1.3 / 3, abs=1e-15)
    assert fields["b"]["pass_at_k"]["mean"] == pytest.approx(1.9 / 3, abs=1e-15)


def test_a_session_that_keeps_no_field_records_gives_the_same_field_figures(pytester):
    # no report file, baseline, target, telemetry or xdist: the fields are counted as they
    # come and no comparison keeps them; the per-field table is the one a report's gives
    _suite(pytester)
    counted = pytester.runpytest_inprocess(*ARGS, "-v").stdout.lines
    kept = pytester.runpytest_inprocess(*ARGS, "-v", "--jsonmatch-report=r.json").stdout.lines

    def table(lines: list[str]) -> list[str]:
        start = next(i for i, line in enumerate(lines) if "per field of the repeated" in line)
        ends = ("=", "report written")
        end = next(
            i for i in range(start + 1, len(lines)) if lines[i].startswith(ends) or not lines[i]
        )
        return lines[start:end]

    assert table(counted) == table(kept) and len(table(kept)) > 2


def test_a_floor_on_pass_hat_k_at_a_given_k(pytester):
    _suite(pytester, ini="jsonmatch_gates = pass_k=2 min_pass_hat_k=0.45 min_pass_at_k=0.6\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.stdout.fnmatch_lines(
        [
            "  pass^2      3  0.4333  *",
            "  pass@2      3  0.6333  *",
            "c.jsonmatch.yaml::three-of-five     5       5       3  0.3000  0.9000  flaky",
            "FAILED: jsonmatch gates: 1 failure",
            "  pass^2 0.4333 over 3 repeated cases is below jsonmatch_gates min_pass_hat_k 0.4500",
        ]
    )
    gates = json.loads((pytester.path / "r.json").read_text())["gates"]
    assert gates["checked"] == [
        "pass@2 0.6333 over 3 repeated cases is at least jsonmatch_gates min_pass_at_k 0.6000"
    ]


def test_a_k_above_a_case_s_runs_is_a_usage_error_naming_it(pytester):
    _suite(pytester, ini="jsonmatch_gates = pass_k=6\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "  jsonmatch_gates pass_k 6 is more than the runs of cases c.jsonmatch.yaml::never, "
            "c.jsonmatch.yaml::steady, c.jsonmatch.yaml::three-of-five: pass^6 and pass@6 "
            "cannot be estimated from fewer runs*",
        ]
    )


def test_a_floor_with_nothing_repeated_fails(pytester):
    pytester.makeconftest(ALTERNATING_TARGET)
    pytester.makefile(".jsonmatch.yaml", c="expected: {a: 1, b: x}\ninput: b\n")
    (pytester.path / "answers.json").write_text(json.dumps(ANSWERS))
    pytester.makeini("[pytest]\njsonmatch_gates = min_pass_hat_k=0.5\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "  jsonmatch_gates min_pass_hat_k 0.5000: no case was run more than once "
            "(repeat: N, --jsonmatch-repeat=N): nothing to hold to it"
        ]
    )


def test_against_a_baseline_pass_hat_k_drops_and_cases_become_flaky(pytester):
    _suite(pytester, ini="jsonmatch_gates = pass_k=2 max_pass_drop=0.1 strict\n")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=base.json")
    # now steady fails one run of five and three-of-five passes every run
    (pytester.path / "answers.json").write_text(json.dumps({**ANSWERS, "a": "x", "b": "xxxxy"}))
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-baseline=base.json", "--jsonmatch-report=r.json"
    )
    # steady: pass^2 1 -> C(4, 2) / C(5, 2) = 6 / 10; three-of-five: 0.3 -> 1; never: 0 -> 0
    # pass^2 (1 + 0.3 + 0) / 3 = 0.4333 -> (0.6 + 1 + 0) / 3 = 0.5333: up; pass@2 of steady
    # stays 1 (1 - C(1, 2) / 10), three-of-five 0.9 -> 1: up
    section = _reliability(pytester)
    base = section["baseline"]
    assert base["shared"] == 3
    assert base["became_flaky"] == ["c.jsonmatch.yaml::steady"]
    assert base["no_longer_flaky"] == ["c.jsonmatch.yaml::three-of-five"]
    assert round(base["pass_hat_k"]["before"], 4) == 0.4333
    assert round(base["pass_hat_k"]["after"], 4) == 0.5333
    result.stdout.fnmatch_lines(
        [
            "became flaky: c.jsonmatch.yaml::steady",
            "no longer flaky: c.jsonmatch.yaml::three-of-five",
        ]
    )
    # the other way round, pass^2 drops by 0.1000 (0.5333 -> 0.4333), more than 0.1 allows
    # with strict: base = r.json, now = the first answers again
    (pytester.path / "answers.json").write_text(json.dumps({**ANSWERS, "c": "yyyyx"}))
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=r.json")
    # never: 1 of 5 -> pass^2 0, pass@2 = 1 - C(4, 2) / C(5, 2) = 0.4; pass^2 over the three:
    # (0.3 + 1 + 0) / 3 = 0.4333, from 0.5333: a drop of 0.1000, not beyond 0.1
    assert "pass^2 dropped" not in result.stdout.str()
    (pytester.path / "answers.json").write_text(json.dumps({**ANSWERS, "a": "xyyyy"}))
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-baseline=r.json")
    # three-of-five is now 1 of 5: pass^2 0; the figure (0 + 1 + 0) / 3 = 0.3333 from 0.5333
    result.stdout.fnmatch_lines(
        [
            "  pass^2 dropped by 0.2000 (0.5333 -> 0.3333 over 3 shared repeated cases), more "
            "than jsonmatch_gates max_pass_drop 0.1000: 'strict' in jsonmatch_gates fails any "
            "drop beyond it",
        ]
    )
    assert result.ret == 1


def test_xdist_workers_and_merged_shards_give_the_figures_of_one_process(pytester):
    _suite(pytester, ini="jsonmatch_gates = pass_k=2 min_pass_hat_k=0.45\n")
    whole = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=whole.json")
    spread = pytester.runpytest_subprocess(*ARGS, "-n", "2", "--jsonmatch-report=spread.json")
    assert whole.ret == spread.ret == 1
    expected = _reliability(pytester, "whole.json")
    assert set(expected["fields"]) == {"a", "b"}  # compared with the rest below
    assert _reliability(pytester, "spread.json") == expected
    paths = []
    for i, selection in enumerate(["three or once", "steady or never"], 1):
        pytester.runpytest_inprocess(
            *ARGS, "-k", selection, f"--jsonmatch-shard={i}/2", f"--jsonmatch-report=s{i}.json"
        )
        paths.append(str(pytester.path / f"s{i}.json"))
    out = str(pytester.path / "merged.json")
    code = main(["merge", *paths, "-o", out])
    merged = json.loads(open(out).read())
    assert merged["reliability"] == expected
    whole_gates = json.loads((pytester.path / "whole.json").read_text())["gates"]
    assert merged["gates"]["failures"] == whole_gates["failures"]
    assert code == 1


def test_the_markdown_report_marks_the_flaky_cases(pytester):
    _suite(pytester, ini="jsonmatch_gates = pass_k=2\n")
    pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.md")
    text = (pytester.path / "r.md").read_text()
    # the figures worked out at the top of this file, at k = 2
    assert "### Repeated cases at k = 2" in text
    # (Markdown keeps "@" from making a mention with a zero-width space after it)
    assert "| pass^2 | 3 | 0.4333 |" in text and "| pass@\u200b2 | 3 | 0.6333 |" in text
    assert "| c.jsonmatch.yaml::three-of-five | 3/5 | 0 | 0.3000 | 0.9000 | flaky |" in text
    assert "| c.jsonmatch.yaml::steady | 5/5 | 0 | 1.0000 | 1.0000 |  |" in text
