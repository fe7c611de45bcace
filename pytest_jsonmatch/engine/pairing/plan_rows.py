"""A plan of flat_similarity.py read by a loop, for arrays whose plan has no code written.

flat_similarity.py writes a plan's code (``plan_source``) only once the plan has been met
``WRITE_AT`` times: writing it costs a few tenths of a millisecond, which a plan met once
never pays back. Until then an array of such a plan went the general way (columns, a call
per column: pair_scores.py), after its shapes were surveyed and its plan laid out for
nothing; a test suite's assertions, each its own shape, meet almost only such plans. Here the
same plan is carried out by two plain functions that do what its code would, step for step:
each element read into a row of prepared values (``rows``), then every pair's sum, union and
score in the column order, with the same floating-point operations in the same order
(``scores``). So their rows equal the written code's, to the bit
(``tests/engine/pairing/test_plan_rows.py``), at a fraction of the general path's cost for a
few elements (the loop's dispatch per cell costs more than written code, which is why a plan
met again and again still gets its code).

``INTERPRET = False`` sends such arrays the general way again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from ..core.numbers import FLOAT_SAFE
from ..core.values import JsonValue

INTERPRET = True  # False: an array whose plan has no code written takes the general path

# A plan's column forms (flat_similarity.py's ``_form`` gives them, taking them from here:
# the loop tells them apart by identity)
JACCARD, EQUAL, WITHIN = "jaccard", "equal", "within"
SCORE, SCORE_EQUAL = "score", "score_equal"
# the constants each form reads, in the order flat_similarity._form gives them
_CONSTANTS = {JACCARD: 0, EQUAL: 1, WITHIN: 2, SCORE: 1, SCORE_EQUAL: 1}
# A plan's columns as the loop reads them: each one's key, form, whether every element
# holds it, and its own constants (``columns``)
Columns: TypeAlias = "list[tuple[str, str, bool, tuple[Any, ...]]]"


def rows(
    columns: Columns,
    elements: Sequence[JsonValue],
    masks: dict[str, tuple[int, int]],
    bits: dict[str, int],
) -> list[list[Any]] | None:
    """Each element's row of prepared values, as the plan's ``read`` makes them: per column,
    a text's (token mask, token count) with ``masks`` and ``bits`` shared by both sides, an
    equality key, a number as a float, the value itself for a comparator's call; None for
    an absent value (a column not every element holds). None where a number is an integer
    no float holds (the general path scores it exactly)."""
    out: list[list[Any]] = []
    element: Any  # (an object of plain scalars: flat_similarity checked them)
    for element in elements:
        row: list[Any] = []
        for key, form, full, const in columns:
            v = element[key] if full else element.get(key)
            if v is None:  # (absent: only where the column is not full)
                row.append(None)
            elif form is JACCARD:
                found = masks.get(v)
                if found is None:
                    mask = 0
                    for token in v.lower().split():
                        bit = bits.get(token)
                        if bit is None:
                            bit = bits[token] = 1 << len(bits)
                        mask |= bit
                    found = masks[v] = (mask, mask.bit_count())
                row.append(found)
            elif form is EQUAL:
                row.append(const[0](v))
            elif form is WITHIN:
                if type(v) is float:
                    row.append(v)
                elif -FLOAT_SAFE < v < FLOAT_SAFE:
                    row.append(float(v))
                else:
                    return None  # (no float holds it: the general path scores it exactly)
            else:
                row.append(v)
        out.append(row)
    return out


def scalar_scores(
    form: str,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    constants: tuple[Any, ...],
) -> list[list[float]] | None:
    """The rows of pair scores of two arrays of scalar elements, each its element's one
    field (a plan of one column, its key the path ""), worked out per pair as ``scores``
    would for that plan: with one column a pair's sum is ``0.0 +`` its one score, its union
    1 where both values are there (a division by 1 changes nothing), and where one is null
    the sum 0.0 over a union of 1, where both are, 1.0 (an empty union). None where a
    number is an integer no float holds (the general path scores it exactly)."""
    form = _interned(form)
    if form is JACCARD:
        masks: dict[str, tuple[int, int]] = {}
        bits: dict[str, int] = {}
        prepared_e = _masks(expected, masks, bits)
        prepared_a = _masks(actual, masks, bits)
        out: list[list[float]] = []
        for x in prepared_e:
            line: list[float] = []
            for y in prepared_a:
                if x is None or y is None:
                    line.append(1.0 if x is y else 0.0)
                    continue
                xm, xn = x
                ym, yn = y
                s = xm & ym
                if s:
                    s = s.bit_count()
                    line.append(0.0 + s / (xn + yn - s))
                else:
                    line.append(1.0 if not xn and not yn else 0.0)
            out.append(line)
        return out
    if form is WITHIN:
        floats_e = _floats(expected)
        floats_a = _floats(actual) if floats_e is not None else None
        if floats_e is None or floats_a is None:
            return None
        limit, within = constants
        zero: float | None = None
        out = []
        for f in floats_e:
            line = []
            for g in floats_a:
                if f is None or g is None:
                    line.append(1.0 if f is g else 0.0)
                    continue
                d = f - g
                if -limit <= d <= limit:
                    if d:
                        line.append(0.0 + within(abs(d)))
                    else:
                        if zero is None:
                            zero = within(0.0)
                        line.append(0.0 + zero)
                else:
                    line.append(0.0)
            out.append(line)
        return out
    if form is EQUAL:
        key = constants[0]
        keys_e = [None if v is None else key(v) for v in expected]
        keys_a = [None if v is None else key(v) for v in actual]
        if keys_e.count(None) != expected.count(None) or keys_a.count(None) != actual.count(None):
            return None  # (a value keyed None, which the plan's code takes for a null)
        return [
            [
                (1.0 if x is y else 0.0) if x is None or y is None else (1.0 if x == y else 0.0)
                for y in keys_a
            ]
            for x in keys_e
        ]
    score = constants[0]
    equal_one = form is SCORE_EQUAL
    out = []
    for v in expected:
        line = []
        for w in actual:
            if v is None or w is None:
                line.append(1.0 if v is w else 0.0)
            elif equal_one and v == w and type(v) is type(w):
                line.append(1.0)
            else:
                line.append(0.0 + score(v, w))
        out.append(line)
    return out


def _masks(
    values: Sequence[JsonValue], masks: dict[str, tuple[int, int]], bits: dict[str, int]
) -> list[tuple[int, int] | None]:
    """Each text's token mask and count (``rows``' Jaccard column), None for a null."""
    out: list[tuple[int, int] | None] = []
    v: Any  # (a text or a null: the caller checked them)
    for v in values:
        if v is None:
            out.append(None)
            continue
        found = masks.get(v)
        if found is None:
            mask = 0
            for token in v.lower().split():
                bit = bits.get(token)
                if bit is None:
                    bit = bits[token] = 1 << len(bits)
                mask |= bit
            found = masks[v] = (mask, mask.bit_count())
        out.append(found)
    return out


def _floats(values: Sequence[JsonValue]) -> list[float | None] | None:
    """Each number as the float ``rows``' threshold column reads (None for a null); None
    where an integer is one no float holds."""
    out: list[float | None] = []
    v: Any  # (a number or a null: the caller checked them)
    for v in values:
        if v is None or type(v) is float:
            out.append(v)
        elif -FLOAT_SAFE < v < FLOAT_SAFE:
            out.append(float(v))
        else:
            return None
    return out


def scores(
    columns: Columns,
    uniform: bool,
    rows_e: list[list[Any]],
    rows_a: list[list[Any]],
    sizes_e: list[int],
    sizes_a: list[int],
) -> list[list[float]]:
    """The rows of pair scores, as the plan's ``scores`` makes them: each pair's sum of its
    columns' scores in column order (the sum itself where the plan is uniform), divided by
    the pair's union of fields."""
    full_count = sum(1 for _, _, full, _ in columns if full)
    partial = full_count < len(columns)
    # structeval's score of two equal numbers, asked once a column (as the code does)
    zeros: list[float | None] = [None] * len(columns)
    out: list[list[float]] = []
    for row_e, se in zip(rows_e, sizes_e):
        line: list[float] = []
        for row_a, sa in zip(rows_a, sizes_a):
            t = 0.0
            b = full_count
            for c, (_, form, full, const) in enumerate(columns):
                x, y = row_e[c], row_a[c]
                if not full:
                    if x is None or y is None:
                        continue
                    b += 1
                if form is JACCARD:
                    (xm, xn), (ym, yn) = x, y
                    s = xm & ym
                    if s:
                        s = s.bit_count()
                        t += s / (xn + yn - s)
                    elif not xn and not yn:
                        t += 1.0
                elif form is EQUAL:
                    if x == y:
                        t += 1.0
                elif form is WITHIN:
                    d = x - y
                    if -const[0] <= d <= const[0]:
                        if d:
                            t += const[1](abs(d))
                        else:
                            zero = zeros[c]
                            if zero is None:
                                zero = zeros[c] = const[1](0.0)
                            t += zero
                elif form is SCORE_EQUAL and x == y and type(x) is type(y):
                    t += 1.0
                else:
                    t += const[0](x, y)
            if uniform:
                line.append(t)
            elif full_count and not partial:
                line.append(t / (se - full_count + sa))
            else:
                u = se + sa - b
                line.append(t / u if u else 1.0)
        out.append(line)
    return out


def columns(
    forms: tuple[tuple[str, bool], ...], keys: list[str], constants: tuple[Any, ...]
) -> Columns:
    """Each column's key, form, fullness and own constants (the plan's constants are every
    column's in turn)."""
    out = []
    at = 0
    for key, (form, full) in zip(keys, forms):
        taken = _CONSTANTS[form]
        out.append((key, _interned(form), full, tuple(constants[at : at + taken])))
        at += taken
    return out


def _interned(form: str) -> str:
    """The form as this module's own string, so that the loop may test it by identity."""
    for known in (JACCARD, EQUAL, WITHIN, SCORE, SCORE_EQUAL):
        if form == known:
            return known
    raise ValueError(f"a plan's column form this loop does not know: {form!r}")
