"""A session that does not use the plugin pays nothing visible for it, and every option is
documented in ``pytest --help``."""

from __future__ import annotations

HEAVY = ("scipy", "numpy", "rapidfuzz", "yaml", "opentelemetry")  # the last: the otel extra


def test_a_session_without_comparisons_imports_nothing_heavy_and_prints_nothing(pytester):
    pytester.makepyfile(f"""
        import sys

        def test_nothing_heavy_loaded():
            loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
            assert loaded == []
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest",
                                           "-p", "no:benchmark")
    result.assert_outcomes(passed=1)
    # no banner (the plugins line is pytest's own), no warning, no summary section
    assert [line for line in result.outlines
            if "jsonmatch" in line and not line.startswith("plugins:")] == []
    result.stdout.no_fnmatch_line("*warning*")
    assert result.errlines == []


def test_every_option_is_documented_in_help(pytester):
    result = pytester.runpytest_inprocess("-p", "no:benchmark", "--help")
    result.stdout.fnmatch_lines_random([
        "*--jsonmatch-fail-under=SCORE*",
        "*--jsonmatch-report=PATH*",
        "*--jsonmatch-baseline=PATH*",
        "*--jsonmatch-max-drop=D*",
        "*jsonmatch_metric (string):*",
        "*jsonmatch_threshold (string):*",
        "*jsonmatch_options (string):*",
        "*jsonmatch_fail_under (string):*",
        "*jsonmatch_field_floors (linelist):*",
        "*jsonmatch_max_drop (string):*",
        "*jsonmatch_junit_properties (bool):*",
    ])
