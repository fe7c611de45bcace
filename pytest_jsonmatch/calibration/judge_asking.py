"""Asking the judge about a person's labels, and measuring its answers: :func:`calibrate`.

The judge is asked as a run asks it: through :class:`SemanticJudge` (values equal after
the field's transforms are "same" without a request; the rest in requests of ``batch``
items; its own retries, or the runner's ``through``), and its verdicts are recorded and
replayed as a run's are, in the format of the run's judgments (calls/judge_recordings.py's
:class:`JudgmentFile`: each judge's verdicts under its fingerprint), in a file of the labels'
own beside them (``labels.yaml`` -> ``labels.judgments.json``), so that a pytest session's
pruning of its judgments never removes them. ``once`` asks only what is not recorded,
``none`` never asks (an unrecorded item is an error), ``all`` asks everything again.

The bias checks, each its own setting, each counted in requests and cost:

- ``swap`` (position): every label asked again with reference and produced exchanged; an
  item held when both verdicts are the same (Zheng et al. 2023).
- ``repeat=K`` (self-consistency): asked K times in all; an item held when all K verdicts
  are the same. Each further asking has its recording file (``labels.repeat-2.judgments.json``,
  ...): the judge's memory would answer a question it was asked before.
- ``pad`` (verbosity): the produced text with :data:`PAD` appended, a sentence that adds no
  fact; only labels whose produced value is text are padded (the others are not counted).

A panel (``panel``): further judges asked the same labels; each one's figures, and those of
the panel's verdict by its rule (agreement.panel), side by side with the main judge's.

A label the judge decides nothing for (its reply unreadable, the judge down) is an error
naming the label: a calibration with holes in it would measure another set of labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..calls.judge_recordings import JudgmentFile, JudgmentNotRecorded
from ..calls.recordings import RecordMode
from ..cases.judge_labels import quoted
from ..engine.core.errors import ComparatorError, ConfigError
from ..engine.core.values import JsonValue
from ..engine.judge import JudgeSettings, Memory, SemanticJudge, Through, Transport, agreement
from .calibration_file import (
    MAX_LABELS,
    MIN_LABELS,
    Calibration,
    Consistency,
    Estimate,
    Figures,
    JudgeIdentity,
    PanelMember,
    PanelResult,
)
from .labels import Label, Labels

# appended to a produced text by the verbosity check: true of any answer, adds no fact
PAD = " This answer has been reviewed for accuracy and completeness."


@dataclass(frozen=True)
class Checks:
    """The bias checks asked for: ``swap``, ``repeat`` (K askings in all; None: not
    checked), ``pad``; a ``panel`` of further judges with its ``rule``."""

    swap: bool = False
    repeat: int | None = None
    pad: bool = False
    panel: tuple[JudgeSettings, ...] = ()
    rule: str = "majority"


@dataclass(frozen=True)
class _Pair:
    """One question to the judge, as a batch comparator's item reads (semantic.Judged)."""

    path: str
    expected_compared: JsonValue
    actual_compared: JsonValue


@dataclass
class _Cost:
    """What the askings of one check cost: requests sent, and money where priced."""

    requests: int = 0
    cost: float | None = None

    def add(self, requests: int, cost: float | None) -> None:
        self.requests += requests
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost


@dataclass
class _Asker:
    """Asks one labels file's questions, recording and replaying each asking's verdicts."""

    labels: Labels
    record: RecordMode
    transport: Transport | None = None
    through: Through | None = None
    costs: dict[str, _Cost] = field(default_factory=dict)

    def recording(self, asking: int) -> Path:
        """The recording of the ``asking``-th time each label is asked (1: the first)."""
        stem = self.labels.path.with_suffix("")
        more = "" if asking == 1 else f".repeat-{asking}"
        return stem.with_name(f"{stem.name}{more}.judgments.json")

    def ask(
        self,
        judge: JudgeSettings,
        items: Sequence[Label],
        check: str,
        asking: int = 1,
        swap: bool = False,
        pad: bool = False,
    ) -> list[bool]:
        """The judge's verdict (True: same) on each label, asked as ``swap`` and ``pad``
        say; its requests counted to ``check``."""
        path = self.recording(asking)
        file = JudgmentFile(path.parent, self.record, judge, prune=False)
        file.path = path  # the labels' own recording, not the run's judgments.json
        memory = Memory()
        file.load(memory)
        semantic = SemanticJudge(judge, self.transport, self.through, memory)
        try:
            answers = semantic(_pairs(items, swap, pad))
        except JudgmentNotRecorded as exc:
            raise JudgmentNotRecorded(
                str(exc)
                .replace("--jsonmatch-record=once", "--record once")
                .replace("record=none never", "--record none never")
            ) from None
        finally:
            file.save(memory)
            self.costs.setdefault(check, _Cost()).add(
                semantic.figures.requests, semantic.figures.cost
            )
        return [self._verdict(a, label) for a, label in zip(answers, items)]

    def _verdict(self, answer: float | ComparatorError, label: Label) -> bool:
        if isinstance(answer, ComparatorError):
            n = self.labels.items.index(label) + 1
            raise ComparatorError(
                f"labels file {str(self.labels.path)!r}: the judge gave no verdict for item "
                f"{n} (id {quoted(label.id)}): {answer}; no calibration was written"
            )
        return answer >= 0.5


def _pairs(items: Sequence[Label], swap: bool = False, pad: bool = False) -> list[_Pair]:
    out = []
    for label in items:
        produced = label.produced + PAD if pad and isinstance(label.produced, str) else None
        produced_value = label.produced if produced is None else produced
        if swap:
            out.append(_Pair(label.field, produced_value, label.reference))
        else:
            out.append(_Pair(label.field, label.reference, produced_value))
    return out


def figures_of(judge: Sequence[bool], human: Sequence[bool], seed: int, resamples: int) -> Figures:
    """The judge's figures against the person's labels (engine/judge/agreement.py)."""
    counts = agreement.confusion(judge, human)
    got = agreement.figures(counts, seed, resamples)
    estimates = {name: Estimate(*figure) for name, figure in got.items()}
    return Figures(counts.n, counts.tp, counts.fp, counts.tn, counts.fn, **estimates)


def _consistency(
    rows: Sequence[Sequence[bool]], cost: _Cost, seed: int, resamples: int
) -> Consistency:
    kept = agreement.held(rows)
    n, held = len(kept), sum(kept)
    share = Estimate(*agreement.share(held, n, seed, resamples))
    return Consistency(n, held, share, cost.requests, cost.cost)


def identity(judge: JudgeSettings) -> JudgeIdentity:
    """What a calibration records of its judge."""
    return JudgeIdentity(judge.model, judge.fingerprint, judge.max_tokens)


def calibrate(
    labels: Labels,
    judge: JudgeSettings,
    checks: Checks = Checks(),
    record: RecordMode = "once",
    transport: Transport | None = None,
    through: Through | None = None,
    seed: int = agreement.SEED,
    resamples: int = agreement.RESAMPLES,
) -> Calibration:
    """Ask ``judge`` about every label (and the checks' variants) and measure it. More
    labels than a calibration file may hold (:data:`MAX_LABELS`) are a ConfigError, before
    the judge is asked anything."""
    if len(labels.items) > MAX_LABELS:
        raise ConfigError(
            f"labels file {str(labels.path)!r}: {len(labels.items):,} labels, more than the "
            f"{MAX_LABELS:,} a calibration measures"
        )
    asker = _Asker(labels, record, transport, through)
    items = labels.items
    human = [label.human_same for label in items]
    asked = asker.ask(judge, items, "asked")
    by_field: dict[str, list[int]] = {}
    for n, label in enumerate(items):
        by_field.setdefault(label.field, []).append(n)
    fields = {
        name: figures_of([asked[i] for i in at], [human[i] for i in at], seed, resamples)
        for name, at in sorted(by_field.items())
    }
    position = repeat = verbosity = None
    if checks.swap:
        swapped = asker.ask(judge, items, "swap", swap=True)
        position = _consistency([asked, swapped], asker.costs["swap"], seed, resamples)
    if checks.repeat:
        rows = [asked] + [
            asker.ask(judge, items, "repeat", asking) for asking in range(2, checks.repeat + 1)
        ]
        repeat = _consistency(rows, asker.costs["repeat"], seed, resamples)
    if checks.pad:
        texts = [n for n, label in enumerate(items) if isinstance(label.produced, str)]
        padded = asker.ask(judge, [items[n] for n in texts], "pad", pad=True)
        verbosity = _consistency(
            [[asked[n] for n in texts], padded], asker.costs["pad"], seed, resamples
        )
    panel = _panel(asker, judge, asked, human, checks, seed, resamples) if checks.panel else None
    total = _Cost()
    for cost in asker.costs.values():
        total.add(cost.requests, cost.cost)
    return Calibration(
        judge=identity(judge),
        labels_path=str(labels.path),
        labels_digest=labels.digest,
        labels=len(items),
        same=labels.same,
        different=len(items) - labels.same,
        overall=figures_of(asked, human, seed, resamples),
        fields=fields,
        min_labels=MIN_LABELS,
        position=position,
        repeat=repeat,
        repeat_k=checks.repeat,
        verbosity=verbosity,
        panel=panel,
        requests=total.requests,
        cost=total.cost,
        seed=seed,
        resamples=resamples,
    )


def _panel(
    asker: _Asker,
    judge: JudgeSettings,
    asked: list[bool],
    human: list[bool],
    checks: Checks,
    seed: int,
    resamples: int,
) -> PanelResult:
    """Each further judge asked, and the panel (the main judge with them) by its rule."""
    rows, members = [asked], []
    for n, other in enumerate(checks.panel, start=1):
        check = f"panel-{n}"
        verdicts = asker.ask(other, asker.labels.items, check)
        rows.append(verdicts)
        cost = asker.costs[check]
        members.append(
            PanelMember(
                identity(other),
                figures_of(verdicts, human, seed, resamples),
                cost.requests,
                cost.cost,
            )
        )
    verdict = agreement.panel(rows, checks.rule)
    return PanelResult(checks.rule, tuple(members), figures_of(verdict, human, seed, resamples))
