"""JsonMatchMetric as a real deepeval metric: measured directly, and through deepeval's
``assert_test`` (in a fresh interpreter with deepeval's telemetry and .env loading switched
off, since deepeval reads those settings when it is first imported). No model is called."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_jsonmatch import ConfigError, match_json

from .frameworks import require
from .pairs import PAIRS

# deepeval reads these when it is first imported: no telemetry, no .env files
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")
deepeval = require("deepeval")

from deepeval.errors import MissingTestCaseParamsError  # noqa: E402
from deepeval.metrics import BaseMetric  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402

from pytest_jsonmatch.integrations.deepeval import JsonMatchMetric  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def offline_environment(tmp_path: Path) -> dict[str, str]:
    """What deepeval reads to stay offline and out of the home folder (deepeval 4.3.1,
    deepeval/config/settings.py)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DEEPEVAL_", "CONFIDENT_", "OPENAI_", "PYTEST_"))
    }
    env.update(
        DEEPEVAL_TELEMETRY_OPT_OUT="1",
        DEEPEVAL_DISABLE_DOTENV="1",
        DEEPEVAL_UPDATE_WARNING_OPT_IN="0",
        DEEPEVAL_HOME=str(tmp_path / "deepeval-home"),
        PYTHONPATH=str(ROOT),
    )
    return env


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_measure_gives_match_jsons_score(pair):
    metric = JsonMatchMetric(metric=pair.metric, threshold=0.5, **pair.options)
    case = LLMTestCase(
        input=pair.name, actual_output=pair.actual, expected_output=pair.expected_text
    )
    score = metric.measure(case)
    assert (
        score
        == metric.score
        == match_json(pair.actual, pair.expected, pair.metric, **pair.options).score
    )
    assert score == pytest.approx(pair.score, abs=1e-12)
    assert metric.is_successful() is metric.success is (pair.score >= 0.5)
    assert metric.reason.startswith(f"{pair.metric} {pair.score:.4f} ")
    assert [f["path"] for f in metric.score_breakdown["costly_fields"]] == list(pair.costly)


def test_the_metric_is_a_deepeval_metric():
    metric = JsonMatchMetric(metric="field_match", threshold=0.5, ignore=["c"])
    assert isinstance(metric, BaseMetric)
    assert metric.__name__ == "JSON Match [field_match]"
    assert (metric.threshold, metric.score, metric.reason, metric.success) == (
        0.5,
        None,
        None,
        None,
    )
    assert metric.is_successful() is False  # not measured yet
    with pytest.raises(MissingTestCaseParamsError, match="expected_output"):
        metric.measure(LLMTestCase(input="x", actual_output='{"a": 1}'))


def test_a_measure_in_async_mode_gives_the_same():
    import asyncio

    pair = PAIRS[0]
    metric = JsonMatchMetric()
    case = LLMTestCase(input="x", actual_output=pair.actual, expected_output=pair.expected_text)
    assert asyncio.run(metric.a_measure(case)) == pytest.approx(0.4)


def test_bad_options_raise_config_error_when_the_metric_is_made():
    with pytest.raises(ConfigError, match="unknown option 'igonre'"):
        JsonMatchMetric(igonre=["a"])
    with pytest.raises(ConfigError, match="threshold must be a number in \\[0, 1\\]"):
        JsonMatchMetric(threshold=-0.1)


def test_assert_test_passes_and_fails_with_the_reason(tmp_path):
    program = textwrap.dedent("""
        from deepeval import assert_test
        from deepeval.test_case import LLMTestCase
        from pytest_jsonmatch.integrations.deepeval import JsonMatchMetric

        good = LLMTestCase(input="a", actual_output='The answer: {"city": "Paris"}',
                           expected_output='{"city": "Paris"}')
        assert_test(good, [JsonMatchMetric(threshold=0.8, ignore=["note"])])
        print("good passed")
        bad = LLMTestCase(input="b", actual_output='{"city": "Paris", "country": "Italy"}',
                          expected_output='{"city": "Paris", "country": "France", "population": 2100000}')
        try:
            assert_test(bad, [JsonMatchMetric(threshold=0.8)])
        except AssertionError as exc:
            print("bad failed:", exc)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=offline_environment(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "good passed" in out
    assert "bad failed: Metrics: JSON Match [field_f1] (score: 0.4, threshold: 0.8" in out
    assert "fields that cost points, worst first (2):" in out
    assert '  country  mismatch  score 0.00  expected "France"  actual "Italy"' in out
