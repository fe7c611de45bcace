"""What the adapters share, without any framework: options checked when an adapter is made,
scores equal to match_json's, the reason, and the ImportError that names the extra."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_jsonmatch import ConfigError, ParseError, match_json
from pytest_jsonmatch.integrations.adapting import Scoring

from .frameworks import installed
from .pairs import PAIRS

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

ADAPTERS = [
    # module, what it gives, the framework's top-level package, the extra
    ("pydantic_evals", "JsonMatch", "pydantic_evals", "pydantic-evals"),
    ("inspect_ai", "json_match", "inspect_ai", "inspect-ai"),
    ("deepeval", "JsonMatchMetric", "deepeval", "deepeval"),
]
FRAMEWORKS = [framework for _, _, framework, _ in ADAPTERS]
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_the_score_is_match_jsons_and_the_hand_worked_one(pair):
    verdict = Scoring.checked(pair.metric, 0.5, pair.options).score(pair.actual, pair.expected)
    assert (
        verdict.score == match_json(pair.actual, pair.expected, pair.metric, **pair.options).score
    )
    assert verdict.score == pytest.approx(pair.score, abs=1e-12)
    assert [f["path"] for f in verdict.costly_fields()] == list(pair.costly)
    assert verdict.passed is (pair.score >= 0.5)


def test_the_reason_names_the_fields_that_cost_points_worst_first():
    pair = PAIRS[0]
    verdict = Scoring.checked("field_f1", 0.8, {}).score(pair.actual, pair.expected_text)
    assert verdict.reason.splitlines() == [
        "field_f1 0.4000 < threshold 0.8000: failed (precision 0.5000, recall 0.3333, F1 0.4000)",
        "fields that cost points, worst first (2):",
        '  country  mismatch  score 0.00  expected "France"  actual "Italy"',
        "  population  omission  score 0.00  expected 2100000  actual <missing>",
    ]
    perfect = Scoring.checked("field_f1", 1.0, {}).score('{"a": 1}', {"a": 1})
    assert perfect.passed and perfect.reason.splitlines()[1] == "every field scored 1"


def test_a_field_below_its_min_score_fails_above_the_threshold():
    scoring = Scoring.checked("json_similarity", 0.5, {"fields": {"age": {"min_score": 0.99}}})
    verdict = scoring.score('{"name": "John Smith", "age": 40}', {"name": "John Smith", "age": 41})
    assert verdict.score > 0.5 and not verdict.passed
    assert "fields below their min_score:\n  age: score 0.98 < min_score 0.99" in verdict.reason


def test_an_actual_output_without_json_scores_zero_and_an_unreadable_expected_raises():
    verdict = Scoring.checked("field_f1", 0.0, {}).score("I cannot answer that.", {"a": 1})
    assert (verdict.score, verdict.passed, verdict.result) == (0.0, False, None)
    assert "no JSON object found in actual" in verdict.reason
    assert Scoring.checked("field_f1", 1.0, {}).score(None, {"a": 1}).score == 0.0
    with pytest.raises(ParseError, match="expected"):
        Scoring.checked("field_f1", 1.0, {}).score('{"a": 1}', "not JSON")


@pytest.mark.parametrize(
    "metric, threshold, options, message",
    [
        ("field_f2", 1.0, {}, "unknown metric 'field_f2' \\(did you mean 'field_f1'\\?\\)"),
        ("field_f1", 1.0, {"ignroe": ["a"]}, "unknown option 'ignroe' for metric 'field_f1'"),
        ("field_f1", 1.0, {"fields": {"a": {"comparator": "soundex"}}}, "soundex"),
        ("field_f1", 1.5, {}, "threshold must be a number in \\[0, 1\\], not 1.5"),
        ("field_f1", True, {}, "threshold must be a number in \\[0, 1\\], not True"),
    ],
)
def test_bad_options_are_the_projects_config_error_when_made(metric, threshold, options, message):
    with pytest.raises(ConfigError, match=message):
        Scoring.checked(metric, threshold, options)


def _python(blocked: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in which the packages ``blocked`` cannot be
    imported."""
    program = textwrap.dedent(BLOCK % blocked) + textwrap.dedent(code)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's package
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, env=env
    )


BLOCK = """
    import sys

    class Blocker:
        # what an environment without these packages gives: ModuleNotFoundError
        def __init__(self, names):
            self.names = set(names)

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.names:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Blocker(%r))
"""


@pytest.mark.parametrize("module, name, framework, extra", ADAPTERS, ids=FRAMEWORKS)
def test_an_adapter_whose_framework_is_missing_raises_import_error_naming_the_extra(
    module, name, framework, extra
):
    proc = _python(
        [framework],
        f"""
        import pytest_jsonmatch.integrations.{module} as adapter  # the module itself loads
        try:
            from pytest_jsonmatch.integrations.{module} import {name}
        except ImportError as exc:
            print(type(exc).__name__, exc, sep=": ")
        else:
            print("imported")
    """,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        f"ImportError: pytest_jsonmatch.integrations.{module} needs "
        f"{extra}, which could not be imported"
    )
    assert f'install it with: pip install "pytest-jsonmatch[{extra}]"' in proc.stdout


def test_the_package_and_the_shared_module_import_no_framework_and_no_pytest():
    proc = _python(
        FRAMEWORKS,
        """
        import pytest_jsonmatch.integrations
        import pytest_jsonmatch.integrations.adapting
        import pytest_jsonmatch.integrations.deepeval
        import pytest_jsonmatch.integrations.inspect_ai
        import pytest_jsonmatch.integrations.pydantic_evals
        print(sorted(name for name in sys.modules
                     if name.split(".")[0] in ("pytest", "_pytest", "pydantic_evals", "inspect_ai",
                                               "deepeval", "pydantic_ai")))
    """,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


@pytest.mark.parametrize("module, name, framework, extra", ADAPTERS, ids=FRAMEWORKS)
def test_each_adapter_works_without_the_other_frameworks(module, name, framework, extra):
    assert installed(framework)  # conftest.py deselects the frameworks not installed
    others = [f for f in FRAMEWORKS if f != framework]
    proc = _python(
        others,
        f"""
        from pytest_jsonmatch.integrations.{module} import {name}
        print({name}(metric="field_match", threshold=0.5) is not None)
    """,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "True"
