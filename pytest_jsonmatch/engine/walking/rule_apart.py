"""A record walked with its one rule apart.

An assertion's own rule (``ignore=["id"]``, ``fields={"total": {"tolerance": 5}}``) is laid
over the kept configuration of its other options (``WalkConfig.with_rules``), and a walk
with any rule leaves the fast paths a rule-free walk takes: the inline loop's nested
objects without dispatch, omissions made at once, an array element's generated scorer.
Where the one rule names one key of the root alone (``WalkConfig.root_rule``), no other
field of the record can meet it: those keys are walked by the rule-free configuration, with
every fast path it has, and the key by the configuration with its rule, as the whole walk
would walk it, its fields put where the whole walk puts them. The output is the whole
walk's, field for field and in the same order (tests/engine/test_rule_apart.py).

The key's place: the rule-free walk is given a stand-in for its value (``0`` on the sides
that hold the key), which makes exactly one field there, at the key's own path, at the
place in the fields where the whole walk walks the key (among the expected keys, or among
the keys only the answer has; none where those do not count); the key's own fields
replace it.

Neither side through the door (``walked_apart``'s ``unread``): ``match_json``'s two objects,
where the configuration without the rule walks unread sides (``Entry.apart``), are walked
so, the other keys checked by that walk as it reads them and the key's own values by
``plain_within``; whatever the door would copy or refuse raises ``Unread``, and the entry
reads both sides and walks them again.

Without the configuration of the rule (``walked_by_spec``): an assertion's one-off rule
would have a configuration and an entry made for one pair, so ``entry.one_rule_pair`` hands
over the configuration without it, the key and the rule's spec, and the key's one field is
made as the walk of the rule's configuration makes it (``_own_field``).
"""

from __future__ import annotations

from operator import indexOf, itemgetter
from typing import Any, cast

from ..comparing.comparators import score_at
from ..comparing.field_spec import FieldSpec
from ..configuring.walk_config import WalkConfig
from ..core.depth import SHALLOW
from ..core.paths import ROOT, Where
from ..core.values import MISSING, JsonValue, json_type
from ..judge import UNASKED
from ..pairing.pair_budget import PairBudget
from ..reading.intake import Unread, plain_within
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    FieldResult,
    FloorFailure,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode
from .unpaired import extra_leaf
from .walk import Walk, walk

# The switch of this fast path (docs/architecture.md, "Fast paths"): False walks every
# record with rules as a whole, by the configuration with its rules.
RULE_APART = True
# ... and the switch of a pair walked apart with neither side through the door
# (``walked_apart``'s ``unread``: match_json's two objects, Entry.unread_pair): False reads
# both sides through the door first.
RULE_APART_UNREAD = True

# The stand-in for the key's value in the rule-free walk: a scalar, one field wherever it is
_STAND_IN = 0
_CONTAINERS = (dict, list)
# scalars plain_within passes whatever their value (a call less for each: a float must
# also be finite, which it checks)
_PLAIN = frozenset({str, int, bool, type(None)})
# a field's path (slot 0 of a FieldResult)
_PATH_OF = itemgetter(0)
# FieldResults built with tuple.__new__, every field given, as the walk builds them (walk.py)
_new = tuple.__new__


def takes(cfg: WalkConfig, schema: SchemaNode | None) -> bool:
    """Whether records walked under ``cfg`` (and ``schema``) take the rule apart: the
    switch on, and :func:`fits`."""
    return RULE_APART and fits(cfg, schema)


def fits(cfg: WalkConfig, schema: SchemaNode | None) -> bool:
    """Whether records walked under ``cfg`` (and ``schema``) may take the rule apart: one
    rule on one root key (``root_rule``), no schema (its nodes would reach the key's
    neighbours), no leaf depth, no judge and no comparator that sees the strings first
    (each is asked once a record, for every field). Any metric's walk: the stand-in, a
    scalar, makes one field at the key's path (none where the answer's extra keys do not
    count, and then the key's own walk makes none either), and a key that holds a
    container is walked apart only where the rule skips it (one field, whatever it
    holds: ``walked_apart``)."""
    return (
        cfg.root_rule is not None
        and schema is None
        and cfg.schema is None
        and cfg.leaf_depth is None
        and not cfg.judged(None)
        and not cfg.prepares
    )


def walked_apart(
    cfg: WalkConfig, expected: JsonValue, actual: JsonValue, unread: bool = False
) -> WalkOutput | None:
    """What ``walk(cfg, expected, actual, None)`` gives, for a configuration that
    :func:`takes` the rule apart and two sides read by the door; None where this record
    may not take it (nothing walked yet): a side that is not an object, an empty expected
    object (compared whole), or the key holding an object or an array under a rule that
    does not skip it (its walk would pair arrays, spending the record's pair budget and
    adding its pairings).

    ``unread``: neither side has been through the door (``Entry.unread_pair``, where the
    configuration without the rule walks unread sides): the other keys are walked unread,
    checked as that walk checks them, and the key's own values must be what the door
    passes as they are (plain JSON within the walk's room); where they are not, or where
    the record may not take the rule apart, ``Unread`` is raised before anything is
    counted, for the caller to read both sides and walk the record again."""
    root_rule = cfg.root_rule
    assert root_rule is not None  # (takes)
    return _apart(root_rule[0], root_rule[1], cfg.rules[0].spec, expected, actual, unread, cfg)


def walked_by_spec(
    free: WalkConfig, key: str, spec: FieldSpec, expected: JsonValue, actual: JsonValue
) -> WalkOutput:
    """``walked_apart(cfg, expected, actual, unread=True)`` for the configuration ``cfg``
    that is ``free`` with one rule of ``spec`` on root ``key`` laid over it, made without
    ``cfg`` (``entry.one_rule_pair``: an assertion's one-off rule, whose configuration
    would be made for one pair): the key's own field is made as ``cfg``'s walk makes it,
    by :func:`_own_field`. ``Unread`` where ``walked_apart`` raises it."""
    walked = _apart(free, key, spec, expected, actual, True, None)
    assert walked is not None  # (unread: Unread where it would be None)
    return walked


def _apart(
    free: WalkConfig,
    key: str,
    spec: FieldSpec,
    expected: JsonValue,
    actual: JsonValue,
    unread: bool,
    cfg: WalkConfig | None,
) -> WalkOutput | None:
    """``walked_apart``'s steps: ``cfg`` the configuration with the rule, which walks the
    key; None: the key's field made from ``spec`` (``walked_by_spec``)."""
    if type(expected) is not dict or type(actual) is not dict or not expected:
        if unread:
            raise Unread
        return None
    value, other = expected.get(key, MISSING), actual.get(key, MISSING)
    if value is MISSING and other is MISSING:  # (the rule meets no field of this record)
        return walk(free, expected, actual, None, False, unread, unread)
    if not spec.skip and (type(value) in _CONTAINERS or type(other) in _CONTAINERS):
        if unread:
            raise Unread
        return None
    if unread and not (
        (value is MISSING or type(value) in _PLAIN or plain_within(value, _ROOM))
        and (other is MISSING or type(other) in _PLAIN or plain_within(other, _ROOM))
    ):
        raise Unread  # (what the door copies or refuses: it reads both sides, and names it)
    if value is not MISSING:
        expected = dict(expected)  # (the key keeps its place: only its value changes)
        expected[key] = _STAND_IN
    if other is not MISSING:
        actual = dict(actual)
        actual[key] = _STAND_IN
    # the other keys first: an unread walk that meets what the door must read raises
    # Unread before the key's own walk is made
    found = walk(free, expected, actual, None, False, unread, unread)
    # the key alone, as the whole walk's Walk.keys_read walks it: an expected key by
    # key_of_object (no schema: its node), a key only the answer has as an extra key
    where = ROOT.key(key)
    if cfg is None:
        own, floors = _own_field(free, spec, where, key, value, other)
    else:
        walked = Walk(cfg, UNASKED, PairBudget())
        if value is not MISSING:
            walked.node(value, other, where, None, 1)
        elif cfg.count_extras:
            walked._extra_keys(_NONE, {key: cast(JsonValue, other)}, ROOT, None, 0)
        own, floors = walked.out.fields, walked.out.floors
    fields = found.fields
    try:  # (the stand-in's one field, by its path, where it made one: found in C)
        at = indexOf(map(_PATH_OF, fields), where.path)
    except ValueError:  # (none: a key only the answer has, where extras do not count)
        pass
    else:
        fields[at : at + 1] = own
    if floors:  # (the rule-free walk has none: no rule, no schema)
        found.floors += floors
    return found


def _own_field(
    free: WalkConfig, spec: FieldSpec, where: Where, key: str, value: Any, other: Any
) -> tuple[list[FieldResult], list[FloorFailure]]:
    """The key's fields and the floors they fail, as the walk of ``free`` with the rule laid
    over it makes them: what ``Walk.node`` (a key both sides or expected alone hold) and
    ``Walk._extra_keys`` (a key the answer alone holds) do for a root key whose spec is
    ``spec`` (the rule's, laid over no schema node's) and whose values are scalars, where
    the rule does not skip it (both checked by ``_apart``), with no leaf depth, judge or
    schema (``fits``). (``value`` and ``other``: JSON values or MISSING, as ``Walk.node``
    takes them.) Two lists, not a WalkOutput: no class call for a pair's own rule."""
    fields: list[FieldResult] = []
    floors: list[FloorFailure] = []
    if value is not MISSING:  # (Walk.node)
        if spec.skip:
            found = (where.path, SKIPPED, 0.0, value, other, "", "ignored", where.field)
            fields.append(_new(FieldResult, (*found, where.actual, 1.0, None)))
        elif other is MISSING:  # (one_sided: a scalar, its spec the rule's)
            if value is not None or not free.null_absent:
                found = (where.path, OMISSION, 0.0, value, MISSING, "", "", where.field)
                fields.append(_new(FieldResult, (*found, None, 1.0, None)))
                if spec.min_score is not None and spec.min_score > 0:
                    floors.append(FloorFailure(where.path, spec.min_score, 0.0))
        elif spec.transform is None:  # (Walk.leaf, no transform: the values as they are)
            comparator = spec.comparator
            if comparator is None:
                comparator = free.type_policy[json_type(value)]
            score = score_at(comparator, value, other, where.path)
            status = MATCH if score >= 1.0 else MISMATCH
            scored = (where.path, status, score, value, other, comparator.name, "", where.field)
            fields.append(_new(FieldResult, (*scored, where.actual, 1.0, None)))
            if spec.min_score is not None and score < spec.min_score:
                floors.append(FloorFailure(where.path, spec.min_score, score))
        else:
            own = Walk(free, UNASKED, PairBudget())
            own.leaf(value, other, where, spec, None)
            return own.out.fields, own.out.floors
        return fields, floors
    if not free.count_extras:
        return fields, floors
    child = ROOT.actual_key(key)  # (Walk._extra_keys, its key never one of no spec)
    if free.schema_driven:  # (no schema node: its one field here)
        if spec.skip:
            found = (child.path, SKIPPED, 0.0, MISSING, other, "", "ignored", child.field)
            fields.append(_new(FieldResult, (*found, None, 1.0, None)))
        else:
            out = WalkOutput()  # (extra_leaf's: the one field, in an output of its own)
            extra_leaf(out, None, child, other, "not in the schema")
            return out.fields, floors
    elif spec.skip:  # (Walk.node of the key the answer alone holds)
        found = (child.path, SKIPPED, 0.0, MISSING, other, "", "ignored", child.field)
        fields.append(_new(FieldResult, (*found, child.actual, 1.0, None)))
    elif other is not None or not free.null_absent:  # (one_sided: a scalar)
        found = (child.path, HALLUCINATION, 0.0, MISSING, other, "", "", child.field)
        fields.append(_new(FieldResult, (*found, None, 1.0, None)))
    return fields, floors


# the expected object beside a key only the answer has, walked alone (never written to)
_NONE: dict[str, JsonValue] = {}
# How deeply the key's own value may nest where neither side came through the door: within
# the room of the caller's stack, below the root object that holds it.
_ROOM = SHALLOW - 1
