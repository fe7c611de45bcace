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
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.core.errors import ConfigError
from ..engine.core.masking import one_line
from ..engine.judge import (
    JudgeReply,
    JudgeRequest,
    JudgeSettings,
    JudgeUnavailable,
    Memory,
    Transport,
    judge_settings_from_pairs,
)
from .call_figures import attempts_note
from .call_settings import CALL_KEYS, CallSettings, parse_calls
from .runner import Runner

if TYPE_CHECKING:
    from .fingerprints import RecordSettings
    from .judge_recordings import JudgmentFile
    from .targets import Awaited

DEFAULT_JUDGE_CALLS = CallSettings(retries=2, retry_budget=30.0, timeout=60.0)


@dataclass(frozen=True)
class JudgeSetup:
    """The session's judge: what it is (``judge``) and how it is called (``calls``)."""

    judge: JudgeSettings
    calls: CallSettings = DEFAULT_JUDGE_CALLS


def judge_setup_from_text(text: str, what: str, base: Path) -> JudgeSetup:
    """``model=... endpoint=... retries=3 rate=60/min`` as a :class:`JudgeSetup`; a relative
    prompt file is read from ``base`` (the test root). A mistake is a ConfigError naming
    ``what`` and the key."""
    judge_pairs: list[tuple[str, str]] = []
    call_words: list[str] = []
    seen: set[str] = set()
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise ConfigError(f"{what}: {word!r} is not KEY=VALUE")
        if key in seen:
            raise ConfigError(f"{what}: {key} given twice")
        seen.add(key)
        if key in CALL_KEYS:
            call_words.append(word)
            if key == "timeout":  # the HTTP client's own bound too, so that both agree
                judge_pairs.append((key, value))
        else:
            judge_pairs.append((key, value))
    judge = judge_settings_from_pairs(judge_pairs, what, base)
    calls = DEFAULT_JUDGE_CALLS
    if call_words:
        given = parse_calls([(" ".join(call_words), what)])
        calls = replace(
            given,
            retries=given.retries if "retries=" in text else calls.retries,
            retry_budget=given.retry_budget if "retry_budget=" in text else calls.retry_budget,
            timeout=given.timeout if "timeout=" in text else calls.timeout,
        )
    return JudgeSetup(judge, calls)


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

            calls.recorded = JudgmentFile(root, record.mode, setup.judge, record.prune)
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
        :class:`JudgeUnavailable` naming the judge, the endpoint and the attempts."""

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
