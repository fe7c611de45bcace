"""The judge as part of a pytest session: the ``jsonmatch_judge`` setting read into the
engine's :class:`JudgeSettings` and the judge's own :class:`CallSettings`, and every judge
request run through a :class:`Runner` of its own (timeout, retries with ``Retry-After``, the
rate limit held for the whole session under xdist, cancelled when the session stops).

The setting is one line of ``key=value`` words: the judge's keys (``model``, ``endpoint``,
``key_env``, ``prompt``, ``batch``, ``max_tokens``, ``price_in``, ``price_out``) and the
call keys of ``jsonmatch_calls`` (``concurrency``, ``timeout``, ``retries``, ``rate``,
``retry_timeouts``, ``retry_budget``), which hold for the judge alone. A judge retries twice
within 30 s unless told otherwise, so that a judge that is down costs a run seconds, and
after that the run asks it nothing more (semantic.py).

The calibration keys (:class:`CalibrationSetup`) say how the judge is measured against a
person's labels: ``labels=PATH`` (measure it in the run), ``calibration=PATH`` (the stored
measure), ``swap=yes``, ``repeat=K`` and ``pad=yes`` (the bias checks of a measure made in
the run). The gates ``judge_ac1``, ``judge_kappa``, ``judge_false_accept`` and
``judge_position`` hold the run to it (reporting/verdicts/calibration_gates.py).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.core.errors import ConfigError
from ..engine.core.masking import one_line
from ..engine.core.numbers import whole_in
from ..engine.judge import (
    JudgeReply,
    JudgeRequest,
    JudgeSettings,
    JudgeUnavailable,
    Memory,
    Transport,
    judge_settings_from_pairs,
)
from ..engine.judge.judge_settings import unset_variables
from .call_figures import attempts_note
from .call_settings import CALL_KEYS, CallSettings, parse_calls
from .runner import Runner

if TYPE_CHECKING:
    from .fingerprints import RecordSettings
    from .judge_recordings import JudgmentFile
    from .targets import Awaited

DEFAULT_JUDGE_CALLS = CallSettings(retries=2, retry_budget=30.0, timeout=60.0)
CALIBRATION_KEYS = ("labels", "calibration", "swap", "repeat", "pad")
MAX_REPEAT = 20  # the most times the repeat check asks each label


@dataclass(frozen=True)
class CalibrationSetup:
    """How the session's judge is measured against a person's labels: ``labels`` (a path
    from the test root; empty: none) is measured in the run, with the bias checks ``swap``,
    ``repeat`` (K asks of each label; None: not checked) and ``pad``; ``stored`` (the
    ``calibration=`` path) is read where no labels are given, and written with the fresh
    measure where they are: labels win, as a measure of this judge made now."""

    labels: str = ""
    stored: str = ""
    swap: bool = False
    repeat: int | None = None
    pad: bool = False


@dataclass(frozen=True)
class JudgeSetup:
    """The session's judge: what it is (``judge``), how it is called (``calls``) and how
    it is measured against a person's labels (``calibration``; None: it is not)."""

    judge: JudgeSettings
    calls: CallSettings = DEFAULT_JUDGE_CALLS
    calibration: CalibrationSetup | None = None
    unset: tuple[str, ...] = ()  # the variables a replay-only judge goes without (_judge_of)


def judge_setup_from_text(text: str, what: str, base: Path, replay: bool = False) -> JudgeSetup:
    """``model=... endpoint=... retries=3 rate=60/min`` as a :class:`JudgeSetup`; a relative
    prompt file is read from ``base`` (the test root). A mistake is a ConfigError naming
    ``what`` and the key. ``replay`` (record mode ``none``): a judge whose ``model_env`` or
    ``endpoint_env`` variable is unset is a replay-only judge (:func:`_judge_of`)."""
    judge_pairs: list[tuple[str, str]] = []
    call_words: list[str] = []
    measure: dict[str, str] = {}
    seen: set[str] = set()
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise ConfigError(f"{what}: {word!r} is not KEY=VALUE")
        if key in seen:
            raise ConfigError(f"{what}: {key} given twice")
        seen.add(key)
        if key in CALIBRATION_KEYS:
            measure[key] = value
        elif key in CALL_KEYS:
            call_words.append(word)
            if key == "timeout":  # the HTTP client's own bound too, so that both agree
                judge_pairs.append((key, value))
        else:
            judge_pairs.append((key, value))
    judge, unset = _judge_of(judge_pairs, what, base, replay)
    calls = DEFAULT_JUDGE_CALLS
    if call_words:
        given = parse_calls([(" ".join(call_words), what)])
        calls = given.replace(
            retries=given.retries if "retries=" in text else calls.retries,
            retry_budget=given.retry_budget if "retry_budget=" in text else calls.retry_budget,
            timeout=given.timeout if "timeout=" in text else calls.timeout,
        )
    return JudgeSetup(
        judge, calls, calibration_setup(measure, what) if measure else None, unset=unset
    )


def _judge_of(
    pairs: list[tuple[str, str]], what: str, base: Path, replay: bool
) -> tuple[JudgeSettings, tuple[str, ...]]:
    """The judge ``pairs`` give, and the judge's variables it goes without. Under ``replay``,
    a ``model_env`` or ``endpoint_env`` whose variable is unset makes a replay-only judge,
    which never sends: no endpoint but ``endpoint=``'s, its model the one whose verdicts
    the recording holds under this prompt (judge_recordings.recorded_judge); the variables
    that are set are read as always, and the recorded judge must be theirs. Elsewhere, an
    unset variable stops the session, as a judge that may be asked cannot go without."""
    unset = unset_variables(pairs) if replay else {}
    if not unset:
        return judge_settings_from_pairs(pairs, what, base), ()
    from .judge_recordings import recorded_judge

    kept = [(key, value) for key, value in pairs if key not in unset]
    model_env = unset.get("model_env")
    if model_env is not None:
        kept.append(("model", f"${model_env}"))  # (until the recording names it)
    probe = judge_settings_from_pairs(kept, what, base, replay_only=True)
    judge = probe if model_env is None else recorded_judge(probe, base, what, model_env)
    return judge, tuple(unset.values())


def calibration_setup(given: dict[str, str], what: str) -> CalibrationSetup:
    """The calibration keys of the judge's setting read; a ConfigError naming ``what`` and
    the key. A bias check without ``labels=`` is refused: only a measure made in the run
    runs it (a stored one ran its own, which its file records)."""
    for key in ("labels", "calibration"):
        if key in given and not given[key].isprintable():
            raise ConfigError(f"{what}: {key} must be a path on one line, not {given[key]!r:.80}")
    checks = [key for key in ("swap", "repeat", "pad") if key in given]
    if checks and "labels" not in given:
        raise ConfigError(
            f"{what}: {checks[0]} is a check of a calibration made in the run: give labels=PATH "
            f"too (a stored calibration holds the checks `jsonmatch calibrate` ran)"
        )
    repeat = None
    if "repeat" in given:
        repeat = whole_in(given["repeat"], 2, MAX_REPEAT)
        if repeat is None:
            raise ConfigError(
                f"{what}: repeat must be a whole number from 2 to {MAX_REPEAT} (the asks of "
                f"each label), not {given['repeat'][:40]!r}"
            )
    return CalibrationSetup(
        labels=given.get("labels", ""),
        stored=given.get("calibration", ""),
        swap=_yes(given, "swap", what),
        repeat=repeat,
        pad=_yes(given, "pad", what),
    )


def _yes(given: dict[str, str], key: str, what: str) -> bool:
    value = given.get(key, "no").strip().lower()
    if value not in ("yes", "no"):
        raise ConfigError(f"{what}: {key} must be yes or no, not {value[:40]!r}")
    return value == "yes"


class JudgeCalls:
    """The judge's runner, open while the session runs: ``through`` is what the engine's
    judge sends each request through (registry.run_judge_through)."""

    def __init__(self, setup: JudgeSetup, workers: int = 1, shared: str | None = None) -> None:
        """``shared``: the session's shared folder under xdist, where the workers keep one
        schedule of the judge's starts (shared_starts.py), so its rate holds for them all."""
        from .shared_starts import shared_starts

        self.setup, self.workers = setup, workers
        starts = shared_starts(shared, "judge", setup.calls.rate)
        self.runner = Runner(setup.calls.per_worker(workers, starts is not None), starts)
        self._keys = itertools.count()
        self.memory = Memory()
        self.recorded: JudgmentFile | None = None

    @classmethod
    def install(
        cls,
        setup: JudgeSetup,
        workers: int = 1,
        record: RecordSettings | None = None,
        root: Path | None = None,
        shared: str | None = None,
    ) -> JudgeCalls:
        """The session's judge: configured in the engine's registry, every request of it
        run through this runner, its verdicts replayed and recorded by ``record`` (the
        session's ``jsonmatch_record``) under ``root``."""
        from ..engine.metrics import REGISTRY

        calls = cls(setup, workers, shared)
        if record is not None and root is not None and record.mode != "off":
            from .judge_recordings import JudgmentFile

            calls.recorded = JudgmentFile(root, record.mode, setup.judge, record.prune, setup.unset)
            calls.recorded.load(calls.memory)
        REGISTRY.configure_judge(setup.judge)
        REGISTRY.run_judge_through(calls.through, calls.memory)
        return calls

    def summary(self) -> list[str]:
        """What the terminal summary says of the judge's recordings (what the judge did is
        totalled from the comparisons, with the target's calls)."""
        if self.recorded is None or not self.recorded.other_count:
            return []
        prune = "removed" if self.recorded.prune else "kept (remove them with prune)"
        return [
            f"{self.recorded.other_count} recorded judgment(s) of other judges (a prompt "
            f"or model since changed): {prune}"
        ]

    def through(self, request: JudgeRequest, transport: Transport) -> JudgeReply:
        """``transport(request)``, run by the runner; its failure, after the retries, is a
        :class:`JudgeUnavailable` naming the judge, the endpoint and the attempts. A
        replay-only judge sends nothing (its record mode, none, answers from the recording
        or fails the case first: this is the guard behind it)."""
        if self.setup.judge.replay_only:
            unset = " and ".join(self.setup.unset)
            raise ConfigError(
                f"judge {request.model!r} is known from its recorded verdicts only: it never "
                f"sends; record with --jsonmatch-record=once, {unset} set"
            )

        def call(awaited: Awaited) -> object:
            return awaited(transport(request))

        done = self.runner.take(("judge", next(self._keys)), call)
        if done.error is not None:
            if not isinstance(done.error, Exception):
                raise done.error  # KeyboardInterrupt, pytest.exit: the session's to handle
            error = JudgeUnavailable(
                f"judge {request.model!r} at {request.shown_endpoint} failed: "
                f"{one_line(done.error)}{attempts_note(done.figures)}"
            )
            error.attempts = done.figures.attempts  # type: ignore[attr-defined]
            raise error
        reply = done.value
        if not isinstance(reply, JudgeReply):
            raise ConfigError(
                f"the judge's transport returned {type(reply).__name__}, not a JudgeReply"
            )
        return replace(reply, attempts=done.figures.attempts)

    def close(self) -> None:
        """Stop the runner, then record this run's verdicts."""
        self.runner.close()
        if self.recorded is not None:
            self.recorded.save(self.memory)
