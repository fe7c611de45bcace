"""One pytest session's comparisons: recorded per test, gathered on the controller, then
aggregated, held against the baseline, judged by the gates and reported.

Each comparison a test makes travels with the report of the test phase it was made in, so
that under pytest-xdist the controller has every comparison of every finished test, even
when a worker dies later (the test it was running counts as an error). Comparisons made in an
xfail-marked test take its outcome (``xfailed``, ``xpassed``) and stay out of aggregates.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from ..reporting import github
from ..reporting import report as reports
from ..reporting.aggregate import summarize
from ..reporting.atomic import write_atomic
from ..reporting.baseline import Baseline, BaselineComparison, cases_of, compare, load_baseline
from ..reporting.gates import Verdict, judge
from ..reporting.records import ERROR, FAILED, PASSED, XFAILED, XPASSED, Comparison, case_id_of, field_records
from ..reporting.text import passed_line, summary_lines, update_lines, verdict_lines
from .channel import Channel, Outcome
from .settings import SessionSettings

_ATTRIBUTE = "jsonmatch_comparisons"  # a test report's comparisons, on the xdist wire too
_UPDATES = "jsonmatch_updates"  # and the case-file updates its test asked for


class JsonmatchSession:
    """The plugin object of one session (registered in ``pytest_configure``)."""

    def __init__(self, config: pytest.Config, settings: SessionSettings) -> None:
        self.config = config
        self.settings = settings
        # the way this session's comparisons come in: its defaults, and the running test's sink
        self.channel = Channel(settings.defaults)
        self.worker = hasattr(config, "workerinput")
        self.baseline: Baseline | None = None
        if settings.baseline_path and not self.worker:
            try:
                self.baseline = load_baseline(settings.baseline_path)
            except Exception as exc:  # noqa: BLE001 - any unreadable baseline stops the run
                raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None
        self.pending: list[Comparison] = []  # the running test's, not yet on a report
        self.pending_updates: list[dict[str, Any]] = []  # the same, for case-file updates
        self.comparisons: list[Comparison] = []
        self.updates: list[dict[str, Any]] = []
        self.updated: list[str] = []  # file:line case-id of each case written
        self.report: dict[str, Any] | None = None
        self.verdict = Verdict()
        self.write_errors: list[str] = []
        self.runner: Any = None  # the live calls of the running test loop (runner.py)
        self.calls: dict[tuple[str, int], Any] = {}  # (nodeid, run) -> CallFigures, until recorded

    # -- calling the model ----------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, Any, Any]:
        """Start the live calls of the golden cases that will run, up to N at a time, in item
        order; cancel whatever is left when the loop ends, however it ends."""
        from .runner import Runner

        settings = self.settings
        self.runner = Runner(settings.concurrency, settings.target_timeout, settings.retries,
                             settings.rate_limit)
        try:
            # a worker learns its items one at a time; an xdist controller collects none (its
            # session has no items at all under some versions of pytest-xdist)
            if not self.worker and not session.config.option.collectonly:
                self._submit(getattr(session, "items", None) or [])
            return (yield)
        finally:
            runner, self.runner = self.runner, None
            runner.close()

    def _submit(self, items: Any) -> None:
        from .golden import GoldenItem, needs_call, target_call

        runner = self.runner
        if runner is None:
            return
        for item in items:
            if not isinstance(item, GoldenItem) or item.case.source != "input" or not _will_run(item):
                continue
            case, config, runs = item.case, item.config, item.runs()
            for repeat in range(runs):
                key = (item.nodeid, repeat)
                if runner.submitted(key):
                    continue
                try:
                    if not needs_call(case, config, repeat, runs, self.settings.record):
                        continue
                except Exception:  # noqa: BLE001 - the test reports it when it runs
                    continue
                runner.submit(key, lambda awaited, case=case, config=config:
                              target_call(case, config, awaited))

    def live_call(self, item: Any) -> Any:
        """How ``item``'s runs take their call: the one submitted ahead, or one made now."""
        from .golden import target_call

        runner = self.runner
        if runner is None:
            from .golden import direct_call

            return lambda repeat: direct_call(item.case, item.config)
        return lambda repeat: runner.take(
            (item.nodeid, repeat), lambda awaited: target_call(item.case, item.config, awaited))

    def note_call(self, item: Any, repeat: int, figures: Any) -> None:
        """What run ``repeat`` of ``item``'s call took, for the comparison about to be recorded."""
        if figures is not None:
            self.calls[(item.nodeid, repeat)] = figures

    def _submit_ahead(self, item: pytest.Item, nextitem: Any) -> None:
        """(an xdist worker) the items it will run next: this one, the next, and those in the
        worker's queue, up to N ahead (load scheduling hands them out as it goes)."""
        ahead = [item] + ([nextitem] if nextitem is not None else [])
        try:
            interactor = next(p for p in self.config.pluginmanager.get_plugins()
                              if type(p).__name__ == "WorkerInteractor" and hasattr(p, "torun"))
            with interactor.torun.lock() as pending:
                indices = [i for i in list(pending) if isinstance(i, int)]
            items = item.session.items
            ahead += [items[i] for i in indices[:self.settings.concurrency]]
        except Exception:  # noqa: BLE001 - xdist's internals moved: this item and the next only
            pass
        self._submit(ahead)

    # -- recording -----------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Generator[None, Any, Any]:
        """Send the comparisons made while ``item`` runs (setup, call, teardown) to it."""
        if self.worker and self.runner is not None:
            self._submit_ahead(item, nextitem)
        previous = self.channel.activate(_Recorder(self, item))
        try:
            return (yield)
        finally:
            self.channel.activate(previous)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        made, self.pending = [_with_test_outcome(c, report) for c in self.pending], []
        asked, self.pending_updates = self.pending_updates, []
        if self.worker:  # to the controller, with the report
            if made:
                setattr(report, _ATTRIBUTE, [c.to_dict() for c in made])
            if asked:
                setattr(report, _UPDATES, asked)
            return
        self.comparisons.extend(made)
        self.updates.extend(asked)
        self.comparisons.extend(Comparison.from_dict(data)
                                for data in getattr(report, _ATTRIBUTE, None) or ())
        self.updates.extend(getattr(report, _UPDATES, None) or ())

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: Any, sched: Any) -> None:
        """(xdist, on the controller) a worker died running ``crashitem``: the test counts
        as a comparison that could not be scored."""
        defaults = self.settings.defaults
        self.comparisons.append(Comparison(
            crashitem, crashitem, defaults.metric, 0.0, defaults.threshold, ERROR,
            error="the xdist worker running this test died", file=crashitem.split("::")[0]))

    # -- the end -------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.worker:
            return
        if self.updates:
            from .case_update import apply_updates  # here: a session that updates nothing never loads it

            self.updated, errors = apply_updates(self.updates)
            self.write_errors += [f"could not update {error}" for error in errors]
        if not self.comparisons and not self.settings.report_path and not self.settings.html_path:
            if self.write_errors and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
            return
        settings = self.settings
        summary = summarize(self.comparisons, settings.group_by, settings.repeat_rule)
        against: BaselineComparison | None = None
        if self.baseline is not None and summary.count:
            against = compare(cases_of(self.comparisons, settings.repeat_rule, settings.group_by),
                              self.baseline)
        self.verdict = judge(summary, settings.gates, against)
        self.report = reports.build_report(
            summary, self.comparisons, self.verdict, against,
            reports.run_info(["pytest", *self.config.invocation_params.args],
                             str(self.config.rootpath)))
        self._write_files()
        if (self.verdict.failures or self.write_errors) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.verdict.failures:
            _junit_gate_failure(self.config, self.verdict)

    def _write_files(self) -> None:
        assert self.report is not None
        if self.settings.report_path:
            try:
                reports.write_report(self.settings.report_path, self.report)
            except (OSError, TypeError, ValueError) as exc:
                self.write_errors.append(f"could not write the report {self.settings.report_path}: {exc}")
        settings = self.settings
        if settings.html_path:
            try:
                from ..reporting.html import render_html

                page = render_html(self.report)
                write_atomic(settings.html_path, lambda fh: fh.write(page))
            except OSError as exc:
                self.write_errors.append(f"could not write the HTML report {settings.html_path}: {exc}")
        if settings.markdown_path or settings.step_summary:
            from ..reporting.markdown import render_markdown

            markdown = render_markdown(self.report)
            try:
                if settings.markdown_path:
                    write_atomic(settings.markdown_path, lambda fh: fh.write(markdown))
                if settings.step_summary:
                    with open(settings.step_summary, "a", encoding="utf-8") as fh:
                        fh.write(markdown)
            except OSError as exc:
                self.write_errors.append(f"could not write the Markdown summary: {exc}")

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if self.worker or (self.report is None and not self.write_errors and not self.updated):
            return
        width = terminalreporter._tw.fullwidth
        verbose = int(config.getoption("verbose", default=0) or 0)
        if (self.report is not None and (self.report["count"] or self.report["comparisons"])) \
                or self.updated:
            terminalreporter.write_sep("=", "jsonmatch")
        if self.report is not None and (self.report["count"] or self.report["comparisons"]):
            for line in summary_lines(self.report, width, verbose):
                terminalreporter.write_line(line)
        for line in update_lines(self.updated):
            terminalreporter.write_line(line, green=True)
        if self.settings.report_path and not any("the report" in e for e in self.write_errors):
            terminalreporter.write_line(f"report written to {self.settings.report_path}")
        for error in self.write_errors:
            terminalreporter.write_line(f"FAILED: {error}", red=True, bold=True)
        if self.report is not None:
            failures, warnings = verdict_lines(self.report, width, verbose)
            for line in warnings:
                terminalreporter.write_line(line, yellow=True)
            for line in failures:
                terminalreporter.write_line(line, red=True, bold=line.startswith("FAILED"))
            passed = passed_line(self.report)
            if passed:
                terminalreporter.write_line(passed, green=True)
            if self.settings.annotations:
                for line in github.annotations(self.report):
                    terminalreporter.write_line(line)


class _Recorder:
    """The sink of one test: each attempted comparison becomes a Comparison record."""

    def __init__(self, session: JsonmatchSession, item: pytest.Item) -> None:
        self.session, self.item = session, item
        self.seq = 0
        path, line = _where(item)
        self.file, self.line = path, line

    def __call__(self, outcome: Outcome) -> None:
        item, session = self.item, self.session
        seq = 0 if outcome.repeat else self.seq
        if not outcome.repeat:
            self.seq += 1
        result = outcome.result
        case_id = case_id_of(item.nodeid, seq)
        figures = session.calls.pop((item.nodeid, outcome.repeat), None)
        call = figures.to_dict() if figures is not None and outcome.source != "case" else None
        if result is None:
            comparison = Comparison(case_id, item.nodeid, outcome.metric, 0.0, outcome.threshold,
                                    ERROR, seq=seq, repeat=outcome.repeat, error=outcome.error,
                                    file=self.file, line=self.line, source=outcome.source,
                                    recording=outcome.recording, call=call)
        else:
            from ..engine.core.values import MISSING

            comparison = Comparison(
                case_id, item.nodeid, result.metric, float(result.score), outcome.threshold,
                PASSED if outcome.passed else FAILED, float(result.precision),
                float(result.recall), float(result.f1), seq, outcome.repeat, "", self.file,
                self.line, field_records(result.fields, session.settings.values, MISSING),
                tuple((p.path, p.expected_index, p.actual_index, float(p.score))
                      for p in result.pairings),
                tuple((f.path or "$", float(f.min_score), float(f.score))
                      for f in result.floor_failures), outcome.source, outcome.recording, call)
        session.pending.append(comparison)
        if session.settings.junit_properties:
            item.user_properties.append(("jsonmatch_metric", comparison.metric))
            item.user_properties.append(("jsonmatch_score", round(comparison.score, 4)))
        if result is not None:
            item.ihook.pytest_jsonmatch_result(item=item, result=result,
                                               threshold=outcome.threshold, passed=outcome.passed)


def _where(item: pytest.Item) -> tuple[str, int | None]:
    """The file (from the root dir) and 1-based line a test's comparisons are reported at."""
    path, line, _ = item.location
    case = getattr(item, "case", None)  # a golden case knows its own line
    if case is not None:
        return path, case.line
    return path, (line + 1 if line is not None else None)


def _will_run(item: pytest.Item) -> bool:
    """Whether pytest will run ``item``'s test: no skip mark holds, and no xfail mark with
    run=False (unless --runxfail)."""
    from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks

    try:
        if evaluate_skip_marks(item) is not None:
            return False
        xfail = evaluate_xfail_marks(item)
        return xfail is None or xfail.run or bool(item.config.option.runxfail)
    except BaseException:  # noqa: BLE001 - a mark pytest will report when the test runs
        return False


def _with_test_outcome(comparison: Comparison, report: pytest.TestReport) -> Comparison:
    """A comparison made in an xfail-marked test takes the test's outcome."""
    if report.when != "call":
        return comparison
    if hasattr(report, "wasxfail"):
        return comparison.with_status(XPASSED if report.passed else XFAILED)
    if report.failed and str(report.longrepr).startswith("[XPASS(strict)]"):
        return comparison.with_status(XPASSED)
    return comparison


def _junit_gate_failure(config: pytest.Config, verdict: Verdict) -> None:
    """With --junitxml, a failing gate is a failed test case ``jsonmatch::gates``, so that
    test-report views go red with the job."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - pytest without its junitxml plugin
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    message = "the session did not pass its jsonmatch gates: " + "; ".join(verdict.failures)
    report = pytest.TestReport("jsonmatch::gates", ("jsonmatch", None, "gates"), {}, "failed",
                               message, "call")
    xml.pytest_runtest_logreport(report)
    xml.pytest_runtest_logreport(pytest.TestReport("jsonmatch::gates", ("jsonmatch", None, "gates"),
                                                   {}, "passed", None, "teardown"))
