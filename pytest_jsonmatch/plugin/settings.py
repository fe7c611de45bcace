"""The session's settings, read once at start-up from flags and ini options (a flag wins over
its ini value). A malformed setting stops pytest with one line saying what is wrong."""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass
from typing import Any

import pytest

from ..engine.core.errors import JsonMatchError, did_you_mean, known_names
from ..reporting.aggregate import GROUP_BY, REPEAT_RULES
from ..reporting.gates import GateSettings, parse_floors, parse_mode, parse_score
from ..reporting.records import VALUE_MODES
from .channel import Defaults
from .recorded_outputs import MODES as RECORD_MODES
from .runner import MAX_CONCURRENCY, MAX_RETRIES, rate_per_second

UPDATE_MODES = ("create", "fix", "all")

# ini name -> (type, default, help)
INI: dict[str, tuple[str, Any, str]] = {
    "jsonmatch_metric": ("string", "field_f1",
                         "jsonmatch: default metric of assert_json_match and json_match "
                         "(default: field_f1)."),
    "jsonmatch_threshold": ("string", "1.0",
                            "jsonmatch: default threshold a comparison's score must reach "
                            "(default: 1.0)."),
    "jsonmatch_options": ("string", "",
                          "jsonmatch: default metric options, a JSON or YAML mapping "
                          "(e.g. {\"ignore\": [\"id\"]})."),
    "jsonmatch_fail_under": ("string", "",
                             "jsonmatch: fail the session when the overall score (mean of all "
                             "case scores, errors counted as 0) is below this."),
    "jsonmatch_field_floors": ("linelist", [],
                               "jsonmatch: per-field floors, one 'field.path=score' a line, "
                               "patterns allowed (e.g. items[].sku=0.9, items[].*=0.8), held in "
                               "every field table; 'group:field.path=score' holds in one table "
                               "(e.g. field_f1:total=0.9)."),
    "jsonmatch_max_drop": ("string", "0",
                           "jsonmatch: with --jsonmatch-baseline, the largest drop of the "
                           "overall or a field's mean score allowed (default: 0)."),
    "jsonmatch_max_case_drop": ("string", "",
                                "jsonmatch: with --jsonmatch-baseline, a shared case whose score "
                                "dropped by more than this fails the session, whatever its "
                                "threshold (default: jsonmatch_max_drop)."),
    "jsonmatch_allow_regressions": ("string", "0",
                                    "jsonmatch: with --jsonmatch-baseline, how many cases may drop "
                                    "beyond jsonmatch_max_case_drop with only a warning (default 0)."),
    "jsonmatch_gate": ("string", "statistical",
                       "jsonmatch: how a baseline drop fails the run: 'statistical' (beyond "
                       "max_drop and its 95% interval below zero) or 'strict' (beyond max_drop)."),
    "jsonmatch_strict": ("bool", False,
                         "jsonmatch: a field floor that matches no field fails the session "
                         "(default: false, a warning)."),
    "jsonmatch_max_cases": ("string", "10000",
                            "jsonmatch: the most cases one case file may hold (default 10000); "
                            "a file with more is a collection error."),
    "jsonmatch_schema_dirs": ("paths", [],
                              "jsonmatch: folders outside the test root that the $refs of a "
                              "golden case's schema may read (default: none; the root always)."),
    "jsonmatch_repeat_pass": ("string", "mean",
                              "jsonmatch: when a repeated case passes: 'mean' (its mean score "
                              "meets the threshold), 'all' or 'majority' of its runs do."),
    "jsonmatch_group_by": ("string", "metric",
                           "jsonmatch: per-field tables per 'metric', 'file' or 'folder'."),
    "jsonmatch_record": ("string", "off",
                         "jsonmatch: record and replay the outputs of 'input:' golden cases: off "
                         "(call the target), once, none (replay only) or all (re-record)."),
    "jsonmatch_concurrency": ("string", "1",
                              "jsonmatch: how many calls of the target of 'input:' golden cases "
                              "run at a time (default 1, one after another: a target must be "
                              "thread-safe to run more; 8 suits most hosted models)."),
    "jsonmatch_target_timeout": ("string", "",
                                 "jsonmatch: seconds a call of the target may take; a call that "
                                 "takes longer is cancelled and its case an error (default: none)."),
    "jsonmatch_retries": ("string", "0",
                          "jsonmatch: how many times a call of the target that timed out, failed "
                          "to connect or got HTTP 408, 409, 429 or 5xx is retried (default 0)."),
    "jsonmatch_rate_limit": ("string", "",
                             "jsonmatch: the most calls of the target started by the whole "
                             "process, e.g. 120/min or 5/s (default: no limit)."),
    "jsonmatch_junit_properties": ("bool", True,
                                   "jsonmatch: add each comparison's metric and score as JUnit "
                                   "XML properties (default: true)."),
}

# flag dest -> (flag, metavar, help); the ini option of the same name, if any, is its default;
# a flag without a metavar is a switch
FLAGS: dict[str, tuple[str, str, str]] = {
    "jsonmatch_fail_under": ("--jsonmatch-fail-under", "SCORE",
                             "fail the session when the overall score is below SCORE, even if "
                             "every test passed (ini: jsonmatch_fail_under)."),
    "jsonmatch_report": ("--jsonmatch-report", "PATH",
                         "write the session's comparisons and aggregates as JSON to PATH "
                         "(atomically, once, by the xdist controller)."),
    "jsonmatch_report_values": ("--jsonmatch-report-values", "full|short|none",
                                "how much of each field's expected and actual values the report "
                                "keeps: short (200 characters, the default), full or none."),
    "jsonmatch_html": ("--jsonmatch-html", "PATH",
                       "write the report as one self-contained HTML page to PATH."),
    "jsonmatch_markdown": ("--jsonmatch-markdown", "PATH",
                           "write a Markdown summary to PATH (also written to "
                           "$GITHUB_STEP_SUMMARY when that is set)."),
    "jsonmatch_baseline": ("--jsonmatch-baseline", "PATH",
                           "compare this run case by case with a report saved by "
                           "--jsonmatch-report; the summary shows the deltas."),
    "jsonmatch_max_drop": ("--jsonmatch-max-drop", "D",
                           "with --jsonmatch-baseline: fail the session when the overall score "
                           "or a field's mean score dropped by more than D (ini: "
                           "jsonmatch_max_drop, default 0; see jsonmatch_gate)."),
    "jsonmatch_max_case_drop": ("--jsonmatch-max-case-drop", "D",
                                "with --jsonmatch-baseline: fail the session when a shared case's "
                                "score dropped by more than D (ini: jsonmatch_max_case_drop; "
                                "default: the max drop)."),
    "jsonmatch_allow_regressions": ("--jsonmatch-allow-regressions", "N",
                                    "with --jsonmatch-baseline: let up to N cases drop beyond the "
                                    "max case drop with a warning (ini: jsonmatch_allow_regressions; "
                                    "default 0)."),
    "jsonmatch_group_by": ("--jsonmatch-group-by", "metric|file|folder",
                           "print the per-field table per metric (default), case file or folder."),
    "jsonmatch_update": ("--jsonmatch-update", "create|fix|all",
                         "write actual outputs into golden case files as their 'expected': create "
                         "(cases without one), fix (failing cases) or all (every case scoring below 1.0)."),
    "jsonmatch_update_in_ci": ("--jsonmatch-update-in-ci", "",
                               "allow --jsonmatch-update although the CI environment variable is set."),
    "jsonmatch_record": ("--jsonmatch-record", "off|once|none|all",
                         "record and replay the outputs of 'input:' golden cases, as vcrpy does "
                         "(ini: jsonmatch_record; default off)."),
    "jsonmatch_concurrency": ("--jsonmatch-concurrency", "N",
                              "call the targets of up to N 'input:' golden cases at a time "
                              "(ini: jsonmatch_concurrency; default 1: one after another)."),
    "jsonmatch_repeat": ("--jsonmatch-repeat", "N",
                         "run the target of every 'input:' golden case N times (a case's own "
                         "'repeat:' wins); see jsonmatch_repeat_pass."),
}


@dataclass(frozen=True)
class SessionSettings:
    defaults: Defaults
    gates: GateSettings
    report_path: str | None
    html_path: str | None  # --jsonmatch-html
    markdown_path: str | None  # --jsonmatch-markdown (written whole)
    step_summary: str | None  # $GITHUB_STEP_SUMMARY (appended to, as GitHub expects)
    baseline_path: str | None
    values: str
    group_by: str
    repeat: int | None
    repeat_rule: str
    junit_properties: bool
    annotations: bool  # GitHub Actions workflow commands for failing cases
    update: str | None  # write outputs into case files: create, fix or all
    record: str  # recordings of input cases: off, once, none, all
    concurrency: int = 1  # live calls of the target at a time
    target_timeout: float | None = None  # seconds a call may take
    retries: int = 0  # retries of a call that failed in a way worth retrying
    rate_limit: float | None = None  # calls started per second, by the whole process


def setting(config: pytest.Config, name: str) -> Any:
    """The flag's value when given, else the ini value."""
    value = config.getoption(name, default=None)
    if value is not None:
        return value
    return config.getini(name) if name in INI else None


def read_settings(config: pytest.Config) -> SessionSettings:
    """Every jsonmatch setting, checked; a bad one is a UsageError naming it."""
    try:
        return _read(config)
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


def _read(config: pytest.Config) -> SessionSettings:
    _check_ini_names(config)
    root = config.invocation_params.dir
    metric = (config.getini("jsonmatch_metric") or "field_f1").strip()
    threshold = parse_score(config.getini("jsonmatch_threshold") or "1.0", "jsonmatch_threshold")
    options = _options(config.getini("jsonmatch_options"))
    fail_under = setting(config, "jsonmatch_fail_under")
    gates = GateSettings(
        parse_score(fail_under, "jsonmatch_fail_under") if str(fail_under).strip() else None,
        parse_floors(config.getini("jsonmatch_field_floors")),
        parse_score(setting(config, "jsonmatch_max_drop") or "0", "jsonmatch_max_drop"),
        parse_mode(config.getini("jsonmatch_gate")), bool(config.getini("jsonmatch_strict")),
        _max_case_drop(setting(config, "jsonmatch_max_case_drop")),
        _allow_regressions(setting(config, "jsonmatch_allow_regressions")))
    report = setting(config, "jsonmatch_report")
    markdown = setting(config, "jsonmatch_markdown")
    html = setting(config, "jsonmatch_html")
    baseline = setting(config, "jsonmatch_baseline")
    return SessionSettings(
        Defaults(metric, threshold, options, _verbosity(config)), gates,
        os.fspath(root / report) if report else None,
        os.fspath(root / html) if html else None,
        os.fspath(root / markdown) if markdown else None,
        os.environ.get("GITHUB_STEP_SUMMARY") or None,
        os.fspath(root / baseline) if baseline else None,
        _choice(setting(config, "jsonmatch_report_values") or "short", VALUE_MODES,
                "--jsonmatch-report-values"),
        _choice(setting(config, "jsonmatch_group_by") or "metric", GROUP_BY, "jsonmatch_group_by"),
        _repeat(setting(config, "jsonmatch_repeat")),
        _choice(config.getini("jsonmatch_repeat_pass") or "mean", REPEAT_RULES,
                "jsonmatch_repeat_pass"),
        bool(config.getini("jsonmatch_junit_properties")),
        os.environ.get("GITHUB_ACTIONS") == "true",
        _update(config), _choice(setting(config, "jsonmatch_record") or "off", RECORD_MODES,
                                 "jsonmatch_record"),
        _concurrency(config), _target_timeout(config.getini("jsonmatch_target_timeout")),
        _retries(config.getini("jsonmatch_retries")),
        _rate_limit(config.getini("jsonmatch_rate_limit")))


def _concurrency(config: pytest.Config) -> int:
    flag = config.getoption("jsonmatch_concurrency", default=None)
    what = "--jsonmatch-concurrency" if flag is not None else "jsonmatch_concurrency"
    value = flag if flag is not None else config.getini("jsonmatch_concurrency")
    return _whole_number(value, what, 1, MAX_CONCURRENCY, "of calls ", " (1: one after another)")


def _whole_number(value: Any, what: str, low: int, high: int, unit: str = "", note: str = "") -> int:
    """``value`` (a flag's or an ini setting's text) as a whole number from ``low`` to
    ``high``, else a usage error naming ``what``."""
    text = str(value).strip()
    if not text.isdigit() or not low <= int(text) <= high:
        raise pytest.UsageError(f"pytest-jsonmatch: {what} must be a whole number {unit}from "
                                f"{low} to {high}{note}, not {value!r}")
    return int(text)


def _target_timeout(value: Any) -> float | None:
    text = str(value or "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise pytest.UsageError(f"pytest-jsonmatch: jsonmatch_target_timeout must be a number of "
                                f"seconds above 0, not {value!r}")
    return seconds


def _retries(value: Any) -> int:
    if value is None or not str(value).strip():
        return 0
    return _whole_number(value, "jsonmatch_retries", 0, MAX_RETRIES)


def _rate_limit(value: Any) -> float | None:
    text = str(value or "").strip()
    if not text:
        return None
    rate = rate_per_second(text)
    if rate is None:
        raise pytest.UsageError(f"pytest-jsonmatch: jsonmatch_rate_limit must be a number of calls "
                                f"per second, minute or hour above 0, like 120/min or 5/s, not "
                                f"{value!r}")
    return rate


def _check_ini_names(config: pytest.Config) -> None:
    """A ``jsonmatch_*`` ini setting this plugin does not have is a typo: stop, and say which
    was meant (pytest itself only warns of unknown ini keys)."""
    registered = set(INI) | {"jsonmatch_golden", "jsonmatch_target"}  # golden.add_options
    with warnings.catch_warnings():  # pytest 9.2 deprecates inicfg, the one list of the
        warnings.simplefilter("ignore")  # keys the ini file holds; without it, no check
        written = list(getattr(config, "inicfg", {}) or {})
    for name in written:
        if not isinstance(name, str) or not name.startswith("jsonmatch") or name in registered:
            continue
        try:
            config.getini(name)  # registered by another part of the plugin
        except ValueError:
            # matched without the shared prefix, which would make every name look alike
            hint = did_you_mean(name[len("jsonmatch_"):], [n[len("jsonmatch_"):] for n in registered])
            hint = hint.replace(" (did you mean '", " (did you mean 'jsonmatch_").replace(
                " or '", " or 'jsonmatch_")
            raise pytest.UsageError(f"pytest-jsonmatch: unknown ini setting {name!r}{hint}; "
                                    f"known: {known_names(registered)}") from None


def check_defaults(defaults: Defaults) -> None:
    """``jsonmatch_metric`` and every key of ``jsonmatch_options``, checked when the session
    starts (after plugins and the root conftest registered their metrics): an unknown name is
    a UsageError naming the ini setting and the name meant. The engine loads only when one of
    them is set. A key must be one the session's metric takes: the session's options go to
    every comparison of that metric (and to another metric's, the ones it takes)."""
    if defaults.metric == "field_f1" and not defaults.options:
        return
    from ..engine.metrics import metric_named

    try:
        metric = metric_named(defaults.metric)
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: jsonmatch_metric: {exc}") from None
    known = getattr(metric, "options", None)
    for key in defaults.options if known is not None else ():
        if key not in known:
            raise pytest.UsageError(
                f"pytest-jsonmatch: jsonmatch_options: unknown option {key!r} for metric "
                f"{defaults.metric!r}{did_you_mean(key, known)}; known options: "
                f"{known_names(known)}")


def _max_case_drop(value: Any) -> float | None:
    if value is None or not str(value).strip():
        return None
    return parse_score(value, "jsonmatch_max_case_drop")


def _allow_regressions(value: Any) -> int:
    text = str(value if value is not None else "0").strip() or "0"
    if not text.isdigit() or len(text) > 9:
        raise pytest.UsageError(f"pytest-jsonmatch: jsonmatch_allow_regressions must be a whole "
                                f"number of cases, 0 or more, not {value!r}")
    return int(text)


def _update(config: pytest.Config) -> str | None:
    mode = setting(config, "jsonmatch_update")
    if mode is None:
        return None
    mode = _choice(mode, UPDATE_MODES, "--jsonmatch-update")
    if os.environ.get("CI") and not setting(config, "jsonmatch_update_in_ci"):
        raise pytest.UsageError("pytest-jsonmatch: refusing to update golden case files because "
                                "the CI environment variable is set; pass "
                                "--jsonmatch-update-in-ci to update them anyway")
    return mode


def _choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    text = str(value).strip()
    if text not in allowed:
        raise pytest.UsageError(f"pytest-jsonmatch: {what} must be one of {', '.join(allowed)}, "
                                f"not {value!r}")
    return text


def _repeat(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = 0
    if not 1 <= count <= 1000:
        raise pytest.UsageError(f"pytest-jsonmatch: --jsonmatch-repeat must be a whole number "
                                f"from 1 to 1000, not {value!r}")
    return count


def _options(text: str) -> dict[str, Any]:
    if not text or not text.strip():
        return {}
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: jsonmatch_options is not valid JSON or YAML: "
                                f"{exc}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise pytest.UsageError("pytest-jsonmatch: jsonmatch_options must be a mapping of option "
                                f"names to values, not {type(value).__name__}")
    return value


def _verbosity(config: pytest.Config) -> int:
    get = getattr(config, "get_verbosity", None)
    if get is not None:
        return int(get(getattr(config, "VERBOSITY_ASSERTIONS", None)))
    return int(config.getoption("verbose", default=0) or 0)
