"""Numbers as the comparators and options take them, integers of any size included.

JSON puts no bound on an integer, and Python reads ``1`` followed by 400 zeros as one, but
a float cannot hold it. Comparators work in floats (and NumPy) for every number a float
holds; a pair involving an integer beyond that range is compared exactly, in rational
arithmetic, and only the final score (a number in [0, 1]) is rounded to a float.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeGuard

from .errors import ComparatorError, ConfigError, shown
from .values import is_number

if TYPE_CHECKING:
    from fractions import Fraction

# Integers below this in magnitude convert to a float without overflow (2**1024 overflows;
# a margin keeps the rounding of values just below it out of the question).
FLOAT_SAFE = 2**1023


def is_float_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number a float holds: any float, or an int of magnitude below ``FLOAT_SAFE``.
    The vectorised forms of the comparators take these; the others go pair by pair."""
    kind = type(value)
    if kind is float:
        return True
    if kind is int:  # (mypy does not narrow through ``kind``: ``value`` is not checked here)
        return bool(-FLOAT_SAFE < value < FLOAT_SAFE)
    return is_number(value) and (isinstance(value, float) or -FLOAT_SAFE < value < FLOAT_SAFE)


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """An int or float (never a boolean) that is finite as a float: what a numeric option
    may be. An integer too large for a float is not (no option means anything there)."""
    if not is_number(value):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def exact(value: int | float) -> Fraction:
    """A number as an exact rational (every float is one)."""
    from fractions import Fraction  # (only for integers beyond a float's range: rare)

    return Fraction(value)


def gap(expected: int | float, actual: int | float) -> float:
    """``|expected - actual|`` as a float: exact for integers of any size, ``inf`` when the
    difference is beyond float range."""
    try:
        return abs(float(expected) - float(actual))
    except OverflowError:
        return _to_float(abs(exact(expected) - exact(actual)))


def relative_gap(expected: int | float, actual: int | float) -> float:
    """``|expected - actual| / |expected|`` (expected not zero) as a float, exact for
    integers of any size; ``inf`` when beyond float range."""
    try:
        e, a = float(expected), float(actual)
    except OverflowError:
        return _to_float(abs(exact(expected) - exact(actual)) / abs(exact(expected)))
    return abs(e - a) / abs(e)


def _to_float(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


def whole_in(text: str, low: int, high: int) -> int | None:
    """``text`` as a whole number from ``low`` to ``high`` (0 <= low), None when it is not
    one. Only ASCII digits count (``str.isdigit`` passes ``²``, which ``int`` refuses), and
    they are counted before converting: thousands of digits are out of range, never handed
    to ``int`` (which refuses past 4,300)."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()):
        return None
    if len(digits.lstrip("0")) > len(str(high)):
        return None
    value = int(digits)
    return value if low <= value <= high else None


def whole_number(text: str, what: str, low: int, high: int, unit: str = "", note: str = "") -> int:
    """``text`` (a setting's) as a whole number from ``low`` to ``high``, else a ConfigError
    naming ``what`` and the range."""
    value = whole_in(text, low, high)
    if value is None:
        raise ConfigError(
            f"{what} must be a whole number {unit}from {low} to {high}{note}, not "
            f"{text[:40]!r}{'...' if len(text) > 40 else ''}"
        )
    return value


def check_score(name: str, value: Any) -> float:
    """A comparator's return value as a float in [0, 1], or ComparatorError saying why not
    (``value``: whatever a user's function returned, read by ``float()``; once per field,
    so no cast)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (str, bytes)):  # "0.5" is text, not a score
        raise ComparatorError(f"comparator {name!r} returned {shown(value)}, not a number")
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise ComparatorError(
            f"comparator {name!r} returned {shown(value)}, not a number"
        ) from None
    if not (0.0 <= score <= 1.0) or math.isnan(score):
        raise ComparatorError(f"comparator {name!r} returned {shown(value)}, outside [0, 1]")
    return score
