"""Every walk option reaches both ways of scoring an object: the scorers generated per schema
node (engine/walking/generated_scorers.py) and the general walk (engine/walking/walk.py).

A field added to :class:`WalkConfig` is read by the walk where it applies; the generated
scorers must then honour it in ``_source`` or decline it in ``compiles()``. Nothing but this
test notices when neither happened, so it lists every field of ``WalkConfig`` with values
that differ from field_f1's (the configuration the generated scorers serve), and scores
records under each with the generated scorers on and off: the same fields, pairings and
floors to the bit. A field missing from the list fails the first test, naming the places
to look.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from pytest_jsonmatch.engine.comparing.field_spec import parse_align
from pytest_jsonmatch.engine.comparing.registry import Registry
from pytest_jsonmatch.engine.configuring.walk_config import WalkConfig
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.metrics import REGISTRY
from pytest_jsonmatch.engine.metrics.base import configure, type_policy
from pytest_jsonmatch.engine.metrics.field_f1 import FIELD_F1
from pytest_jsonmatch.engine.schemas.eval_schema import infer_node
from pytest_jsonmatch.engine.walking import generated_scorers as compiled
from pytest_jsonmatch.engine.walking.walk import walk
from tests.engine.test_compiled_walk import specialised
from tests.helpers import fuzz_values as fv

BASE = configure(FIELD_F1, {})

# For each field of WalkConfig, configurations that set it otherwise than field_f1 does.
VARIANTS: dict[str, list[Callable[[], WalkConfig]]] = {
    "type_policy": [
        lambda: BASE.replace(type_policy=type_policy(REGISTRY, "levenshtein", "numeric"))
    ],
    "leaf_depth": [lambda: BASE.replace(leaf_depth=1)],
    "count_extras": [lambda: BASE.replace(count_extras=False)],
    "null_absent": [lambda: BASE.replace(null_absent=True)],
    "schema_driven": [lambda: BASE.replace(schema_driven=False)],
    "array_mode": [
        lambda: BASE.replace(array_mode="index"),
        lambda: BASE.replace(array_mode="similarity", array_threshold=0.5),
    ],
    "default_align": [
        lambda: BASE.replace(default_align=parse_align("hungarian")),
        lambda: BASE.replace(default_align=parse_align({"match_by": "key_field", "key": "sku"})),
    ],
    "array_threshold": [lambda: BASE.replace(array_threshold=0.5)],
    "schema": [lambda: BASE.replace(schema=infer_node([INVOICE], REGISTRY))],
    "rules": [
        lambda: configure(FIELD_F1, {"fields": {"items[].qty": {"comparator": "numeric"}}}),
        lambda: configure(FIELD_F1, {"ignore": ["vendor.name"]}),
    ],
    "registry": [lambda: BASE.replace(registry=Registry())],
}

INVOICE: dict[str, Any] = {
    "id": "A-1",
    "vendor": {"name": "ACME", "address": {"city": "Lyon", "zip": None}},
    "total": 10.5,
    "paid": True,
    "note": None,
    "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}, {"sku": "c", "qty": 3}],
}

# Actual sides that take the branches of a generated scorer: equal, a changed leaf, a null
# against a value and a missing key (null_absent), an extra key (count_extras), reordered
# and changed elements (the alignment), a container of another type.
ACTUALS: list[dict[str, Any]] = [
    INVOICE,
    {**INVOICE, "total": 11, "id": "A-2"},
    {k: v for k, v in INVOICE.items() if k != "note"},
    {**INVOICE, "vendor": {"name": "ACME", "address": {"city": "Lyon"}}, "extra": 1},
    {**INVOICE, "items": INVOICE["items"][::-1]},
    {**INVOICE, "items": [{"sku": "c", "qty": 4}, {"qty": 1, "sku": "a"}, 7]},
    {**INVOICE, "vendor": ["ACME"], "paid": None},
]


def scored(cfg: WalkConfig, expected: Any, actual: Any, on: bool) -> str:
    """Everything the walk finds, as exact text. Each record is walked three times, so that
    its shapes recur often enough to be compiled (compiled.sightings)."""
    node = infer_node([expected], cfg.registry)
    with specialised(on):
        try:
            outputs = [walk(cfg, expected, actual, node) for _ in range(3)]
        except JsonMatchError as exc:
            return f"{type(exc).__name__}: {exc}"
    return fv.exact_repr([(out.fields, out.pairings, out.floors) for out in outputs])


def test_every_walk_option_is_tried_on_both_paths() -> None:
    fields = set(WalkConfig._fields)
    new = sorted(fields - set(VARIANTS))
    assert not new, (
        f"WalkConfig has new fields {new}: the general walk (engine/walking/walk.py) reads "
        "them; engine/walking/generated_scorers.py must honour each in _source (and in scorer_for's "
        "shape key when it changes what a scorer does) or decline it in compiles(). Then add "
        "values for them to VARIANTS here, so that both paths are scored under them."
    )
    assert not set(VARIANTS) - fields, "VARIANTS names fields WalkConfig no longer has"


def test_field_f1_objects_take_the_generated_scorers() -> None:
    """Not a vacuous comparison: under field_f1's own configuration the invoice's nodes
    get scorers."""
    node = infer_node([INVOICE], REGISTRY)
    with specialised(True):
        for _ in range(3):
            walk(BASE, INVOICE, INVOICE, node)
    assert compiled.compiles(BASE)
    assert any(callable(scorer) for scorer in node.scorers.values())


CASES = [
    pytest.param(name, k, id=f"{name}-{k}")
    for name, makers in VARIANTS.items()
    for k in range(len(makers))
]


@pytest.mark.parametrize(("name", "k"), CASES)
@pytest.mark.parametrize("actual", range(len(ACTUALS)))
def test_a_walk_option_scores_the_same_on_both_paths(name: str, k: int, actual: int) -> None:
    cfg = VARIANTS[name][k]()
    assert getattr(cfg, name) != getattr(BASE, name)  # the variant sets what it names
    assert scored(cfg, INVOICE, ACTUALS[actual], True) == scored(
        cfg, INVOICE, ACTUALS[actual], False
    )


# (alignments on fuzz values are tests/engine/test_compiled_walk.py's: its options draw them)
FUZZ_CASES = [case for case in CASES if case.values[0] != "default_align"]


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(pair=fv.PAIRS)
@pytest.mark.parametrize(("name", "k"), FUZZ_CASES)
def test_a_walk_option_scores_fuzz_values_the_same_on_both_paths(
    name: str, k: int, pair: tuple[Any, Any]
) -> None:
    cfg = VARIANTS[name][k]()
    actual, expected = pair
    assert scored(cfg, expected, actual, True) == scored(cfg, expected, actual, False)
