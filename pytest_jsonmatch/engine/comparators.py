"""Leaf comparators: each scores one expected value against one actual value in [0, 1].

A comparator is bound to its parameters once (``bind_*`` below) and then called per leaf.
Comparators that can also score every pair of two value lists in one vectorised call
provide ``matrix``; array pairing uses it to build pair-score matrices without a Python
call per pair.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rapidfuzz.distance import Levenshtein

from .errors import ConfigError
from .transforms import without_marks
from .values import STRING, canonical_key, json_equal, json_type

if TYPE_CHECKING:
    import numpy as np

ScoreFn = Callable[[Any, Any], float]
MatrixFn = Callable[[Sequence[Any], Sequence[Any]], "np.ndarray"]
# add_scores(expected values, actual values, their rows, their columns, tp): see below
SparseAddFn = Callable[[Sequence[Any], Sequence[Any], Sequence[int], Sequence[int],
                        list[list[float]]], None]


@dataclass(frozen=True)
class BoundComparator:
    """A comparator with its parameters applied.

    ``score(expected, actual)`` returns a float in [0, 1]. ``matrix`` (optional) returns the
    len(expected) x len(actual) matrix of the same scores. ``add_scores`` (optional), given
    values of one JSON type, adds every pair's score into ``tp[rows[k]][cols[l]]`` (a list of
    rows) at a fraction of a call per pair: values prepared once, pairs that must score 0
    skipped (equality by hashing, numbers by a sorted window). ``batch`` comparators are not
    called per leaf: they receive every field of a record that uses them in one call.
    """

    name: str
    score: ScoreFn
    matrix: MatrixFn | None = None
    batch: bool = False
    params: Mapping[str, Any] | None = None
    trusted: bool = True  # built-ins; other scores are checked to lie in [0, 1]
    add_scores: SparseAddFn | None = None
    # Equal scalars score exactly 1, so the walk may skip the call: true of every built-in
    # but ``oneof`` (its score ignores the expected value); unknown for custom ones.
    equal_one: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "equal_one",
                           self.trusted and not self.batch and self.name != "oneof")


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) or (
        isinstance(value, (int, float)) and not isinstance(value, bool)
    )


def _params(name: str, params: Mapping[str, Any] | None, allowed: set[str]) -> dict[str, Any]:
    params = dict(params or {})
    unknown = set(params) - allowed
    if unknown:
        raise ConfigError(
            f"comparator {name!r} has no parameter {', '.join(sorted(map(repr, unknown)))}; "
            f"known: {', '.join(sorted(allowed)) or '(none)'}"
        )
    return params


def _float_param(name: str, key: str, value: Any, minimum: float = 0.0) -> float:
    if not _is_number(value) or not math.isfinite(value) or value < minimum:
        raise ConfigError(f"comparator {name!r}: {key} must be a number >= {minimum}, not {value!r}")
    return float(value)


# --- numpy helpers (numpy comes with scipy; imported lazily to keep start-up light) -------


def _np() -> Any:
    import numpy

    return numpy


def _codes(values: Sequence[Any], table: dict[Any, int], key: Callable[[Any], Any]) -> Any:
    np = _np()
    out = np.empty(len(values), dtype=np.int64)
    for i, value in enumerate(values):
        out[i] = table.setdefault(key(value), len(table))
    return out


# Most pairs of a large pairing score 0 (different SKUs, prices far apart). Comparators whose
# non-zero scores lie in a window around the expected value find those pairs by sorting and
# binary search, and fill a zero matrix, instead of evaluating every pair; when the windows
# hold a large share of all pairs, evaluating every pair is cheaper and is done instead.
_DENSE_SHARE = 0.25


def _window_pairs(e: Any, a: Any, halfwidth: Any) -> tuple[Any, Any] | None:
    """(rows, cols) of every pair with |e - a| <= halfwidth (a superset, padded against
    rounding), or None when they are too many to be worth listing."""
    np = _np()
    order = np.argsort(a, kind="stable")
    ordered = a[order]
    pad = halfwidth * 1e-9 + np.abs(e) * 1e-12 + 1e-300
    lo = np.searchsorted(ordered, e - halfwidth - pad, "left")
    hi = np.searchsorted(ordered, e + halfwidth + pad, "right")
    counts = hi - lo
    total = int(counts.sum())
    if total > _DENSE_SHARE * len(e) * len(a):
        return None
    rows = np.repeat(np.arange(len(e)), counts)
    starts = np.repeat(lo - (np.cumsum(counts) - counts), counts)
    cols = order[starts + np.arange(total)]
    return rows, cols


def _windowed(e: Any, a: Any, halfwidth: Any, pair_score: Callable[[Any, Any], Any]) -> Any:
    """The n x m matrix of ``pair_score`` (0 outside each expected value's window)."""
    np = _np()
    pairs = _window_pairs(e, a, halfwidth)
    if pairs is None:
        return np.asarray(pair_score(e[:, None], a[None, :]), dtype=float)
    rows, cols = pairs
    out = np.zeros((len(e), len(a)))
    out[rows, cols] = pair_score(e[rows], a[cols])
    return out


def _equality_matrix(key: Callable[[Any], Any]) -> MatrixFn:
    def matrix(expected: Sequence[Any], actual: Sequence[Any]) -> Any:
        np = _np()
        table: dict[Any, int] = {}
        ce = _codes(expected, table, key)
        ca = _codes(actual, table, key)
        return _windowed(ce, ca, np.zeros(len(ce)), lambda x, y: (x == y).astype(float))

    return matrix


def _equal_pairs(key: Callable[[Any], Any]) -> SparseAddFn:
    """``add_scores`` of a comparator scoring 1 for equal ``key`` and 0 otherwise."""

    def add_scores(xs: Sequence[Any], ys: Sequence[Any], rows: Sequence[int], cols: Sequence[int],
                    tp: list[list[float]]) -> None:
        partners: dict[Any, list[int]] = {}
        for j, y in zip(cols, ys):
            partners.setdefault(key(y), []).append(j)
        for i, x in zip(rows, xs):
            found = partners.get(key(x))
            if found:
                row = tp[i]
                for j in found:
                    row[j] += 1.0

    return add_scores


_HASHABLE = frozenset({str, int, float, bool, type(None)})


def _scalar_key(value: Any) -> Any:
    # within one JSON type, a scalar is its own key (1 and 1.0 hash alike, as JSON wants)
    return value if type(value) in _HASHABLE else canonical_key(value)


def _typed_block(accepts: Callable[[Any], bool], block: Callable[[list[Any], list[Any]], Any]) -> MatrixFn:
    """A matrix function scoring the values ``accepts`` takes with one vectorised ``block``
    call. Every built-in comparator scores other pairs by exact JSON equality, so those
    come from one equality matrix (codes compared by broadcasting), not a Python loop."""

    def matrix(expected: Sequence[Any], actual: Sequence[Any]) -> Any:
        np = _np()
        ie = [i for i, v in enumerate(expected) if accepts(v)]
        ia = [j for j, v in enumerate(actual) if accepts(v)]
        if len(ie) == len(expected) and len(ia) == len(actual):
            return block(list(expected), list(actual))
        out = _exact_matrix(expected, actual)
        if ie and ia:
            out[np.ix_(ie, ia)] = block([expected[i] for i in ie], [actual[j] for j in ia])
        return out

    return matrix


def _numbers_only(fn: Callable[[Any, Any], Any], halfwidth: Callable[[Any], Any] | None = None
                  ) -> MatrixFn:
    """Vectorise ``fn`` (elementwise on expected and actual floats) over the numbers; with
    ``halfwidth``, only pairs within that distance of the expected value can score."""

    def block(e: list[Any], a: list[Any]) -> Any:
        np = _np()
        ev, av = np.array(e, dtype=float), np.array(a, dtype=float)
        if halfwidth is None:
            return fn(ev[:, None], av[None, :])
        return _windowed(ev, av, halfwidth(ev), fn)

    return _typed_block(_is_number, block)


def _strings_only(fn: Callable[[list[str], list[str]], Any]) -> MatrixFn:
    return _typed_block(lambda v: type(v) is str, fn)


_exact_matrix = _equality_matrix(canonical_key)

# --- exact --------------------------------------------------------------------------------


def _exact(e: Any, a: Any) -> float:
    if type(e) is str and type(a) is str:
        return 1.0 if e == a else 0.0
    return 1.0 if json_equal(e, a) else 0.0


def bind_exact(params: Mapping[str, Any] | None = None) -> BoundComparator:
    _params("exact", params, set())
    return BoundComparator("exact", _exact, _exact_matrix, add_scores=_equal_pairs(_scalar_key))


# --- normalized (Galtea): NFD, drop combining marks, casefold; recursive over strings -------


def normalize_text(text: str) -> str:
    """Accent-free, case-folded form of a string (Galtea's rule); whitespace is kept."""
    if text.isascii():
        return text.lower()  # nothing to decompose, and ASCII case-folds to lower case
    return without_marks(text).casefold()


def _normalized(e: Any, a: Any) -> float:
    return 1.0 if json_equal(e, a, normalize_text) else 0.0


def _normalized_key(value: Any) -> Any:
    if type(value) is str:
        return (STRING, normalize_text(value))
    return canonical_key(_normalize_deep(value))


def _normalize_deep(value: Any) -> Any:
    tag = json_type(value)
    if tag == STRING:
        return normalize_text(value)
    if tag == "object":
        return {k: _normalize_deep(v) for k, v in value.items()}
    if tag == "array":
        return [_normalize_deep(v) for v in value]
    return value


def bind_normalized(params: Mapping[str, Any] | None = None) -> BoundComparator:
    _params("normalized", params, set())
    return BoundComparator("normalized", _normalized, _equality_matrix(_normalized_key),
                           add_scores=_equal_pairs(_normalized_key))


# --- numeric (struct-extract-eval): binary within tolerance ---------------------------------


def _coerce_number(value: Any) -> Any:
    if type(value) is str:
        try:
            number = float(value.strip())
        except ValueError:
            return value
        return number if math.isfinite(number) else value
    return value


def _numeric_exact(e: Any, a: Any) -> float:
    te, ta = type(e), type(a)
    if (te is int or te is float) and (ta is int or ta is float):
        return 1.0 if e == a else 0.0
    return 1.0 if json_equal(e, a) else 0.0


def bind_numeric(params: Mapping[str, Any] | None = None) -> BoundComparator:
    p = _params("numeric", params, {"abs", "rel", "coerce", "tolerance"})
    tolerance = p.pop("tolerance", None)
    if tolerance is not None:  # the reference's spelling: {"tolerance": {"abs": .., "rel": ..}}
        if not isinstance(tolerance, Mapping):
            raise ConfigError(f"comparator 'numeric': tolerance must be a mapping, not {tolerance!r}")
        p.update(_params("numeric", tolerance, {"abs", "rel"}))
    abs_tol = _float_param("numeric", "abs", p["abs"]) if "abs" in p else None
    rel_tol = _float_param("numeric", "rel", p["rel"]) if "rel" in p else None
    coerce = p.get("coerce", False)
    if not isinstance(coerce, bool):
        raise ConfigError(f"comparator 'numeric': coerce must be true or false, not {coerce!r}")

    def within(e: Any, a: Any) -> Any:
        # works on floats and on numpy arrays alike; every configured tolerance must hold
        diff = abs(e - a)
        ok = e == a
        if abs_tol is None and rel_tol is None:
            return ok
        ok_tol = True
        if abs_tol is not None:
            ok_tol = diff <= abs_tol
        if rel_tol is not None:
            scale = abs(e)
            scale = scale + (scale == 0)  # relative to expected; expected 0 divides by 1
            ok_tol = ok_tol & (diff / scale <= rel_tol)
        return ok | ok_tol

    def score(e: Any, a: Any) -> float:
        if coerce:
            e, a = _coerce_number(e), _coerce_number(a)
        if _is_number(e) and _is_number(a):
            return 1.0 if within(float(e), float(a)) else 0.0
        return 1.0 if json_equal(e, a) else 0.0

    if abs_tol is None and rel_tol is None and not coerce:
        score = _numeric_exact  # the default: equal by value, the most common case by far

    def halfwidth(e: Any) -> Any:
        np = _np()
        widths = []
        if abs_tol is not None:
            widths.append(np.full(len(e), abs_tol))
        if rel_tol is not None:
            scale = np.abs(e)
            widths.append(rel_tol * np.where(scale == 0, 1.0, scale))
        return np.minimum.reduce(widths) if widths else np.zeros(len(e))

    matrix = None if coerce else _numbers_only(lambda e, a: _np().asarray(within(e, a), dtype=float),
                                               halfwidth)
    plain = abs_tol is None and rel_tol is None and not coerce
    return BoundComparator("numeric", score, matrix, params=dict(params or {}),
                           add_scores=_equal_pairs(_scalar_key) if plain else None)


# --- oneof -----------------------------------------------------------------------------


def bind_oneof(params: Mapping[str, Any] | None = None) -> BoundComparator:
    p = _params("oneof", params, {"values"})
    values = p.get("values")
    if not isinstance(values, (list, tuple)):
        raise ConfigError(f"comparator 'oneof' needs values: a list, not {values!r}")
    accepted = {canonical_key(v) for v in values}

    def score(e: Any, a: Any) -> float:
        # the expected value plays no part: any listed value is right (as the reference does)
        try:
            return 1.0 if canonical_key(a) in accepted else 0.0
        except TypeError:
            return 0.0

    return BoundComparator("oneof", score, params=p)


# --- levenshtein (UiPath strings) ----------------------------------------------------------


def _levenshtein(e: Any, a: Any) -> float:
    if type(e) is str and type(a) is str:
        if e == a:
            return 1.0
        return float(Levenshtein.normalized_similarity(e, a))
    return _exact(e, a)


def _levenshtein_block(e: list[str], a: list[str]) -> Any:
    from rapidfuzz import process

    return process.cdist(e, a, scorer=Levenshtein.normalized_similarity, dtype=_np().float64)


def bind_levenshtein(params: Mapping[str, Any] | None = None) -> BoundComparator:
    _params("levenshtein", params, set())
    return BoundComparator("levenshtein", _levenshtein, _strings_only(_levenshtein_block))


# --- jaccard (structeval strings) -----------------------------------------------------------


def _tokens(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())


def _jaccard(e: Any, a: Any) -> float:
    if type(e) is str and type(a) is str:
        if e == a:
            return 1.0
        if e.isalnum() and a.isalnum():
            return 1.0 if e.lower() == a.lower() else 0.0
        te, ta = _tokens(e), _tokens(a)
        if not te and not ta:
            return 1.0
        inter = len(te & ta)
        return inter / (len(te) + len(ta) - inter)
    return _exact(e, a)


# Letters and digits only, so no whitespace: one token each (codes, ids, single words), and
# Jaccard is 1 for the same lower-cased text, else 0: an equality join on str.lower.
_one_token_scores = _equal_pairs(str.lower)


def _jaccard_scores(xs: Sequence[str], ys: Sequence[str], rows: Sequence[int],
                    cols: Sequence[int], tp: list[list[float]]) -> None:
    if all(map(str.isalnum, xs)) and all(map(str.isalnum, ys)):
        _one_token_scores(xs, ys, rows, cols, tp)
        return
    # Each string's token set as a bit mask (a bit per distinct token): a pair's shared
    # tokens are then one integer AND and a bit count, not a new set per pair.
    bits: dict[str, int] = {}
    masks: dict[str, tuple[int, int]] = {}  # text -> (mask, token count); split once each
    for text in (*xs, *ys):
        if text not in masks:
            mask = 0
            for token in text.lower().split():
                bit = bits.get(token)
                if bit is None:
                    bit = bits[token] = 1 << len(bits)
                mask |= bit
            masks[text] = (mask, mask.bit_count())
    actual = [(j, *masks[y]) for j, y in zip(cols, ys)]
    for i, x in zip(rows, xs):
        mx, size = masks[x]
        row = tp[i]
        for j, my, size_y in actual:
            inter = (mx & my).bit_count()
            if inter:
                row[j] += inter / (size + size_y - inter)
            elif not size and not size_y:
                row[j] += 1.0  # two strings without tokens


def _jaccard_block(e: list[str], a: list[str]) -> Any:
    """All-pairs Jaccard through one sparse product: |A & B| = (incidence_A @ incidence_B.T)."""
    np = _np()
    from scipy import sparse

    vocab: dict[str, int] = {}

    def incidence(texts: list[str]) -> tuple[Any, Any]:
        rows, cols = [], []
        sizes = np.empty(len(texts))
        for i, text in enumerate(texts):
            toks = _tokens(text)
            sizes[i] = len(toks)
            for tok in toks:
                rows.append(i)
                cols.append(vocab.setdefault(tok, len(vocab)))
        return rows, cols, sizes  # type: ignore[return-value]

    re_, ce, se = incidence(e)  # type: ignore[misc]
    ra, ca, sa = incidence(a)  # type: ignore[misc]
    width = max(len(vocab), 1)
    me = sparse.csr_matrix((np.ones(len(re_)), (re_, ce)), shape=(len(e), width))
    ma = sparse.csr_matrix((np.ones(len(ra)), (ra, ca)), shape=(len(a), width))
    product = (me @ ma.T).tocoo()
    if product.nnz < _DENSE_SHARE * len(e) * len(a):
        # few pairs share a token: score just those (and pairs of two token-less strings)
        out = np.zeros((len(e), len(a)))
        rows, cols, shared = product.row, product.col, product.data
        out[rows, cols] = shared / (se[rows] + sa[cols] - shared)
        blank_e, blank_a = np.flatnonzero(se == 0), np.flatnonzero(sa == 0)
        if blank_e.size and blank_a.size:
            out[np.ix_(blank_e, blank_a)] = 1.0
        return out
    inter = product.toarray()
    union = np.add.outer(se, sa)  # in place from here: the matrices can be very large
    union -= inter
    empty = union == 0  # two strings without tokens are equal
    np.divide(inter, union, out=inter, where=~empty)
    inter[empty] = 1.0
    return inter


def bind_jaccard(params: Mapping[str, Any] | None = None) -> BoundComparator:
    _params("jaccard", params, set())
    return BoundComparator("jaccard", _jaccard, _strings_only(_jaccard_block),
                           add_scores=_jaccard_scores)


# --- relative number (UiPath): 1 - |e - a| / |e|, floored at 0 ------------------------------

_ZERO = 1e-12


def _relative(e: Any, a: Any) -> float:
    if _is_number(e) and _is_number(a):
        e, a = float(e), float(a)
        if abs(e) <= _ZERO:
            return 1.0 if abs(a) <= _ZERO else 0.0
        return max(0.0, 1.0 - abs(e - a) / abs(e))
    return _exact(e, a)


def _relative_block(e: Any, a: Any) -> Any:
    np = _np()
    zero_e = np.abs(e) <= _ZERO
    safe = np.where(zero_e, 1.0, np.abs(e))
    ratio = np.maximum(0.0, 1.0 - np.abs(e - a) / safe)
    return np.where(zero_e, (np.abs(a) <= _ZERO).astype(float), ratio)


def bind_relative(params: Mapping[str, Any] | None = None) -> BoundComparator:
    _params("relative", params, set())
    return BoundComparator("relative", _relative, _numbers_only(_relative_block))


# --- threshold number (structeval): d > t -> 0, else 1 - (d / t) ** (1 / w) ------------------


# Up to this many actual values, checking each is cheaper than sorting and searching them.
_SCAN_ALL = 12


def bind_threshold(params: Mapping[str, Any] | None = None) -> BoundComparator:
    p = _params("threshold", params, {"threshold", "weighting"})
    t = _float_param("threshold", "threshold", p.get("threshold", 0.001))
    w = _float_param("threshold", "weighting", p.get("weighting", 0.1))
    if t == 0:
        raise ConfigError("comparator 'threshold': threshold must be greater than 0")
    power = math.inf if w == 0 else 1.0 / w

    def within(d: float) -> float:
        """The score of two numbers ``d <= t`` apart (called only for such pairs)."""
        return 1.0 if w == 0 else 1.0 - (d / t) ** power  # w = 0: no penalty inside t

    def score(e: Any, a: Any) -> float:
        te, ta = type(e), type(a)
        if ((te is int or te is float) and (ta is int or ta is float)) or (
                _is_number(e) and _is_number(a)):
            d = abs(float(e) - float(a))
            return 0.0 if d > t else within(d)
        return _exact(e, a)

    def pair_score(e: Any, a: Any) -> Any:
        np = _np()
        d = np.abs(e - a)
        out = np.zeros(d.shape)
        near = d <= t
        out[near] = 1.0 if w == 0 else 1.0 - (d[near] / t) ** power
        return out

    def halfwidth(e: Any) -> Any:
        return _np().full(len(e), t)

    def add_scores(xs: Sequence[Any], ys: Sequence[Any], rows: Sequence[int], cols: Sequence[int],
                   tp: list[list[float]]) -> None:
        if len(ys) <= _SCAN_ALL:
            actual = [(j, float(y)) for j, y in zip(cols, ys)]
            for i, x in zip(rows, xs):
                fx = float(x)
                row = tp[i]
                for j, fy in actual:
                    d = abs(fx - fy)
                    if d <= t:
                        row[j] += within(d)
            return
        # only values within t score: a sorted window per expected value, searched twice as
        # wide as t so that rounding in the bounds never loses a pair the test keeps
        ordered = sorted(zip(map(float, ys), cols))
        keys = [y for y, _ in ordered]
        reach = 2 * t
        for i, x in zip(rows, xs):
            fx = float(x)
            row = tp[i]
            for k in range(bisect_left(keys, fx - reach), len(keys)):
                fy, j = ordered[k]
                if fy > fx + reach:
                    break
                d = abs(fx - fy)
                if d <= t:
                    row[j] += within(d)

    return BoundComparator(
        "threshold", score, _numbers_only(pair_score, halfwidth), params={"threshold": t, "weighting": w},
        add_scores=add_scores,
    )


BUILTIN_COMPARATORS: dict[str, Callable[[Mapping[str, Any] | None], BoundComparator]] = {
    "exact": bind_exact,
    "normalized": bind_normalized,
    "numeric": bind_numeric,
    "oneof": bind_oneof,
    "levenshtein": bind_levenshtein,
    "jaccard": bind_jaccard,
    "relative": bind_relative,
    "threshold": bind_threshold,
}
