"""The floor: the least work any field-by-field metric must do.

A bare recursive walk of expected against actual, leaves compared with ``==``, objects by
key (extra actual keys reported), arrays by index, one small result object per field: a
plain class with ``__slots__`` holding the field's path (a string, as a metric must name the
field), a match flag and both values. No options, no type rules, no scores, no pairing.
"""

from __future__ import annotations

from typing import Any

_MISSING = object()


class Leaf:
    __slots__ = ("path", "ok", "expected", "actual")

    def __init__(self, path: str, ok: bool, expected: Any, actual: Any) -> None:
        self.path = path
        self.ok = ok
        self.expected = expected
        self.actual = actual


def _walk(e: Any, a: Any, path: str, out: list[Leaf]) -> None:
    if type(e) is dict:
        if type(a) is not dict:
            a = {}
        for k, v in e.items():
            _walk(v, a.get(k, _MISSING), f"{path}.{k}" if path else k, out)
        for k in a.keys() - e.keys():
            out.append(Leaf(f"{path}.{k}" if path else k, False, _MISSING, a[k]))
    elif type(e) is list:
        if type(a) is not list:
            a = []
        n = len(a)
        for i, v in enumerate(e):
            _walk(v, a[i] if i < n else _MISSING, f"{path}[{i}]", out)
        for i in range(len(e), n):
            out.append(Leaf(f"{path}[{i}]", False, _MISSING, a[i]))
    else:
        out.append(Leaf(path, e == a, e, a))


def floor_compare(actual: Any, expected: Any) -> list[Leaf]:
    """One :class:`Leaf` per field of expected (and per extra field of actual)."""
    out: list[Leaf] = []
    _walk(expected, actual, "", out)
    return out
