"""What a careless or hostile target returns never breaks a run: usage figures are checked at
the door (a case error naming the field), and text holding lone surrogates (half of a UTF-16
pair, which UTF-8 cannot encode) is written escaped in every report format."""

from __future__ import annotations

import json
import os
import time

import jsonschema
import pytest

from pytest_jsonmatch.reporting.run_model.validation import schema
from tests.helpers.plugin_cases import ARGS, write
from tests.helpers.reports import held

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

REPORTS = (
    "--jsonmatch-report=out/r.json",
    "--jsonmatch-report=out/r.html",
    "--jsonmatch-report=out/r.md",
    "--junitxml=out/junit.xml",
)


def _report(pytester: pytest.Pytester) -> dict:
    data = json.loads((pytester.path / "out" / "r.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema())
    return held(json.dumps(data))


@pytest.mark.parametrize(
    ("usage", "named"),
    [
        ("cost=float('nan')", "TargetResult.cost must be a finite number >= 0 or None, not nan"),
        ("cost=float('inf')", "TargetResult.cost must be a finite number >= 0 or None, not inf"),
        ("cost=10**400", "TargetResult.cost must be a finite number >= 0 or None, not an integer"),
        ("cost=-0.5", "TargetResult.cost must be a finite number >= 0 or None, not -0.5"),
        (
            "input_tokens='12'",
            "TargetResult.input_tokens must be a whole number >= 0 or None, not '12'",
        ),
        (
            "output_tokens=1.5",
            "TargetResult.output_tokens must be a whole number >= 0 or None, not 1.5",
        ),
        (
            "output_tokens=True",
            "TargetResult.output_tokens must be a whole number >= 0 or None, not True",
        ),
    ],
)
def test_usage_that_is_not_a_figure_is_a_case_error_naming_the_field(pytester, usage, named):
    write(
        pytester,
        "llm.py",
        f"""\
        from pytest_jsonmatch import TargetResult

        def extract(text):
            return TargetResult({{"name": text}}, {usage})
        """,
    )
    write(pytester, "pytest.ini", "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n")
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - {id: bad-usage, input: ACME, expected: {name: ACME}}
        """,
    )
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS[:3])
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*case 'bad-usage': the target's {named}*"])
    assert "Traceback" not in result.stdout.str() and "INTERNALERROR" not in result.stdout.str()
    (comparison,) = _report(pytester)["comparisons"]
    assert comparison["status"] == "error" and named in comparison["error"]
    assert comparison["call"]["failed"] is True
    assert (pytester.path / "out" / "r.html").is_file() and (
        pytester.path / "out" / "r.md"
    ).is_file()


def test_lone_surrogates_are_written_escaped_in_every_format(pytester, monkeypatch):
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makepyfile(
        test_sur="""
        from pytest_jsonmatch import assert_json_match

        def test_sur():
            assert_json_match({"vendor": "AC\\ud800ME", "x\\udc00": 1}, {"vendor": "ACME"})
        """
    )
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "INTERNALERROR" not in out and "UnicodeEncodeError" not in out
    assert '["x\\udc00"]' in out  # the summary's field table shows the escape
    data = _report(pytester)
    # JSON holds the half as its escape, and reads back as the text the model gave
    assert [f["path"] for f in data["comparisons"][0]["fields"]] == ["vendor", '["x\udc00"]']
    for name in ("r.html", "r.md", "junit.xml"):
        text = (pytester.path / "out" / name).read_text(encoding="utf-8")  # valid UTF-8
        assert "\\udc00" in text or "\\\\udc00" in text or name == "junit.xml", name
    html = (pytester.path / "out" / "r.html").read_text(encoding="utf-8")
    # the value, shown with its escape where the half was (its backslash escaped in the JSON
    # of the page's data, which the page shows as it reads it)
    assert "AC\\\\ud800ME" in html
    assert "\\udc00" in summary.read_text(encoding="utf-8")


# -- whatever a target raises, its case is counted -------------------------------------------

RAISERS = """\
import asyncio

class Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

def sync_exit(text):
    raise SystemExit(3)

def sync_generator_exit(text):
    raise GeneratorExit()

def sync_unreadable(text):
    raise Unreadable()

async def async_exit(text):
    await asyncio.sleep(0)
    raise SystemExit(4)

async def fine(text):
    await asyncio.sleep(0)
    return {"name": text}

def route(text):
    return {"exit": sync_exit, "genexit": sync_generator_exit, "unreadable": sync_unreadable,
            "aexit": async_exit}.get(text, fine)(text)
"""


def test_a_case_whose_target_raises_any_base_exception_is_counted_as_an_error(pytester):
    write(pytester, "llm.py", RAISERS)
    write(
        pytester,
        "pytest.ini",
        "[pytest]\npythonpath = .\njsonmatch_target = llm:route\njsonmatch_calls = timeout=5\n",
    )
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - {id: exit, input: exit, expected: {name: exit}}
          - {id: genexit, input: genexit, expected: {name: genexit}}
          - {id: unreadable, input: unreadable, expected: {name: unreadable}}
          - {id: aexit, input: aexit, expected: {name: aexit}}
          - {id: after, input: after, expected: {name: after}}
          - {id: later, input: later, expected: {name: later}}
        """,
    )
    result = pytester.runpytest_inprocess(*ARGS, REPORTS[0])
    result.assert_outcomes(passed=2, failed=4)
    assert result.ret == 1 and "INTERNALERROR" not in result.stdout.str()
    # every case is in the summary: 6 cases, 2 pass, 4 errors (the async loop survived aexit)
    result.stdout.fnmatch_lines(["field_f1  *6  *2  *0  *4  *"])
    errors = {
        c["case_id"].rsplit("::", 1)[1]: c["error"]
        for c in _report(pytester)["comparisons"]
        if c["status"] == "error"
    }
    assert errors == {
        "exit": "SystemExit: 3 (1 attempt)",
        "genexit": "GeneratorExit (1 attempt)",
        "unreadable": "Unreadable: (its message could not be read) (1 attempt)",
        "aexit": "SystemExit: 4 (1 attempt)",
    }


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_ctrl_c_from_a_target_stops_the_session_as_ctrl_c_does(pytester, kind):
    write(
        pytester,
        "llm.py",
        f"""\
        import asyncio

        {"async " if kind == "async" else ""}def extract(text):
            {"await asyncio.sleep(0)" if kind == "async" else "pass"}
            if text == "stop":
                raise KeyboardInterrupt
            return {{"name": text}}
        """,
    )
    write(
        pytester,
        "pytest.ini",
        "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\njsonmatch_calls = timeout=5\n",
    )
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - {id: first, input: first, expected: {name: first}}
          - {id: stop, input: stop, expected: {name: stop}}
          - {id: never, input: never, expected: {name: never}}
        """,
    )
    # (pytester raises an inner Ctrl-C again in the outer session unless told not to)
    result = pytester.runpytest_inprocess(*ARGS, REPORTS[0], no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    run = _report(pytester)["run"]
    assert run["complete"] is False and run["stopped"].startswith("interrupted by Ctrl-C")


def test_a_run_stopped_by_collection_errors_says_so_not_ctrl_c(pytester):
    write(pytester, "golden/bad.jsonmatch.yaml", "cases: [\n")
    write(pytester, "golden/good.jsonmatch.yaml", "expected: {a: 1}\nactual: {a: 1}\n")
    result = pytester.runpytest_inprocess(*ARGS, REPORTS[0])
    assert result.ret == pytest.ExitCode.INTERRUPTED
    run = _report(pytester)["run"]
    assert run["stopped"].startswith("1 error during collection")
    assert "Ctrl-C" not in result.stdout.str()


# -- no workflow command from data ----------------------------------------------------------


@pytest.mark.parametrize("tb", ["auto", "long", "short", "line", "native", "no"])
def test_a_description_cannot_start_a_workflow_command_under_any_tb_style(pytester, tb):
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - id: hostile
            description: "looks fine\\n::warning file=x.py::pwned\\n  ::error::also"
            expected: {a: 1}
            actual: {a: 2}
        """,
    )
    result = pytester.runpytest_inprocess(*ARGS, f"--tb={tb}", "-rA")
    result.assert_outcomes(failed=1)
    lines = result.stdout.lines + result.stderr.lines
    assert [line for line in lines if line.lstrip().startswith("::")] == []
    if tb not in ("line", "no"):
        assert any("pwned" in line for line in lines)  # the text is shown, defused


# -- nothing secret, nothing unbounded ---------------------------------------------------------

LEAKY = """
def extract(text):
    if text == "big":
        raise RuntimeError("x" * 5_000_000)
    raise RuntimeError(
        "POST https://api.example.com/v1/chat?api_key=AIzaSyA-1234567890abcdefghijklmnopqrstu"
        "&alt=json failed; headers: {'Authorization': 'Bearer abcdef1234567890XYZ'}; "
        "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwx")
"""
SECRETS = (
    "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "abcdef1234567890XYZ",
    "sk-proj-abcdefghijklmnopqrstuvwx",
)


def test_credentials_in_a_target_error_are_masked_and_its_length_bounded_everywhere(
    pytester, monkeypatch
):
    summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")  # annotations on
    write(pytester, "llm.py", LEAKY)
    write(
        pytester,
        "pytest.ini",
        "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\njsonmatch_report = junit=yes\n",
    )
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - {id: leaky, input: leaky, expected: {name: leaky}}
          - {id: big, input: big, expected: {name: big}}
        """,
    )
    result = pytester.runpytest_inprocess(*ARGS, *REPORTS)
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    texts = {"terminal": out, "step summary": summary.read_text(encoding="utf-8")}
    texts.update(
        (name, (pytester.path / "out" / name).read_text(encoding="utf-8"))
        for name in ("r.json", "r.html", "r.md", "junit.xml")
    )
    for where, text in texts.items():
        for secret in SECRETS:
            assert secret not in text, (where, secret)
        assert "x" * 1_001 not in text, where  # 5 MB of x, cut to 1,000 characters
    errors = {c["case_id"].rsplit("::", 1)[1]: c["error"] for c in _report(pytester)["comparisons"]}
    assert errors["leaky"] == (
        "RuntimeError: POST https://api.example.com/v1/chat?api_key=***&alt=json failed; headers: "
        "{'Authorization': 'Bearer ***'}; Incorrect API key provided: sk-*** (1 attempt)"
    )
    assert errors["big"] == (
        "RuntimeError: " + "x" * 1000 + "... (cut: 5,000,000 characters in all) (1 attempt)"
    )
    # the terminal shows the whole message only when asked
    full = pytester.runpytest_inprocess(*ARGS, "-vv", "-k", "leaky")
    assert SECRETS[2] in full.stdout.str()


def test_the_user_s_own_patterns_are_masked_too_and_a_bad_one_is_named(pytester):
    write(
        pytester,
        "llm.py",
        """\
        def extract(text):
            raise RuntimeError("account ACCT-0042 of tenant acme-prod is locked")
        """,
    )
    write(
        pytester,
        "golden/c.jsonmatch.yaml",
        """\
        cases:
          - {id: locked, input: x, expected: {name: x}}
        """,
    )
    write(
        pytester,
        "pytest.ini",
        "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n"
        "jsonmatch_mask =\n    ACCT-[0-9]+\n    tenant \\S+\n",
    )
    result = pytester.runpytest_inprocess(*ARGS, REPORTS[0])
    result.assert_outcomes(failed=1)
    (comparison,) = _report(pytester)["comparisons"]
    assert comparison["error"] == "RuntimeError: account *** of *** is locked (1 attempt)"
    write(pytester, "pytest.ini", "[pytest]\njsonmatch_mask = ACCT-[0-9\n")
    bad = pytester.runpytest_inprocess(*ARGS)
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(
        ["ERROR: pytest-jsonmatch: jsonmatch_mask: 'ACCT-[0-9' is not a regular expression: *"]
    )


# -- no process outlives the session -----------------------------------------------------------


def _state(pid: int) -> str:
    """A process's state letter ('Z' for ended, waiting to be reaped), or '' once reaped."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc: Linux")
def test_a_timed_out_call_leaves_no_process_it_started_and_touches_none_started_before(
    pytester, tmp_path
):
    import subprocess
    import sys

    before = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        pid_file = tmp_path / "child.pid"
        write(
            pytester,
            "llm.py",
            f"""\
            import pathlib, subprocess, sys

            def extract(text):
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
                pathlib.Path({str(pid_file)!r}).write_text(str(child.pid))
                child.wait()  # hangs until the child ends
                return {{"name": text}}
            """,
        )
        write(
            pytester,
            "pytest.ini",
            "[pytest]\npythonpath = .\njsonmatch_target = llm:extract\n"
            "jsonmatch_calls = timeout=0.5\n",
        )
        write(
            pytester,
            "golden/c.jsonmatch.yaml",
            "cases:\n  - {id: hang, input: x, expected: {name: x}}\n",
        )
        started = time.monotonic()
        result = pytester.runpytest_inprocess(*ARGS)
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*case 'hang': target timed out after 0.5 s*"])
        assert time.monotonic() - started < 10
        child = int(pid_file.read_text())
        assert _state(child) in ("", "Z")  # ended by the runner's close (a zombie until reaped)
        assert _state(before.pid) not in ("", "Z")  # started before the run: left alone
    finally:
        before.kill()
        before.wait()
