"""The golden run, started with the first case file collected (or with the session, when a
target or recordings are set): the case files, the outputs (recorded, or called through the
live calls started ahead of their tests by calls_ahead.py) and the golden items' channel.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..cases.case_files import CaseFiles, GoldenCase
from ..engine.core.errors import JsonMatchError
from .golden_items import GOLDEN_RUN, GoldenFile, GoldenRun
from .session import SESSION
from .settings import Settings

if TYPE_CHECKING:
    from ..calls.fingerprints import Fingerprint
    from ..calls.targets import NamedTarget


def collect_file(file_path: Path, parent: pytest.Collector) -> GoldenFile | None:
    run = parent.config.stash.get(GOLDEN_RUN, None)
    if run is None:  # the golden run starts with the first case file
        if not _case_files(parent.config.stash[SESSION].settings).is_case_file(file_path):
            return None
        run = start_golden_run(parent.config)
    if not run.cases.is_case_file(file_path):
        return None
    return GoldenFile.from_parent(parent, path=file_path)


def _case_files(settings: Settings) -> CaseFiles:
    return CaseFiles(
        root=settings.rootpath,
        golden_dirs=settings.golden,
        max_cases=settings.max_cases,
        creating=settings.update == "create",
        metric=settings.defaults.metric,
        schema_dirs=settings.schema_dirs,
    )


def start_golden_run(config: pytest.Config) -> GoldenRun:
    """The golden items' part of the session: case files, outputs (recorded or called
    through the live calls, started ahead of their tests by calls_ahead.py), the session's
    channel and update requests."""
    from ..calls.calls_in_flight import LOG_KEY, CallLog
    from ..calls.case_outputs import Outputs
    from ..calls.live_calls import LiveCalls
    from ..calls.shared_starts import shared_starts
    from ..calls.targets import HookFirst, NamedTarget, TargetSpec
    from .calls_ahead import CallsAhead

    session = config.stash[SESSION]
    session.watch_reports()  # before its first item runs
    settings = session.settings
    targets = settings.targets or (TargetSpec(name="", spec=settings.target, calls=settings.calls),)
    try:  # a target setting that does not import stops the session, replaying too
        named = {t.name: NamedTarget(t.spec, check=bool(t.spec), what=t.setting) for t in targets}
    except JsonMatchError as exc:
        raise pytest.UsageError(f"pytest-jsonmatch: {exc}") from None

    def hook(case: GoldenCase, target: str) -> object:
        return config.hook.pytest_jsonmatch_target(case=case, config=config, target=target)

    # a plugin's hook answers first (None leaves the case to the setting's function)
    log = CallLog(getattr(config, "workerinput", {}).get(LOG_KEY))  # the worker's, shared
    starts = {t.name: shared_starts(log.folder, f"target-{t.name}", t.calls.rate) for t in targets}
    calls = {
        t.name: LiveCalls(
            settings=t.calls.per_worker(settings.workers, starts[t.name] is not None),
            log=log,
            watch=session.telemetry.watch,
            target=HookFirst(hook, named[t.name], t.name),
            starts=starts[t.name],
        )
        for t in targets
    }
    outputs = Outputs(
        record=settings.record.mode,
        root=settings.rootpath,
        calls=calls,
        fingerprint=lambda name: _fingerprint(config, settings, named[name], name),
    )
    cases = _case_files(settings)
    ahead = None
    if session.judge is not None:  # judged cases overlap: scored ahead by the judge's threads
        from ..session.judge_ahead import JudgeAhead

        ahead = JudgeAhead(
            outputs,
            settings.defaults,
            session.judge.setup.calls.concurrency,
            [settings.rootpath, *settings.schema_dirs],
        )
    run = config.stash[GOLDEN_RUN] = GoldenRun(
        settings=settings,
        cases=cases,
        outputs=outputs,
        channel=session.channel,
        ask_update=session.ask_update,
        judge_ahead=ahead,
    )
    config.pluginmanager.register(CallsAhead(outputs, session.worker, ahead), "jsonmatch-calls")
    if settings.record.mode != "off" and not session.worker:
        from .unused_recordings import UnusedRecordings

        names = tuple(t.name for t in settings.targets)
        config.pluginmanager.register(
            UnusedRecordings(cases, settings.record.prune, names), "jsonmatch-unused-recordings"
        )
    return run


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
