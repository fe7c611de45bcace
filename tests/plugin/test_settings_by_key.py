"""A flag changes only the keys it gives of a setting made of parts (session/setting_parts.py
``merged_parts``, plugin/settings.py), and the judge's model and endpoint may be read from
environment variables the setting names (engine/judge/judge_settings.py): a variable that is
unset stops the session naming the setting and the variable, and a key is never shown.

The judge is called over real HTTP, on 127.0.0.1 (tests/helpers/judge_server.py)."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.session import setting_parts as parts
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, configured_settings, write

INI, FLAG = "jsonmatch_judge", "--jsonmatch-judge"
SECRET = "zq8-settings-by-key-0123456789"  # a key: never in any message


def _stops(pytester, ini: str, *flags: str) -> str:
    """The usage error of a session started with ``ini`` lines and ``flags``."""
    pytester.makeini("[pytest]\n" + ini)
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_inprocess(*ARGS, *flags)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    return result.stderr.str() + result.stdout.str()


# -- merged_parts, the one rule every such setting follows ----------------------------------


def test_a_later_part_replaces_the_same_key_in_place_and_adds_the_rest():
    text, what = parts.merged_parts(
        [("model=m endpoint=http://a/v1 batch=5", INI), ("endpoint=http://b/v1 retries=0", FLAG)],
        parts.judge_slot,
    )
    assert text == "model=m endpoint=http://b/v1 batch=5 retries=0"
    assert what == f"{FLAG} over {INI}"


def test_a_key_and_its_variable_are_one_part():
    # the ini reads the endpoint from a variable; the flag's endpoint replaces it
    text, _ = parts.merged_parts(
        [("model=m endpoint_env=OPENAI_BASE_URL", INI), ("endpoint=http://b/v1", FLAG)],
        parts.judge_slot,
    )
    assert text == "model=m endpoint=http://b/v1"


def test_the_name_is_the_one_part_that_gave_words():
    assert parts.merged_parts([("model=m", INI), ("", FLAG)], parts.judge_slot)[1] == INI
    assert parts.merged_parts([("", INI), ("model=m", FLAG)], parts.judge_slot)[1] == FLAG
    assert parts.merged_parts([("", INI), ("", FLAG)], parts.judge_slot) == ("", INI)


def test_the_reference_and_otel_merge_by_their_parts():
    text, _ = parts.merged_parts(
        [("small latency_p95=1.2x", "jsonmatch_reference"), ("cost=2x", "--jsonmatch-reference")],
        parts.reference_slot,
    )
    assert text == "small latency_p95=1.2x cost=2x"
    text, _ = parts.merged_parts(
        [("big", "jsonmatch_reference"), ("small", "--jsonmatch-reference")],
        parts.reference_slot,
    )
    assert text == "small"
    text, _ = parts.merged_parts(
        [("cases flush=10", "jsonmatch_otel"), ("flush=2", "--jsonmatch-otel")], parts.otel_slot
    )
    assert text == "cases flush=2"


def test_one_part_giving_a_key_twice_is_named():
    with pytest.raises(ConfigError, match=f"^{INI}: model given twice$"):
        parts.merged_parts([("model=a model_env=B", INI)], parts.judge_slot)


# -- the judge in a session -----------------------------------------------------------------


def test_the_flag_changes_the_judges_endpoint_only(pytester):
    settings = configured_settings(
        pytester,
        f"{INI} = model=judge-1 endpoint=https://llm.example/v1 batch=5 retries=4\n",
        f"{FLAG}=endpoint=http://127.0.0.1:9/v1",
    )
    setup = settings.given_judge
    assert (setup.judge.model, setup.judge.endpoint, setup.judge.batch) == (
        "judge-1",
        "http://127.0.0.1:9/v1",
        5,
    )
    assert setup.calls.retries == 4


def test_the_otel_flag_changes_flush_only(pytester):
    settings = configured_settings(
        pytester, "jsonmatch_otel = off flush=10\n", "--jsonmatch-otel=flush=2"
    )
    assert (settings.otel.mode, settings.otel.flush) == ("off", 2.0)


def test_model_and_endpoint_are_read_from_the_variables_the_setting_names(pytester, monkeypatch):
    monkeypatch.setenv("JM_TEST_JUDGE_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("JM_TEST_BASE_URL", "http://127.0.0.1:9/v1")
    settings = configured_settings(
        pytester,
        f"{INI} = model_env=JM_TEST_JUDGE_MODEL endpoint_env=JM_TEST_BASE_URL "
        "key_env=JM_TEST_JUDGE_KEY\n",
    )
    judge = settings.given_judge.judge
    assert (judge.model, judge.endpoint, judge.key_env) == (
        "gpt-4o-mini",
        "http://127.0.0.1:9/v1",
        "JM_TEST_JUDGE_KEY",
    )


@pytest.mark.parametrize(
    ("ini", "env", "error"),
    [
        (
            "model_env=JM_TEST_UNSET_MODEL",
            {},
            f"{INI}: model_env names the environment variable JM_TEST_UNSET_MODEL, which is "
            "not set: set it to the judge's model, or give model=",
        ),
        (
            "model=m endpoint_env=JM_TEST_EMPTY_URL",
            {"JM_TEST_EMPTY_URL": ""},
            f"{INI}: endpoint_env names the environment variable JM_TEST_EMPTY_URL, which is "
            "empty: set it to the judge's base URL, or give endpoint=",
        ),
        ("model=m model_env=JM_X", {}, f"{INI}: model given twice"),
        (
            "model=m endpoint_env=http://x",
            {},
            f"{INI}: endpoint_env must name an environment variable",
        ),
    ],
)
def test_an_unset_or_misnamed_variable_stops_the_session_naming_it(
    pytester, monkeypatch, ini, env, error
):
    monkeypatch.setenv("JM_TEST_JUDGE_KEY", SECRET)
    monkeypatch.delenv("JM_TEST_UNSET_MODEL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    said = _stops(pytester, f"{INI} = {ini} key_env=JM_TEST_JUDGE_KEY\n")
    assert f"ERROR: pytest-jsonmatch: {error}" in said
    assert SECRET not in said


def test_the_flag_and_the_ini_giving_a_model_both_ways_is_no_conflict(pytester, monkeypatch):
    # the flag's model replaces the ini's model_env: the unset variable is never read
    monkeypatch.delenv("JM_TEST_UNSET_MODEL", raising=False)
    settings = configured_settings(
        pytester, f"{INI} = model_env=JM_TEST_UNSET_MODEL\n", f"{FLAG}=model=m"
    )
    assert settings.given_judge.judge.model == "m"


def test_a_bad_value_from_the_flag_names_both_parts(pytester):
    said = _stops(pytester, f"{INI} = model=m\n", f"{FLAG}=batch=0")
    assert f"ERROR: pytest-jsonmatch: {FLAG} over {INI}: batch must be a whole number" in said


def test_the_judge_is_called_at_the_endpoint_the_flag_gives(pytester, monkeypatch):
    # the ini names a port nothing listens on; CI's flag points the judge at the server
    srv = JudgeServer()
    srv.same.add(frozenset(("two boxes", "2 boxes")))
    monkeypatch.setenv("JM_TEST_JUDGE_MODEL", "judge-7")
    write(pytester, "pytest.ini", f"[pytest]\n{INI} = model=other endpoint=http://127.0.0.1:9/v1\n")
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        "cases:\n- id: c\n  options: {fields: {s: {comparator: semantic}}}\n"
        "  expected: {s: two boxes}\n  actual: {s: 2 boxes}\n",
    )
    with serving(srv):
        result = pytester.runpytest_inprocess(
            *ARGS, "cases", f"{FLAG}=endpoint={srv.url} model_env=JM_TEST_JUDGE_MODEL"
        )
    result.assert_outcomes(passed=1)
    assert srv.total == 1
    assert srv.bodies[0]["model"] == "judge-7"
