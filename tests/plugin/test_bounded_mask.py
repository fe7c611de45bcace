"""A ``jsonmatch_mask`` pattern that backtracks catastrophically cannot hang the session
(issue 55): each pattern runs under a time budget (engine/core/masking.py), and past it the
text is withheld rather than shown unmasked."""

from __future__ import annotations

import json
import pickle

from pytest_jsonmatch.engine.core.masking import WITHHELD, MaskPattern, mask_patterns
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.timeout import GENEROUS, within

HOSTILE = "^(a|aa)+$"  # exponential on "aaa...a!" in re and in the regex package alike


def test_a_mask_pattern_past_its_budget_withholds_the_text():
    (pattern,) = mask_patterns([HOSTILE])
    with within(GENEROUS):
        assert pattern.sub("***", "a" * 100 + "!") == WITHHELD
    assert pattern.sub("***", "aaaa") == "***"  # within its budget it masks as before
    assert pickle.loads(pickle.dumps(pattern)) == pattern == MaskPattern(HOSTILE)


def test_a_catastrophic_mask_pattern_in_the_ini_file_cannot_hang_the_session(pytester):
    write(
        pytester,
        "llm.py",
        f"""\
        def extract(text):
            raise RuntimeError("{"a" * 100}!")
        """,
    )
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - {id: stuck, input: x, expected: {name: x}}
        """,
    )
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\npythonpath = .\njsonmatch_target = llm:extract\njsonmatch_mask = {HOSTILE}\n",
    )
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=out/r.json")
    result.assert_outcomes(failed=1)
    report = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    (comparison,) = report["comparisons"]
    assert comparison["error"] == f"RuntimeError: {WITHHELD} (1 attempt)"
    assert "a" * 20 not in comparison["error"]


def test_a_golden_case_whose_schema_pattern_backtracks_fails_alone(pytester):
    # (the reproducer hung pytest past 120 s; now the case fails, the other passes)
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        f"""\
        schema:
          type: object
          properties:
            a: {{type: string, pattern: "{HOSTILE}"}}
        cases:
          - {{id: stuck, actual: {{a: "{"a" * 100}!"}}, expected: {{a: x}}}}
          - {{id: fine, actual: {{a: aa}}, expected: {{a: aa}}}}
        """,
    )
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=out/r.json")
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    (stuck,) = [c["error"] for c in report["comparisons"] if "stuck" in c["case_id"]]
    (fine,) = [c["error"] for c in report["comparisons"] if "fine" in c["case_id"]]
    assert "#/properties/a/pattern" in stuck and repr(HOSTILE) in stuck
    assert not fine
