"""Session settings from the ini file (settings.py): the defaults (metric, threshold, options)
that the json_match fixture carries and plain assert_json_match uses, session options a metric
does not take left out for it, and a bad setting as a usage error."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS

# INVOICE_TEST in tests/plugin/test_assertion.py works out the invoice compared below:
# json_similarity scores it 0.7481.
INI_DEFAULTS = """
[pytest]
jsonmatch_metric = json_similarity
jsonmatch_threshold = 0.7
jsonmatch_options = {"ignore": ["id"]}
"""


def test_json_match_fixture_carries_the_ini_defaults(pytester):
    pytester.makeini(INI_DEFAULTS)
    # json_similarity as in INVOICE_TEST: 0.7481 >= 0.7, and "id" is ignored
    pytester.makepyfile("""
        def test_fixture(json_match):
            assert (json_match.metric, json_match.threshold) == ("json_similarity", 0.7)
            result = json_match({"id": 1, "vendor": "ACME", "total": 80, "city": "Paris"},
                                {"id": 2, "vendor": "ACME Corp", "total": 100, "city": "Paris"})
            assert round(result.score, 4) == 0.7481
            assert [f.path for f in result.fields if f.status != "skipped"] == [
                "vendor", "total", "city"]
    """)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


def test_plain_assert_json_match_uses_the_same_defaults(pytester):
    pytester.makeini(INI_DEFAULTS.replace("0.7\n", "0.8\n"))
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def test_plain():
            assert_json_match({"id": 1, "vendor": "ACME", "total": 80, "city": "Paris"},
                              {"id": 2, "vendor": "ACME Corp", "total": 100, "city": "Paris"})
    """)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["E       AssertionError: json_similarity: score 0.7481 < threshold 0.8000 *"]
    )


def test_session_options_a_metric_does_not_take_are_left_out(pytester):
    pytester.makeini("""
        [pytest]
        jsonmatch_metric = structural_f1
        jsonmatch_options = {beta: 2, ignore: [id]}
    """)
    # field_f1 takes ignore but not beta: id is skipped, a matches: score 1
    pytester.makepyfile("""
        def test_other_metric(json_match):
            result = json_match({"id": 1, "a": 1}, {"id": 2, "a": 1}, metric="field_f1")
            assert result.score == 1.0
    """)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            "jsonmatch_threshold = 2",
            "*jsonmatch_threshold must be a number between 0 and 1, not '2'*",
        ),
        ("jsonmatch_options = [1, 2]", "*jsonmatch_options must be a mapping*"),
        (
            "jsonmatch_field_floors = items[].sku",
            "*jsonmatch_field_floors: expected 'field.path=score' or 'group:field.path=score', not "
            "'items[].sku'*",
        ),
        (
            "jsonmatch_field_floors = field_f1:=0.9",
            "*jsonmatch_field_floors: expected 'group:field.path=score', not 'field_f1:=0.9'*",
        ),
        (
            "jsonmatch_field_floors = total=high",
            "*jsonmatch_field_floors 'total' must be a number*",
        ),
        # mistakes caught when the session starts, naming the setting and the name meant
        (
            "jsonmatch_treshold = 0.9",
            "*unknown ini setting 'jsonmatch_treshold' (did you mean 'jsonmatch_threshold'?); known: *",
        ),
        (
            "jsonmatch_options = {ignroe: [id]}",
            "*jsonmatch_options: unknown option 'ignroe' for metric 'field_f1' (did you mean 'ignore'?); "
            "known options: *",
        ),
        (
            "jsonmatch_metric = field_f2",
            "*jsonmatch_metric: unknown metric 'field_f2' (did you mean 'field_f1'?); known metrics: *",
        ),
        (
            "jsonmatch_max_case_drop = allow=-1",
            "*jsonmatch_max_case_drop: allow must be a whole number of cases from 0 to 1000000000, "
            "not '-1'*",
        ),
        (
            "jsonmatch_max_case_drop = 0.1 0.2",
            "*jsonmatch_max_case_drop is a drop and optionally 'allow=N', not '0.1 0.2'*",
        ),
        (
            "jsonmatch_max_drop = 0.1 lenient",
            "*jsonmatch_max_drop must be a number between 0 and 1, not 'lenient'*",
        ),
        (
            "jsonmatch_report = out.txt",
            "*jsonmatch_report: 'out.txt': the file's suffix says which "
            "report to write: .json, .html or .md*",
        ),
        (
            "jsonmatch_report = a.json b.json",
            "*jsonmatch_report: two json reports ('a.json' and 'b.json')*",
        ),
        (
            "jsonmatch_repeat = 3 most",
            "*jsonmatch_repeat must be a whole number of runs from 1 to "
            "1000 and/or a rule (mean, all, majority), not '3 most'*",
        ),
        (
            "jsonmatch_record = sometimes",
            "*jsonmatch_record is a mode (off, once, none, all) and "
            "optionally files=GLOB, fingerprint=MODULE:FUNCTION and "
            "prune, not 'sometimes'*",
        ),
        (
            "jsonmatch_max_case_drop = 2",
            "*jsonmatch_max_case_drop must be a number between 0 and 1*",
        ),
    ],
)
def test_a_bad_setting_is_a_usage_error(pytester, line, error):
    # before any test runs: the session stops at start-up
    pytester.makeini(f"[pytest]\n{line}\n")
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: pytest-jsonmatch: " + error.lstrip("*")])


def test_an_option_of_another_metric_stops_the_session_at_start_up(pytester):
    # the session's options go to every comparison of the session's metric: one it does not
    # take would fail every comparison, so the session stops before any test runs
    pytester.makeini("[pytest]\njsonmatch_options = {target_output_key: a}\n")
    pytester.makepyfile("""
        def test_one(json_match):
            assert json_match({"a": 1}, {"a": 1}).score == 1.0
    """)
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: pytest-jsonmatch: jsonmatch_options: unknown option "
            "'target_output_key' for metric 'field_f1'; known options: *"
        ]
    )
    # with the metric that takes it, the same setting runs
    pytester.makeini(
        "[pytest]\njsonmatch_metric = json_similarity\njsonmatch_options = {target_output_key: a}\n"
    )
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


def _settings(pytester, ini, *flags):
    """The typed settings a session reads from ``ini`` lines and ``flags``."""
    from pytest_jsonmatch.plugin.session import SESSION

    pytester.makeini("[pytest]\n" + ini)
    return pytester.parseconfigure(*flags).stash[SESSION].settings


def test_a_flag_overrides_only_the_parts_of_a_merged_setting_it_gives(pytester):
    from pytest_jsonmatch.calls.call_settings import CallSettings

    settings = _settings(
        pytester,
        "jsonmatch_calls = concurrency=4 timeout=30 rate=120/min\n"
        "jsonmatch_max_drop = 0.02\n"
        "jsonmatch_max_case_drop = 0.1 allow=2\n"
        "jsonmatch_repeat = 3 majority\n",
        "--jsonmatch-calls=concurrency=1",
        "--jsonmatch-max-drop=strict",
        "--jsonmatch-max-case-drop=allow=0",
        "--jsonmatch-repeat=5",
    )
    assert settings.calls == CallSettings(concurrency=1, timeout=30.0, rate=2.0)  # 120/min
    gates = settings.gates
    assert (gates.max_drop, gates.mode, gates.max_case_drop, gates.allow_regressions) == (
        0.02,
        "strict",
        0.1,
        0,
    )
    assert (settings.repeat.count, settings.repeat.rule) == (5, "majority")


def test_reports_go_by_suffix_and_a_strict_line_turns_floors_strict(pytester):
    settings = _settings(
        pytester,
        "jsonmatch_report = out/r.json r.HTML\n"
        "jsonmatch_field_floors =\n    strict\n    total=0.9\n",
        "--jsonmatch-report=s.md",
        "--jsonmatch-report=t.json",
    )
    here = str(pytester.path)
    # a flag replaces the ini's list whole: the paths it gives, no others
    assert (settings.reports.json, settings.reports.html, settings.reports.markdown) == (
        f"{here}/t.json",
        None,
        f"{here}/s.md",
    )
    assert settings.gates.strict and [f.pattern for f in settings.gates.floors] == ["total"]
    settings = _settings(pytester, "jsonmatch_report = out/r.json r.HTML\n")
    assert (settings.reports.json, settings.reports.html) == (
        f"{here}/out/r.json",
        f"{here}/r.HTML",
    )
