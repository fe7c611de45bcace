"""From a metric and its options to the walk's configuration and the per-field rules.

A :class:`Metric` is a preset: which options it takes, how it turns them into a
:class:`WalkConfig`, how it headlines its score. :func:`configure` checks the options every
metric shares (``ignore``, ``fields``, ``align``, ``schema``), builds the field rules and the
schema tree, and returns the configuration the walk reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from .comparators import BoundComparator
from .errors import ConfigError, known_names, shown
from .field_spec import ORDERED, Align, FieldSpec, parse_align
from .paths import PathPattern, index_segment, key_segment
from .registry import REGISTRY, Registry
from .schema import SchemaNode, infer_node, load_schema, parse_schema, parse_transforms
from .values import SCALAR_TYPES, TYPE_OF

COMMON_OPTIONS = frozenset({"ignore", "fields", "align", "schema"})
# see WalkConfig.inline_plan
InlinePlan = tuple[Mapping[type, BoundComparator], bool, "Mapping[str, BoundComparator] | None",
                   Mapping[type, BoundComparator]]
_NO_TYPES: Mapping[type, BoundComparator] = {}
FIELD_RULE_KEYS = ("align", "comparator", "min_score", "skip", "tolerance", "transform")


@dataclass(frozen=True)
class FieldRule:
    """A ``fields`` (or ``ignore``) entry: the spec of every field its pattern matches."""

    pattern: PathPattern
    spec: FieldSpec


@dataclass(frozen=True)
class WalkConfig:
    """How a metric walks two values.

    ``type_policy``: the comparator per JSON type. ``leaf_depth=1`` compares each top-level
    value whole. ``count_extras``: actual fields that expected lacks are hallucinations.
    ``null_absent``: a null with nothing on the other side is not a field.
    ``schema_driven``: keys the schema does not know are skipped (expected) or one
    hallucination each (actual), containers that disagree in shape are one mismatch, and
    empty containers are fields of their own. ``array_mode``: ``index`` | ``align`` (schema
    or ``align`` option) | ``similarity`` (structeval's pairing above ``array_threshold``).
    """

    type_policy: Mapping[str, BoundComparator]
    leaf_depth: int | None = None
    count_extras: bool = True
    null_absent: bool = False
    schema_driven: bool = False
    array_mode: str = "index"
    default_align: Align = ORDERED
    array_threshold: float = 0.0
    schema: SchemaNode | None = None
    rules: tuple[FieldRule, ...] = ()
    registry: Registry = REGISTRY

    @cached_property
    def scalar_policy(self) -> dict[type, BoundComparator]:
        """The comparator of each Python scalar type."""
        return {kind: self.type_policy[tag] for kind, tag in TYPE_OF.items()
                if kind in SCALAR_TYPES and tag in self.type_policy}

    @cached_property
    def value_policy(self) -> dict[type, BoundComparator]:
        """The comparator of each Python type a JSON value can have (containers too, for
        metrics that compare whole values)."""
        return {kind: self.type_policy[tag] for kind, tag in TYPE_OF.items()
                if tag in self.type_policy}

    @cached_property
    def equal_one_policy(self) -> dict[type, BoundComparator]:
        """scalar_policy's comparators that score equal values 1, by Python type."""
        return {kind: comp for kind, comp in self.scalar_policy.items() if comp.equal_one}

    @cached_property
    def _plans(self) -> dict[bool, InlinePlan]:
        """The inline plans of objects without a schema node, for ``whole`` False and True."""
        if self.schema_driven:  # field_f1's inferred schema: a scalar in expected is a leaf
            plan = (self.scalar_policy, False, None, self.equal_one_policy)
            return {False: plan, True: plan}
        return {False: (self.scalar_policy, True, None, self.equal_one_policy),
                True: (self.value_policy, False, None, self.equal_one_policy)}

    def inline_plan(self, node: SchemaNode | None, whole: bool) -> InlinePlan | None:
        """How the walk scores an object's leaf fields in the object's own loop, or None when
        every field must go its general way (a rule may name any field; a schema given to a
        metric that is not schema-driven gives each field its spec). ``whole``: the fields
        are at the metric's leaf depth, compared whole. A plan is (comparator by Python type,
        whether the actual value must be a scalar too, comparator by key (a schema's leaves),
        the by-type comparators that score equal scalars 1)."""
        if self.rules:
            return None
        if node is None:
            return self._plans[whole]
        if not self.schema_driven:
            return None
        if node.properties is not None:
            return (_NO_TYPES, False, node.plain_by_key, _NO_TYPES)
        return self._plans[whole] if whole else (self.scalar_policy, True, None, self.equal_one_policy)

    @cached_property
    def policy_equal_one(self) -> bool:
        """Every per-type comparator scores equal values 1 (see BoundComparator.equal_one)."""
        return all(comp.equal_one for comp in self.type_policy.values())

    @cached_property
    def skip_patterns(self) -> tuple[PathPattern, ...]:
        return tuple(rule.pattern for rule in self.rules if rule.spec.skip)

    def is_leaf(self, node: SchemaNode | None, value: Any, depth: int) -> bool:
        """Whether the value at ``depth`` (schema ``node``) is compared whole: at the
        metric's leaf depth, or a leaf of the schema. field_f1 without a schema reads the
        schema expected implies: everything but a non-empty object and an array is a leaf."""
        if depth == self.leaf_depth:
            return True
        if not self.schema_driven:
            return False
        if node is not None:
            return node.is_leaf
        return not (type(value) is list or (type(value) is dict and value))

    def items_of(self, node: SchemaNode | None, expected: list[Any]) -> SchemaNode | None:
        """The schema of an array's elements: the schema's, or for field_f1 without a
        schema, the one the expected elements imply (pooled, as inferring the whole
        record's schema would give it)."""
        if node is not None:
            return node.items
        return infer_node(expected, self.registry) if self.schema_driven else None

    def equal_scores_one(self, items: SchemaNode | None,
                         known: dict[int, tuple[SchemaNode, bool]]) -> bool:
        """Whether equal values are sure to score 1 in elements of ``items``: no per-field
        rules, and only comparators that give equal values 1 (not ``oneof``, whose score
        ignores the expected value, nor custom ones). ``known`` holds the answers found so
        far, by node (``id``, the node held with its answer), so that nested arrays ask
        about each node once, not once per level above it."""
        return not self.rules and self.policy_equal_one and (
            items is None or _schema_gives_equal_one(items, known))

    def is_skipped(self, path: str) -> bool:
        """Whether an ``ignore`` (or ``skip``) rule names the field at ``path``."""
        return any(pattern.matches(path) for pattern in self.skip_patterns)

    def spec_at(self, path: str, node: SchemaNode | None) -> FieldSpec | None:
        """The spec of the field at ``path``: its schema node's, with every matching rule
        laid over it in order (None: nothing set, the metric decides)."""
        spec = node.spec if node is not None else None
        for rule in self.rules:
            if rule.pattern.matches(path):
                spec = rule.spec.over(spec)
        return spec

    def without_skipped(self, value: Any, path: str) -> Any:
        """``value`` without the fields ``ignore`` names inside it (for a value compared
        whole, which must not see them)."""
        if type(value) is dict:
            return {key: self.without_skipped(child, key_segment(path, key))
                    for key, child in value.items() if not self.is_skipped(key_segment(path, key))}
        if type(value) is list:
            return [self.without_skipped(child, index_segment(path, i)) for i, child in enumerate(value)]
        return value


def _schema_gives_equal_one(node: SchemaNode, known: dict[int, tuple[SchemaNode, bool]]) -> bool:
    seen = known.get(id(node))
    if seen is not None:
        return seen[1]
    comparator = node.spec.comparator
    children = list((node.properties or {}).values())
    if node.items is not None:
        children.append(node.items)
    found = (comparator is None or comparator.equal_one) and all(
        _schema_gives_equal_one(child, known) for child in children)
    known[id(node)] = (node, found)  # the node is held, so that its id names no other
    return found


@dataclass(frozen=True)
class Metric:
    """A metric: the options it takes, how it configures the walk from them, and its
    headline score (``recall`` or ``f_beta``)."""

    name: str
    options: frozenset[str]
    configure: Callable[[dict[str, Any], Registry], WalkConfig]
    headline: str = "recall"
    allow_array: bool = False
    description: str = ""


def is_finite_number(value: Any) -> bool:
    """An int (any size) or a finite float; never a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)


def unit_number(value: Any, what: str) -> float:
    """``value`` as a float in [0, 1], or ConfigError naming ``what``."""
    if not is_finite_number(value) or not 0 <= value <= 1:
        raise ConfigError(f"{what} must be a number in [0, 1], not {shown(value)}")
    return float(value)


_BASE_CONFIGS: dict[tuple[str, int], WalkConfig] = {}


def configure(metric: Metric, options: Mapping[str, Any], registry: Registry = REGISTRY) -> WalkConfig:
    """Check ``options`` against ``metric`` and build its walk configuration."""
    if not options:
        key = (metric.name, id(registry))
        cfg = _BASE_CONFIGS.get(key)
        if cfg is None or cfg.registry is not registry:
            cfg = _BASE_CONFIGS[key] = metric.configure({}, registry)
        return cfg
    _check_options(metric, options)
    opts = dict(options)
    cfg = metric.configure(opts, registry)
    schema = _schema_node(opts["schema"], registry) if opts.get("schema") is not None else None
    return replace(cfg, rules=field_rules(opts, registry), schema=schema)


def _check_options(metric: Metric, options: Mapping[str, Any]) -> None:
    unknown = [name for name in options if name not in metric.options]
    if unknown:
        raise ConfigError(
            f"unknown option {', '.join(map(repr, sorted(unknown)))} for metric {metric.name!r}; "
            f"known options: {known_names(metric.options)}")
    if "beta" in options and (not is_finite_number(options["beta"]) or options["beta"] <= 0):
        raise ConfigError(f"beta must be a positive number, not {options['beta']!r}")


def field_rules(opts: Mapping[str, Any], registry: Registry) -> tuple[FieldRule, ...]:
    """The rules of the ``ignore`` and ``fields`` options, ``ignore`` first, in order."""
    ignore = opts.get("ignore") or ()
    if isinstance(ignore, str):
        ignore = [ignore]
    rules = [FieldRule(PathPattern(pattern), FieldSpec(skip=True)) for pattern in ignore]
    fields = opts.get("fields") or {}
    if not isinstance(fields, Mapping):
        raise ConfigError(f"fields must map path patterns to settings, not {type(fields).__name__}")
    for pattern, settings in fields.items():
        rules.append(FieldRule(PathPattern(pattern), _field_spec(pattern, settings, registry)))
    return tuple(rules)


def _field_spec(pattern: str, settings: Any, registry: Registry) -> FieldSpec:
    """One ``fields`` entry's settings as a FieldSpec; errors name the pattern."""
    if not isinstance(settings, Mapping):
        raise ConfigError(f"fields[{pattern!r}] must be a mapping of settings, not {settings!r}")
    unknown = set(settings) - set(FIELD_RULE_KEYS)
    if unknown:
        raise ConfigError(f"fields[{pattern!r}]: unknown setting {', '.join(map(repr, sorted(unknown)))}; "
                          f"known: {', '.join(FIELD_RULE_KEYS)}")
    try:
        comparator = registry.comparator(settings["comparator"]) if "comparator" in settings else None
        if "tolerance" in settings:
            if comparator is not None:
                raise ConfigError("give either comparator or tolerance, not both")
            tol = settings["tolerance"]
            comparator = registry.comparator(
                {"numeric": dict(tol) if isinstance(tol, Mapping) else {"abs": tol}})
        transform = parse_transforms(settings["transform"], registry) if "transform" in settings else None
        align = parse_align(settings["align"], "align") if "align" in settings else None
        min_score = settings.get("min_score")
        if min_score is not None:
            min_score = unit_number(min_score, "min_score")
    except ConfigError as exc:
        raise ConfigError(f"fields[{pattern!r}]: {exc}") from None
    skip = settings.get("skip", False)
    if not isinstance(skip, bool):
        raise ConfigError(f"fields[{pattern!r}]: skip must be true or false")
    return FieldSpec(comparator, transform, align, min_score, skip)


_SCHEMA_CACHE: dict[int, tuple[Any, SchemaNode]] = {}


def _schema_node(source: Any, registry: Registry) -> SchemaNode:
    """The parsed schema tree of ``source`` (a mapping or a file), kept per schema object."""
    schema = load_schema(source)
    cached = _SCHEMA_CACHE.get(id(schema))
    if cached is not None and cached[0] is schema and registry is REGISTRY:
        return cached[1]
    node = parse_schema(schema, registry)
    if registry is REGISTRY:
        if len(_SCHEMA_CACHE) > 256:
            _SCHEMA_CACHE.clear()
        _SCHEMA_CACHE[id(schema)] = (schema, node)
    return node
