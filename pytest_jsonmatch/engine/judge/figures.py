"""What a judge did in a run, or for one comparison: :class:`JudgeFigures` (requests,
attempts, items sent, answered by equality or from memory, undecided; tokens, cost, time)."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.values import JsonObject


@dataclass
class JudgeFigures:
    """What a judge did in a run: requests sent (``attempts`` with retries), items sent,
    answered by equality, answered from memory (this run's or recorded), left undecided;
    tokens, cost and the requests' time."""

    requests: int = 0
    attempts: int = 0
    sent: int = 0
    equal: int = 0
    reused: int = 0
    undecided: int = 0
    failed_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    latency_s: float = 0.0

    def merge(self, other: JudgeFigures, asked: bool = True, read: bool = True) -> None:
        """Add ``other``'s figures: those of the requests (``asked``), and those of reading
        the verdicts (``read``: equal, reused, undecided)."""
        if asked:
            self.requests += other.requests
            self.attempts += other.attempts
            self.sent += other.sent
            self.failed_requests += other.failed_requests
            self.input_tokens += other.input_tokens
            self.output_tokens += other.output_tokens
            self.latency_s += other.latency_s
            if other.cost is not None:
                self.cost = other.cost if self.cost is None else self.cost + other.cost
        if read:
            self.equal += other.equal
            self.reused += other.reused
            self.undecided += other.undecided

    @property
    def used(self) -> bool:
        """Whether a judged field was met at all (asked, answered from memory or by
        equality, or left undecided)."""
        return bool(self.requests or self.equal or self.reused or self.undecided or self.sent)

    def to_dict(self) -> JsonObject:
        return {
            "requests": self.requests,
            "attempts": self.attempts,
            "sent": self.sent,
            "equal": self.equal,
            "reused": self.reused,
            "not_judged": self.undecided,
            "failed_requests": self.failed_requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost,
            "latency_s": self.latency_s,
        }
