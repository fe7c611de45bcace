"""The judge under replay (calls/judge_calls.py's ``_judge_of``, judge_recordings.py's
``recorded_judge``): under ``--jsonmatch-record=none``, a judge whose ``model_env`` or
``endpoint_env`` variable is unset is a replay-only judge, its model the one whose verdicts
``__recordings__/judgments.json`` holds; elsewhere, or with the variables set, the setting
reads as always. Real recordings under ``tmp_path``, the real environment (monkeypatch)."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.calls.judge_calls import JudgeCalls, judge_setup_from_text
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.engine.judge import JudgeRequest, JudgeSettings

SETTING = "model_env=JUDGE_MODEL endpoint_env=JUDGE_BASE_URL key_env=JUDGE_KEY"


@pytest.fixture(autouse=True)
def unset(monkeypatch):
    for name in ("JUDGE_MODEL", "JUDGE_BASE_URL", "JUDGE_KEY"):
        monkeypatch.delenv(name, raising=False)


def _recorded(root, *models: str, prompt_file: str = "") -> None:
    """A judgments' recording holding one verdict by each of ``models`` (default prompt)."""
    judges = {
        JudgeSettings(model=model).fingerprint: {
            "model": model,
            "prompt_file": prompt_file or None,
            "max_tokens": None,
            "verdicts": [{"field": "s", "expected": "a", "actual": "b", "verdict": 1}],
        }
        for model in models
    }
    folder = root / "__recordings__"
    folder.mkdir(exist_ok=True)
    (folder / "judgments.json").write_text(json.dumps({"judges": judges, "version": 1}))


def test_a_replay_with_the_variables_unset_replays_the_recorded_judge(tmp_path):
    _recorded(tmp_path, "judge-4")
    setup = judge_setup_from_text(SETTING, "jsonmatch_judge", tmp_path, replay=True)
    judge = setup.judge
    assert (judge.model, judge.endpoint, judge.replay_only) == ("judge-4", "", True)
    assert judge.fingerprint == JudgeSettings(model="judge-4").fingerprint
    assert setup.unset == ("JUDGE_MODEL", "JUDGE_BASE_URL")
    assert judge.shown_endpoint == "no endpoint (replay only)"


def test_outside_a_replay_an_unset_variable_still_stops_the_session(tmp_path):
    _recorded(tmp_path, "judge-4")
    with pytest.raises(ConfigError, match="model_env names the environment variable JUDGE_MODEL"):
        judge_setup_from_text(SETTING, "jsonmatch_judge", tmp_path)


def test_with_the_variables_set_a_replay_reads_them_as_always(tmp_path, monkeypatch):
    _recorded(tmp_path, "judge-4")
    monkeypatch.setenv("JUDGE_MODEL", "judge-5")  # another model: its verdicts are stale
    monkeypatch.setenv("JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    setup = judge_setup_from_text(SETTING, "jsonmatch_judge", tmp_path, replay=True)
    assert (setup.judge.model, setup.judge.replay_only, setup.unset) == ("judge-5", False, ())
    # only the endpoint unset: the model is the variable's, and the endpoint none
    monkeypatch.delenv("JUDGE_BASE_URL")
    setup = judge_setup_from_text(SETTING, "jsonmatch_judge", tmp_path, replay=True)
    assert (setup.judge.model, setup.judge.endpoint, setup.unset) == (
        "judge-5",
        "",
        ("JUDGE_BASE_URL",),
    )


def test_verdicts_of_several_models_under_one_prompt_cannot_be_told_apart(tmp_path):
    _recorded(tmp_path, "judge-4", "judge-5")
    with pytest.raises(ConfigError) as caught:
        judge_setup_from_text(SETTING, "jsonmatch_judge", tmp_path, replay=True)
    said = str(caught.value)
    assert "JUDGE_MODEL, which is not set" in said
    assert "'judge-4', 'judge-5'" in said
    assert "--jsonmatch-record='once prune'" in said


def test_with_nothing_recorded_the_replay_starts_and_its_judge_never_sends(tmp_path):
    # a run that judges nothing needs no recorded verdict; one that judges fails its case
    setup = judge_setup_from_text(SETTING, "jsonmatch_judge", tmp_path, replay=True)
    assert (setup.judge.model, setup.judge.replay_only) == ("$JUDGE_MODEL", True)
    calls = JudgeCalls(setup)
    request = JudgeRequest(model="$JUDGE_MODEL", prompt="p", items=1, endpoint="", key_env="")
    try:
        with pytest.raises(ConfigError, match="never sends"):
            calls.through(request, lambda r: pytest.fail("sent"))
    finally:
        calls.close()


def test_a_replay_only_judge_is_held_to_its_prompt(tmp_path):
    # recorded under the default prompt; a prompt file now: no judge of it is recorded
    _recorded(tmp_path, "judge-4")
    (tmp_path / "p.txt").write_text("Judge:\n{pairs}")
    setup = judge_setup_from_text(
        SETTING + " prompt=p.txt", "jsonmatch_judge", tmp_path, replay=True
    )
    assert setup.judge.model == "$JUDGE_MODEL"
