"""Leaf comparators: each scores one expected value against one actual value in [0, 1].

A comparator is bound to its parameters once (``bind_*`` below) and then called per leaf;
its all-pairs forms (all_pairs.py) score whole columns for array pairing. Every built-in
scores values of different JSON types by exact equality, so a number never matches a string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, cast

from ..core.errors import ComparatorError, ConfigError, JsonMatchError, ParseError, shown
from ..core.numbers import FLOAT_SAFE, gap, is_finite_number, is_float_number, relative_gap
from ..core.paths import display_path
from ..core.slotted import HashedSlotted
from ..core.values import ARRAY, OBJECT, STRING, canonical_key, is_number, json_equal, json_type
from . import all_pairs, edit_distance, embeddings
from .all_pairs import AddScoresFn, Floats, MatrixFn
from .edit_distance import (
    BANDED_COST,
    EDIT_COST,
    LINEAR_COST,
    PARTIAL_COST,
    TextCost,
    levenshtein_similarity,
    refuse_past_the_limit,
)
from .embeddings import DEFAULT_EMBEDDER, Embedders
from .transforms import without_marks

if TYPE_CHECKING:
    from datetime import date

# A comparator's score of (expected, actual): JSON values, or what a field's transforms made
# of them (a custom transform's result is whatever it returns).
ScoreFn = Callable[[object, object], float]


class BoundComparator(HashedSlotted):
    """A comparator with its parameters applied: the one contract every comparator keeps,
    built-in or registered, plain or batch.

    - ``score(expected, actual)`` returns a float in [0, 1].
    - ``matrix`` and ``add_scores`` (optional) are its all-pairs forms (see all_pairs.py),
      which array pairing uses instead of a call per pair.
    - ``batch`` comparators are not called per leaf: they receive every field of a record
      that uses them in one call (the registry holds that function).
    - ``trusted``: a built-in, whose scores need no check.
    - ``prepare`` (optional) sees the strings of a whole record before the walk.
    - ``equal_one``: equal scalars score exactly 1, so callers may skip the call. A
      comparator declares it; left out, it holds for a trusted plain comparator and not
      for custom or batch ones (whose scores are unknown).
    - ``unequal_zero``: two plain scalars of one type that are not equal score exactly 0
      (equality alone decides, as for ``exact``), so callers may skip that call too. Only
      a built-in declares it.
    - ``text_cost``: what comparing two texts of given lengths costs (edit_distance.py),
      which bounds one comparison and the trajectory metric's pair checks
      (:func:`comparison_steps`); left out, an edit distance's (the product of the lengths,
      the most a registered comparator is taken to cost).
    """

    __slots__ = (
        "name",
        "score",
        "matrix",
        "batch",
        "params",
        "trusted",
        "add_scores",
        "prepare",
        "equal_one",
        "unequal_zero",
        "text_cost",
    )
    _uncompared = frozenset({"equal_one", "unequal_zero", "text_cost"})  # (from the rest)

    name: str
    score: ScoreFn
    matrix: MatrixFn | None
    batch: bool
    params: Mapping[str, object] | None
    trusted: bool
    add_scores: AddScoresFn | None
    prepare: Callable[[list[str]], None] | None
    equal_one: bool
    unequal_zero: bool
    text_cost: TextCost

    def __init__(
        self,
        name: str,
        score: ScoreFn,
        matrix: MatrixFn | None = None,
        batch: bool = False,
        params: Mapping[str, object] | None = None,
        trusted: bool = True,
        add_scores: AddScoresFn | None = None,
        prepare: Callable[[list[str]], None] | None = None,
        equal_one: bool | None = None,
        unequal_zero: bool = False,
        text_cost: TextCost = EDIT_COST,
    ) -> None:
        self.name, self.score, self.matrix = name, score, matrix
        self.batch, self.params, self.trusted = batch, params, trusted
        self.add_scores, self.prepare = add_scores, prepare
        self.equal_one = (trusted and not batch) if equal_one is None else equal_one
        self.unequal_zero, self.text_cost = unequal_zero, text_cost


def comparison_steps(comparator: BoundComparator, expected: int, actual: int) -> int:
    """The steps of one comparison by ``comparator`` of a text of ``expected`` characters
    with one of ``actual`` (edit_distance.py's unit: a microsecond or less each): the
    comparator's own cost, which the trajectory metric's budget counts."""
    return edit_distance.comparison_steps(comparator.text_cost, expected, actual)


def check_params(
    name: str, params: Mapping[str, object] | None, allowed: set[str]
) -> dict[str, object]:
    """``params`` as a dict, or ConfigError naming the parameters ``name`` does not know."""
    params = dict(params or {})
    unknown = set(params) - allowed
    if unknown:
        raise ConfigError(
            f"comparator {name!r} has no parameter {', '.join(sorted(map(repr, unknown)))}; "
            f"known: {', '.join(sorted(allowed)) or '(none)'}"
        )
    return params


def _number_param(name: str, key: str, value: object, minimum: float = 0.0) -> float:
    if not is_finite_number(value) or value < minimum:
        raise ConfigError(
            f"comparator {name!r}: {key} must be a number >= {minimum}, not {shown(value)}"
        )
    return float(value)


# -- exact ---------------------------------------------------------------------------------


def _exact(expected: object, actual: object) -> float:
    if type(expected) is type(actual) and type(expected) in _PLAIN_SCALARS:
        return 1.0 if expected == actual else 0.0  # (json_equal of two of one plain type)
    return 1.0 if json_equal(expected, actual) else 0.0


# the scalar types two values of which json_equal compares by ``==`` alone
_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def bind_exact(params: Mapping[str, object] | None = None) -> BoundComparator:
    check_params("exact", params, set())
    return BoundComparator(
        "exact",
        _exact,
        all_pairs.exact_matrix,
        add_scores=all_pairs.exact_pairs,
        unequal_zero=True,
        text_cost=LINEAR_COST,
    )


# -- normalized (Galtea): NFD, drop combining marks, casefold; recursive over strings --------


def normalize_text(text: str) -> str:
    """Accent-free, case-folded form of a string (Galtea's rule); whitespace is kept."""
    if text.isascii():
        return text.lower()  # nothing to decompose, and ASCII case-folds to lower case
    return without_marks(text).casefold()


def _normalized(expected: object, actual: object) -> float:
    return 1.0 if json_equal(expected, actual, normalize_text) else 0.0


def _normalized_key(value: object) -> Hashable:
    if type(value) is str:
        return (STRING, normalize_text(value))
    return canonical_key(_normalize_deep(value))


def _normalize_deep(value: object) -> object:
    tag = json_type(value)  # a string, a mapping or an array as it says: mypy cannot see it
    if tag == STRING:
        return normalize_text(cast(str, value))
    if tag == OBJECT:
        return {k: _normalize_deep(v) for k, v in cast("Mapping[str, object]", value).items()}
    if tag == ARRAY:
        return [_normalize_deep(v) for v in cast("Sequence[object]", value)]
    return value


def bind_normalized(params: Mapping[str, object] | None = None) -> BoundComparator:
    check_params("normalized", params, set())
    return BoundComparator(
        "normalized",
        _normalized,
        all_pairs.equality_matrix(_normalized_key),
        add_scores=all_pairs.equal_pairs(_normalized_key),
        text_cost=LINEAR_COST,
    )


# -- numeric (struct-extract-eval): 1 within tolerance, else 0 --------------------------------


def _coerce_number(value: object) -> object:
    """A numeric string read as its number (``coerce``); anything else as it is."""
    if type(value) is str:
        try:
            number = float(value.strip())
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    return value


def _numeric_exact(expected: object, actual: object) -> float:
    kind_e, kind_a = type(expected), type(actual)
    if (kind_e is int or kind_e is float) and (kind_a is int or kind_a is float):
        return 1.0 if expected == actual else 0.0
    return 1.0 if json_equal(expected, actual) else 0.0


def _numeric_params(params: Mapping[str, object] | None) -> tuple[float | None, float | None, bool]:
    """The numeric comparator's absolute and relative tolerances (None: not set) and coerce."""
    p = check_params("numeric", params, {"abs", "rel", "coerce", "tolerance"})
    tolerance = p.pop("tolerance", None)
    if tolerance is not None:  # the reference's spelling: {"tolerance": {"abs": .., "rel": ..}}
        if not isinstance(tolerance, Mapping):
            raise ConfigError(
                f"comparator 'numeric': tolerance must be a mapping, not {shown(tolerance)}"
            )
        p.update(check_params("numeric", tolerance, {"abs", "rel"}))
    abs_tol = _number_param("numeric", "abs", p["abs"]) if "abs" in p else None
    rel_tol = _number_param("numeric", "rel", p["rel"]) if "rel" in p else None
    coerce = p.get("coerce", False)
    if not isinstance(coerce, bool):
        raise ConfigError(
            f"comparator 'numeric': coerce must be true or false, not {shown(coerce)}"
        )
    return abs_tol, rel_tol, coerce


def bind_numeric(params: Mapping[str, object] | None = None) -> BoundComparator:
    abs_tol, rel_tol, coerce = _numeric_params(params)
    if abs_tol is None and rel_tol is None and not coerce:
        # the default: equal by value, the most common case by far
        return BoundComparator(
            "numeric",
            _numeric_exact,
            all_pairs.numbers_matrix(
                lambda expected, actual: (expected == actual).astype(float),
                _numeric_exact,
                lambda expected: all_pairs.np().zeros(len(expected)),
            ),
            params=dict(params or {}),
            add_scores=all_pairs.exact_pairs,
            unequal_zero=True,
            text_cost=LINEAR_COST,
        )

    def within(expected: Any, actual: Any) -> object:
        # works on floats and on numpy arrays alike (so typed by neither); every configured
        # tolerance must hold
        diff = abs(expected - actual)
        ok = True
        if abs_tol is not None:
            ok = diff <= abs_tol
        if rel_tol is not None:
            scale = abs(expected)
            scale = scale + (scale == 0)  # relative to expected; expected 0 divides by 1
            ok = ok & (diff / scale <= rel_tol)
        return (expected == actual) | ok

    def score(expected: object, actual: object) -> float:
        if coerce:
            expected, actual = _coerce_number(expected), _coerce_number(actual)
        if is_number(expected) and is_number(actual):
            if is_float_number(expected) and is_float_number(actual):
                return 1.0 if within(float(expected), float(actual)) else 0.0
            return 1.0 if within_exactly(expected, actual) else 0.0
        return 1.0 if json_equal(expected, actual) else 0.0

    def within_exactly(expected: int | float, actual: int | float) -> bool:
        """``within`` for a pair a float cannot hold (an integer beyond float range)."""
        if expected == actual:
            return True
        diff = gap(expected, actual)
        ok = abs_tol is None or diff <= abs_tol
        if rel_tol is not None:
            ok = ok and (relative_gap(expected, actual) if expected != 0 else diff) <= rel_tol
        return ok

    def halfwidth(expected: Floats) -> Floats:
        np = all_pairs.np()
        widths: list[Floats] = []
        if abs_tol is not None:
            widths.append(np.full(len(expected), abs_tol))
        if rel_tol is not None:
            scale = np.abs(expected)
            widths.append(rel_tol * np.where(scale == 0, 1.0, scale))
        narrowest: Floats = np.minimum.reduce(widths)
        return narrowest

    matrix = (
        None
        if coerce
        else all_pairs.numbers_matrix(
            lambda expected, actual: all_pairs.np().asarray(within(expected, actual), dtype=float),
            score,
            halfwidth,
        )
    )
    return BoundComparator(
        "numeric", score, matrix, params=dict(params or {}), text_cost=LINEAR_COST
    )


# -- oneof -----------------------------------------------------------------------------------


def bind_oneof(params: Mapping[str, object] | None = None) -> BoundComparator:
    p = check_params("oneof", params, {"values"})
    values = p.get("values")
    if not isinstance(values, (list, tuple)):
        raise ConfigError(f"comparator 'oneof' needs values: a list, not {shown(values)}")
    accepted = {canonical_key(v) for v in values}

    def score(expected: object, actual: object) -> float:
        # the expected value plays no part: any listed value is right (as the reference does)
        return 1.0 if canonical_key(actual) in accepted else 0.0

    # equal values do not score 1: an equal value outside the list scores 0
    return BoundComparator("oneof", score, params=p, equal_one=False, text_cost=LINEAR_COST)


# -- levenshtein (UiPath strings) -------------------------------------------------------------


def _levenshtein(expected: object, actual: object) -> float:
    if type(expected) is str and type(actual) is str:
        return 1.0 if expected == actual else levenshtein_similarity(expected, actual)
    return _exact(expected, actual)


def bind_levenshtein(params: Mapping[str, object] | None = None) -> BoundComparator:
    check_params("levenshtein", params, set())
    return BoundComparator(
        "levenshtein",
        _levenshtein,
        all_pairs.strings_matrix(all_pairs.levenshtein_block),
        text_cost=BANDED_COST,
    )


# -- jaccard (structeval strings) -------------------------------------------------------------


def _jaccard(expected: object, actual: object) -> float:
    if type(expected) is str and type(actual) is str:
        if expected == actual:
            return 1.0
        if expected.isalnum() and actual.isalnum():  # one token each
            return 1.0 if expected.lower() == actual.lower() else 0.0
        tokens_e, tokens_a = all_pairs.token_set(expected), all_pairs.token_set(actual)
        if not tokens_e and not tokens_a:
            return 1.0
        shared = len(tokens_e & tokens_a)
        return shared / (len(tokens_e) + len(tokens_a) - shared)
    return _exact(expected, actual)


def bind_jaccard(params: Mapping[str, object] | None = None) -> BoundComparator:
    check_params("jaccard", params, set())
    return BoundComparator(
        "jaccard",
        _jaccard,
        all_pairs.strings_matrix(all_pairs.jaccard_block),
        add_scores=cast(AddScoresFn, all_pairs.jaccard_pairs),  # called with strings only
        text_cost=LINEAR_COST,
    )


# -- relative number (UiPath): 1 - |e - a| / |e|, floored at 0 --------------------------------


def _relative(expected: object, actual: object) -> float:
    kind_e, kind_a = type(expected), type(actual)
    if (
        (kind_e is float or (kind_e is int and -FLOAT_SAFE < expected < FLOAT_SAFE))  # type: ignore[operator]
        and (kind_a is float or (kind_a is int and -FLOAT_SAFE < actual < FLOAT_SAFE))  # type: ignore[operator]
    ):  # (plain numbers a float holds: the general way's first branch, without its calls)
        e, a = float(expected), float(actual)  # type: ignore[arg-type]
        if abs(e) <= all_pairs.ZERO:
            return 1.0 if abs(a) <= all_pairs.ZERO else 0.0
        score = 1.0 - abs(e - a) / abs(e)
        return score if score > 0.0 else 0.0  # (max(0.0, score), without the call)
    if is_number(expected) and is_number(actual):
        if is_float_number(expected) and is_float_number(actual):
            e, a = float(expected), float(actual)
            if abs(e) <= all_pairs.ZERO:
                return 1.0 if abs(a) <= all_pairs.ZERO else 0.0
            return max(0.0, 1.0 - abs(e - a) / abs(e))
        if expected == 0:  # and actual beyond float range
            return 0.0
        return max(0.0, 1.0 - relative_gap(expected, actual))
    return _exact(expected, actual)


def bind_relative(params: Mapping[str, object] | None = None) -> BoundComparator:
    check_params("relative", params, set())
    return BoundComparator(
        "relative",
        _relative,
        all_pairs.numbers_matrix(all_pairs.relative_block, _relative),
        text_cost=LINEAR_COST,
    )


# -- threshold number (structeval): d > t -> 0, else 1 - (d / t) ** (1 / w) -------------------


def bind_threshold(params: Mapping[str, object] | None = None) -> BoundComparator:
    p = check_params("threshold", params, {"threshold", "weighting"})
    t = _number_param("threshold", "threshold", p.get("threshold", 0.001))
    w = _number_param("threshold", "weighting", p.get("weighting", 0.1))
    if t == 0:
        raise ConfigError("comparator 'threshold': threshold must be greater than 0")
    power = math.inf if w == 0 else 1.0 / w

    def within(d: float) -> float:
        """The score of two numbers ``d <= t`` apart (called only for such pairs)."""
        return 1.0 if w == 0 else 1.0 - (d / t) ** power  # w = 0: no penalty inside t

    def score(expected: object, actual: object) -> float:
        kind_e, kind_a = type(expected), type(actual)
        if (
            (kind_e is float or (kind_e is int and -FLOAT_SAFE < expected < FLOAT_SAFE))  # type: ignore[operator]
            and (kind_a is float or (kind_a is int and -FLOAT_SAFE < actual < FLOAT_SAFE))  # type: ignore[operator]
        ):  # (plain numbers a float holds: gap's own arithmetic, without the calls)
            d = abs(float(expected) - float(actual))  # type: ignore[arg-type]
            return 0.0 if d > t else within(d)
        if is_number(expected) and is_number(actual):
            d = gap(expected, actual)
            return 0.0 if d > t else within(d)
        return _exact(expected, actual)

    matrix, add_scores = all_pairs.threshold_forms(t, w, within, score)
    return BoundComparator(
        "threshold",
        score,
        matrix,
        params={"threshold": t, "weighting": w},
        add_scores=add_scores,
        text_cost=LINEAR_COST,
    )


# -- binary (structeval): Python equality of scalars ---------------------------------------------


def _binary(expected: object, actual: object) -> float:
    """structeval's binary evaluator: 1 when the values are equal as Python sees them, so
    ``true`` equals ``1`` and ``1`` equals ``1.0``; objects and arrays by JSON equality."""
    if type(expected) in (dict, list) or type(actual) in (dict, list):
        return _exact(expected, actual)
    return 1.0 if expected == actual else 0.0


def _binary_key(value: object) -> Hashable:
    # True, 1 and 1.0 are equal and hash alike: one bucket
    if type(value) in (bool, int, float):
        return ("n", value)
    return canonical_key(value)


def bind_binary(params: Mapping[str, object] | None = None) -> BoundComparator:
    check_params("binary", params, set())
    return BoundComparator(
        "binary",
        _binary,
        all_pairs.equality_matrix(_binary_key),
        add_scores=all_pairs.equal_pairs(_binary_key),
        text_cost=LINEAR_COST,
    )


# -- date: dates written differently, compared as dates ------------------------------------------


@cache
def _iso_date() -> re.Pattern[str]:
    """ISO-8601 calendar dates, extended (2024-03-09) or basic (20240309), optionally with a
    time: compiled when a date comparator first reads a text."""
    return re.compile(
        r"(?P<y>\d{4})(?P<sep>-?)(?P<m>\d{2})(?P=sep)(?P<d>\d{2})"
        r"(?:[T ]\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?"
    )


# The longest text read as a date, white space around it aside: a date with its time, zone
# and words ("Wednesday, 9 September 2024 10:00:00 Central European Summer Time") is far
# shorter. A longer text compares exactly, and no long text is kept in the cache below.
MAX_DATE_TEXT = 128


def _parse_date(text: str, formats: tuple[str, ...]) -> date | None:
    """The calendar date ``text`` writes (ISO-8601, else one of ``formats``), or None."""
    text = text.strip()
    return None if len(text) > MAX_DATE_TEXT else _read_date(text, formats)


@lru_cache(maxsize=8192)  # short texts only: about 2 MB at most
def _read_date(text: str, formats: tuple[str, ...]) -> date | None:
    """``_parse_date`` of a stripped text of at most MAX_DATE_TEXT characters."""
    from datetime import date, datetime  # (only where dates are compared)

    found = _iso_date().fullmatch(text)
    if found is not None:
        try:
            return date(int(found["y"]), int(found["m"]), int(found["d"]))
        except ValueError:
            pass
    for pattern in formats:
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    return None


def bind_date(params: Mapping[str, object] | None = None) -> BoundComparator:
    """Strings that write dates, compared as calendar dates: ISO-8601 (``2024-03-09``,
    ``20240309``, with or without a time) and each of ``formats`` (strptime patterns, tried
    in order: ``["%d/%m/%Y"]`` reads ``09/03/2024`` as 9 March). A time is ignored. Values
    that are not dates compare exactly, and so does a text longer than MAX_DATE_TEXT
    characters once stripped."""
    p = check_params("date", params, {"formats"})
    formats = p.get("formats", [])
    if isinstance(formats, str):
        formats = [formats]
    if not isinstance(formats, (list, tuple)) or not all(
        isinstance(f, str) and "%" in f for f in formats
    ):
        raise ConfigError(
            f"comparator 'date': formats must be a list of strptime patterns such as "
            f"'%d/%m/%Y', not {formats!r}"
        )
    patterns = tuple(formats)

    def key(value: object) -> Hashable:
        if type(value) is str:
            day = _parse_date(value, patterns)
            if day is not None:
                return ("date", day)
        return canonical_key(value)

    def score(expected: object, actual: object) -> float:
        if type(expected) is str and type(actual) is str:
            if expected == actual:
                return 1.0
            day_e, day_a = _parse_date(expected, patterns), _parse_date(actual, patterns)
            if day_e is not None and day_a is not None:
                return 1.0 if day_e == day_a else 0.0
        return _exact(expected, actual)

    return BoundComparator(
        "date",
        score,
        all_pairs.equality_matrix(key),
        params={"formats": list(patterns)},
        add_scores=all_pairs.equal_pairs(key),
        text_cost=LINEAR_COST,
    )


# -- fuzzy (stickler-eval strings): RapidFuzz's token-set or partial ratio ----------------------

FUZZY_METHODS = ("token_set", "partial")


def bind_fuzzy(params: Mapping[str, object] | None = None) -> BoundComparator:
    """RapidFuzz's ``token_set_ratio`` (``method: token_set``, the default) or
    ``partial_ratio`` (``method: partial``) of two strings, divided by 100, as RapidFuzz
    computes it (no preprocessing: add the ``lowercase`` transform to ignore case). Equal
    strings score 1 (RapidFuzz gives two empty strings 0); other values compare exactly.
    Two texts that would cost more than one comparison may (edit_distance.py; partial_ratio
    costs about the longer length times the square of the shorter's) are a ComparatorError
    naming their lengths and the limit."""
    p = check_params("fuzzy", params, {"method"})
    method = p.get("method", "token_set")
    if method not in FUZZY_METHODS:
        raise ConfigError(
            f"comparator 'fuzzy': method must be one of {', '.join(FUZZY_METHODS)}, "
            f"not {shown(method)}"
        )
    ratio = all_pairs.fuzzy_scorer(method)
    cost = PARTIAL_COST if method == "partial" else EDIT_COST
    what, hint = all_pairs.fuzzy_refusal(method)

    def score(expected: object, actual: object) -> float:
        if type(expected) is str and type(actual) is str:
            if expected == actual:
                return 1.0
            refuse_past_the_limit(what, cost, len(expected), len(actual), hint)
            return min(1.0, max(0.0, ratio(expected, actual) / 100.0))
        return _exact(expected, actual)

    return BoundComparator(
        "fuzzy",
        score,
        all_pairs.strings_matrix(all_pairs.fuzzy_block(method)),
        params={"method": method},
        text_cost=cost,
    )


# -- iou: intersection over union of bounding boxes -------------------------------------------

BOX_FORMS = "[x0, y0, x1, y1] or {x, y, width, height}"


def box_of(value: object) -> tuple[float, float, float, float] | None:
    """``value`` as a box ``(x0, y0, x1, y1)``: a list ``[x0, y0, x1, y1]`` with x0 <= x1 and
    y0 <= y1, or an object with exactly the keys ``x``, ``y``, ``width``, ``height``
    (width and height >= 0); None when it is neither (booleans are not numbers)."""
    if type(value) is list and len(value) == 4:
        corners, numbers = value, value
    elif type(value) is dict and value.keys() == {"x", "y", "width", "height"}:
        corners, numbers = None, [value["x"], value["y"], value["width"], value["height"]]
    else:
        return None
    if not all(is_number(n) for n in numbers):
        return None
    try:
        a, b, c, d = (float(n) for n in numbers)
    except OverflowError:  # an integer beyond float range
        return None
    if not all(math.isfinite(n) for n in (a, b, c, d)):
        return None
    if corners is None:
        if c < 0 or d < 0:
            return None
        c, d = a + c, b + d
        if not (math.isfinite(c) and math.isfinite(d)):
            return None
    elif c < a or d < b:
        return None
    return a, b, c, d


def box_iou(e: tuple[float, float, float, float], a: tuple[float, float, float, float]) -> float:
    """Intersection over union of two boxes; a union of zero area (degenerate boxes) is 1
    when the boxes are the same, else 0."""
    width = min(e[2], a[2]) - max(e[0], a[0])
    height = min(e[3], a[3]) - max(e[1], a[1])
    inter = width * height if width > 0 and height > 0 else 0.0
    union = (e[2] - e[0]) * (e[3] - e[1]) + (a[2] - a[0]) * (a[3] - a[1]) - inter
    if union <= 0.0:
        return 1.0 if e == a else 0.0
    return min(1.0, max(0.0, inter / union))


def _iou(expected: object, actual: object) -> float:
    if json_equal(expected, actual):
        return 1.0
    box_e = box_of(expected)
    if box_e is None:
        raise ComparatorError(
            f"comparator 'iou': the expected value {shown(expected)} is not a box ({BOX_FORMS})"
        )
    box_a = box_of(actual)
    return 0.0 if box_a is None else box_iou(box_e, box_a)


def bind_iou(params: Mapping[str, object] | None = None) -> BoundComparator:
    """Intersection over union of two bounding boxes, each ``[x0, y0, x1, y1]`` or
    ``{x, y, width, height}`` (the two sides may differ). Equal values score 1; an expected
    value that is not a box is a ComparatorError naming it, an actual one scores 0."""
    check_params("iou", params, set())
    return BoundComparator("iou", _iou, text_cost=LINEAR_COST)


# -- cosine: embedding similarity of strings --------------------------------------------------------


def comparator_defaults(opts: Mapping[str, object]) -> dict[str, dict[str, object]]:
    """Parameters the options give every comparator of a kind that does not set them: the
    ``embedder`` option is the embedder of every ``cosine`` comparator."""
    embedder = opts.get("embedder")
    return {"cosine": {"embedder": embedder}} if embedder is not None else {}


def bind_cosine(
    params: Mapping[str, object] | None = None, *, embedders: Embedders
) -> BoundComparator:
    """The cosine similarity of the two strings' embeddings (structeval's cosine evaluator),
    clipped to [0, 1]; equal strings score 1, other values compare exactly. ``embedder``: a
    callable or a name (see embeddings.py); by default the ``embedder`` option, else
    structeval's all-MiniLM-L6-v2."""
    p = check_params("cosine", params, {"embedder"})
    handle = embedders.handle(p.get("embedder", DEFAULT_EMBEDDER))

    def score(expected: object, actual: object) -> float:
        if type(expected) is str and type(actual) is str:
            if expected == actual:
                return 1.0
            return float(embeddings.similarity(handle, [expected], [actual])[0, 0])
        return _exact(expected, actual)

    def block(expected: list[str], actual: list[str]) -> Floats:
        return embeddings.similarity(handle, expected, actual)

    def prepare(texts: list[str]) -> None:
        embeddings.unit_vectors(handle, texts)

    return BoundComparator(
        "cosine",
        score,
        all_pairs.strings_matrix(block),
        params={"embedder": handle.name},
        add_scores=all_pairs.block_pairs(block),  # called with columns of strings only
        prepare=prepare,
        text_cost=LINEAR_COST,  # (an embedder reads each text once; its vectors are cached)
    )


# -- by kind: booleans, integers and other numbers, each with its own comparator ----------------


def _kind(value: object) -> str | None:
    kind = type(value)
    if kind is bool:
        return "boolean"
    if kind is int:
        return "integer"
    if kind is float:
        return "number"
    return None


def by_kind(table: Mapping[str, BoundComparator], slot: str = "number") -> BoundComparator:
    """One comparator for booleans and numbers whose kinds (``boolean``, ``integer``,
    ``number``) each have their own: two integers take the integer comparator, an integer and
    a float the number comparator, a boolean against a number the comparator both kinds share
    (structeval's rule: same evaluator, or a type mismatch scoring 0). Anything else compares
    exactly. ``slot``: the JSON type it stands for (``number`` or ``boolean``), which names it."""
    named = (table["boolean"],) if slot == "boolean" else (table["integer"], table["number"])
    names = sorted({comparator.name for comparator in named})
    integer, number = table["integer"], table["number"]

    def choose(expected: object, actual: object) -> BoundComparator | None:
        kind_e, kind_a = _kind(expected), _kind(actual)
        if kind_e is None or kind_a is None:
            return None
        if kind_e == kind_a:
            return table[kind_e]
        if "boolean" not in (kind_e, kind_a):
            return number
        if table[kind_e] is table[kind_a]:
            return table[kind_e]
        return None

    def score(expected: object, actual: object) -> float:
        chosen = choose(expected, actual)
        return _exact(expected, actual) if chosen is None else chosen.score(expected, actual)

    matrix: MatrixFn | None = None
    number_matrix, integer_matrix = number.matrix, integer.matrix
    if integer_matrix is not None and number_matrix is not None:

        def both_matrix(expected: Sequence[object], actual: Sequence[object]) -> Floats:
            np = all_pairs.np()
            both_int = (
                np.array([type(v) is int for v in expected])[:, None]
                & np.array([type(v) is int for v in actual])[None, :]
            )
            out: Floats = np.asarray(number_matrix(expected, actual), dtype=float)
            if both_int.any():
                out = np.where(both_int, integer_matrix(expected, actual), out)
            return out

        matrix = both_matrix

    return BoundComparator(
        "/".join(names),
        score,
        matrix,
        trusted=all(c.trusted for c in table.values()),
        text_cost=LINEAR_COST,  # (texts compare exactly: numbers and booleans are its kinds)
    )


def score_at(comparator: BoundComparator, expected: object, actual: object, path: str) -> float:
    """``comparator.score(expected, actual)`` for the field at ``path``: a comparator that
    fails is a ComparatorError naming it and the field, never a traceback from inside it."""
    try:
        return comparator.score(expected, actual)
    except ComparatorError as exc:
        raise ComparatorError(f"{exc} at {display_path(path)}") from None
    except ParseError as exc:  # a transform handed the comparator a value that is not JSON
        raise ParseError(f"{display_path(path)}: {exc}") from None
    except JsonMatchError:
        raise
    except Exception as exc:  # noqa: BLE001 - name the comparator and field, not a deep traceback
        raise ComparatorError(
            f"comparator {shown(comparator.name)} raised {type(exc).__name__}: {exc} "
            f"at {display_path(path)}"
        ) from None


BUILTIN_COMPARATORS: dict[str, Callable[[Mapping[str, object] | None], BoundComparator]] = {
    "exact": bind_exact,
    "normalized": bind_normalized,
    "numeric": bind_numeric,
    "oneof": bind_oneof,
    "levenshtein": bind_levenshtein,
    "jaccard": bind_jaccard,
    "relative": bind_relative,
    "threshold": bind_threshold,
    "binary": bind_binary,
    "date": bind_date,
    "fuzzy": bind_fuzzy,
    "iou": bind_iou,
}
