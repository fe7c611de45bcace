"""struct-extract-eval's field F1: schema-driven per-field evaluation. Every field the schema
(given, or inferred from expected) names is a leaf compared by its comparator (the type
defaults ``set_type_default`` changes, or ``x-eval-compare``); arrays align ordered, by a key
field or by an optimal assignment; the score is F1 over matches, mismatches, omissions and
hallucinations. The ``post_process`` option runs post-processors over the field results.
"""

from __future__ import annotations

from ..comparing.comparators import BoundComparator, by_kind, comparator_defaults
from ..comparing.field_spec import parse_align
from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig
from ..core.values import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING
from ..results.field_results import FieldResult
from ..results.post_processors import run_post_processors
from .base import COMMON_OPTIONS, Metric, Options

_F1_POLICIES: dict[tuple[int, int, str], tuple[Registry, dict[str, BoundComparator]]] = {}


def _f1_policy(opts: dict[str, object], registry: Registry) -> dict[str, BoundComparator]:
    """extract-eval's comparator per type (``set_type_default`` changes them), kept per
    registry state and comparator defaults."""
    binder = registry.with_defaults(comparator_defaults(opts))
    key = (id(registry), registry.generation, getattr(binder, "key", ""))
    cached = _F1_POLICIES.get(key)
    if cached is not None and cached[0] is registry:
        return cached[1]
    kinds = {
        kind: binder.comparator(registry.type_default(kind))
        for kind in ("boolean", "integer", "number")
    }
    exact = binder.comparator("exact")
    policy = {
        NULL: binder.comparator(registry.type_default("null")),
        BOOLEAN: kinds["boolean"],
        NUMBER: kinds["number"] if kinds["integer"] is kinds["number"] else by_kind(kinds),
        STRING: binder.comparator(registry.type_default("string")),
        OBJECT: exact,
        ARRAY: exact,
    }
    if len(_F1_POLICIES) > 64:
        _F1_POLICIES.clear()
    _F1_POLICIES[key] = (registry, policy)
    return policy


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    return WalkConfig(
        type_policy=_f1_policy(opts, registry),
        schema_driven=True,
        array_mode="align",
        default_align=parse_align(opts.get("align"), "align"),
        registry=registry,
    )


def _finish(fields: list[FieldResult], options: Options, registry: Registry) -> list[FieldResult]:
    if not options or options.get("post_process") is None:
        return fields
    return run_post_processors(options["post_process"], fields, registry.post_processors)


FIELD_F1 = Metric(
    "field_f1",
    COMMON_OPTIONS | {"post_process"},
    _configure,
    headline="f_beta",
    allow_array=True,
    finish=_finish,
    finishes_when=lambda options: options.get("post_process") is not None,
    rules_apart=True,
    description="struct-extract-eval: schema-driven field P/R/F1",
)
