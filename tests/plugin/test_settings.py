"""Session settings from the ini file (settings.py): the defaults (metric, threshold, options)
that the json_match fixture carries and plain assert_json_match uses, session options a metric
does not take left out for it, and a bad setting as a usage error."""

from __future__ import annotations

import pytest

from tests.helpers.plugin_cases import ARGS, configured_settings

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

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
            "jsonmatch_gates = allow=-1",
            "*jsonmatch_gates max_case_drop: allow must be a whole number of cases from 0 to 1000000000, "
            "not '-1'*",
        ),
        (
            "jsonmatch_gates = max_case_drop=0.1 0.2",
            "*jsonmatch_gates: '0.2' is not a gate; write KEY=VALUE with a key of fail_under, "
            "max_drop, max_case_drop, allow, min_valid, invalid_fails, pass_k, min_pass_hat_k, "
            "min_pass_at_k, max_pass_drop, judge_ac1, judge_kappa, judge_false_accept, "
            "judge_position, or one of statistical, strict, invalid_fails*",
        ),
        (
            "jsonmatch_gates = max_drop=lenient",
            "*jsonmatch_gates max_drop must be a number between 0 and 1, not 'lenient'*",
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
            "optionally files=GLOB, fingerprint=MODULE:FUNCTION, prune, "
            "scrub=PATH,... or scrub=/REGEX/, block_network=on|off and "
            "allowed_hosts=HOST,..., not 'sometimes'*",
        ),
        (
            "jsonmatch_gates = max_case_drop=2",
            "*jsonmatch_gates max_case_drop must be a number between 0 and 1*",
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


def test_a_flag_overrides_only_the_parts_of_a_merged_setting_it_gives(pytester):
    from pytest_jsonmatch.calls.call_settings import CallSettings

    settings = configured_settings(
        pytester,
        "jsonmatch_calls = concurrency=4 timeout=30 rate=120/min\n"
        "jsonmatch_gates = max_drop=0.02 max_case_drop=0.1 allow=2\n"
        "jsonmatch_repeat = 3 majority\n",
        "--jsonmatch-calls=concurrency=1",
        "--jsonmatch-gates=strict",
        "--jsonmatch-gates=allow=0",
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
    settings = configured_settings(
        pytester,
        "jsonmatch_report = out/r.json r.HTML\n"
        "jsonmatch_field_floors =\n    strict\n    total=0.9\n",
        "--jsonmatch-report=s.md",
        "--jsonmatch-report=t.json",
    )
    here = str(pytester.path)
    # a flag replaces the ini's list whole: the paths it gives, no others
    assert tuple(map(settings.reports.path, ("json", "html", "markdown"))) == (
        f"{here}/t.json",
        None,
        f"{here}/s.md",
    )
    assert settings.gates.strict and [f.pattern for f in settings.gates.floors] == ["total"]
    settings = configured_settings(pytester, "jsonmatch_report = out/r.json r.HTML\n")
    assert tuple(map(settings.reports.path, ("json", "html"))) == (
        f"{here}/out/r.json",
        f"{here}/r.HTML",
    )


# Each setting merged into another, its old spelling as an ini line, and the line that says how
# to write it now (the session stops before any test runs: never silently ignored).
MERGED_INI = [
    (
        "jsonmatch_schema_dirs = ../shared",
        "jsonmatch_schema_dirs is part of jsonmatch_golden now: "
        "jsonmatch_golden = FOLDER schema_dirs=PATH",
    ),
    (
        "jsonmatch_max_cases = 5",
        "jsonmatch_max_cases is part of jsonmatch_golden now: jsonmatch_golden = FOLDER max_cases=N",
    ),
    (
        "jsonmatch_report_values = full",
        "jsonmatch_report_values is part of jsonmatch_report now: "
        "jsonmatch_report = PATH values=short|full|none",
    ),
    (
        "jsonmatch_junit_properties = false",
        "jsonmatch_junit_properties is part of jsonmatch_report now: "
        "jsonmatch_report = PATH junit=no",
    ),
    (
        "jsonmatch_group_by = file",
        "jsonmatch_group_by is part of jsonmatch_report now: "
        "jsonmatch_report = PATH group_by=metric|file|folder",
    ),
    (
        "jsonmatch_fail_under = 0.9",
        "jsonmatch_fail_under is part of jsonmatch_gates now: jsonmatch_gates = fail_under=SCORE",
    ),
    (
        "jsonmatch_max_drop = 0.02",
        "jsonmatch_max_drop is part of jsonmatch_gates now: "
        "jsonmatch_gates = max_drop=D [[]statistical|strict[]]",
    ),
    (
        "jsonmatch_max_case_drop = 0.1",
        "jsonmatch_max_case_drop is part of jsonmatch_gates now: "
        "jsonmatch_gates = max_case_drop=D [[]allow=N[]]",
    ),
    (
        "jsonmatch_min_valid = 0.95",
        "jsonmatch_min_valid is part of jsonmatch_gates now: jsonmatch_gates = min_valid=SHARE",
    ),
    (
        "jsonmatch_invalid_fails = true",
        "jsonmatch_invalid_fails is part of jsonmatch_gates now: jsonmatch_gates = invalid_fails",
    ),
]


@pytest.mark.parametrize(("line", "error"), MERGED_INI)
def test_a_merged_ini_setting_says_how_to_write_it_now(pytester, line, error):
    pytester.makeini(f"[pytest]\n{line}\n")
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-jsonmatch: {error}"])


@pytest.mark.parametrize(
    ("flag", "error"),
    [
        (
            "--jsonmatch-fail-under=0.9",
            "--jsonmatch-fail-under is part of --jsonmatch-gates now: "
            "--jsonmatch-gates='fail_under=SCORE'",
        ),
        (
            "--jsonmatch-max-drop=0.1",
            "--jsonmatch-max-drop is part of --jsonmatch-gates now: "
            "--jsonmatch-gates='max_drop=D [[]statistical|strict[]]'",
        ),
        (
            "--jsonmatch-max-case-drop=0.1",
            "--jsonmatch-max-case-drop is part of --jsonmatch-gates now: "
            "--jsonmatch-gates='max_case_drop=D [[]allow=N[]]'",
        ),
        (
            "--jsonmatch-min-valid=0.5",
            "--jsonmatch-min-valid is part of --jsonmatch-gates now: "
            "--jsonmatch-gates='min_valid=SHARE'",
        ),
        (
            "--jsonmatch-report-values=full",
            "--jsonmatch-report-values is part of --jsonmatch-report now: "
            "--jsonmatch-report=values=short|full|none",
        ),
        (
            "--jsonmatch-schema-dirs=x",
            "--jsonmatch-schema-dirs is part of jsonmatch_golden now: "
            "jsonmatch_golden = FOLDER schema_dirs=PATH",
        ),
        (
            "--jsonmatch-junit-properties=no",
            "--jsonmatch-junit-properties is part of --jsonmatch-report now: "
            "--jsonmatch-report=junit=no",
        ),
        (
            "--jsonmatch-group-by=file",
            "--jsonmatch-group-by is part of --jsonmatch-report now: "
            "--jsonmatch-report=group_by=metric|file|folder",
        ),
    ],
)
def test_a_merged_flag_says_how_to_write_it_now(pytester, flag, error):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_inprocess(*ARGS, flag)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-jsonmatch: {error}"])


def test_the_merged_keys_reach_the_typed_settings(pytester):
    (pytester.path / "cases").mkdir()
    settings = configured_settings(
        pytester,
        "jsonmatch_golden = cases schema_dirs=../shared max_cases=7\n"
        "jsonmatch_report = out.json values=full junit=no group_by=folder\n"
        "jsonmatch_gates = fail_under=0.9 min_valid=0.95 invalid_fails\n",
        "--jsonmatch-report=values=none",
        "--jsonmatch-report=group_by=file",
    )
    assert settings.golden == (pytester.path / "cases",)
    assert settings.schema_dirs == (pytester.path / "../shared",)
    assert settings.max_cases == 7
    assert (settings.report_values, settings.junit_properties) == ("none", False)
    assert settings.group_by == "file"  # the flag's key over the ini's
    assert settings.defaults.invalid_fails is True
    assert (settings.gates.fail_under, settings.gates.min_valid) == (0.9, 0.95)
    assert settings.reports.path("json") == str(pytester.path / "out.json")


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            "jsonmatch_gates = fail_undr=0.9",
            "jsonmatch_gates: unknown key 'fail_undr' (did you mean 'fail_under'?); known: *",
        ),
        (
            "jsonmatch_gates = invalid_fails=maybe",
            "jsonmatch_gates: invalid_fails must be yes or no*",
        ),
        ("jsonmatch_report = a.json junit=maybe", "jsonmatch_report: junit must be yes or no*"),
        ("jsonmatch_report = a.json value=full", "jsonmatch_report: unknown key 'value'*"),
        (
            "jsonmatch_report = group_by=case",
            "jsonmatch_report: group_by must be one of*",
        ),
        ("jsonmatch_golden = max_case=3", "jsonmatch_golden: unknown key 'max_case'*"),
        (
            "jsonmatch_golden = max_cases=0",
            "jsonmatch_golden: max_cases must be a whole number of cases from 1 to 1000000000*",
        ),
    ],
)
def test_a_bad_key_of_a_merged_setting_is_named(pytester, line, error):
    pytester.makeini(f"[pytest]\n{line}\n")
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_inprocess(*ARGS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: pytest-jsonmatch: {error}"])


def test_there_are_at_most_twenty_settings_and_no_merged_name_among_them():
    from pytest_jsonmatch.plugin.settings import SETTINGS
    from pytest_jsonmatch.session.setting_parts import MERGED

    names = [s.name for s in SETTINGS]
    assert len(names) <= 20, names
    assert not set(names) & set(MERGED)
    # each merged setting names one that is there to hold it
    assert {into for into, _ in MERGED.values()} <= set(names)
