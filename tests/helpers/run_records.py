"""Records and a run of them shared by the tests that hold ``evaluate_records``' routes to
one another: an invoice, a damaged answer to it, and everything a run says as exact text."""

from __future__ import annotations

from typing import Any

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
