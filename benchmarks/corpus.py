"""Deterministic corpus of realistic extraction records: (actual, expected) pairs.

Every record is one of five shapes — flat, nested, array of objects, with typos, with a
reordered array — and holds 8 to 40 leaves. ``actual`` is derived from ``expected`` by the
kind of damage an extractor does: typos, changed numbers, a dropped or an extra key, array
elements in another order. Same seed, same corpus.
"""

from __future__ import annotations

import copy
import random
import string
from typing import Any

KINDS = ("flat", "nested", "array", "typos", "reordered")
_WORDS = (
    "acme",
    "widget",
    "north",
    "invoice",
    "delivery",
    "blue",
    "steel",
    "river",
    "alpha",
    "omega",
    "market",
    "street",
    "cotton",
    "paper",
    "london",
    "berlin",
    "paris",
    "lake",
)


def _word(rng: random.Random) -> str:
    return rng.choice(_WORDS)


def _text(rng: random.Random, lo: int = 1, hi: int = 4) -> str:
    return " ".join(_word(rng) for _ in range(rng.randint(lo, hi))).title()


def _scalar(rng: random.Random, name: str) -> Any:
    r = rng.random()
    if r < 0.45:
        return _text(rng)
    if r < 0.65:
        return round(rng.uniform(1, 5000), 2)
    if r < 0.8:
        return rng.randint(0, 500)
    if r < 0.9:
        return rng.random() < 0.5
    if r < 0.95:
        return None
    return f"{rng.randint(2000, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _flat(rng: random.Random, n: int) -> dict[str, Any]:
    return {f"field_{i}": _scalar(rng, f"field_{i}") for i in range(n)}


def _item(rng: random.Random) -> dict[str, Any]:
    return {
        "sku": "".join(rng.choices(string.ascii_uppercase + string.digits, k=8)),
        "description": _text(rng, 2, 5),
        "quantity": rng.randint(1, 20),
        "unit_price": round(rng.uniform(1, 300), 2),
    }


def _nested(rng: random.Random, leaves: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": f"DOC-{rng.randint(1000, 9999)}", "title": _text(rng)}
    left = leaves - 2
    group = 0
    while left > 0:
        size = min(left, rng.randint(2, 6))
        inner = _flat(rng, size)
        if size >= 4 and size < left and rng.random() < 0.5:  # a second level
            k = next(iter(inner))
            inner[k] = {"value": inner[k], "unit": _word(rng)}
            size += 1
        doc[f"section_{group}"] = inner
        left -= size
        group += 1
    return doc


def _with_items(rng: random.Random, leaves: int) -> dict[str, Any]:
    n_items = max(1, (leaves - 4) // 4)
    return {
        "invoice_number": f"INV-{rng.randint(1000, 99999)}",
        "vendor": _text(rng, 1, 3),
        "date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "total": round(rng.uniform(10, 9999), 2),
        "items": [_item(rng) for _ in range(n_items)],
    }


def _typo(rng: random.Random, s: str) -> str:
    if not s:
        return "x"
    i = rng.randrange(len(s))
    op = rng.random()
    if op < 0.4:
        return s[:i] + rng.choice(string.ascii_lowercase) + s[i + 1 :]
    if op < 0.7:
        return s[:i] + s[i + 1 :]
    return s[:i] + rng.choice(string.ascii_lowercase) + s[i:]


def _damage(rng: random.Random, value: Any, rate: float) -> Any:
    """A copy of ``value`` with typos, changed numbers and dropped/extra keys at ``rate``."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if rng.random() < rate / 4:
                continue  # omission
            out[k] = _damage(rng, v, rate)
        if rng.random() < rate / 2:
            out[f"extra_{rng.randint(0, 99)}"] = _text(rng)  # hallucination
        return out
    if isinstance(value, list):
        return [_damage(rng, v, rate) for v in value]
    if isinstance(value, str) and rng.random() < rate:
        return _typo(rng, value)
    if isinstance(value, float) and rng.random() < rate:
        return round(value * rng.uniform(0.9, 1.1), 2)
    if type(value) is int and rng.random() < rate:
        return value + rng.randint(1, 3)
    return value


def count_leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(count_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_leaves(v) for v in value)
    return 1


def make_pair(rng: random.Random, kind: str, leaves: int) -> tuple[Any, Any]:
    """One ``(actual, expected)`` pair of ``kind`` with about ``leaves`` leaves (8..40)."""
    if kind == "flat":
        expected = _flat(rng, leaves)
        actual = _damage(rng, expected, 0.1)
    elif kind == "nested":
        expected = _nested(rng, leaves)
        actual = _damage(rng, expected, 0.1)
    elif kind == "array":
        expected = _with_items(rng, leaves)
        actual = _damage(rng, expected, 0.1)
    elif kind == "typos":
        expected = _nested(rng, leaves) if rng.random() < 0.5 else _flat(rng, leaves)
        actual = _damage(rng, expected, 0.5)
    elif kind == "reordered":
        expected = _with_items(rng, leaves)
        actual = _damage(rng, {k: v for k, v in expected.items() if k != "items"}, 0.05)
        actual["items"] = _damage(rng, expected["items"], 0.05)
        rng.shuffle(actual["items"])
    else:  # pragma: no cover
        raise ValueError(kind)
    return actual, expected


def corpus(n: int, seed: int = 1234) -> list[tuple[Any, Any]]:
    """``n`` pairs, the five kinds in turn, leaf counts spread over 8..40."""
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        pairs.append(make_pair(rng, kind, rng.randint(8, 40)))
    return pairs


def flat8(n: int, seed: int = 99) -> list[tuple[Any, Any]]:
    """``n`` flat 8-field pairs (the issue's reference point for the floor)."""
    rng = random.Random(seed)
    return [make_pair(rng, "flat", 8) for _ in range(n)]


def shuffled_objects(n: int, seed: int = 7) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(actual, expected)``: ``{"items": [n distinct 6-field objects]}``, actual a pure
    shuffle of expected (deep copies, no other change)."""
    rng = random.Random(seed)
    items = [
        {
            "id": f"OBJ-{i:06d}",
            "name": _text(rng, 1, 3),
            "city": _word(rng).title(),
            "amount": round(rng.uniform(1, 10000), 2),
            "count": rng.randint(0, 1000),
            "active": rng.random() < 0.5,
        }
        for i in range(n)
    ]
    shuffled = copy.deepcopy(items)
    rng.shuffle(shuffled)
    return {"items": shuffled}, {"items": items}


def damaged_shuffle(n: int, seed: int = 7) -> tuple[dict[str, Any], dict[str, Any]]:
    """As :func:`shuffled_objects`, then half the names get a typo and 30% of the amounts
    move by 1%: no element has an exact copy left, so no shortcut pairs them."""
    actual, expected = shuffled_objects(n, seed)
    rng = random.Random(seed + 1)
    for item in actual["items"]:
        if rng.random() < 0.5:
            item["name"] = _typo(rng, item["name"])
        if rng.random() < 0.3:
            item["amount"] = round(item["amount"] * 1.01, 2)
    return actual, expected
