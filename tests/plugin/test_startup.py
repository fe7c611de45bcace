"""A session that does not use the plugin pays nothing visible for it, and every option is
documented in ``pytest --help``."""

from __future__ import annotations

HEAVY = ("scipy", "numpy", "rapidfuzz", "yaml", "opentelemetry")  # the last: the otel extra
# what an unused session loads of the plugin: its hooks, its settings' declarations, the
# session and the channel, the tables of report formats and gates (no renderer, no gate's
# reader); no setting's parser, no golden-case machinery, no other reporting
LIGHT = {
    "pytest_jsonmatch",
    "pytest_jsonmatch.version",
    "pytest_jsonmatch.plugin",
    "pytest_jsonmatch.plugin.hooks",
    "pytest_jsonmatch.plugin.hookspecs",
    "pytest_jsonmatch.plugin.plain_imports",  # the package off pytest's rewriting list
    "pytest_jsonmatch.plugin.settings",
    "pytest_jsonmatch.plugin.session",
    "pytest_jsonmatch.session",
    "pytest_jsonmatch.session.channel",
    "pytest_jsonmatch.session.setting_parts",
    "pytest_jsonmatch.session.setting_table",  # the settings' declarations, read by settings
    "pytest_jsonmatch.session.session_settings",  # the settings' record, a Slotted class
    "pytest_jsonmatch.session.setting_reading",  # the settings read into that record
    "pytest_jsonmatch.engine",
    "pytest_jsonmatch.engine.core",
    "pytest_jsonmatch.engine.core.errors",
    "pytest_jsonmatch.engine.core.lazy_names",  # the root package's names, loaded on first use
    "pytest_jsonmatch.engine.core.slotted",  # the base of the formats' class (below)
    "pytest_jsonmatch.reporting",
    "pytest_jsonmatch.reporting.render",  # (its __init__ imports none of its modules)
    "pytest_jsonmatch.reporting.verdicts",
    "pytest_jsonmatch.reporting.render.formats",  # the table of report formats (the help lists them)
    "pytest_jsonmatch.reporting.verdicts.gate_specs",  # the table of gates (their keys, the help)
}


def test_a_session_without_comparisons_imports_nothing_heavy_and_prints_nothing(pytester):
    pytester.makepyfile(f"""
        import sys

        def test_nothing_heavy_loaded():
            loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
            assert loaded == []

        def test_only_the_light_parts_of_the_plugin_loaded():
            ours = {{m for m in sys.modules if m.startswith("pytest_jsonmatch")}}
            assert ours - {LIGHT!r} == set()
    """)
    # (langsmith's plugin, which agentevals brings for the trajectory parity test, loads
    # OpenTelemetry into every session: another package's cost, left out as the others are)
    plugins_left_out = ("no:cacheprovider", "no:hypothesispytest", "no:benchmark")
    result = pytester.runpytest_subprocess(
        *(arg for name in (*plugins_left_out, "no:langsmith_plugin") for arg in ("-p", name))
    )
    result.assert_outcomes(passed=2)
    # no banner (the plugins line is pytest's own), no warning, no summary section
    assert [
        line for line in result.outlines if "jsonmatch" in line and not line.startswith("plugins:")
    ] == []
    result.stdout.no_fnmatch_line("*warning*")
    assert result.errlines == []


def test_the_per_test_report_hooks_wait_for_the_first_comparison(pytester):
    # a session without a report file installs them as its first comparison is made; the
    # tests before that one count as run, so the run is complete and judged (a partial run
    # would fail the session: "the run did not finish")
    pytester.makepyfile("""
        from pytest_jsonmatch import assert_json_match

        def hooks(request):
            return request.config.pluginmanager.get_plugin("jsonmatch-reports")

        def test_first(request):
            assert hooks(request) is None

        def test_second():
            pass

        def test_compares(request):
            assert_json_match({"a": 1}, {"a": 1})
            assert hooks(request) is not None

        def test_last():
            pass
    """)
    result = pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--jsonmatch-gates=fail_under=0.5"
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*overall score 1.0000 over 1 case*"])
    result.stdout.no_fnmatch_line("*did not finish*")


def test_every_option_is_documented_in_help(pytester):
    result = pytester.runpytest_inprocess("-p", "no:benchmark", "--help")
    result.stdout.fnmatch_lines_random(
        [
            "*--jsonmatch-gates=KEY=VALUE ...*",
            "*--jsonmatch-report=PATH|KEY=VALUE*",
            "*--jsonmatch-baseline=PATH*",
            "*jsonmatch_metric (string):*",
            "*jsonmatch_threshold (string):*",
            "*jsonmatch_options (string):*",
            "*jsonmatch_gates (string):*",
            "*jsonmatch_field_floors (linelist):*",
            "*jsonmatch_golden (args):*",
            "*jsonmatch_report (args):*",
        ]
    )
    # the settings merged into others are not offered: their spelling only says where they went
    for gone in (
        "fail-under",
        "max-drop",
        "max-case-drop",
        "min-valid",
        "report-values",
        "group-by",
    ):
        result.stdout.no_fnmatch_line(f"*--jsonmatch-{gone}*")
    for gone in (
        "fail_under",
        "max_drop",
        "invalid_fails",
        "schema_dirs",
        "junit_properties",
        "group_by",
    ):
        result.stdout.no_fnmatch_line(f"*jsonmatch_{gone} (*")


def test_a_setting_given_is_still_checked_at_start_up_when_nothing_uses_the_plugin(pytester):
    # only a setting left at its default is not parsed: one given wrong stops the session
    # before any test runs, though no test compares and no case file is collected
    pytester.makepyfile("def test_plain():\n    assert True\n")
    for ini, message in [
        ("jsonmatch_calls = concurency=2", "*jsonmatch_calls*concurency*"),
        ("jsonmatch_gates = max_drop=lots", "*jsonmatch_gates max_drop*lots*"),
        ("jsonmatch_threshold = 2", "*jsonmatch_threshold must be a number*"),
        ("jsonmatch_report = group_by=case", "*jsonmatch_report: group_by must be one of*"),
    ]:
        pytester.makeini(f"[pytest]\n{ini}\n")
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
        assert result.ret == 4, ini  # pytest's usage error
        result.stderr.fnmatch_lines(["ERROR: pytest-jsonmatch: " + message])
