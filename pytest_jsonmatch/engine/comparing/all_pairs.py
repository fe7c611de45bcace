"""All-pairs forms of the built-in comparators: one call scores every (expected, actual)
pair of two lists of values, so that array pairing never pays a Python call per pair.

Two forms exist. ``matrix(expected, actual)`` returns a numpy matrix (large arrays).
``add_scores(xs, ys, rows, cols, tp)`` adds each pair's score into ``tp[row][col]``, a list of
rows (a few elements, where numpy's cost per call would dominate): values are prepared once
and pairs that must score 0 are skipped (equality by hashing, numbers by a sorted window).

Most pairs of a large pairing score 0 (different SKUs, prices far apart). Comparators whose
non-zero scores lie in a window around the expected value find those pairs by sorting and
binary search; when the windows hold a large share of all pairs, scoring every pair is
cheaper and is done instead.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar, cast

from ..core.numbers import is_float_number
from ..core.slotted import Slotted
from ..core.values import canonical_key, is_number
from .edit_distance import (
    EDIT_COST,
    MAX_COMPARISON_PAIRS,
    PARTIAL_COST,
    levenshtein_similarity,
    refuse_past_the_limit,
)

if TYPE_CHECKING:
    import numpy
    from numpy.typing import NDArray

# numpy arrays: of floats (scores, numbers; a matrix or a vector), of indices
Floats: TypeAlias = "NDArray[numpy.float64]"
Ints: TypeAlias = "NDArray[numpy.intp]"

# A comparator's all-pairs forms (see the module's docstring): the values are a column's,
# JSON values or what the field's transforms made of them.
MatrixFn = Callable[[Sequence[object], Sequence[object]], Floats]
AddScoresFn = Callable[
    [Sequence[object], Sequence[object], Sequence[int], Sequence[int], list[list[float]]], None
]
V = TypeVar("V")  # the values a form takes (a key function's, a typed block's)
R = TypeVar("R")  # what LongerSide's work makes of them

_DENSE_SHARE = 0.25  # above this share of all pairs, score every pair
_SCAN_ALL = 12  # up to this many actual values, checking each beats sorting them


def np() -> ModuleType:
    """numpy, imported on first use (it comes with scipy; start-up stays light)."""
    import numpy

    return numpy


# -- one large array's blocks ----------------------------------------------------------------

# What matrix functions work out for the longer side of a call, kept while one large array
# is scored a block of lines at a time (see blocks_of_one_array); None outside of that.
_KEPT: ContextVar[dict[tuple[int, int], tuple[Sequence[object], object]] | None] = ContextVar(
    "jsonmatch_kept_sides", default=None
)


@contextmanager
def blocks_of_one_array() -> Iterator[None]:
    """While one large array is scored a block of lines at a time (blockwise.py), each block
    against the same whole column of the other side: what a matrix function works out for
    that column (LongerSide) is kept from block to block, and dropped at the end."""
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


class LongerSide(Generic[V, R]):
    """``work`` on the longer side of a matrix function's call, done once per column while
    blocks_of_one_array is active: each later block brings the same list (``is``; column
    lists are never changed once built), and finds its work kept."""

    def __init__(self, work: Callable[[Sequence[V]], R]) -> None:
        self._work = work

    def __call__(self, values: Sequence[V]) -> R:
        kept = _KEPT.get()
        if kept is None:
            return self._work(values)
        key = (id(self), id(values))
        found = kept.get(key)
        if found is not None and found[0] is values:
            return cast(R, found[1])  # kept under this LongerSide's id: its own work's
        out = self._work(values)
        kept[key] = (values, out)  # the list is held, so its id is not reused meanwhile
        return out


# -- equality ------------------------------------------------------------------------------


def _codes(
    values: Sequence[object], table: dict[Hashable, int], key: Callable[[object], Hashable]
) -> Ints:
    out: Ints = np().empty(len(values), dtype=np().int64)
    for i, value in enumerate(values):
        out[i] = table.setdefault(key(value), len(table))
    return out


class _Coded(Slotted):
    """One side of an equality matrix: its values' codes (equal keys, equal codes, from
    ``table``) and their sorted order, for finding equal pairs by binary search. (Slotted,
    not a NamedTuple: typing would compile its annotations when the module loads.)"""

    __slots__ = ("table", "codes", "order", "ordered")

    def __init__(self, table: dict[Hashable, int], codes: Ints, order: Ints, ordered: Ints) -> None:
        self.table, self.codes, self.order, self.ordered = table, codes, order, ordered


def equality_matrix(key: Callable[[object], Hashable]) -> MatrixFn:
    """The matrix of a comparator scoring 1 for equal ``key`` and 0 otherwise."""

    def code_longer(values: Sequence[object]) -> _Coded:
        table: dict[Hashable, int] = {}
        codes = _codes(values, table, key)
        order = np().argsort(codes, kind="stable")
        return _Coded(table, codes, order, codes[order])

    longer = LongerSide(code_longer)

    def matrix(expected: Sequence[object], actual: Sequence[object]) -> Floats:
        if len(actual) >= len(expected):
            coded = longer(actual)  # the shorter side's new keys join its table: harmless
            return _equal_cells(_codes(expected, coded.table, key), coded)
        coded = longer(expected)
        turned: Floats = _equal_cells(_codes(actual, coded.table, key), coded).T.copy()
        return turned

    return matrix


def _equal_cells(codes: Ints, other: _Coded) -> Floats:
    """The len(codes) x len(other.codes) matrix: 1 where the codes are equal, else 0."""
    pairs = _listed_pairs(
        np().searchsorted(other.ordered, codes, "left"),
        np().searchsorted(other.ordered, codes, "right"),
        other.order,
    )
    if pairs is None:
        every: Floats = (codes[:, None] == other.codes[None, :]).astype(float)
        return every
    out: Floats = np().zeros((len(codes), len(other.codes)))
    out[pairs] = 1.0
    return out


class EqualPairs(Generic[V]):
    """``add_scores`` of a comparator scoring 1 for equal ``key`` and 0 otherwise; the key
    is kept readable, so that code scoring a whole pair at once (pairing/flat_similarity.py)
    can compare the keys itself. Equal and hashed by identity, as a closure is."""

    __slots__ = ("key",)

    def __init__(self, key: Callable[[V], Hashable]) -> None:
        self.key = key

    def __call__(
        self,
        xs: Sequence[V],
        ys: Sequence[V],
        rows: Sequence[int],
        cols: Sequence[int],
        tp: list[list[float]],
    ) -> None:
        key = self.key
        partners: dict[Hashable, list[int]] = {}
        for j, y in zip(cols, ys):
            partners.setdefault(key(y), []).append(j)
        for i, x in zip(rows, xs):
            found = partners.get(key(x))
            if found:
                row = tp[i]
                for j in found:
                    row[j] += 1.0


def equal_pairs(key: Callable[[V], Hashable]) -> EqualPairs[V]:
    """``add_scores`` of a comparator scoring 1 for equal ``key`` and 0 otherwise."""
    return EqualPairs(key)


_HASHABLE = frozenset({str, int, float, bool, type(None)})


def scalar_key(value: object) -> Hashable:
    """Within one JSON type, a scalar is its own key (1 and 1.0 hash alike, as JSON wants)."""
    return value if type(value) in _HASHABLE else canonical_key(value)


exact_matrix = equality_matrix(canonical_key)
exact_pairs = equal_pairs(scalar_key)


# -- windows over numbers --------------------------------------------------------------------


def _window_pairs(e: Floats, a: Floats, halfwidth: Floats) -> tuple[Ints, Ints] | None:
    """(rows, cols) of every pair with |e - a| <= halfwidth (a superset, padded against
    rounding), or None when they are too many to be worth listing."""
    order = np().argsort(a, kind="stable")
    ordered = a[order]
    pad = halfwidth * 1e-9 + np().abs(e) * 1e-12 + 1e-300
    return _listed_pairs(
        np().searchsorted(ordered, e - halfwidth - pad, "left"),
        np().searchsorted(ordered, e + halfwidth + pad, "right"),
        order,
    )


def _listed_pairs(lo: Ints, hi: Ints, order: Ints) -> tuple[Ints, Ints] | None:
    """(rows, cols) of every pair of expected value i with the actual values at sorted
    positions lo[i] to hi[i] (excluded), ``order`` giving each sorted position's index;
    None when they are too many to be worth listing."""
    counts = hi - lo
    total = int(counts.sum())
    if total > _DENSE_SHARE * len(lo) * len(order):
        return None
    rows = np().repeat(np().arange(len(lo)), counts)
    starts = np().repeat(lo - (np().cumsum(counts) - counts), counts)
    return rows, order[starts + np().arange(total)]


def windowed(
    e: Floats, a: Floats, halfwidth: Floats, pair_score: Callable[[Floats, Floats], Floats]
) -> Floats:
    """The n x m matrix of ``pair_score`` (0 outside each expected value's window)."""
    pairs = _window_pairs(e, a, halfwidth)
    if pairs is None:
        every: Floats = np().asarray(pair_score(e[:, None], a[None, :]), dtype=float)
        return every
    rows, cols = pairs
    out: Floats = np().zeros((len(e), len(a)))
    out[rows, cols] = pair_score(e[rows], a[cols])
    return out


# -- typed blocks: one vectorised call for the values a comparator takes --------------------


def typed_block(
    accepts: Callable[[object], bool],
    block: Callable[[list[V], list[V]], Floats],
    pair: Callable[[object, object], float] | None = None,
    also: Callable[[object], bool] | None = None,
) -> MatrixFn:
    """A matrix function scoring the values ``accepts`` takes with one vectorised ``block``
    call. Every built-in comparator scores other pairs by exact JSON equality, so those
    come from one equality matrix, not a Python loop; values ``also`` picks out among them
    (numbers a float cannot hold) are scored by ``pair`` against everything instead."""

    def taken(values: Sequence[object]) -> tuple[list[int], list[V]]:
        """The indices and values ``accepts`` takes (all of them: the list itself); ``block``
        takes what ``accepts`` does (a check mypy cannot see)."""
        index = [i for i, v in enumerate(values) if accepts(v)]
        if len(index) == len(values) and isinstance(values, list):
            return index, cast("list[V]", values)
        return index, cast("list[V]", [values[i] for i in index])

    longer = LongerSide(taken)

    def matrix(expected: Sequence[object], actual: Sequence[object]) -> Floats:
        if len(actual) >= len(expected):
            (rows, xs), (cols, ys) = taken(expected), longer(actual)
        else:
            (rows, xs), (cols, ys) = longer(expected), taken(actual)
        if len(rows) == len(expected) and len(cols) == len(actual):
            return block(xs, ys)
        out = exact_matrix(expected, actual)
        if rows and cols:
            out[np().ix_(rows, cols)] = block(xs, ys)
        if pair is not None and also is not None:
            for i, e in enumerate(expected):
                if also(e):
                    out[i, :] = [pair(e, a) for a in actual]
            for j, a in enumerate(actual):
                if also(a):
                    out[:, j] = [pair(e, a) for e in expected]
        return out

    return matrix


def numbers_matrix(
    fn: Callable[[Floats, Floats], Floats],
    pair: Callable[[object, object], float],
    halfwidth: Callable[[Floats], Floats] | None = None,
) -> MatrixFn:
    """Vectorise ``fn`` (elementwise on expected and actual floats) over the numbers; with
    ``halfwidth``, only pairs within that distance of the expected value can score. A pair
    with a number no float holds (a huge integer) is scored by ``pair``, exactly."""

    def block(e: list[int | float], a: list[int | float]) -> Floats:
        ev: Floats = np().array(e, dtype=float)
        av: Floats = np().array(a, dtype=float)
        if halfwidth is None:
            return fn(ev[:, None], av[None, :])
        return windowed(ev, av, halfwidth(ev), fn)

    return typed_block(is_float_number, block, pair, _beyond_float)


def _beyond_float(value: object) -> bool:
    return is_number(value) and not is_float_number(value)


def strings_matrix(fn: Callable[[list[str], list[str]], Floats]) -> MatrixFn:
    return typed_block(lambda v: type(v) is str, fn)


def block_pairs(block: Callable[[list[V], list[V]], Floats]) -> AddScoresFn:
    """``add_scores`` of a comparator that scores its pairs by one ``block`` call however
    few they are (cosine: one call of its embedder), called with columns of the values the
    block takes only: the block's rows added into ``tp``."""

    def add_scores(
        xs: Sequence[object],
        ys: Sequence[object],
        rows: Sequence[int],
        cols: Sequence[int],
        tp: list[list[float]],
    ) -> None:
        scores = block(cast("list[V]", list(xs)), cast("list[V]", list(ys))).tolist()
        for i, row_scores in zip(rows, scores):
            row = tp[i]
            for j, value in zip(cols, row_scores):
                row[j] += value

    return add_scores


# -- edit distance and Jaccard ---------------------------------------------------------------


def _longest(texts: list[str]) -> int:
    return max(map(len, texts), default=0)


def levenshtein_block(e: list[str], a: list[str]) -> Floats:
    """Levenshtein similarity of every pair: RapidFuzz's full computation of each, where
    every pair's fits the limit of one comparison (edit_distance.py); else pair by pair
    under the bounds that double (the same scores, bit for bit), each within the limit."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    if EDIT_COST.pair(_longest(e), _longest(a)) <= MAX_COMPARISON_PAIRS:
        return process.cdist(e, a, scorer=Levenshtein.normalized_similarity, dtype=np().float64)
    out: Floats = np().empty((len(e), len(a)))
    for i, x in enumerate(e):
        out[i] = [1.0 if x == y else levenshtein_similarity(x, y) for y in a]
    return out


def fuzzy_scorer(method: str) -> Callable[..., float]:
    """RapidFuzz's ratio for the ``fuzzy`` comparator's ``method`` (0 to 100)."""
    from rapidfuzz import fuzz

    return fuzz.token_set_ratio if method == "token_set" else fuzz.partial_ratio


def fuzzy_refusal(method: str) -> tuple[str, str]:
    """How a ``fuzzy`` comparison past the limit of one is named, and what to do instead."""
    if method == "partial":
        return (
            "comparator 'fuzzy' (method 'partial')",
            "; compare shorter texts, or use method 'token_set'",
        )
    return f"comparator 'fuzzy' (method {method!r})", "; compare shorter texts"


def fuzzy_block(method: str) -> Callable[[list[str], list[str]], Floats]:
    """The ``fuzzy`` comparator over all pairs of strings: RapidFuzz's ratio / 100, equal
    strings 1 (as the comparator scores them; RapidFuzz gives two empty strings 0, and is
    not asked). A pair of unequal texts past the limit of one comparison is refused as the
    comparator refuses it, before any pair is scored."""
    cost = PARTIAL_COST if method == "partial" else EDIT_COST

    def block(e: list[str], a: list[str]) -> Floats:
        from rapidfuzz import process

        equal = _equal_texts(e, a)
        if cost.pair(_longest(e), _longest(a)) > MAX_COMPARISON_PAIRS:
            return _pair_by_pair(e, a, equal, method)
        out: Floats = process.cdist(e, a, scorer=fuzzy_scorer(method), dtype=np().float64) / 100.0
        for i, found in equal.items():
            out[i, found] = 1.0
        clipped: Floats = np().clip(out, 0.0, 1.0)
        return clipped

    return block


def _equal_texts(e: list[str], a: list[str]) -> dict[int, list[int]]:
    """For each expected text, the actual texts equal to it (by index)."""
    columns: dict[str, list[int]] = {}
    for j, text in enumerate(a):
        columns.setdefault(text, []).append(j)
    return {i: columns[text] for i, text in enumerate(e) if text in columns}


def _pair_by_pair(e: list[str], a: list[str], equal: dict[int, list[int]], method: str) -> Floats:
    """``fuzzy_block`` one pair at a time, where some pair may be past the limit of one
    comparison: equal texts 1, each other pair refused past the limit, else scored."""
    cost = PARTIAL_COST if method == "partial" else EDIT_COST
    what, hint = fuzzy_refusal(method)
    ratio = fuzzy_scorer(method)
    out: Floats = np().empty((len(e), len(a)))
    for i, x in enumerate(e):
        same = set(equal.get(i, ()))
        for j, y in enumerate(a):
            if j in same:
                out[i, j] = 1.0
                continue
            refuse_past_the_limit(what, cost, len(x), len(y), hint)
            out[i, j] = min(1.0, max(0.0, ratio(x, y) / 100.0))
    return out


def token_set(text: str) -> frozenset[str]:
    """Jaccard's tokens: the lower-cased text split on whitespace."""
    return frozenset(text.lower().split())


# Letters and digits only, so no whitespace: one token each (codes, ids, single words), and
# Jaccard is 1 for the same lower-cased text, else 0: an equality join on str.lower.
_one_token_pairs = equal_pairs(str.lower)


def jaccard_pairs(
    xs: Sequence[str],
    ys: Sequence[str],
    rows: Sequence[int],
    cols: Sequence[int],
    tp: list[list[float]],
) -> None:
    """``add_scores`` for Jaccard: each text's token set as a bit mask (a bit per distinct
    token), so a pair's shared tokens are one integer AND and a bit count."""
    if all(map(str.isalnum, xs)) and all(map(str.isalnum, ys)):
        _one_token_pairs(xs, ys, rows, cols, tp)
        return
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
        mask_x, size_x = masks[x]
        row = tp[i]
        for j, mask_y, size_y in actual:
            shared = (mask_x & mask_y).bit_count()
            if shared:
                row[j] += shared / (size_x + size_y - shared)
            elif not size_x and not size_y:
                row[j] += 1.0  # two strings without tokens


class _Tokens(Slotted):
    """Texts as rows of a token incidence matrix (a column per token of ``vocab``), with
    each text's number of distinct tokens."""

    __slots__ = ("vocab", "incidence", "sizes")

    # (``incidence``: a scipy.sparse matrix; scipy ships no types)
    def __init__(self, vocab: dict[str, int], incidence: Any, sizes: Floats) -> None:
        self.vocab, self.incidence, self.sizes = vocab, incidence, sizes


def _tokens(texts: Sequence[str], vocab: dict[str, int] | None = None) -> _Tokens:
    """Incidence over ``vocab``'s tokens (a token it lacks cannot be shared: it only counts
    in its text's size), or over a vocabulary of these texts' own when None."""
    from scipy import sparse

    own = vocab is None
    words: dict[str, int] = {} if vocab is None else vocab
    rows, cols = [], []
    sizes: Floats = np().empty(len(texts))
    for i, text in enumerate(texts):
        tokens = token_set(text)
        sizes[i] = len(tokens)
        for token in tokens:
            col = words.setdefault(token, len(words)) if own else words.get(token)
            if col is not None:
                rows.append(i)
                cols.append(col)
    shape = (len(texts), max(len(words), 1))
    return _Tokens(
        words, sparse.csr_matrix((np().ones(len(rows)), (rows, cols)), shape=shape), sizes
    )


_longer_tokens = LongerSide(_tokens)


def jaccard_block(e: list[str], a: list[str]) -> Floats:
    """All-pairs Jaccard through one sparse product: |A & B| = (incidence_A @ incidence_B.T)."""
    if len(a) >= len(e):
        side_a = _longer_tokens(a)
        side_e = _tokens(e, side_a.vocab)
    else:
        side_e = _longer_tokens(e)
        side_a = _tokens(a, side_e.vocab)
    sizes_e, sizes_a = side_e.sizes, side_a.sizes
    product = (side_e.incidence @ side_a.incidence.T).tocoo()
    if product.nnz < _DENSE_SHARE * len(e) * len(a):
        # few pairs share a token: score just those (and pairs of two token-less strings)
        out: Floats = np().zeros((len(e), len(a)))
        rows, cols, shared = product.row, product.col, product.data
        out[rows, cols] = shared / (sizes_e[rows] + sizes_a[cols] - shared)
        blank_e, blank_a = np().flatnonzero(sizes_e == 0), np().flatnonzero(sizes_a == 0)
        if blank_e.size and blank_a.size:
            out[np().ix_(blank_e, blank_a)] = 1.0
        return out
    inter: Floats = product.toarray()
    union = np().add.outer(sizes_e, sizes_a)  # in place from here: the matrices can be large
    union -= inter
    empty = union == 0  # two strings without tokens are equal
    np().divide(inter, union, out=inter, where=~empty)
    inter[empty] = 1.0
    return inter


# -- numbers ---------------------------------------------------------------------------------

ZERO = 1e-12  # UiPath's "expected is zero" bound


def relative_block(e: Floats, a: Floats) -> Floats:
    zero_e = np().abs(e) <= ZERO
    safe = np().where(zero_e, 1.0, np().abs(e))
    ratio = np().maximum(0.0, 1.0 - np().abs(e - a) / safe)
    scores: Floats = np().where(zero_e, (np().abs(a) <= ZERO).astype(float), ratio)
    return scores


def threshold_forms(
    t: float, w: float, within: Callable[[float], float], pair: Callable[[object, object], float]
) -> tuple[MatrixFn, AddScoresFn]:
    """structeval's threshold numbers (score ``within(d)`` for ``d = |e - a| <= t``, else 0):
    the matrix and the add_scores form. ``pair`` scores one pair (numbers no float holds)."""
    power = float("inf") if w == 0 else 1.0 / w

    def pair_score(e: Floats, a: Floats) -> Floats:
        d = np().abs(e - a)
        out: Floats = np().zeros(d.shape)
        near = d <= t
        out[near] = 1.0 if w == 0 else 1.0 - (d[near] / t) ** power
        return out

    # (add_scores is called with columns of numbers only: the comparator's type's)
    matrix = numbers_matrix(pair_score, pair, lambda e: np().full(len(e), t))
    return matrix, cast(AddScoresFn, WithinPairs(t, within, pair))


class WithinPairs:
    """``add_scores`` of structeval's threshold numbers: ``within(d)`` for two numbers
    ``d <= t`` apart, else 0 (``pair`` scores one pair, for numbers no float holds). Its
    parts are kept readable, so that code scoring a whole pair at once
    (pairing/flat_similarity.py) can score the numbers itself. Equal and hashed by
    identity, as the closure it stands for was (a comparator's fields are compared)."""

    __slots__ = ("t", "within", "pair")

    def __init__(
        self, t: float, within: Callable[[float], float], pair: Callable[[object, object], float]
    ) -> None:
        self.t, self.within, self.pair = t, within, pair

    def __call__(
        self,
        xs: Sequence[float],
        ys: Sequence[float],
        rows: Sequence[int],
        cols: Sequence[int],
        tp: list[list[float]],
    ) -> None:
        if not (all(map(is_float_number, xs)) and all(map(is_float_number, ys))):
            pair = self.pair
            for i, x in zip(rows, xs):  # a huge integer: pair by pair, exactly
                row = tp[i]
                for j, y in zip(cols, ys):
                    row[j] += pair(x, y)
            return
        _add_within(xs, ys, rows, cols, tp, self.t, self.within)


def _add_within(
    xs: Sequence[float],
    ys: Sequence[float],
    rows: Sequence[int],
    cols: Sequence[int],
    tp: list[list[float]],
    t: float,
    within: Callable[[float], float],
) -> None:
    """Threshold scores of float numbers added to ``tp``. Against few actual values every
    pair is tested; against more, each expected value only against the actual values near
    it: only values within t score, so a sorted window per expected value, searched twice
    as wide as t so that rounding in the bounds never loses a pair the test keeps."""
    if len(ys) <= _SCAN_ALL:
        actual = [(j, float(y)) for j, y in zip(cols, ys)]
        for i, x in zip(rows, xs):
            fx, row = float(x), tp[i]
            for j, fy in actual:
                d = abs(fx - fy)
                if d <= t:
                    row[j] += within(d)
        return
    ordered = sorted(zip(map(float, ys), cols))
    keys = [y for y, _ in ordered]
    reach = 2 * t
    for i, x in zip(rows, xs):
        fx, row = float(x), tp[i]
        for k in range(bisect_left(keys, fx - reach), len(keys)):
            fy, j = ordered[k]
            if fy > fx + reach:
                break
            d = abs(fx - fy)
            if d <= t:
                row[j] += within(d)
