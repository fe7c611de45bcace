"""One pytest session's comparisons: recorded per test, gathered on the controller, then
aggregated, held against the baseline, judged by the gates and reported.

Each comparison a test makes travels with the report of the test phase it was made in, so
that under pytest-xdist the controller has every comparison of every finished test, even
when a worker dies later (calls/calls_in_flight.py judges the test it was running). Expected failures
(an xfail-marked test's; one a passing test caught) stay out of aggregates
(``Comparison.with_test_outcome``).
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Protocol

import pytest

from ..session.channel import Channel
from .settings import Settings, part_of_suite

if TYPE_CHECKING:  # the reporting stage loads once a comparison is made (start-up stays light)
    from ..calls.calls_in_flight import Deaths
    from ..calls.judge_calls import JudgeCalls
    from ..reporting.run_model.comparisons import Comparison
    from ..reporting.run_model.report_types import Report, RunInfo
    from ..reporting.verdicts.baseline import Baseline
    from ..reporting.verdicts.field_counts import FieldCounts
    from ..reporting.verdicts.gates import GateDecision
    from ..reporting.verdicts.report import SummaryReads
    from ..session.outcome import Outcome
    from ..session.run_provenance import ReadFiles
    from ..updating.updates import CaseUpdate

_ATTRIBUTE = "jsonmatch_comparisons"  # a test report's comparisons, on the xdist wire too
_UPDATES = "jsonmatch_updates"  # and the case-file updates its test asked for
_READ = "jsonmatch_files_read"  # and the files read since the last report (run_provenance.py)
_LOADING = "pytest_jsonmatch.engine.schemas.loading"
_SENT = frozenset((_ATTRIBUTE, _UPDATES, _READ))  # what a worker's report may carry
SESSION = pytest.StashKey["JsonmatchSession"]()


# What the xdist hooks below read of xdist's objects (its own types are not imported:
# xdist is optional)
class _Gateway(Protocol):
    id: str


class _WorkerNode(Protocol):
    """xdist's WorkerController: the worker's gateway and what it is sent on start."""

    gateway: _Gateway
    workerinput: dict[str, object]


class _CrashReport(Protocol):
    """The report xdist makes of a test its worker died running."""

    node: _WorkerNode
    outcome: str


class _Scheduling(Protocol):
    def mark_test_pending(self, item: str) -> None: ...


class _Write(Protocol):
    """The terminal reporter's ``write_line``: a line, in the markup given."""

    def __call__(self, line: str, **markup: bool) -> None: ...


class _Reported(Protocol):
    outcome: str  # (a test report's, or "rerun" as pytest_handlecrashitem sets it)


class JsonmatchSession:
    """The plugin object of one session (registered in ``pytest_configure``)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        # the way this session's comparisons come in: its defaults, and the running test's sink
        self.channel = Channel(settings.defaults)
        self.worker = hasattr(config, "workerinput")
        self.baseline = _baseline(settings) if not self.worker else None
        self.pending: list[Comparison] = []  # the running test's, not yet on a report
        self.pending_updates: list[CaseUpdate] = []  # the same, for case-file updates
        self.comparisons: list[Comparison] = []
        self._reads: SummaryReads | None = None  # (on the first comparison) see reads()
        self.counts: FieldCounts | None = None  # the fields counted as recorded, if they are
        self.updates: list[CaseUpdate] = []
        self.updated: list[str] = []  # what the summary says of the updates written or reviewed
        self.report: Report | None = None
        self.decision: GateDecision | None = None  # the gates' (once the session concluded)
        self.write_errors: list[str] = []
        self.ran: set[str] = set()  # the tests that reported (on the controller)
        self.interrupted = ""  # why the session was interrupted, when it was
        self.telemetry = settings.telemetry()  # OpenTelemetry events, where the tests run
        self.judge: JudgeCalls | None = None  # the LLM judge's runner (jsonmatch_judge)
        self._deaths: Deaths | None = None  # (xdist's controller) see deaths()
        # the files the scores are made from, hashed as read (see read_files)
        self._read_files: ReadFiles | None = None
        loading = sys.modules.get(_LOADING)  # the schema loader's clock, when it is loaded
        self.schema_tick = int(loading.schema_clock()) if loading is not None else 0
        self.watching = False  # _Reports installed (see _watched_from_the_start)
        if self._watched_from_the_start():
            self.watch_reports()

    def _watched_from_the_start(self) -> bool:
        """Whether the test reports are watched from the start: a report file counts the
        tests that ran, xdist's controller takes the comparisons on them, a quarantine is
        held to the tests run."""
        settings = self.settings
        xdist_controller = not self.worker and getattr(self.config.option, "dist", "no") != "no"
        return settings.given_reports is not None or bool(settings.quarantine) or xdist_controller

    def watch_reports(self, item: pytest.Item | None = None) -> None:
        """Install _Reports once: at the start (above), with the golden session, else on the first
        comparison, made by ``item``: every test before it has run."""
        if not self.watching:
            self.watching = True
            if item is not None and not self.worker and item in (items := item.session.items):
                self.ran.update(earlier.nodeid for earlier in items[: items.index(item)])
            self.config.pluginmanager.register(_Reports(self), "jsonmatch-reports")
            if not self.worker and getattr(self.config.option, "dist", "no") != "no":
                self.config.pluginmanager.register(_Reruns(), "jsonmatch-reruns")

    def reads(self) -> SummaryReads:
        """What the report must hold (reporting/verdicts/report.py), decided on the first comparison;
        ``counts`` counts the fields of a session whose comparisons keep no field records."""
        if self._reads is None:
            from ..reporting.verdicts.report import summary_reads

            dist = self.worker or getattr(self.config.option, "dist", "no") != "no"
            self._reads = summary_reads(self.settings, xdist=dist)
            self.counts = self._reads.field_counts(self.settings.group_by)
        return self._reads

    def read_files(self) -> ReadFiles:
        """The files this session's scores were made from (so far, once take_files took them)."""
        if self._read_files is None:
            from ..session.run_provenance import ReadFiles

            self._read_files = ReadFiles(tick=self.schema_tick)
        return self._read_files

    def take_files(self) -> dict[str, dict[str, str]]:
        """The files read since the last take, kept in :meth:`read_files` and handed back
        (what a worker sends with a report)."""
        from .golden_items import GOLDEN_SESSION

        golden = self.config.stash.get(GOLDEN_SESSION, None)
        return self.read_files().take(golden.cases if golden is not None else None)

    def deaths(self) -> Deaths:
        """The xdist workers that died, and the calls they had in flight, built by xdist's
        hooks only. A method, not a property: pytest 7 and pluggy 1.2 read every attribute
        of a plugin as it registers, which would build it in every session."""
        if self._deaths is None:
            from ..calls.calls_in_flight import Deaths

            self._deaths = Deaths()
        return self._deaths

    def ask_update(self, update: CaseUpdate) -> None:
        """The running test asks for its expected value to be rewritten (at the session's end)."""
        self.pending_updates.append(update)

    # -- recording -----------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        """Send the comparisons made while ``item`` runs (setup, call, teardown) to it."""
        previous = self.channel.activate(_TestSink(self, item))
        try:
            return (yield)
        finally:
            self.channel.activate(previous)

    def logreport(self, report: pytest.TestReport) -> None:
        """Take the comparisons made in the phase ``report`` reports (see _Reports)."""
        made: list[Comparison] = []
        if self.pending:  # (most phases, a test's setup and teardown among them, made none)
            made, self.pending = [c.with_test_outcome(report) for c in self.pending], []
            if self.settings.quarantine is not None:  # before anything counts them
                made = self.settings.quarantine.mark(made)
            if self.counts is not None:  # now that their statuses are known
                self.counts.count(made)
            self.telemetry.emit(made)
        asked, self.pending_updates = self.pending_updates, []
        if self.worker:  # to the controller, with the report
            if made:
                setattr(report, _ATTRIBUTE, [c.to_dict() for c in made])
            if new := self.take_files():
                setattr(report, _READ, new)
            if asked:
                setattr(report, _UPDATES, [update.to_dict() for update in asked])
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.ran.add(report.nodeid)  # the test ran, or was skipped or broke on the way
        self.comparisons.extend(made)
        self.updates.extend(asked)
        if sent := getattr(report, _ATTRIBUTE, None):
            from ..reporting.run_model.comparisons import Comparison

            self.comparisons.extend(Comparison.from_dict(data) for data in sent)
        if sent_updates := getattr(report, _UPDATES, None):
            from ..updating.updates import CaseUpdate

            self.updates.extend(CaseUpdate.from_dict(data) for data in sent_updates)
        if sent_files := getattr(report, _READ, None):
            self.read_files().add(sent_files)

    @pytest.hookimpl(optionalhook=True)  # (xdist, controller) each worker logs its calls
    def pytest_configure_node(self, node: _WorkerNode) -> None:
        from ..calls.calls_in_flight import LOG_KEY

        node.workerinput[LOG_KEY] = self.deaths().log_path(node.gateway.id)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: _WorkerNode, error: object) -> None:
        self.deaths().worker_down(node.gateway.id)

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(
        self, crashitem: str, report: _CrashReport, sched: _Scheduling
    ) -> None:
        """(xdist, controller) a worker died running ``crashitem``: it is blamed, unless
        other calls were in flight; then it runs again (calls/calls_in_flight.py)."""
        death = self.deaths().rule_on(
            report.node.gateway.id,
            crashitem,
            reported=crashitem in self.ran,
            send_back=sched.mark_test_pending,
        )
        if death.fate == "sent back":
            report.outcome = "rerun"  # as pytest-rerunfailures has it
        elif death.fate == "blamed":
            self.ran.add(crashitem)
            self._unscored(crashitem, death.reason)

    def _unscored(self, nodeid: str, error: str) -> None:
        from ..reporting.run_model.comparisons import ERROR, Comparison

        defaults = self.settings.defaults
        self.comparisons.append(
            Comparison(
                case_id=nodeid,
                nodeid=nodeid,
                metric=defaults.metric,
                score=0.0,
                threshold=defaults.threshold,
                status=ERROR,
                error=error,
                file=nodeid.split("::")[0],
            )
        )

    # -- the end -------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.telemetry.close()  # within its flush time, whatever the collector does
        if self.worker:
            return
        self._lost_calls()
        if (update := self.settings.update) is not None:  # (updating nothing: not loaded)
            from ..updating.update_review import finish_updates

            self.updated, errors = finish_updates(self.updates, update, self.settings.rootpath)
            self.write_errors += errors
            # reviewed, or held by an xfail (not written): the scores stand
            self.updates = [] if update.review else [u for u in self.updates if u.writes]
        files = self.settings.given_reports  # None: no report files (and their module not loaded)
        gates, part = self.settings.given_gates, part_of_suite(self.config, bool(self.comparisons))
        judged = not part and (gates and gates.holds_run or self.settings.baseline)  # gates.py
        if self.comparisons or (files is not None and files.written_empty) or judged:
            self._conclude(session, exitstatus, part)
        failed = self.write_errors or (self.decision is not None and self.decision.failures)
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.decision is not None and self.decision.failures:
            _junit_gate_failure(self.config, self.decision)

    def _lost_calls(self) -> None:
        """The tests whose calls were lost with a dead xdist worker: each an error, and the
        session interrupted."""
        deaths = self._deaths  # (built by xdist's hooks only)
        for nodeid, why in (lost := deaths.finish(self.ran) if deaths is not None else {}).items():
            self._unscored(nodeid, why)
            self.interrupted = f"{len(lost)} lost call{'s' * (len(lost) > 1)} in dead xdist workers"

    def _conclude(self, session: pytest.Session, exitstatus: int, part: str) -> None:
        """The session's report built and judged by the gates (``part``: why the run is part
        of the suite; empty: it is the whole), and its files written."""
        from ..reporting.verdicts import report as reports

        settings = self.settings
        run = self._run_info()
        notes = self._quarantine(run) if settings.quarantine is not None else []
        self.report, self.decision = reports.conclude(
            self.comparisons,
            settings.gates if not part else settings.gates.replace(part_of_suite=part),
            run,
            group_by=settings.group_by,
            repeat_rule=settings.repeat.rule,
            baseline=self.baseline,
            stopped=self._stopped(session, exitstatus),
            not_decided_why=reports.not_decided(len(self.updates), settings.shard),
            targets=[t.name for t in settings.targets],
            versus=settings.versus,
            reads=self._reads or reports.SummaryReads(),
            counts=self.counts,
            notes=notes,
        )
        self.write_errors += self.settings.reports.write(self.report)

    def _run_info(self) -> RunInfo:
        """What the report says of the run: its command, root, dead workers, shard, and the
        run record (settings, the files read, the targets' fingerprints)."""
        from ..reporting.verdicts.report import run_info
        from ..session.run_provenance import run_provenance
        from .golden_items import GOLDEN_SESSION

        deaths, golden = self._deaths, self.config.stash.get(GOLDEN_SESSION, None)
        run = run_info(
            ["pytest", *self.config.invocation_params.args],
            str(self.config.rootpath),
            [death.to_dict() for death in deaths.deaths] if deaths is not None else [],
            self.settings.shard,
        )
        self.take_files()
        outputs = golden.outputs if golden else None
        run.update(run_provenance(self.settings, outputs, self.comparisons, self.read_files()))
        return run

    def _quarantine(self, run: RunInfo) -> list[str]:
        """The quarantine recorded and applied (reporting/verdicts/quarantine.py); what it says."""
        from ..reporting.verdicts.quarantine import conclude_quarantine

        assert self.settings.quarantine is not None
        self.comparisons, notes = conclude_quarantine(
            self.settings.quarantine,
            run,
            self.comparisons,
            self.ran,
            self.config,
            bool(self.settings.shard),
        )
        return notes

    def _stopped(self, session: pytest.Session, exitstatus: int) -> str | None:
        """Why the run stopped before every collected test ran, or None (it finished)."""
        collected, ran = session.testscollected, len(self.ran)
        broke = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        if not broke and (ran >= collected or not self.watching):  # (none watched: pytest's word)
            return None
        said = [
            s
            for s in (self.interrupted, session.shouldstop, session.shouldfail)
            if isinstance(s, str) and s
        ]  # pytest's own reasons are text (or False)
        why = (
            said[0]
            if said
            else ("interrupted" if exitstatus == pytest.ExitCode.INTERRUPTED else "it crashed")
        )
        return f"{why}: {min(ran, collected)} of {collected} tests ran" if self.watching else why

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # pytest stops on collection errors by the same road, with its own words
        self.interrupted = (
            str(excinfo.value)
            if excinfo.errisinstance(pytest.Session.Interrupted)
            else "interrupted by Ctrl-C"
        )

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
    ) -> None:
        if self.worker or (self.report is None and not self.write_errors and not self.updated):
            return
        from ..engine.core.errors import safe_writer  # (no line of data a CI command)

        raw = terminalreporter.write_line  # (GitHub's annotations: commands on purpose)
        write = safe_writer(raw)
        width = terminalreporter._tw.fullwidth
        compared = self.report is not None and bool(self.report["count"] or self.comparisons)
        if compared or self.updated:
            terminalreporter.write_sep("=", "jsonmatch")
        if self.report is not None and compared:
            self._summary(write, self.report, width)
        if self.telemetry.unsent_note:  # a collector down is said where it is read
            write(self.telemetry.unsent_note, yellow=True)
        for line in self.updated:  # what the updates wrote, or their review
            write(line, green=True)
        written = self.settings.reports.path("json")  # the report of record
        if written and not any("the report" in e for e in self.write_errors):
            write(f"report written to {written}")
        for error in self.write_errors:
            write(f"FAILED: {error}", red=True, bold=True)
        if self.report is not None:
            self._verdict(write, self.report, width, raw)

    def _summary(self, write: _Write, report: Report, width: int) -> None:
        """The per-field tables, what the judge did, and the note on call limits per worker."""
        from ..calls.shared_starts import SHARED
        from ..reporting.render.text import summary_lines

        for line in summary_lines(report, width, self.settings.verbose):
            write(line)
        for line in self.judge.summary() if self.judge is not None else ():
            write(line)
        shared = self.settings.calls.per_worker_note(self.settings.workers, SHARED)
        if shared and any(c.get("source") == "live" for c in report["comparisons"]):
            write(shared)

    def _verdict(self, write: _Write, report: Report, width: int, raw: _Write) -> None:
        """The gates' warnings and failures, the passing line, GitHub's annotations."""
        from ..reporting.render import github
        from ..reporting.render.text import passed_line, verdict_lines

        failures, warnings = verdict_lines(report, width, self.settings.verbose)
        for line in warnings:
            write(line, yellow=True)
        for line in failures:
            write(line, red=True, bold=line.startswith("FAILED"))
        passed = passed_line(report)
        if passed:
            write(passed, green=True)
        if self.settings.annotations:
            for line in github.annotations(report):
                raw(line)


class _Reports:
    """The per-test report hooks (``watch_reports``): a session that never compares has none."""

    def __init__(self, session: JsonmatchSession) -> None:
        self.session = session

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        session = self.session
        if (
            report.when != "call"  # (most setups, every teardown: nothing made, nothing sent,
            and report.passed  # nothing to note; a worker's report on xdist's controller
            and not (session.pending or session.pending_updates or session.worker)
            and not report.__dict__.keys() & _SENT  # carries what it sent)
        ):
            return
        session.logreport(report)


class _Reruns:
    """xdist's controller only: a crashed test sent back to run again (``rerun``) is shown as
    pytest-rerunfailures shows one, not as a failure; no other session reads each report's
    status here."""

    def pytest_report_teststatus(self, report: _Reported) -> tuple[str, str, str] | None:
        return ("rerun", "R", "RERUN") if report.outcome == "rerun" else None


class _TestSink:
    """The sink of one test: each outcome sent becomes a report's Comparison."""

    def __init__(self, session: JsonmatchSession, item: pytest.Item) -> None:
        self.session, self.item = session, item
        self.seq = 0
        self.file, self.line = _where(item)

    def __call__(self, outcome: Outcome) -> None:
        item, session = self.item, self.session
        session.watch_reports(item)
        seq, self.seq = (0, self.seq) if outcome.repeat else (self.seq, self.seq + 1)
        session.reads()  # (on the first comparison: are the fields counted as recorded?)
        result, settings, counts = outcome.result, session.settings, session.counts
        comparison = outcome.comparison(
            nodeid=item.nodeid,
            seq=seq,
            file=self.file,
            line=self.line,
            target=getattr(item, "target", ""),
            invalid_fails=settings.defaults.invalid_fails,
            values=settings.report_values if counts is None else None,
        )  # None: fields counted
        session.pending.append(comparison)
        if counts is not None and result is not None:
            counts.hold(comparison, result.fields)
        if session.settings.junit_properties:
            item.user_properties.append(("jsonmatch_metric", comparison.metric))
            item.user_properties.append(("jsonmatch_score", round(comparison.score, 4)))
        if result is not None and item.config.hook.pytest_jsonmatch_result.get_hookimpls():
            item.ihook.pytest_jsonmatch_result(
                item=item, result=result, threshold=outcome.threshold, passed=outcome.passed
            )


def _where(item: pytest.Item) -> tuple[str, int | None]:
    """The file (from the root dir) and 1-based line a test's comparisons are reported at."""
    path, line, _ = item.location
    case = getattr(item, "case", None)  # a golden case knows its own line
    if case is not None:
        return path, case.line
    return path, (line + 1 if line is not None else None)


def _baseline(settings: Settings) -> Baseline | None:
    """The report this run is compared with (None: none); one that cannot be read stops the
    run."""
    if not settings.baseline:
        return None
    from ..reporting.verdicts.baseline import load_baseline

    try:
        return load_baseline(settings.baseline, settings.partial_baseline)
    except Exception as exc:  # noqa: BLE001 - any unreadable baseline stops the run
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


def _junit_gate_failure(config: pytest.Config, decision: GateDecision) -> None:
    """With --junitxml, a failing gate is a failed test case ``jsonmatch::gates``, so that
    test-report views go red with the job."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - pytest without its junitxml plugin
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    message = "the session did not pass its jsonmatch gates: " + "; ".join(decision.failures)
    report = pytest.TestReport(
        "jsonmatch::gates", ("jsonmatch", None, "gates"), {}, "failed", message, "call"
    )
    xml.pytest_runtest_logreport(report)
    xml.pytest_runtest_logreport(
        pytest.TestReport(
            "jsonmatch::gates", ("jsonmatch", None, "gates"), {}, "passed", None, "teardown"
        )
    )
