"""Which elements of an expected and an actual array pair up, by the metric's rule.

By index (``ordered``; json_similarity always), by a key field, or by optimal assignment
over pair scores (structural_f1's ``similarity``, field_f1's Hungarian ``f1``). Pair scores
come from columns where the elements flatten (pair_scores.py); elsewhere each candidate pair
is walked, through the function the walk hands in, within the record's budget
(pair_budget.py). Identical elements pair first when they are sure to score 1. Flat
elements whose fields all compare by equality (field_f1's defaults) are paired from counts
of equal fields, by functions generated per element shape (equal_fields.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from ..comparing.field_spec import Align, FieldSpec
from ..configuring.walk_config import WalkConfig
from ..core.paths import Where
from ..core.values import JsonArray, JsonObject, JsonValue, canonical_key, json_equal
from ..results.field_results import WalkOutput, f_beta, precision_recall
from ..schemas.eval_schema import SchemaNode
from . import assignment
from .equal_fields import counted_pairs
from .pair_budget import PairBudget
from .pair_scores import SMALL_PAIRS, LineScores, pair_scores

# Walks one candidate pair (expected, actual, where it sits): its output, and whether it is
# complete (no batch score pending), so that a chosen pair's walk can be taken as it is.
CandidateWalk = Callable[[JsonValue, JsonValue, Where], tuple[WalkOutput, bool]]


def alignment(cfg: WalkConfig, spec: FieldSpec | None) -> Align:
    """The alignment of the array a field spec governs: its own, else the metric's."""
    return (
        spec.align if spec is not None and spec.align is not None else None
    ) or cfg.default_align


def choose_pairs(
    cfg: WalkConfig,
    budget: PairBudget,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    where: Where,
    items: SchemaNode | None,
    spec: FieldSpec | None,
    walk_candidate: CandidateWalk,
    walked: dict[tuple[int, int], WalkOutput],
) -> assignment.Assignment:
    """Which elements pair up, with the pair's score (1.0 where no score is taken): by
    index, by a key field, or the optimal pairing by pair score (``similarity`` or ``f1``),
    pairs scoring ``keep_above`` or less dropped. Pairs walked to be scored leave their walk
    in ``walked``."""
    if cfg.array_mode == "similarity":
        mode, keep_above = "similarity", cfg.array_threshold
    else:
        chosen = alignment(cfg, spec)
        if cfg.array_mode == "index" or chosen.mode == "ordered":
            pairs, lone_e, lone_a = assignment.ordered_pairs(len(expected), len(actual))
            return [(i, j, 1.0) for i, j in pairs], lone_e, lone_a
        if chosen.mode == "key_field":
            assert chosen.key is not None  # (a key_field alignment always names its key)
            pairs, lone_e, lone_a = assignment.key_field_pairs(expected, actual, chosen.key)
            return [(i, j, 1.0) for i, j in pairs], lone_e, lone_a
        mode, keep_above = "f1", 0.0
    if not (expected and actual):
        return [], list(range(len(expected))), list(range(len(actual)))
    if mode == "f1":  # flat elements whose fields compare by equality: counted per shape
        counted = counted_pairs(cfg, items, expected, actual, where.path)
        if counted is not None:
            return counted
    if keep_above < 1.0:
        found = _identical(cfg, expected, actual, items, where.path)
        if found is not None:
            return found

    def walk_pair(i: int, j: int) -> float:
        if budget.exhausted:  # see pair_budget.py: a stand-in score, no walk
            return budget.leaf_overlap(expected[i], actual[j])
        out, complete = walk_candidate(expected[i], actual[j], where.pair(i, j))
        budget.charge(len(out.fields))
        if complete:  # the pair, if chosen, is not walked again
            walked[i, j] = out
        return f_beta(*precision_recall(out.fields))

    scores, scale = pair_scores(cfg, where.path, items, expected, actual, mode, walk_pair)
    if isinstance(scores, LineScores):
        from .blockwise import assign_large  # (only arrays too large for one matrix)

        return assign_large(
            scores,
            keep_above,
            minimize_distance=mode == "similarity",
            tied=_repeats(expected) or _repeats(actual),
        )
    return assignment.assign(
        scores, keep_above, minimize_distance=mode == "similarity", scale=scale
    )


def unread_pairs(
    cfg: WalkConfig,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    where: Where,
    items: SchemaNode | None,
) -> assignment.Assignment | None:
    """``choose_pairs`` of an array without a field spec whose answer elements have not
    been through the door: only pairing by index or by counts of equal fields
    (``counted_pairs``: flat objects of plain scalars, read by type and equality alone) may
    take them; None where another way would pair them (the caller reads them first, then
    asks ``choose_pairs``). Apart from the general one, so that the frames of the general
    array walk's recursion stay as small as they are."""
    if cfg.array_mode == "similarity":
        return None
    mode = cfg.default_align.mode
    if cfg.array_mode == "index" or mode == "ordered":
        pairs, lone_e, lone_a = assignment.ordered_pairs(len(expected), len(actual))
        return [(i, j, 1.0) for i, j in pairs], lone_e, lone_a
    if mode == "key_field":
        return None
    if not (expected and actual):
        return [], list(range(len(expected))), list(range(len(actual)))
    return counted_pairs(cfg, items, expected, actual, where.path)


def _identical(
    cfg: WalkConfig,
    expected: Sequence[JsonValue],
    actual: Sequence[JsonValue],
    items: SchemaNode | None,
    path: str,
) -> assignment.Assignment | None:
    """Pairs of identical elements (see assignment.identical_pairs) when identical elements are
    sure to score 1 (the array at ``path``)."""
    if cfg.rules or items is not None:  # (else the question is the comparators' alone)
        if not cfg.identical_elements_score_one(items, path):
            return None
    elif not cfg.every_type_scores_equal_one:
        return None
    if len(expected) * len(actual) <= SMALL_PAIRS:
        # A few elements: their pair scores are cheap and pairing by them is exact, so only
        # an in-order copy, the commonest case, is worth catching first; and only of
        # elements that nest no deeper than one level, since the walk asks again at every
        # array below (arrays 2,000 deep compared whole at each level: quadratic)
        if (
            expected == actual
            and _shallow(expected)
            and (_typed_alike(expected, actual) or json_equal(expected, actual))
        ):
            return [(i, i, 1.0) for i in range(len(expected))], [], []
        return None
    return assignment.identical_pairs(expected, actual)


def _typed_alike(expected: Sequence[JsonValue], actual: Sequence[JsonValue]) -> bool:
    """Whether two shallow arrays that ``==`` finds equal are JSON-equal by their types
    alone: each pair of elements of one type, two objects with their keys in the same order
    and values of the same types, two arrays with values of the same types (``==`` then
    compared each pair of values of one type, which is JSON equality). False leaves them to
    ``json_equal`` (a boolean and a number ``==`` takes as equal, 1 and 1.0, keys in
    another order): a pass of a few tuples in C where json_equal calls itself per value."""
    e: Any
    a: Any  # (both read by their type)
    for e, a in zip(expected, actual):
        kind = type(e)
        if kind is not type(a):
            return False
        if kind is dict:
            if tuple(e) != tuple(a) or tuple(map(type, e.values())) != tuple(map(type, a.values())):
                return False
        elif kind is list and tuple(map(type, e)) != tuple(map(type, a)):
            return False
    return True


def _shallow(elements: Sequence[JsonValue]) -> bool:
    """Whether no element holds a container (an element may be one: a flat object)."""
    for element in elements:
        kind = type(element)
        if kind is dict or kind is list:
            # (a container: its type was read above)
            children = (
                cast(JsonObject, element).values() if kind is dict else cast(JsonArray, element)
            )
            for item in children:
                if type(item) is dict or type(item) is list:
                    return False
    return True


def _repeats(elements: Sequence[JsonValue]) -> bool:
    """Whether some element occurs twice. Two equal elements score alike against every
    partner, so pairings that swap them tie, and only the dense method says which one it
    returns (blockwise.py would find the tie after a pass over every score). Only a
    shortcut to a method that is exact either way, so the test is the quick one: an
    object's items in their order (the same object with its keys in another order is
    missed, and found as a tie later; ``True`` and ``1`` count alike, which at worst takes
    the dense method for nothing), the JSON key where values nest."""
    seen: set[object] = set()
    key: object
    for element in elements:
        try:
            key = tuple(element.items()) if type(element) is dict else element
            if key in seen:
                return True
        except TypeError:  # a nested value: not hashable
            key = canonical_key(element)
            if key in seen:
                return True
        seen.add(key)
    return False
