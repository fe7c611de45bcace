"""Running golden cases: where the actual output comes from (inline, actual_file, input through
a target), how a failing case reads (a comparator's error names file, case and field), the
summary, the example suite."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.helpers.plugin_cases import write
from tests.helpers.timeout import GENEROUS, within

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

QUIET = ("-p", "no:hypothesispytest")  # a second per in-process run otherwise
EXAMPLE_SUITE = Path(__file__).resolve().parents[3] / "example_suite"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*QUIET, *args)


def ini(pytester: pytest.Pytester, extra: str) -> None:
    write(pytester, "pytest.ini", "[pytest]\npythonpath = .\n" + textwrap.dedent(extra))


# -- actual output ----------------------------------------------------------------------------


def test_actual_as_raw_model_text_is_parsed_leniently(pytester):
    write(
        pytester,
        "c.jsonmatch.yaml",
        """\
        expected: {vendor: ACME, total: 10}
        actual: |
          Here you go:
          ```json
          {"vendor": "ACME", "total": 10}
          ```
          Anything else?
        """,
    )
    run(pytester).assert_outcomes(passed=1)


def test_actual_file_is_read_relative_to_the_case_file(pytester):
    write(pytester, "cases/out/reply.txt", 'The answer is {"vendor": "ACME"} as asked.')
    write(
        pytester, "cases/c.jsonmatch.yaml", "expected: {vendor: ACME}\nactual_file: out/reply.txt\n"
    )
    items, _ = pytester.inline_genitems(*QUIET)
    assert items[0].case.actual_file == pytester.path / "cases" / "out" / "reply.txt"
    run(pytester).assert_outcomes(passed=1)


TARGETS = """\
import asyncio

def upper(text):
    return {"name": text.upper()}

async def upper_async(text):
    await asyncio.sleep(0)
    return '```json\\n{"name": "%s"}\\n```' % text.upper()
"""

INPUT_CASE = """\
cases:
  - id: acme
    input: acme
    expected: {name: ACME}
"""


def test_input_goes_through_the_ini_target(pytester):
    ini(pytester, "jsonmatch_target = targets:upper\n")
    write(pytester, "targets.py", TARGETS)
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    run(pytester).assert_outcomes(passed=1)


def test_an_async_target_is_awaited(pytester):
    ini(pytester, "jsonmatch_target = targets:upper_async\n")
    write(pytester, "targets.py", TARGETS)
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    run(pytester).assert_outcomes(passed=1)


def test_a_conftest_hook_makes_the_output_and_sees_the_case(pytester):
    ini(pytester, "jsonmatch_target = targets:upper\n")  # the hook wins over the ini target
    write(pytester, "targets.py", TARGETS)
    write(
        pytester,
        "conftest.py",
        """\
        SEEN = []

        async def pytest_jsonmatch_target(case, config):
            SEEN.append((case.id, case.input, case.line, case.path.name))
            return {"name": case.input.title()}

        def pytest_sessionfinish(session):
            assert SEEN == [("acme", "acme", 2, "c.jsonmatch.yaml")], SEEN
        """,
    )
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE.replace("{name: ACME}", "{name: Acme}"))
    run(pytester).assert_outcomes(passed=1)


def test_a_hook_returning_none_leaves_the_case_to_the_ini_target(pytester):
    ini(pytester, "jsonmatch_target = targets:upper\n")
    write(pytester, "targets.py", TARGETS)
    write(pytester, "conftest.py", "def pytest_jsonmatch_target(case, config):\n    return None\n")
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    run(pytester).assert_outcomes(passed=1)


def test_input_without_any_target_fails_with_one_paragraph(pytester):
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "c.jsonmatch.yaml:2: case 'acme': this case gives 'input' but no target makes output "
            "from it: set ini jsonmatch_target = package.module:function, or implement the hook "
            "pytest_jsonmatch_target in a conftest.py (1 attempt)"
        ]
    )
    assert "Traceback" not in result.stdout.str() and "golden.py" not in result.stdout.str()


@pytest.mark.parametrize("record", ["off", "none"])
def test_an_unimportable_target_stops_the_session_at_start_up(pytester, record):
    # checked when the session starts, replaying too: a typo must not pass on recordings
    ini(pytester, f"jsonmatch_target = nowhere:extract\njsonmatch_record = {record}\n")
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: pytest-jsonmatch: jsonmatch_target 'nowhere:extract': cannot import 'nowhere'*"]
    )


@pytest.mark.parametrize(
    "spec, says",
    [
        (
            "os:no_such_function",
            "jsonmatch_target 'os:no_such_function': module 'os' has no 'no_such_function'",
        ),
        ("os.path", "jsonmatch_target 'os.path' must look like package.module:function"),
        ("os:sep", "jsonmatch_target 'os:sep' is not callable"),
    ],
)
def test_a_target_setting_that_names_no_function_is_a_usage_error(pytester, spec, says):
    ini(pytester, f"jsonmatch_target = {spec}\n")
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-jsonmatch: {says}"])


BROKEN_MODULES = {
    # a module that raises at import: the exception, and the line of the user's file
    "raises": (
        "import os\n\nKEY = os.environ['JSONMATCH_NO_SUCH_VARIABLE']\n\n\n"
        "def extract(value):\n    return value\n",
        "importing module 'broken' failed: KeyError: 'JSONMATCH_NO_SUCH_VARIABLE' "
        "(raised at *broken.py:3 in <module>)",
    ),
    # a module that ends the process as it is imported: named, never the session's end
    "exits": (
        "import sys\n\nsys.exit('no API key')\n",
        "importing module 'broken' failed: SystemExit: no API key (raised at *broken.py:3 in <module>)",
    ),
    # a module that does not compile: the error, and its file and line
    "syntax": (
        "def extract(value)\n    return value\n",
        "module 'broken' does not compile: SyntaxError: expected ':' (*broken.py:1)",
    ),
    "indentation": (
        "def extract(value):\nreturn value\n",
        "module 'broken' does not compile: IndentationError: expected an indented block "
        "after function definition on line 1 (*broken.py:2)",
    ),
}


@pytest.mark.parametrize("kind", sorted(BROKEN_MODULES))
@pytest.mark.parametrize("setting", ["jsonmatch_target", "jsonmatch_targets"])
def test_a_target_module_that_fails_to_import_is_a_usage_error(pytester, kind, setting):
    source, says = BROKEN_MODULES[kind]
    write(pytester, "broken.py", source)
    if setting == "jsonmatch_target":
        ini(pytester, "jsonmatch_target = broken:extract\n")
        name = "jsonmatch_target 'broken:extract'"
    else:
        ini(pytester, "jsonmatch_targets =\n    fine = json:loads\n    bad = broken:extract\n")
        name = "jsonmatch_targets: target 'bad' 'broken:extract'"
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-jsonmatch: {name}: {says}"])
    everything = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in everything and "INTERNALERROR" not in everything


def test_a_golden_folder_that_does_not_exist_is_a_usage_error(pytester):
    ini(pytester, "jsonmatch_golden = goldne\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: jsonmatch_golden: 'goldne' is not a "
            "folder (looked for *goldne')"
        ]
    )


@pytest.mark.parametrize(
    "where, text, says",
    [
        (
            "file",
            "metric: field_f2\n",
            "c.jsonmatch.yaml:1: metric for every case: unknown metric "
            "'field_f2' (did you mean 'field_f1'?)*",
        ),
        (
            "file",
            "options: {ignroe: [total]}\n",
            "c.jsonmatch.yaml:1: options for every case: "
            "unknown option 'ignroe' for metric 'field_f1' "
            "(did you mean 'ignore'?)*",
        ),
        (
            "folder",
            "metric: json_similarty\n",
            "jsonmatch.yaml:1: metric for every case: unknown metric 'json_similarty'*",
        ),
    ],
)
def test_a_bad_file_or_folder_setting_is_one_collection_error_not_one_per_case(
    pytester, where, text, says
):
    cases = "cases:\n" + "".join(
        f"  - id: c{i}\n    expected: {{total: 1}}\n    actual: {{total: 1}}\n" for i in range(3)
    )
    if where == "folder":
        write(pytester, "jsonmatch.yaml", text)
        write(pytester, "c.jsonmatch.yaml", cases)
    else:
        write(pytester, "c.jsonmatch.yaml", text + cases)
    result = run(pytester)
    result.assert_outcomes(errors=1)  # the file, once: none of its three cases ran
    result.stdout.fnmatch_lines([says])


# -- how a run reads --------------------------------------------------------------------------


def test_a_failing_case_shows_the_score_message_not_a_traceback(pytester):
    write(
        pytester,
        "c.jsonmatch.yaml",
        """\
        cases:
          - id: wrong-total
            description: the total is misread
            expected: {vendor: ACME, total: 10}
            actual: {vendor: ACME, total: 12}
        """,
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "Traceback" not in out and "golden.py" not in out and "runtest" not in out
    summary = "FAILED c.jsonmatch.yaml::wrong-total"
    if int(pytest.__version__.split(".")[0]) >= 9:
        # pytest 9 adds a text failure report's first line to the short summary; 7.4-8.x do not
        summary += " - field_f1: score 0.5000 < threshold 1.0*"
    result.stdout.fnmatch_lines(
        [
            "*_ c.jsonmatch.yaml::wrong-total (line 2) _*",
            "field_f1: score 0.5000 < threshold 1.0000*",
            "*total*",
            "case: the total is misread",
            summary,
        ]
    )


def test_model_text_without_json_fails_with_one_paragraph(pytester):
    write(pytester, "c.jsonmatch.yaml", "expected: {a: 1}\nactual: I cannot help with that.\n")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["c.jsonmatch.yaml:1: case 'c': no JSON object found in actual: 'I cannot help with that.'"]
    )
    assert "Traceback" not in result.stdout.str()


def test_an_unknown_metric_fails_the_case_naming_file_and_line(pytester):
    write(pytester, "c.jsonmatch.yaml", "metric: f1\nexpected: {a: 1}\nactual: {a: 1}\n")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["c.jsonmatch.yaml:1: case 'c': *unknown metric*f1*"])


def test_a_comparator_error_in_a_golden_case_names_file_case_and_path(pytester):
    pytester.makeconftest("""
        def pytest_jsonmatch_register(registry):
            def fx(e, a, params):
                if e != a:
                    raise KeyError("no rate for EUR")
                return 1.0
            registry.register_comparator("fx", fx, overwrite=True)
    """)
    pytester.path.joinpath("c.jsonmatch.yaml").write_text(
        textwrap.dedent("""\
        metric: field_f1
        options:
          fields: {"items[*].price": {comparator: fx}}
        cases:
          - id: eur-invoice
            expected: {items: [{price: 1}, {price: 2}]}
            actual: {items: [{price: 1}, {price: 3}]}
        """)
    )
    with within(GENEROUS):
        result = pytester.runpytest_inprocess(
            "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark"
        )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "Traceback" not in out
    result.stdout.fnmatch_lines(
        [
            "c.jsonmatch.yaml:5: case 'eur-invoice': comparator 'fx' raised "
            "KeyError: 'no rate for EUR' at items[1].price"
        ]
    )


def test_golden_cases_join_the_jsonmatch_summary(pytester):
    write(pytester, "c.jsonmatch.yaml", "expected: {a: 1, b: 2}\nactual: {a: 1, b: 2}\n")
    result = run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*jsonmatch*", "field_f1 * 1 * 1 * 0 *1.0000*"])


def test_the_example_suite_passes_with_an_imperfect_field_summary(pytester):
    shutil.copytree(
        EXAMPLE_SUITE,
        pytester.path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"),
    )
    result = run(pytester, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=32, xfailed=1)  # 29 YAML cases (1 xfail) + 4 Python tests
    out = result.stdout.str()
    for metric in (
        "field_f1",
        "json_similarity",
        "structural_f1",
        "field_match",
        "field_match_normalized",
    ):
        assert f"\n{metric} " in out
    # fields the recorded outputs got wrong show up as imperfect
    result.stdout.fnmatch_lines(["*tax_id * 0.0000 * 0 * 0 * 0 * 1*"])


RAISING_TARGET = """\
def helper(text):
    raise ValueError(f"cannot read {text!r}")


def extract(text):
    return helper(text)
"""


@pytest.mark.parametrize("style, short", [((), True), (("--tb=long",), False), (("-vv",), False)])
def test_a_raising_target_is_one_short_error_unless_asked(pytester, style, short):
    # the exception's type and message, the attempts, and the last line of the user's own
    # code; the runner's threads and pytest's frames only with --tb=long or -vv
    pytester.makepyfile(my_target=RAISING_TARGET)
    ini(pytester, "jsonmatch_target = my_target:extract\n")
    write(pytester, "c.jsonmatch.yaml", INPUT_CASE)
    result = run(pytester, *style)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    if short:
        result.stdout.fnmatch_lines(
            [
                "c.jsonmatch.yaml:2: case 'acme': ValueError: cannot read * (1 attempt)",
                f"  raised at {pytester.path / 'my_target.py'}:2 in helper",
            ]
        )
        assert "Traceback" not in out and "runner.py" not in out and "threading" not in out
    else:
        assert "runner.py" in out and "def helper" in out
