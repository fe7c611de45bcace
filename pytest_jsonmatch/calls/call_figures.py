"""What a target's call gave back and what it cost: the output with its token counts, cost
and finish reason as a target may return them (:class:`TargetResult`), and the figures the
runner keeps of each call (:class:`CallFigures`: time, attempts, usage, whether it failed or
was cut off), as recordings and reports hold them."""

from __future__ import annotations

import enum
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from ..engine.core.errors import TruncatedError, shown

_Number = TypeVar("_Number", int, float)


class _NotGiven(enum.Enum):
    """The default of ``TargetResult.tool_calls``: the target said nothing of tool calls.
    Told apart from ``None``, which the ``openai`` client gives for a message that called no
    tool. (An enum member: one object, the same after a pickle.)"""

    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = _NotGiven.NOT_GIVEN


@dataclass(frozen=True)
class TargetResult:
    """What a target may return instead of the bare output: the output and what the call
    cost (``input_tokens``, ``output_tokens``, ``cost``: per case in the report, totalled in
    the summary; leave out what you do not know); ``finish_reason`` as the API says it
    (``length`` or ``max_tokens``: the answer was cut off, whatever its text looks like);
    ``tool_calls`` as the client gives them, the output then being the assistant message
    ``{"role": "assistant", "content": output, "tool_calls": ...}`` (docs/tool-calls.md):
    given as ``None`` or ``[]`` too, as a client gives a message that called no tool, so that
    the content is never read as calls. Left out, the output is the bare ``output``."""

    output: object
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    finish_reason: str | None = None
    tool_calls: object = NOT_GIVEN

    def answer(self) -> object:
        """The case's output: ``output``, or, where ``tool_calls`` was given (even ``None``),
        the message holding it and the tool calls."""
        if self.tool_calls is NOT_GIVEN:
            return self.output
        return {"role": "assistant", "content": self.output, "tool_calls": self.tool_calls}

    def problem(self) -> str | None:
        """What is wrong with the usage figures, in words (None: they can be reported):
        token counts are whole numbers, a cost a finite number, none of them negative; a
        finish reason is text."""
        if self.finish_reason is not None and not isinstance(self.finish_reason, str):
            return (
                f"the target's TargetResult.finish_reason must be text or None, "
                f"not {shown(self.finish_reason)}"
            )
        for name in ("input_tokens", "output_tokens", "cost"):
            value = getattr(self, name)
            whole = name != "cost"
            kind = (int,) if whole else (int, float)
            if value is None:
                continue
            # a cost is summed as a float: NaN, infinity and integers past float range are out
            if (
                isinstance(value, bool)
                or not isinstance(value, kind)
                or value != value
                or value < 0
                or (not whole and value > sys.float_info.max)
            ):
                wanted = "a whole number" if whole else "a finite number"
                return (
                    f"the target's TargetResult.{name} must be {wanted} >= 0 or None, "
                    f"not {shown(value)}"
                )
        return None


# The finish reasons that mean the model hit its token limit: OpenAI's and Mistral's
# ``length``, Anthropic's ``max_tokens``, Gemini's ``MAX_TOKENS`` (compared in lower case).
CUT_OFF_REASONS = ("length", "max_tokens")


@dataclass(frozen=True)
class CallFigures:
    """What one case's call took: the wall time of the attempt that answered (or failed
    last), how many attempts were made, the usage its target reported, and whether the call
    failed in the end."""

    latency_s: float | None = None
    attempts: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    failed: bool = False
    finish_reason: str | None = None  # why the model stopped, as the target reported it

    @property
    def cut_off(self) -> bool:
        """Whether the model stopped at its token limit: its answer is cut off."""
        return (self.finish_reason or "").lower() in CUT_OFF_REASONS

    def cut_error(self) -> TruncatedError:
        """The error of an answer the model's own finish reason marks as cut off."""
        error = TruncatedError(
            f"actual was cut off: the target reported finish_reason {self.finish_reason!r} "
            f"(the model stopped at its token limit), so its answer is not whole whatever "
            f"its text looks like"
        )
        error.side = "actual"
        return error

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "latency_s": self.latency_s,
            "attempts": self.attempts,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost,
            "failed": self.failed,
        }
        if self.finish_reason is not None:  # only when reported: older recordings unchanged
            out["finish_reason"] = self.finish_reason
        return out

    @classmethod
    def from_dict(cls, data: object) -> CallFigures | None:
        if not isinstance(data, Mapping):
            return None
        get = data.get  # the mapping's: a nested function does not see data narrowed to one

        def number(key: str, kind: type[_Number]) -> _Number | None:
            value = get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return None
            return kind(value) if math.isfinite(value) and value >= 0 else None

        return cls(
            number("latency_s", float),
            number("attempts", int) or 0,
            number("input_tokens", int),
            number("output_tokens", int),
            number("cost", float),
            data.get("failed") is True,
            reason if isinstance(reason := get("finish_reason"), str) else None,
        )


def attempts_note(call: CallFigures | None) -> str:
    """How many attempts a failed call made, as an error message ends: `` (3 attempts)``."""
    if call is None or not call.attempts:
        return ""
    return f" ({call.attempts} attempt{'' if call.attempts == 1 else 's'})"
