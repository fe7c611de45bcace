"""Records and a run of them shared by the tests that hold ``evaluate_records``' routes to
one another: an invoice, a damaged answer to it, records the door copies or refuses (on
either side), and everything a run says as exact text."""

from __future__ import annotations

import collections
import dataclasses
import enum
from typing import Any

import numpy as np

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from tests.helpers import fuzz_values as fv

INVOICE = {
    "id": "A-1",
    "vendor": {"name": "ACME", "city": "Lyon"},
    "total": 10.5,
    "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}],
}
DAMAGED = {
    "id": "A-1",
    "vendor": {"name": "ACNE"},
    "total": 10,
    "extra": 1,
    "items": [{"sku": "b", "qty": 2}],
}


class Tag(str, enum.Enum):
    A = "a"


class Count(enum.IntEnum):
    ONE = 1


@dataclasses.dataclass
class Item:
    sku: str
    qty: int


def nested(levels: int) -> Any:
    """1 inside ``levels`` arrays."""
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


# Records the door copies or refuses, each where the walk meets it: given as answers
# (tests/engine/test_counted_records.py) or as gold (tests/engine/test_gold_read_in_walk.py),
# a run must come out as it does with every record read by the door first.
NOT_PLAIN_JSON: dict[str, dict[str, Any]] = {
    "NaN where a number is expected": {**INVOICE, "total": float("nan")},
    "an infinity in an element": {
        **INVOICE,
        "items": [{"sku": "a", "qty": float("inf")}, INVOICE["items"][1]],
    },
    "NaN in a field the other side lacks": {**INVOICE, "extra": [1, float("nan")]},
    "a key that is not a string": {**INVOICE, "vendor": {"name": "ACME", 3: "x"}},
    "a tuple for an array": {**INVOICE, "items": tuple(INVOICE["items"])},
    "a numpy float for a float": {**INVOICE, "total": np.float64(10.5)},
    "a set": {**INVOICE, "id": {1}},
    "a value nested deeper than the stack holds": {**INVOICE, "extra": nested(3_000)},
    "a value nested just beyond the walk's room": {**INVOICE, "extra": nested(70)},
    "a mapping that is not a dict": {
        **INVOICE,
        "vendor": collections.OrderedDict(name="ACME", city="Lyon"),
    },
    "a dataclass for an element": {**INVOICE, "items": [Item("a", 1), INVOICE["items"][1]]},
    "an extra element holding NaN": {**INVOICE, "items": [*INVOICE["items"], [float("nan")]]},
}


def run_text(expected: list[Any], actual: list[Any], options: dict[str, Any]) -> str:
    """Everything evaluate_records says, as exact text (or the error it raises)."""
    try:
        run = evaluate_records(expected, actual, "field_f1", **options)
    except JsonMatchError as exc:
        return f"{type(exc).__name__}: {exc}"
    return fv.exact_repr(
        (
            run.records,  # (a record's repr holds its fields, made when read)
            {path: agg.to_dict() for path, agg in run.per_field.items()},
            run.mean_score,
            run.mean_f1,
        )
    )
