"""The pytest plugin: options, the ``json_match`` fixture, recording of every comparison,
the ``jsonmatch`` terminal summary, the JSON report and the CI gates.

Hooks live here; the arithmetic and formatting live in :mod:`.report` and
:mod:`.assertion`. Nothing heavy is imported at start-up: the engine loads when a test
first compares something. Under pytest-xdist, workers record and send their comparisons
to the controller through ``workeroutput``; only the controller aggregates, prints, writes
the report and judges the gates.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from . import recording

if TYPE_CHECKING:
    from .assertion import JsonMatcher
    from .report import Baseline, Comparison, Deltas, Summary
    from .settings import GateSettings

_WORKEROUTPUT_KEY = "jsonmatch_comparisons"

_INI = {
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
                             "comparison scores) is below this."),
    "jsonmatch_field_floors": ("linelist", [],
                               "jsonmatch: per-field floors, one 'field.path=score' a line "
                               "(e.g. items[].sku=0.9); the session fails when a field's mean "
                               "score is below its floor."),
    "jsonmatch_max_drop": ("string", "0",
                           "jsonmatch: with --jsonmatch-baseline, the largest drop of the "
                           "overall or a field's mean score allowed (default: 0)."),
    "jsonmatch_junit_properties": ("bool", True,
                                   "jsonmatch: add each comparison's metric and score as JUnit "
                                   "XML properties (default: true)."),
}


@dataclass
class _State:
    """What the plugin keeps for one session (in ``config.stash``)."""

    defaults: recording.Defaults
    previous_defaults: recording.Defaults
    gates: GateSettings
    junit_properties: bool
    report_path: str | None = None
    baseline: Baseline | None = None
    comparisons: list[Comparison] = field(default_factory=list)
    registered: bool = False
    registry_before: dict[str, set[str]] | None = None
    # filled at session finish, for the terminal summary
    summary: Summary | None = None
    deltas: Deltas | None = None
    gate_failures: list[str] = field(default_factory=list)
    report_error: str | None = None


_STATE = pytest.StashKey[_State]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


# -- options -------------------------------------------------------------------------------


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("jsonmatch", "JSON matching (pytest-jsonmatch)")
    group.addoption("--jsonmatch-fail-under", dest="jsonmatch_fail_under", metavar="SCORE",
                    default=None,
                    help="fail the session when the overall score (mean of all comparison "
                         "scores) is below SCORE, even if every test passed "
                         "(ini: jsonmatch_fail_under).")
    group.addoption("--jsonmatch-report", dest="jsonmatch_report", metavar="PATH", default=None,
                    help="write the session's comparisons and aggregates as JSON to PATH "
                         "(atomically, once, by the xdist controller).")
    group.addoption("--jsonmatch-baseline", dest="jsonmatch_baseline", metavar="PATH",
                    default=None,
                    help="compare the aggregates with a report saved by --jsonmatch-report; "
                         "the summary shows the deltas.")
    group.addoption("--jsonmatch-max-drop", dest="jsonmatch_max_drop", metavar="D", default=None,
                    help="with --jsonmatch-baseline: fail the session when the overall score or "
                         "a field's mean score dropped by more than D (ini: jsonmatch_max_drop, "
                         "default 0).")
    for name, (kind, default, help_text) in _INI.items():
        parser.addini(name, help_text, type=kind, default=default)  # type: ignore[arg-type]

    from . import golden

    if hasattr(golden, "add_options"):
        golden.add_options(parser)


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Any:
    from . import golden

    return golden.collect_file(file_path, parent)


def _setting(config: pytest.Config, name: str) -> Any:
    """The flag's value when given, else the ini value."""
    value = config.getoption(name, default=None)
    return value if value is not None else config.getini(name)


def _read_settings(config: pytest.Config) -> _State:
    from .settings import GateSettings, ReportError, parse_field_floors, parse_score

    try:
        metric = (config.getini("jsonmatch_metric") or "field_f1").strip()
        threshold = parse_score(config.getini("jsonmatch_threshold") or "1.0", "jsonmatch_threshold")
        options = _parse_options(config.getini("jsonmatch_options"))
        fail_under_raw = _setting(config, "jsonmatch_fail_under")
        fail_under = (parse_score(fail_under_raw, "jsonmatch_fail_under")
                      if str(fail_under_raw).strip() else None)
        max_drop = parse_score(_setting(config, "jsonmatch_max_drop") or "0", "jsonmatch_max_drop")
        floors = parse_field_floors(config.getini("jsonmatch_field_floors"))
        gates = GateSettings(fail_under, floors, max_drop)
        report_path = config.getoption("jsonmatch_report", default=None)
        baseline_path = config.getoption("jsonmatch_baseline", default=None)
        baseline = None
        if baseline_path and not _is_worker(config):
            from .report import load_baseline

            baseline = load_baseline(config.invocation_params.dir / baseline_path)
    except ReportError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None
    if report_path:
        report_path = os.fspath(config.invocation_params.dir / report_path)
    verbosity = _verbosity(config)
    defaults = recording.Defaults(metric, threshold, options, verbosity)
    return _State(defaults, recording.defaults(), gates,
                  bool(config.getini("jsonmatch_junit_properties")), report_path, baseline)


def _parse_options(text: str) -> dict[str, Any]:
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


# -- configure: defaults and the registration hook ---------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    state = _read_settings(config)
    config.stash[_STATE] = state
    recording.set_defaults(state.defaults)
    config.pluginmanager.register(_Registrar(config, state), "jsonmatch-registrar")


class _Registrar:
    """Calls pytest_jsonmatch_register (historic) as soon as a plugin or conftest file
    implements it, and only then: the engine's registry is imported only when needed.
    Once called, pluggy calls implementations registered later by itself."""

    def __init__(self, config: pytest.Config, state: _State) -> None:
        self.config = config
        self.state = state

    def pytest_plugin_registered(self, plugin: Any) -> None:
        if not self.state.registered and hasattr(plugin, "pytest_jsonmatch_register"):
            _call_register(self.config, self.state)


def _call_register(config: pytest.Config, state: _State) -> None:
    from .engine.registry import REGISTRY

    state.registered = True
    state.registry_before = _registry_names(REGISTRY)
    config.hook.pytest_jsonmatch_register.call_historic(kwargs={"registry": REGISTRY})


def _registry_names(registry: Any) -> dict[str, set[str]]:
    return {"comparators": set(registry.comparator_names), "transforms": set(registry.transform_names),
            "metrics": set(registry.metrics), "post_processors": set(registry.post_processors)}


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    recording.set_defaults(state.previous_defaults)
    if state.registry_before is not None:
        # undo what this session registered, so that a session run inside a test
        # (pytester) leaves the process as it found it
        from .engine.registry import REGISTRY

        after = _registry_names(REGISTRY)
        for kind, names in after.items():
            for name in names - state.registry_before[kind]:
                if kind == "metrics":
                    REGISTRY.metrics.pop(name, None)
                else:
                    REGISTRY.unregister(name)


# -- recording -----------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    """Send the comparisons made while ``item`` runs (setup, call, teardown) to its sink."""
    state = item.config.stash.get(_STATE, None)
    if state is None:
        return (yield)
    previous = recording.activate(_sink_for(item, state))
    try:
        return (yield)
    finally:
        recording.activate(previous)


def _sink_for(item: pytest.Item, state: _State) -> recording.Sink:
    from .report import Comparison, junit_properties

    seq = 0

    def sink(result: Any, threshold: float, passed: bool) -> None:
        nonlocal seq
        comparison = Comparison.from_result(item.nodeid, seq, result, threshold, passed)
        seq += 1
        state.comparisons.append(comparison)
        if state.junit_properties:
            item.user_properties.extend(junit_properties(comparison))
        item.ihook.pytest_jsonmatch_result(item=item, result=result, threshold=threshold,
                                           passed=passed)

    return sink


@pytest.fixture
def json_match(request: pytest.FixtureRequest) -> JsonMatcher:
    """``json_match(actual, expected, metric=None, threshold=None, **options)``: assert that
    ``actual`` matches ``expected`` with the session's metric, threshold and options (ini
    ``jsonmatch_metric``, ``jsonmatch_threshold``, ``jsonmatch_options``); returns the
    MatchResult, raises AssertionError with the fields that cost points. Recorded for the
    ``jsonmatch`` summary and reports."""
    from .assertion import JsonMatcher

    state = request.config.stash.get(_STATE, None)
    return JsonMatcher(state.defaults if state is not None else recording.defaults())


# -- xdist: workers send, the controller gathers -------------------------------------------


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """(pytest-xdist, on the controller) a worker finished: take its comparisons."""
    config = getattr(node, "config", None)
    output = getattr(node, "workeroutput", None) or {}
    records = output.get(_WORKEROUTPUT_KEY)
    if config is None or not records:
        return
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    from .report import Comparison

    state.comparisons.extend(Comparison.from_dict(r) for r in records)


# -- session end: aggregate, report, gates -------------------------------------------------


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if _is_worker(config):
        config.workeroutput[_WORKEROUTPUT_KEY] = [c.to_dict() for c in state.comparisons]  # type: ignore[attr-defined]
        return
    if not state.comparisons and not state.report_path:
        return
    from .report import build_report, check_gates, compare_baseline, summarize, write_report

    summary = state.summary = summarize(state.comparisons)
    if state.baseline is not None and summary.count:
        state.deltas = compare_baseline(summary, state.baseline)
    state.gate_failures = check_gates(summary, state.gates, state.baseline, state.deltas)
    failed = bool(state.gate_failures)
    if state.report_path:
        data = build_report(summary, state.gate_failures, state.baseline, state.deltas)
        try:
            write_report(state.report_path, data)
        except (OSError, TypeError, ValueError) as exc:
            state.report_error = f"could not write the report {state.report_path}: {exc}"
            failed = True
    if failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or _is_worker(config):
        return
    summary = state.summary
    if (summary is None or not summary.count) and state.report_error is None:
        return
    from .report import summary_lines

    terminalreporter.write_sep("=", "jsonmatch")
    if summary is not None and summary.count:
        verbose = int(config.getoption("verbose", default=0) or 0)
        for line in summary_lines(summary, verbose=verbose, deltas=state.deltas,
                                  baseline=state.baseline):
            terminalreporter.write_line(line)
    if state.report_path and state.report_error is None:
        terminalreporter.write_line(f"report written to {state.report_path}")
    if state.report_error is not None:
        terminalreporter.write_line(f"FAILED: {state.report_error}", red=True, bold=True)
    if state.gate_failures:
        terminalreporter.write_line("FAILED: the session did not pass its jsonmatch gates:",
                                    red=True, bold=True)
        for reason in state.gate_failures:
            terminalreporter.write_line(f"  {reason}", red=True)
