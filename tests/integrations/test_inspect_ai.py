"""json_match in a real Inspect AI eval, on Inspect's offline mock model (mockllm/model)
answering each sample with the text a model would give: the log holds match_json's score,
pass or fail, the explanation naming the fields that cost points, and the task's metrics."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, match_json
from pytest_jsonmatch.integrations import inspect_ai as inspect_integration

from .frameworks import require
from .pairs import PAIRS

# (Inspect AI itself is imported by the first test that runs an eval or names the scorer,
# not when the module is collected: about 2 s of CPU that every xdist worker would pay before
# its first test, whether or not it runs one of these. The scorer is made on first use of the
# module's attribute, so it is read from the module inside each test, never imported by name
# here)

# Inspect's own retry set-up passes tenacity a deprecated argument (inspect-ai 0.3.285)
pytestmark = pytest.mark.filterwarnings(
    "ignore:The 'initial' parameter is deprecated:DeprecationWarning"
)


@pytest.fixture(autouse=True)
def _inspect_writes_only_under_tmp_path(tmp_path, monkeypatch):
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def mock_model(answers):
    """Inspect's mock model, answering each sample (its input is a key of ``answers``) with
    the text given. The usage is set, so that the mock does not count tokens with a
    tokenizer that it would download."""

    require("inspect_ai")
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def reply(messages, tools, tool_choice, config):
        output = ModelOutput.from_content(model="mockllm/model", content=answers[messages[-1].text])
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def run(scorer, pairs, tmp_path):
    require("inspect_ai")
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample

    task = Task(
        dataset=[
            Sample(id=pair.name, input=pair.name, target=pair.expected_text) for pair in pairs
        ],
        scorer=scorer,
    )
    (log,) = eval(
        task,
        model=mock_model({pair.name: pair.actual for pair in pairs}),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_the_samples_score_is_match_jsons(pair, tmp_path):
    log = run(
        inspect_integration.json_match(metric=pair.metric, threshold=0.5, **pair.options),
        [pair],
        tmp_path,
    )
    score = log.samples[0].scores["json_match"]
    assert (
        score.value["score"]
        == match_json(pair.actual, pair.expected, pair.metric, **pair.options).score
    )
    assert score.value["score"] == pytest.approx(pair.score, abs=1e-12)
    assert score.value["passed"] == ("C" if pair.score >= 0.5 else "I")
    assert score.answer == pair.actual
    assert [f["path"] for f in score.metadata["costly_fields"]] == list(pair.costly)
    assert score.explanation.startswith(f"{pair.metric} {pair.score:.4f} ")


def test_the_task_metrics_are_the_mean_score_and_the_share_that_passed(tmp_path):
    log = run(inspect_integration.json_match(threshold=0.5), PAIRS[:2], tmp_path)
    # field_f1 on the two pairs: 0.4 (pairs.py) and 0.5 (a, b match; c mismatches; d omitted;
    # e made up: precision 2/4, recall 2/4); one of the two reaches 0.5
    metrics = {
        score.name: {name: metric.value for name, metric in score.metrics.items()}
        for score in log.results.scores
    }
    assert metrics["score"]["mean"] == pytest.approx((0.4 + 0.5) / 2)
    assert metrics["passed"]["accuracy"] == pytest.approx(0.5)
    assert set(metrics["score"]) == {"mean", "stderr"}
    assert set(metrics["passed"]) == {"accuracy", "stderr"}
    explanation = {s.id: s.scores["json_match"].explanation for s in log.samples}["field_f1"]
    assert explanation.splitlines()[1:] == [
        "fields that cost points, worst first (2):",
        '  country  mismatch  score 0.00  expected "France"  actual "Italy"',
        "  population  omission  score 0.00  expected 2100000  actual <missing>",
    ]


def test_a_completion_without_json_scores_zero(tmp_path):
    prose = PAIRS[0].__class__("prose", "I would rather not say.", {"a": 1}, "field_f1", 0.0)
    log = run(inspect_integration.json_match(), [prose], tmp_path)
    score = log.samples[0].scores["json_match"]
    assert score.value == {"score": 0.0, "passed": "I"}
    assert "no JSON object found in actual" in score.explanation


def test_bad_options_raise_config_error_when_the_scorer_is_made():
    with pytest.raises(ConfigError, match="unknown metric 'fieldf1'"):
        inspect_integration.json_match(metric="fieldf1")
    with pytest.raises(ConfigError, match="unknown option 'align_arrays'"):
        inspect_integration.json_match(align_arrays=True)
