"""The golden session, started with the first case file collected (or with the session, when a
target or recordings are set): the case files, the outputs (recorded, or called through the
live calls started ahead of their tests by calls_ahead.py) and the golden items' channel.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..cases.case_files import CaseFiles, GoldenCase
from ..cases.node_ids import escaped_path
from ..engine.core.errors import JsonMatchError
from .golden_checks import GoldenChecks
from .golden_items import GOLDEN_SESSION, GoldenFile, GoldenSession
from .session import SESSION, JsonmatchSession
from .settings import Settings

if TYPE_CHECKING:
    from ..calls.case_outputs import Outputs
    from ..calls.fingerprints import Fingerprint
    from ..calls.live_calls import LiveCalls
    from ..calls.targets import NamedTarget, TargetSpec
    from ..session.judge_ahead import JudgeAhead


def collect_file(file_path: Path, parent: pytest.Collector) -> GoldenFile | None:
    golden = parent.config.stash.get(GOLDEN_SESSION, None)
    if golden is None:  # the golden session starts with the first case file
        if not _case_files(parent.config.stash[SESSION].settings).is_case_file(file_path):
            return None
        golden = start_golden_session(parent.config)
    if not golden.cases.is_case_file(file_path):
        return None
    # pytest prints a test id as it is: a path unfit for one is collected escaped, and fails
    name = escaped_path(golden.cases.display(file_path))  # (None: the path as it is)
    return GoldenFile.from_parent(parent, path=file_path, name=name, nodeid=name)


def _case_files(settings: Settings) -> CaseFiles:
    return CaseFiles(
        root=settings.rootpath,
        golden_dirs=settings.golden,
        max_cases=settings.max_cases,
        creating=settings.update is not None and settings.update.kind == "create",
        metric=settings.defaults.metric,
        schema_dirs=settings.schema_dirs,
    )


def start_golden_session(config: pytest.Config) -> GoldenSession:
    """The golden items' part of the session: case files, outputs (recorded or called
    through the live calls, started ahead of their tests by calls_ahead.py), the session's
    channel and update requests."""
    from ..calls.case_outputs import Outputs
    from .calls_ahead import CallsAhead

    session = config.stash[SESSION]
    session.watch_reports()  # before its first item runs
    settings = session.settings
    named = _named_targets(settings)
    outputs = Outputs(
        record=settings.record,  # its mode, and what it scrubs
        root=settings.rootpath,
        calls=_live_calls(config, session, named),
        fingerprint=lambda name: _fingerprint(config, settings, named[name][1], name),
    )
    cases = _case_files(settings)
    ahead = _judge_ahead(session, outputs)
    golden = config.stash[GOLDEN_SESSION] = GoldenSession(
        settings=settings,
        cases=cases,
        outputs=outputs,
        channel=session.channel,
        ask_update=session.ask_update,
        judge_ahead=ahead,
    )
    config.pluginmanager.register(CallsAhead(outputs, session.worker, ahead), "jsonmatch-calls")
    GoldenChecks.register(config, settings)  # (the paths a folder or a file names, at the end)
    if settings.record.mode != "off" and not session.worker:
        from .unused_recordings import UnusedRecordings

        names = tuple(t.name for t in settings.targets)
        config.pluginmanager.register(
            UnusedRecordings(cases, settings.record.prune, names), "jsonmatch-unused-recordings"
        )
    return golden


def _named_targets(settings: Settings) -> dict[str, tuple[TargetSpec, NamedTarget]]:
    """Each target of the session by its name (the one unnamed target under ""), imported: a
    target setting that does not import stops the session, replaying too."""
    from ..calls.targets import NamedTarget, TargetSpec

    targets = settings.targets or (TargetSpec(name="", spec=settings.target, calls=settings.calls),)
    try:
        return {
            t.name: (t, NamedTarget(t.spec, check=bool(t.spec), what=t.setting)) for t in targets
        }
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None


def _live_calls(
    config: pytest.Config,
    session: JsonmatchSession,
    named: dict[str, tuple[TargetSpec, NamedTarget]],
) -> dict[str, LiveCalls]:
    """One LiveCalls per target: its call limits (shared between xdist workers where a
    rate is set), the worker's call log, telemetry's watch, and the target called through
    the ``pytest_jsonmatch_target`` hook first (None leaves the case to the function the
    setting names)."""
    from ..calls.calls_in_flight import LOG_KEY, CallLog
    from ..calls.live_calls import LiveCalls
    from ..calls.shared_starts import shared_starts
    from ..calls.targets import HookFirst

    def hook(case: GoldenCase, target: str) -> object:
        return config.hook.pytest_jsonmatch_target(case=case, config=config, target=target)

    log = CallLog(getattr(config, "workerinput", {}).get(LOG_KEY))  # the worker's, shared
    workers = session.settings.workers
    calls = {}
    for name, (spec, target) in named.items():
        starts = shared_starts(log.folder, f"target-{name}", spec.calls.rate)
        calls[name] = LiveCalls(
            settings=spec.calls.per_worker(workers, starts is not None),
            log=log,
            watch=session.telemetry.watch,
            target=HookFirst(hook, target, name),
            starts=starts,
        )
    return calls


def _judge_ahead(session: JsonmatchSession, outputs: Outputs) -> JudgeAhead | None:
    """With the LLM judge, judged cases overlap: scored ahead by the judge's threads."""
    if session.judge is None:
        return None
    from ..session.judge_ahead import JudgeAhead

    settings = session.settings
    return JudgeAhead(
        outputs,
        settings.defaults,
        session.judge.setup.calls.concurrency,
        [settings.rootpath, *settings.schema_dirs],
    )


def _fingerprint(
    config: pytest.Config, settings: Settings, named: NamedTarget, target: str
) -> Fingerprint:
    """What this session's recordings are made under: the modules defining the target (the
    hook's implementations, the function the setting names), the files and the declared
    value ``jsonmatch_record`` names."""
    from ..calls.fingerprints import source_files, take_fingerprint
    from ..calls.targets import import_target

    functions = [impl.function for impl in config.hook.pytest_jsonmatch_target.get_hookimpls()]
    own = [named.function()] if named.spec else []  # a named target: its own code alone
    declared = settings.record.declared
    try:
        return take_fingerprint(
            settings.record,
            settings.rootpath,
            source_files([*functions, *([] if target else own)]),
            import_target(declared, "jsonmatch_record: fingerprint") if declared else None,
            target=target,
            functions=own if target else (),
        )
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None
