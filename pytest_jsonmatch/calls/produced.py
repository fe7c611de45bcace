"""One run's output as a comparison takes it: the value (or the error that stopped it), where
it came from and what its call took. Its own light module: ``assert_json_match`` hands its
actual value on as one, and must not load the calls stage to do so.
"""

from __future__ import annotations

from typing import Literal

from ..engine.core.slotted import Slotted
from .call_figures import CallFigures, attempts_note

OutputSource = Literal["case", "live", "replayed"]
# whether this run wrote the case's recording: "recorded", "stale" (written anew), or
# "not recorded: WHY" (the output was scored but could not be kept); empty: it wrote none
Recorded = str


class Produced(Slotted):
    """One run's output, or the error that stopped it (``error``), with where it came from,
    whether this run wrote a recording (``recorded`` anew, or over a ``stale`` one) and what
    the call took (``call``: a live call's figures, or a replayed recording's); ``input``:
    the case's input that produced it (None: none, as for ``assert_json_match``), which the
    reports show beside the output; ``repeats``: how many runs its case was asked for, where
    the case repeats or sets its own ``repeat:`` (None: once, as every case by default),
    which a report records so that ``jsonmatch merge`` counts a shard's runs of the case
    without reading its case file; ``ignored``: ``ignore`` patterns the comparison adds to
    its own, the values the record setting's ``scrub=`` replaced (stable_form.py), so that
    a scrubbed field counts nowhere, live and replayed alike. (Slotted, not a dataclass: one
    is made for each run.)"""

    __slots__ = ("output", "input", "error", "source", "recording", "call", "repeats", "ignored")

    def __init__(
        self,
        *,
        output: object = None,
        input: object = None,
        error: BaseException | None = None,
        source: OutputSource = "case",
        recording: Recorded = "",
        call: CallFigures | None = None,
        repeats: int | None = None,
        ignored: tuple[str, ...] = (),
    ) -> None:
        self.output, self.input, self.error, self.source = output, input, error, source
        self.recording, self.call, self.repeats, self.ignored = recording, call, repeats, ignored

    @property
    def attempts_note(self) -> str:
        """How many attempts the call made, as an error message ends: `` (3 attempts)``."""
        return attempts_note(self.call)
