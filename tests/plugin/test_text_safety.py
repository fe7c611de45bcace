"""Text a model or a setting produced is escaped where it meets the terminal, CI's log or a
page, and a URL's credentials appear in no output (docs/errors.md, "Security").

Real pytest processes (the terminal as CI reads it), a real judge on 127.0.0.1
(tests/helpers/judge_server.py) reached at a URL holding a user and a password."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

PASSWORD = "SECRETPW"
INJECTED = "x\n::warning::pwned\r::error::cr\x1b[31mred ##[add-mask]old"


def _workflow_commands(out: str) -> list[str]:
    """The lines a GitHub runner would take for a workflow command: after leading white
    space ``::``, or ``##[`` anywhere (the older form); lines end at \\n and \\r both."""
    return [ln for ln in out.splitlines() if ln.lstrip().startswith("::") or "##[" in ln]


@pytest.mark.parametrize("tb", ["auto", "line", "native"])
def test_an_errors_or_a_warnings_text_starts_no_workflow_command_in_pytests_output(tmp_path, tb):
    # what a model or a setting wrote, in a message: a tool's name, a variable's value
    (tmp_path / "test_hostile.py").write_text(
        textwrap.dedent(
            f"""\
            import warnings
            from pytest_jsonmatch.engine.core.errors import ConfigError, SchemaWarning

            TEXT = {INJECTED!r}

            def test_error():
                raise ConfigError("run_tools: the model kept calling " + TEXT)

            def test_warning():
                warnings.warn("schema node $: properties (" + TEXT + ")", SchemaWarning)
            """
        )
    )
    # only this plugin loaded (the others installed here add a second to each start)
    plugin = ["-p", "pytest_jsonmatch.plugin", "-p", "no:cacheprovider", "--color=no"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-rA", f"--tb={tb}", "test_hostile.py"],
        cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = done.stdout + done.stderr
    assert "1 failed, 1 passed, 1 warning" in out, out
    assert "pwned" in out  # the text is shown...
    assert _workflow_commands(out) == [], out  # ...as no command
    assert "\x1b" not in out and "\\x1b[31mred" in out


def _judged_suite(pytester) -> None:
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        """\
        cases:
        - id: a
          options: {fields: {s: {comparator: semantic}}}
          expected: {s: two boxes}
          actual: {s: 2 boxes}
        """,
    )
    write(pytester, "conftest.py", "")


@pytest.mark.parametrize("given", ["endpoint_env", "flag"])
def test_a_urls_user_and_password_appear_in_no_output(pytester, monkeypatch, given):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "summary.md"))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # the workflow commands (annotations) too
    srv = JudgeServer()
    srv.down_after = 0  # every request a 503: its message names where it went
    url = f"http://judge-user:{PASSWORD}@127.0.0.1:{srv.server_address[1]}/v1"
    monkeypatch.setenv("JM_TEST_JUDGE_URL", url)
    ini = "model=j retries=0" + (" endpoint_env=JM_TEST_JUDGE_URL" if given != "flag" else "")
    write(pytester, "pytest.ini", f"[pytest]\njsonmatch_judge = {ini}\n")
    flags = [f"--jsonmatch-judge=endpoint={url}"] if given == "flag" else []
    _judged_suite(pytester)
    with serving(srv):
        result = pytester.runpytest_inprocess(
            *ARGS,
            "cases",
            "-rA",
            *flags,
            "--jsonmatch-report=r.json",
            "--jsonmatch-report=r.md",
            "--jsonmatch-report=r.html",
            "--junitxml=junit.xml",
        )
    assert srv.total == 1  # the request went to the URL as given
    out = result.stdout.str() + result.stderr.str()
    assert "HTTP 503 from http://***@127.0.0.1:" in out  # where it went, said without them
    written = {p.name: p.read_text() for p in pytester.path.iterdir() if p.is_file()}
    assert {"r.json", "r.md", "r.html", "junit.xml", "summary.md"} <= written.keys()
    assert PASSWORD not in out
    assert [name for name, text in written.items() if PASSWORD in text] == []


@pytest.mark.parametrize("key", ["model_env", "endpoint_env", "key_env"])
@pytest.mark.parametrize("value", ["http://127.0.0.1:9/v1\n::warning::pwned", "gpt\x1b[2Jx"])
def test_a_judge_variable_holding_a_control_character_stops_the_session(
    pytester, monkeypatch, key, value
):
    monkeypatch.setenv("JM_TEST_JUDGE_VALUE", value)
    given = {"model_env": "", "endpoint_env": "model=m", "key_env": "model=m"}[key]
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = {given} {key}=JM_TEST_JUDGE_VALUE\n",
    )
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    said = result.stderr.str() + result.stdout.str()
    assert (
        f"jsonmatch_judge: {key} names the environment variable JM_TEST_JUDGE_VALUE, whose "
        f"value holds a {'line break' if chr(10) in value else 'control character'}"
    ) in said
    assert "(the value is not shown)" in said
    assert "pwned" not in said and "\x1b" not in said and _workflow_commands(said) == []


def test_the_summarys_own_lines_start_no_workflow_command(pytester):
    # a file's name is anyone's text: a recording no case uses, named to inject a command
    write(
        pytester,
        "cases/m.jsonmatch.yaml",
        "cases:\n- id: a\n  expected: {s: 1}\n  actual: {s: 1}\n",
    )
    stray = pytester.path / "cases" / "__recordings__" / "gone.jsonmatch.yaml"
    stray.mkdir(parents=True)
    (stray / "x\n::warning::pwned\x1b[2J.json").write_text("{}")
    result = pytester.runpytest_inprocess(*ARGS, "cases", "--jsonmatch-record=once")
    out = result.stdout.str()
    assert "1 recording(s) no collected case uses" in out and "pwned" in out
    assert _workflow_commands(out) == [] and "\x1b" not in out
