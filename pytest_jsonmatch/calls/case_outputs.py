"""Where a golden case's actual output comes from: the case itself (``actual``,
``actual_file``), a live call of the target, or a recording of an earlier call, by the
record mode (recordings.py). The output travels with where it came from and what its call
took, as one :class:`~.produced.Produced`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from contextlib import AbstractContextManager, ExitStack, nullcontext
from pathlib import Path

from ..cases.case_files import GoldenCase
from ..engine.core.errors import CaseFileError
from ..engine.reading.agent_messages import AgentKind
from . import recordings
from .file_reads import data_files
from .fingerprints import Fingerprint, RecordSettings
from .live_calls import LiveCalls
from .produced import OutputSource, Produced
from .recordings import Recording, RecordMode
from .runner import Done
from .stable_form import NO_SCRUB, Scrub, stable_form


class Outputs:
    """The outputs of one session's cases: recorded and replayed by ``record`` (off, once,
    none, all; or the record setting, which says what it scrubs too) inside the test
    ``root``, called through ``calls`` (one :class:`LiveCalls` per named target, the unnamed
    one under ``""``). A recording replays only for its own
    target, under the input and the ``fingerprint`` (of that target) it was made under
    (fingerprints.py). Where it records (any mode but off), an output is taken in its
    stable form (stable_form.py: call ids renamed, what ``scrub`` names replaced), live and
    replayed alike: the value scored is the value recorded, and what it scrubbed is left out
    of the comparison (``Produced.ignored``)."""

    def __init__(
        self,
        *,
        record: RecordMode | RecordSettings,
        root: Path,
        calls: LiveCalls | Mapping[str, LiveCalls],
        fingerprint: Callable[[str], Fingerprint] | None = None,
    ) -> None:
        self.record: RecordMode = record if isinstance(record, str) else record.mode
        self.scrub: Scrub = NO_SCRUB if isinstance(record, str) else record.scrub
        self.root = root
        self.calls: Mapping[str, LiveCalls] = (
            {"": calls} if isinstance(calls, LiveCalls) else dict(calls)
        )
        self._fingerprint = fingerprint
        self._taken: dict[str, Fingerprint] = {}

    def fingerprint(self, target: str = "") -> Fingerprint | None:
        """A target's fingerprint, taken once, when a recording is first held to it."""
        if self._fingerprint is None or self.record == "off":
            return None
        if target not in self._taken:
            self._taken[target] = self._fingerprint(target)
        return self._taken[target]

    def made_under(self, target: str = "") -> Fingerprint | None:
        """A target's fingerprint whatever the record mode (a report's provenance), taken
        once; None where the session takes none."""
        if self._fingerprint is None:
            return None
        if target not in self._taken:
            self._taken[target] = self._fingerprint(target)
        return self._taken[target]

    def stale(self, case: GoldenCase, existing: Recording, target: str = "") -> list[str]:
        """What changed since ``existing`` was recorded, in words (nothing: it replays)."""
        changed = (
            [case.scorer.input_change(existing.output, case.input)]
            if existing.input_sha256 != recordings.input_digest(case.input)
            else []
        )
        if existing.target != target:  # never another target's output, whatever its path
            changed.append(f"the target (recorded for {existing.target or 'the unnamed one'!r})")
        now = self.fingerprint(target)
        if now is not None:
            recorded = Fingerprint.from_dict(existing.fingerprint)
            changed += now.changes(recorded)
            changed += recorded.read_changes(self.root) if recorded is not None else []
        return changed

    def produce(
        self, case: GoldenCase, key: Hashable, repeat: int = 0, runs: int = 1, target: str = ""
    ) -> Produced:
        """The output of run ``repeat`` of ``runs`` of a case by ``target`` (its name; empty:
        the session's one target), with the case's input; ``key`` names its call."""
        produced = self._produce(case, key, repeat, runs, target)
        # the runs a case that repeats (or sets its own repeat:) was asked for, kept with
        # each run's record: a merge of shards counts them from it (a trace case's runs
        # too: as many as its file holds)
        own = runs != 1 or (case.source == "input" and case.repeat is not None)
        if case.input is None and not own:
            return produced
        return produced.replace(input=case.input, repeats=runs if own else None)

    def _produce(
        self, case: GoldenCase, key: Hashable, repeat: int, runs: int, target: str
    ) -> Produced:
        if case.source == "actual":
            return Produced(output=case.actual)
        source: OutputSource = "live" if case.source == "input" else "case"
        try:
            if case.source == "actual_file":
                assert case.actual_file is not None
                return Produced(output=case.scorer.read_actual(case.actual_file, repeat))
            return self._from_target(case, key, repeat, runs, target)
        except Exception as exc:  # noqa: BLE001 - the case was attempted: it counts, as an error
            return Produced(error=exc, source=source)

    def live_form(self, output: object, case: GoldenCase) -> Produced:
        """A live call's output as its test will score it: under a record mode, the stable
        form it is recorded in, what ``scrub`` replaced left out; under ``off``, as it is."""
        if self.record == "off":
            return Produced(output=output, source="live")
        agent = agent_kind(case)
        form = recordings.recorded_form(output, case.id, self.scrub, agent)
        return Produced(output=form, source="live", ignored=self.scrub.ignored(form, agent))

    def _from_target(
        self, case: GoldenCase, key: Hashable, repeat: int, runs: int, target: str
    ) -> Produced:
        calls = self.calls[target]
        if self.record == "off":
            done = calls.take(key, case)
            return Produced(output=done.value, error=done.error, source="live", call=done.figures)
        path = self.recording_of(case, repeat, runs, target)
        existing = self._existing(path)
        changed = self.stale(case, existing, target) if existing is not None else []
        if existing is not None and not changed and self.record != "all":
            # (a recording made before ids were renamed replays in the stable form too)
            output = stable_form(existing.output, self.scrub, agent_kind(case))
            return Produced(
                output=output,
                source="replayed",
                call=existing.call,
                ignored=self.scrub.ignored(output, agent_kind(case)),
            )
        if self.record == "none":
            raise _no_replay(recordings.relative(path, self.root), existing, changed)
        done = calls.take(key, case)
        if done.error is not None:
            return Produced(error=done.error, source="live", call=done.figures)
        return self._record(case, done, path, repeat, existing, target)

    def _record(
        self,
        case: GoldenCase,
        done: Done,
        path: Path,
        repeat: int,
        existing: Recording | None,
        target: str,
    ) -> Produced:
        """A live call's output, recorded at ``path`` (over ``existing``, when there is one)
        under the target's fingerprint and the files the call read. Written here, by the test
        that consumes the output, never by the thread that made it. An output that cannot be
        recorded is the case's error (recordings.py: what a recording may hold)."""
        try:
            fingerprint = self.fingerprint(target)
            if fingerprint is not None and done.reads:  # what it read, held to as it was
                fingerprint = fingerprint.with_reads(data_files(set(done.reads), self.root))
            output = recordings.recorded_form(done.value, case.id, self.scrub, agent_kind(case))
            wrote = recordings.write_recording(
                path,
                case.id,
                case.input,
                output,
                repeat,
                done.figures.to_dict(),
                fingerprint.to_dict() if fingerprint is not None else None,
                existing,
                target,
            )
        except recordings.NotRecorded as exc:
            # the record mode is not honoured: the case's error, never a silent live call on
            # every run; an earlier recording is not left to be replayed in place of this one
            if existing is not None:
                path.unlink(missing_ok=True)
            return Produced(error=exc, source="live", call=done.figures)
        except CaseFileError as exc:
            return Produced(error=exc, source="live", call=done.figures)
        return Produced(
            output=output,
            source="live",
            call=done.figures,
            recording="" if not wrote else "stale" if existing is not None else "recorded",
            ignored=self.scrub.ignored(output, agent_kind(case)),
        )

    def _existing(self, path: Path) -> Recording | None:
        """The recording at ``path``; re-recording everything (``all``), one that cannot be
        read is simply written anew."""
        try:
            return recordings.read_recording(path)
        except recordings.NotRegular:
            raise  # never written through, whatever the mode
        except CaseFileError:
            if self.record == "all":
                return None
            raise

    def recording_of(self, case: GoldenCase, repeat: int, runs: int, target: str = "") -> Path:
        """Where run ``repeat`` of ``runs`` of a case by ``target`` is recorded (inside the
        root, or an error)."""
        return recordings.inside_root(
            recordings.recording_path(case.path, case.id, repeat, runs, target), self.root
        )

    def needs_call(self, case: GoldenCase, repeat: int, runs: int, target: str = "") -> bool:
        """Whether run ``repeat`` of a case calls the target (not replayed, not given)."""
        if case.source != "input" or self.record == "none":
            return False
        if self.record in ("off", "all"):
            return True
        existing = recordings.read_recording(self.recording_of(case, repeat, runs, target))
        return existing is None or bool(self.stale(case, existing, target))

    def open(self) -> None:
        """Start taking every target's calls ahead (the test loop starts)."""
        for calls in self.calls.values():
            calls.open()

    def close(self) -> None:
        """Cancel every target's queued and running calls (the test loop ended)."""
        for calls in self.calls.values():
            calls.close()

    def alone(self, name: str) -> AbstractContextManager[object]:
        """While test ``name`` runs: if a dead worker ran it or had a call of it, no call of
        its target runs beside it (most tests: nothing to hold, and nothing is built)."""
        suspect = [calls for calls in self.calls.values() if calls.runs_alone(name)]
        if not suspect:
            return nullcontext()
        with ExitStack() as held:
            for calls in suspect:
                held.enter_context(calls.alone(name))
            return held.pop_all()


def _no_replay(shown: str, existing: Recording | None, changed: list[str]) -> CaseFileError:
    """Why a replay-only run (record mode ``none``) cannot replay the case: no recording,
    or a stale one (``changed`` says what changed)."""
    if existing is None:
        return CaseFileError(
            f"no recording of this case ({shown}): record it with --jsonmatch-record=once"
        )
    return CaseFileError(
        f"the recording {shown} is stale ({'; '.join(changed)} changed "
        f"since it was recorded): re-record it with "
        f"--jsonmatch-record=once"
    )


def agent_kind(case: GoldenCase) -> AgentKind:
    """What ``case``'s output is, for what a scrub reaches in it: an agent's whole run, one
    reply, or (None) a plain target's JSON."""
    return case.scorer.kind
