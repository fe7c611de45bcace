"""Invoice-like gold and predicted records for the dataset benchmarks (deterministic).

Each record has a nested vendor (with an address), a few scalars and four line items. A
prediction is its gold record damaged the way an extractor damages one: a typo in a string,
a changed number, a flipped boolean, its line items shuffled or one of them dropped, a
field left out or one added. The same records feed ``jsonmatch score`` (as JSONL files),
``evaluate_records`` and the reference implementations, so their figures compare.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

_CITIES = ["Berlin", "Lyon", "Porto", "Gdansk", "Utrecht", "Brno", "Turku", "Bilbao"]
_VENDORS = ["ACME Corp", "Initech GmbH", "Globex SA", "Umbrella BV", "Soylent Oy", "Hooli SL"]
_WORDS = ["bolt", "washer", "cable", "panel", "sensor", "hinge", "valve", "bracket", "lamp"]


def gold_record(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "invoice_id": f"INV-{i:06d}",
        "date": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "vendor": {
            "name": rng.choice(_VENDORS),
            "vat_id": f"EU{rng.randint(10**8, 10**9)}",
            "address": {
                "street": f"{rng.randint(1, 200)} {rng.choice(_WORDS).title()} St",
                "city": rng.choice(_CITIES),
                "country": rng.choice(["DE", "FR", "PT", "NL"]),
            },
        },
        "currency": rng.choice(["EUR", "USD"]),
        "total": round(rng.uniform(10, 5000), 2),
        "paid": rng.random() < 0.5,
        "line_items": [
            {
                "sku": f"SKU-{rng.randint(100, 999)}",
                "description": f"{rng.choice(_WORDS)} {rng.choice(_WORDS)}",
                "qty": rng.randint(1, 20),
                "unit_price": round(rng.uniform(1, 300), 2),
            }
            for _ in range(4)
        ],
    }


def _typo(rng: random.Random, text: str) -> str:
    if len(text) < 2:
        return text + "x"
    k = rng.randrange(len(text) - 1)
    return text[:k] + text[k + 1] + text[k] + text[k + 2 :]


def predicted_record(rng: random.Random, gold: dict[str, Any]) -> dict[str, Any]:
    pred = copy.deepcopy(gold)
    if rng.random() < 0.3:
        pred["vendor"]["name"] = _typo(rng, pred["vendor"]["name"])
    if rng.random() < 0.2:
        pred["total"] = round(pred["total"] * rng.choice([0.9, 1.01, 10]), 2)
    if rng.random() < 0.1:
        pred["paid"] = not pred["paid"]
    if rng.random() < 0.1:
        del pred["vendor"]["address"]["street"]
    if rng.random() < 0.1:
        pred["po_number"] = f"PO-{rng.randint(1, 9999)}"
    for item in pred["line_items"]:
        if rng.random() < 0.15:
            item["description"] = _typo(rng, item["description"])
        if rng.random() < 0.1:
            item["qty"] += 1
    if rng.random() < 0.3:
        rng.shuffle(pred["line_items"])
    if rng.random() < 0.15:
        pred["line_items"].pop(rng.randrange(len(pred["line_items"])))
    return pred


# The records' JSON Schema: a prediction with a field added (po_number) or left out (street)
# breaks it, as an extractor's answer would.
_ADDRESS = {
    "type": "object",
    "additionalProperties": False,
    "required": ["street", "city", "country"],
    "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"},
        "country": {"enum": ["DE", "FR", "PT", "NL"]},
    },
}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "item": {
            "type": "object",
            "additionalProperties": False,
            "required": ["sku", "description", "qty", "unit_price"],
            "properties": {
                "sku": {"type": "string", "pattern": "^SKU-[0-9]+$"},
                "description": {"type": "string", "minLength": 1},
                "qty": {"type": "integer", "minimum": 1},
                "unit_price": {"type": "number", "minimum": 0},
            },
        },
    },
    "type": "object",
    "additionalProperties": False,
    "required": ["invoice_id", "date", "vendor", "currency", "total", "paid", "line_items"],
    "properties": {
        "invoice_id": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "vendor": {
            "type": "object",
            "required": ["name", "vat_id", "address"],
            "properties": {
                "name": {"type": "string"},
                "vat_id": {"type": "string"},
                "address": _ADDRESS,
            },
        },
        "currency": {"enum": ["EUR", "USD"]},
        "total": {"type": "number", "minimum": 0},
        "paid": {"type": "boolean"},
        "line_items": {
            "type": "array",
            "items": {"$ref": "#/$defs/item"},
            "x-eval-align": "hungarian",
        },
    },
}


def records(n: int, seed: int = 29) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``n`` gold records and their predictions."""
    rng = random.Random(seed)
    gold = [gold_record(rng, i) for i in range(n)]
    return gold, [predicted_record(rng, g) for g in gold]


def write_jsonl(folder: Path, n: int, seed: int = 29) -> tuple[Path, Path]:
    """The records of :func:`records` as ``gold-N.jsonl`` and ``pred-N.jsonl`` in ``folder``."""
    gold, pred = records(n, seed)
    paths = folder / f"gold-{n}.jsonl", folder / f"pred-{n}.jsonl"
    for path, rows in zip(paths, (gold, pred)):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return paths
