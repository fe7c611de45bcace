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
the keys only the answer has); the key's own fields replace it.
"""

from __future__ import annotations

from ..configuring.walk_config import WalkConfig
from ..core.paths import ROOT, key_forms
from ..core.values import MISSING, JsonValue
from ..judge import UNASKED
from ..pairing.pair_budget import PairBudget
from ..results.field_results import WalkOutput
from ..schemas.eval_schema import SchemaNode
from .walk import Walk, walk

# The switch of this fast path (docs/architecture.md, "Fast paths"): False walks every
# record with rules as a whole, by the configuration with its rules.
RULE_APART = True

# The stand-in for the key's value in the rule-free walk: a scalar, one field wherever it is
_STAND_IN = 0
_CONTAINERS = (dict, list)


def takes(cfg: WalkConfig, schema: SchemaNode | None) -> bool:
    """Whether records walked under ``cfg`` (and ``schema``) may take the rule apart: one
    rule on one root key (``root_rule``), no schema (its nodes would reach the key's
    neighbours), a metric that reads the schema expected implies (an answer's extra key is
    then one field, whatever it holds), no leaf depth, no judge and no comparator that
    sees the strings first (each is asked once a record, for every field)."""
    return (
        RULE_APART
        and cfg.root_rule is not None
        and schema is None
        and cfg.schema is None
        and cfg.schema_driven
        and cfg.leaf_depth is None
        and not cfg.judged(None)
        and not cfg.prepares
    )


def walked_apart(cfg: WalkConfig, expected: JsonValue, actual: JsonValue) -> WalkOutput | None:
    """What ``walk(cfg, expected, actual, None)`` gives, for a configuration that
    :func:`takes` the rule apart and two sides read by the door; None where this record
    may not take it (nothing walked yet): a side that is not an object, an empty expected
    object (compared whole), or the key holding an object or an array under a rule that
    does not skip it (its walk would pair arrays, spending the record's pair budget and
    adding its pairings)."""
    if type(expected) is not dict or type(actual) is not dict or not expected:
        return None
    root_rule = cfg.root_rule
    assert root_rule is not None  # (takes)
    free, key = root_rule
    value, other = expected.get(key, MISSING), actual.get(key, MISSING)
    if value is MISSING and other is MISSING:
        return walk(free, expected, actual, None)  # (the rule meets no field of this record)
    if not cfg.rules[0].spec.skip and (type(value) in _CONTAINERS or type(other) in _CONTAINERS):
        return None
    # the key alone, as the whole walk walks it (Walk.keys_read: an expected key by
    # key_of_object, a key only the answer has as one of its extra keys)
    own = Walk(cfg, UNASKED, PairBudget())
    own.keys_read(
        {} if value is MISSING else {key: expected[key]},
        {} if other is MISSING else {key: actual[key]},
        ROOT,
        None,
        0,
    )
    if value is not MISSING:
        expected = dict(expected)  # (the key keeps its place: only its value changes)
        expected[key] = _STAND_IN
    if other is not MISSING:
        actual = dict(actual)
        actual[key] = _STAND_IN
    found = walk(free, expected, actual, None)
    path = key_forms(key)[0]
    fields = found.fields
    at = next(i for i, field in enumerate(fields) if field.path == path)
    fields[at : at + 1] = own.out.fields
    found.floors += own.out.floors  # (the rule-free walk has none: no rule, no schema)
    return found
