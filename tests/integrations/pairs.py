"""The pairs every adapter is scored on, with their scores worked out by hand: an adapter's
score must be match_json's, exactly, and match_json's must be these."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Pair:
    name: str
    actual: str  # what a model answered: text, as every framework hands it over
    expected: dict[str, Any]
    metric: str
    score: float
    options: dict[str, Any] = field(default_factory=dict)
    costly: tuple[str, ...] = ()  # the fields that cost points, worst first

    @property
    def expected_text(self) -> str:
        return json.dumps(self.expected)


PAIRS = [
    # field_f1: city matches (1), country mismatches (0), population is omitted.
    # TP = 1; precision = 1 / (1 + 1) = 0.5; recall = 1 / (2 + 1) = 1/3;
    # F1 = 2 * 0.5 * (1/3) / (0.5 + 1/3) = (1/3) / (5/6) = 0.4.
    Pair(
        "field_f1",
        'Sure! ```json\n{"city": "Paris", "country": "Italy"}\n```',
        {"city": "Paris", "country": "France", "population": 2100000},
        "field_f1",
        0.4,
        costly=("country", "population"),
    ),
    # field_match with ignore=["c"]: a and b match, c is not read, d is omitted; the
    # extra e is ignored by the metric. Recall = 2 matched / 3 expected = 2/3.
    Pair(
        "field_match-ignore",
        '{"a": 1, "b": 2, "c": 0, "e": 5}',
        {"a": 1, "b": 2, "c": 3, "d": 4},
        "field_match",
        2 / 3,
        {"ignore": ["c"]},
        costly=("d",),
    ),
    # json_similarity: name by Levenshtein, 1 - 1 edit / 10 characters = 0.9; age by
    # relative difference, 1 - |40 - 41| / 41 = 40/41. Mean: (0.9 + 40/41) / 2.
    Pair(
        "json_similarity",
        '{"name": "Jon Smith", "age": 40}',
        {"name": "John Smith", "age": 41},
        "json_similarity",
        (0.9 + 40 / 41) / 2,
        costly=("name", "age"),
    ),
]
