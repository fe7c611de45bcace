"""The walk's configuration, and the per-field rules of the options every metric shares.

A metric (engine/metrics/) turns its own options into a :class:`WalkConfig`: the comparator
per JSON type, where leaves stop, how arrays align. The options every metric takes add to
it: :func:`field_rules` reads ``ignore`` and ``fields`` into :class:`FieldRule`s, and
:func:`schema_node` reads ``schema`` into the schema graph the walk follows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any, Literal

from ..comparing.comparators import BoundComparator
from ..comparing.field_spec import ORDERED, Align, FieldSpec, parse_align
from ..comparing.registry import REGISTRY, Binder, Registry
from ..core.errors import ConfigError, ParseError, did_you_mean, shown
from ..core.numbers import is_finite_number
from ..core.paths import (
    PathPattern,
    display_path,
    index_segment,
    key_forms,
    key_segment,
    path_segments,
)
from ..core.slotted import HashedSlotted
from ..core.values import SCALAR_TYPES, TYPE_OF, JsonArray, JsonObject, JsonValue
from ..reading.intake import MAX_DEPTH
from ..schemas.eval_schema import (
    SchemaNode,
    SchemaReader,
    inferred_items,
    parse_schema,
    parse_transforms,
    parse_weight,
)

# see WalkConfig.inline_plan
InlinePlan = tuple[
    Mapping[type, BoundComparator],
    bool,
    "Mapping[str, BoundComparator] | None",
    Mapping[type, BoundComparator],
    "frozenset[str] | None",
]
_NO_TYPES: Mapping[type, BoundComparator] = {}
# What an ignored array element is compared as inside a value compared whole (field_match):
# the same on both sides at the same place, whatever either side holds there.
IGNORED_PLACE = "<ignored>"
FIELD_RULE_KEYS = ("align", "comparator", "min_score", "skip", "tolerance", "transform", "weight")
_RULE_KEYS = frozenset(FIELD_RULE_KEYS)
# a tolerance given as one number (``{"tolerance": 5}``): the numeric comparator's ``abs``
_NUMBERS = frozenset({int, float})


class FieldRule(HashedSlotted):
    """A ``fields`` (or ``ignore``) entry: the spec of every field its pattern matches."""

    __slots__ = (
        "pattern",
        "spec",
    )

    pattern: PathPattern
    spec: FieldSpec

    def __init__(
        self,
        pattern: PathPattern,
        spec: FieldSpec,
    ) -> None:
        self.pattern, self.spec = pattern, spec


class WalkConfig(HashedSlotted):
    """How a metric walks two values.

    ``type_policy``: the comparator per JSON type. ``leaf_depth=1`` compares each top-level
    value whole. ``count_extras``: actual fields that expected lacks are hallucinations.
    ``null_absent``: a null with nothing on the other side is not a field.
    ``schema_driven``: keys the schema does not know are skipped (expected) or one
    hallucination each (actual), containers that disagree in shape are one mismatch, and
    empty containers are fields of their own. ``array_mode``: ``index`` | ``align`` (schema
    or ``align`` option) | ``similarity`` (structeval's pairing above ``array_threshold``).
    """

    __slots__ = (
        "__dict__",  # (the cached properties below)
        "type_policy",
        "leaf_depth",
        "count_extras",
        "null_absent",
        "schema_driven",
        "array_mode",
        "default_align",
        "array_threshold",
        "schema",
        "rules",
        "registry",
    )

    type_policy: Mapping[str, BoundComparator]
    leaf_depth: int | None
    count_extras: bool
    null_absent: bool
    schema_driven: bool
    array_mode: str
    default_align: Align
    array_threshold: float
    schema: SchemaNode | None
    rules: tuple[FieldRule, ...]
    registry: Registry

    def __init__(
        self,
        type_policy: Mapping[str, BoundComparator],
        leaf_depth: int | None = None,
        count_extras: bool = True,
        null_absent: bool = False,
        schema_driven: bool = False,
        array_mode: str = "index",
        default_align: Align = ORDERED,
        array_threshold: float = 0.0,
        schema: SchemaNode | None = None,
        rules: tuple[FieldRule, ...] = (),
        registry: Registry = REGISTRY,
    ) -> None:
        self.type_policy, self.leaf_depth = type_policy, leaf_depth
        self.count_extras, self.null_absent = count_extras, null_absent
        self.schema_driven, self.array_mode = schema_driven, array_mode
        self.default_align, self.array_threshold = default_align, array_threshold
        self.schema, self.rules, self.registry = schema, rules, registry

    def with_rules(self, rules: tuple[FieldRule, ...]) -> WalkConfig:
        """This configuration with ``rules`` in place of its own, holding the tables no rule
        changes (its per-type comparators, its inline plans of objects without a schema
        node), worked out once for all the rules laid over it: an assertion's own pay alone."""
        made = WalkConfig(
            self.type_policy,
            self.leaf_depth,
            self.count_extras,
            self.null_absent,
            self.schema_driven,
            self.array_mode,
            self.default_align,
            self.array_threshold,
            self.schema,
            rules,
            self.registry,
        )
        known = made.__dict__
        known.update(self._rule_free)
        # (what the rules decide, read here at once: a cached property's first reading
        # takes its lock, three of them for every pair that gives its own rules)
        if len(rules) == 1 and not self.rules:  # (one rule over none: an assertion's own)
            spec = rules[0].spec
            known["skip_patterns"] = (rules[0].pattern,) if spec.skip else ()
            weighted = spec.weight is not None
            key = rules[0].pattern.root_key()
            known["root_rule"] = None if key is None else (self, key)
        else:
            known["skip_patterns"] = tuple(rule.pattern for rule in rules if rule.spec.skip)
            weighted = any(rule.spec.weight is not None for rule in rules)
            known["root_rule"] = None
        if self.schema is None:
            known["weighted"] = weighted
            if not self.registry.binds_prepare:
                known["prepares"] = ()
        return made

    @cached_property
    def _rule_free(self) -> dict[str, object]:
        """The cached tables ``with_rules`` hands on (``_RULE_FREE``), worked out once."""
        return {name: getattr(self, name) for name in _RULE_FREE}

    @cached_property
    def root_rule(self) -> tuple[WalkConfig, str] | None:
        """(the configuration without rules, the key) where this one is that configuration
        with one rule laid over it (``with_rules``) that names one key of the root alone
        (``ignore=["id"]``, ``fields={"total": ...}``): every other key of a record is walked
        as that configuration walks it (the entry's rule apart); else None."""
        return None

    @cached_property
    def scalar_policy(self) -> dict[type, BoundComparator]:
        """The comparator of each Python scalar type, for the walk's inline loop (a batch
        comparator is left out: its fields go the general way, to the judge)."""
        return {
            kind: self.type_policy[tag]
            for kind, tag in TYPE_OF.items()
            if kind in SCALAR_TYPES and tag in self.type_policy and not self.type_policy[tag].batch
        }

    @cached_property
    def value_policy(self) -> dict[type, BoundComparator]:
        """The comparator of each Python type a JSON value can have (containers too, for
        metrics that compare whole values), batch comparators left out as above."""
        return {
            kind: self.type_policy[tag]
            for kind, tag in TYPE_OF.items()
            if tag in self.type_policy and not self.type_policy[tag].batch
        }

    @cached_property
    def batch_policy(self) -> bool:
        """Whether a per-type comparator is a batch comparator (array pairing must then walk
        each candidate pair, so that the judge sees the fields)."""
        return any(comp.batch for comp in self.type_policy.values())

    @cached_property
    def skippable_by_type(self) -> dict[type, BoundComparator]:
        """scalar_policy's comparators that score equal values 1, by Python type."""
        return {kind: comp for kind, comp in self.scalar_policy.items() if comp.equal_one}

    @cached_property
    def _plans(self) -> dict[bool, InlinePlan]:
        """The inline plans of objects without a schema node, for ``whole`` False and True."""
        if self.schema_driven:  # field_f1's inferred schema: a scalar in expected is a leaf
            plan = (self.scalar_policy, False, None, self.skippable_by_type, None)
            return {False: plan, True: plan}
        return {
            False: (self.scalar_policy, True, None, self.skippable_by_type, None),
            True: (self.value_policy, False, None, self.skippable_by_type, None),
        }

    @cached_property
    def root_plan(self) -> InlinePlan | None:
        """``inline_plan`` of a root object without a schema node (walking/plain_root.py)."""
        return self.inline_plan(None, self.leaf_depth == 1, "")

    def inline_plan(
        self, node: SchemaNode | None, whole: bool, path: str | None = None
    ) -> InlinePlan | None:
        """How the walk scores the leaf fields of the object at instance ``path`` in the
        object's own loop, or None when every field must go its general way (a rule may
        reach a field below it through any key: with rules and no ``path``, any field; a
        schema given to a metric that is not schema-driven gives each field its spec).
        ``whole``: the fields are at the metric's leaf depth, compared whole. A plan is
        (comparator by Python type, whether the actual value must be a scalar too,
        comparator by key (a schema's leaves), the by-type comparators that score equal
        scalars 1, the keys that go their general way: those a rule names at this object
        or below it, None for none)."""
        general = self._general_keys(path) if self.rules else None
        if general is False:
            return None
        plan: InlinePlan
        if node is None:
            plan = self._plans[whole]
        elif not self.schema_driven:
            return None
        elif node.properties is not None:
            plan = (_NO_TYPES, False, node.plain_by_key, _NO_TYPES, None)
        else:
            plan = (
                self._plans[whole]
                if whole
                else (self.scalar_policy, True, None, self.skippable_by_type, None)
            )
        return plan if general is None else (*plan[:4], general)

    def _general_keys(self, path: str | None) -> frozenset[str] | None | Literal[False]:
        """The keys of the object at ``path`` through which a rule may reach a field (None
        for none), or False where a rule may reach one through any key (or no ``path``)."""
        if path is None:
            return False
        named: frozenset[str] | None = None
        for rule in self.rules:
            keys = rule.pattern.keys_below(path)
            if keys is None:
                return False
            if keys:
                named = keys if named is None else named | keys
        return named

    @cached_property
    def every_type_scores_equal_one(self) -> bool:
        """Every per-type comparator scores equal values 1 (see BoundComparator.equal_one)."""
        return all(comp.equal_one for comp in self.type_policy.values())

    @cached_property
    def skip_patterns(self) -> tuple[PathPattern, ...]:
        return tuple(rule.pattern for rule in self.rules if rule.spec.skip)

    def is_leaf(self, node: SchemaNode | None, value: object, depth: int) -> bool:
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

    def items_of(self, node: SchemaNode | None, expected: list[JsonValue]) -> SchemaNode | None:
        """The schema of an array's elements: the schema's, or for field_f1 without a
        schema, the one the expected elements imply (pooled, as inferring the whole
        record's schema would give it)."""
        if node is not None:
            return node.items
        return inferred_items(expected, self.registry) if self.schema_driven else None

    def identical_elements_score_one(self, items: SchemaNode | None, path: str) -> bool:
        """Whether equal values are sure to score 1 in the elements (schema ``items``) of the
        array at ``path``: no per-field rule that may reach them, and only comparators that
        declare ``equal_one`` (custom ones do not)."""
        return (
            not any(rule.pattern.may_match_below(path) for rule in self.rules)
            and self.every_type_scores_equal_one
            and (items is None or _schema_gives_equal_one(items))
        )

    def is_skipped(self, path: str) -> bool:
        """Whether an ``ignore`` (or ``skip``) rule names the field at ``path``."""
        return any(pattern.matches(path) for pattern in self.skip_patterns)

    def spec_at(self, path: str, node: SchemaNode | None) -> FieldSpec | None:
        """The spec of the field at ``path``: its schema node's, with every matching rule
        laid over it in order (None: nothing set, the metric decides)."""
        spec = node.spec if node is not None else None
        if self.root_rule is not None:  # (one rule, on one root key: _root_spec)
            return _root_spec(self, path, spec)
        for rule in self.rules:
            if rule.pattern.matches(path):
                spec = rule.spec.over(spec)
        return spec

    @cached_property
    def prepares(self) -> tuple[Callable[[list[str]], None], ...]:
        """The ``prepare`` functions of the comparators this configuration may use (each
        once): they see a record's strings before the walk (cosine embeds them in one call)."""
        if not self.registry.binds_prepare:
            return ()
        comparators = [*self.type_policy.values(), *(rule.spec.comparator for rule in self.rules)]
        if self.schema is not None:
            comparators += _schema_facts(self.schema).comparators
        found = {id(c): c.prepare for c in comparators if c is not None and c.prepare is not None}
        return tuple(found.values())  # (each comparator once, in the order first met)

    def judged(self, schema: SchemaNode | None) -> bool:
        """Whether a batch comparator (a judge) may score a field under this configuration
        and ``schema`` (the one given, or the one inferred from the records)."""
        return (
            self.batch_policy
            or any(
                rule.spec.comparator is not None and rule.spec.comparator.batch
                for rule in self.rules
            )
            or (schema is not None and _schema_facts(schema).judged)
        )

    @cached_property
    def weighted(self) -> bool:
        """Whether a ``weight`` setting or ``x-eval-weight`` gives some field a weight."""
        return any(rule.spec.weight is not None for rule in self.rules) or (
            self.schema is not None and _schema_facts(self.schema).weighted
        )

    def weight_at(self, path: str) -> float:
        """The weight of the field at instance path ``path``: set on the field itself or, if
        not, on the nearest field enclosing it (``fields`` rules first, then the schema); 1
        when nothing sets one."""
        segments = path_segments(path)
        nodes: list[SchemaNode | None] = [self.schema]
        for segment in segments:
            node = nodes[-1]
            if node is None:
                nodes.append(None)
            elif segment[0] == "k":
                nodes.append((node.properties or {}).get(segment[1:]))
            else:
                nodes.append(node.items)
        weighted = [
            (rule.spec.weight, rule.pattern.matching_prefixes(segments))
            for rule in reversed(self.rules)
            if rule.spec.weight is not None
        ]
        for depth in range(len(segments), -1, -1):
            for weight, matched in weighted:  # the last rule given wins
                if matched[depth]:
                    return weight
            node = nodes[depth]
            if node is not None and node.spec.weight is not None:
                return node.spec.weight
        return 1.0

    def without_skipped_measured(self, value: JsonValue, path: str) -> tuple[JsonValue, int]:
        """``value`` without the fields ``ignore`` names inside it (for a value compared
        whole, which must not see them): an ignored key is left out, an ignored array
        element keeps its place as :data:`IGNORED_PLACE` (the array's length still counts,
        what the element holds never does); and how deeply the value left nests (the caller
        makes room for it), without recursion. What is ignored is never read, so no key order
        changes a score: neither an ignored value nor the door's description of one that is
        not JSON (intake.py; it lists a mapping's keys in their insertion order) reaches the
        comparator. Past the door's bound the value is a ParseError naming the path."""
        kind = type(value)
        if kind is not dict and kind is not list:
            return value, 0
        root: list[JsonValue] = [None]
        deepest = 0
        # (source value, its path, its depth, the container receiving its copy, the slot);
        # the loop reads a source, and a slot, by the type it keeps in ``kind``: beyond mypy
        stack: list[tuple[Any, str, int, JsonObject | JsonArray, Any]] = [(value, path, 0, root, 0)]
        while stack:
            source, where, depth, target, slot = stack.pop()
            kind = type(source)
            if kind is dict or kind is list:
                if depth >= MAX_DEPTH:
                    raise ParseError(
                        f"{display_path(path)}: a value compared whole nests more than "
                        f"{MAX_DEPTH:,} levels inside an ignored field (or holds itself)"
                    )
                if depth + 1 > deepest:
                    deepest = depth + 1
            copied: JsonValue  # (an annotation: nothing runs)
            if kind is dict:
                copied = {}
                for key, child in source.items():
                    child_path = key_segment(where, key)
                    if not self.is_skipped(child_path):
                        copied[key] = None  # the key's place, in document order
                        stack.append((child, child_path, depth + 1, copied, key))
            elif kind is list:
                copied = [IGNORED_PLACE] * len(source)
                for i, child in enumerate(source):
                    child_path = index_segment(where, i)
                    if not self.is_skipped(child_path):
                        stack.append((child, child_path, depth + 1, copied, i))
            else:
                copied = source
            target[slot] = copied
        return root[0], deepest


def _root_spec(cfg: WalkConfig, path: str, spec: FieldSpec | None) -> FieldSpec | None:
    """``cfg.spec_at(path, node)`` (``spec``: the node's) where the configuration's one rule
    names one key of the root alone (``root_rule``): the one path it matches is that key's,
    as the walk writes it (``key_forms``), read without the pattern."""
    root_rule = cfg.root_rule
    assert root_rule is not None  # (spec_at)
    return cfg.rules[0].spec.over(spec) if path == key_forms(root_rule[1])[0] else spec


# WalkConfig's cached tables that read neither its rules nor its schema (with_rules)
_RULE_FREE = (
    "scalar_policy",
    "value_policy",
    "batch_policy",
    "skippable_by_type",
    "_plans",
    "every_type_scores_equal_one",
)


_EQUAL_ONE: dict[int, tuple[SchemaNode, bool]] = {}


def _schema_gives_equal_one(node: SchemaNode) -> bool:
    """Whether every comparator in the schema below ``node`` gives equal values 1 (a
    recursive schema's nodes are each looked at once; the answer is kept per node)."""
    known = _EQUAL_ONE.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    if len(_EQUAL_ONE) > _EQUAL_ONE_LIMIT:
        _EQUAL_ONE.clear()
    answer, reached = _gives_equal_one(node)
    if answer:
        # the graph below each reached node is part of this one: they give 1 too (so the
        # nodes of a deep schema are each looked at once, not once per level above them)
        for other in reached:
            _EQUAL_ONE[id(other)] = (other, True)
    else:
        _EQUAL_ONE[id(node)] = (node, False)
    return answer


_EQUAL_ONE_LIMIT = 1 << 16


def _gives_equal_one(node: SchemaNode) -> tuple[bool, list[SchemaNode]]:
    """The answer for ``node``, and the nodes looked at (those already known to give 1 are
    not looked into again)."""
    seen: set[int] = set()
    reached: list[SchemaNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        known = _EQUAL_ONE.get(id(current))
        if known is not None and known[0] is current and known[1]:
            continue
        reached.append(current)
        comparator = current.spec.comparator
        if comparator is not None and not comparator.equal_one:
            return False, reached
        stack.extend((current.properties or {}).values())
        if current.items is not None:
            stack.append(current.items)
    return True, reached


class _SchemaFacts(HashedSlotted):
    """What a walk over a whole schema graph finds, once per parsed schema: whether a node
    gives a weight, the comparators with a ``prepare`` (cosine), and whether a node is
    scored by a batch comparator (a judge)."""

    __slots__ = (
        "root",
        "weighted",
        "comparators",
        "judged",
    )

    root: SchemaNode
    weighted: bool
    comparators: tuple[BoundComparator, ...]
    judged: bool

    def __init__(
        self,
        root: SchemaNode,
        weighted: bool,
        comparators: tuple[BoundComparator, ...],
        judged: bool = False,
    ) -> None:
        self.root, self.weighted = root, weighted
        self.comparators, self.judged = comparators, judged


_FACTS: dict[int, _SchemaFacts] = {}


def _schema_facts(root: SchemaNode) -> _SchemaFacts:
    found = _FACTS.get(id(root))
    if found is not None and found.root is root:
        return found
    weighted = judged = False
    comparators: dict[int, BoundComparator] = {}
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        weighted = weighted or node.spec.weight is not None
        for comparator in (node.spec.comparator, node.default_comparator):
            if comparator is not None and comparator.prepare is not None:
                comparators.setdefault(id(comparator), comparator)
            judged = judged or (comparator is not None and comparator.batch)
        stack.extend((node.properties or {}).values())
        if node.items is not None:
            stack.append(node.items)
    if len(_FACTS) > 256:
        _FACTS.clear()
    found = _FACTS[id(root)] = _SchemaFacts(root, weighted, tuple(comparators.values()), judged)
    return found


def unit_number(value: object, what: str) -> float:
    """``value`` as a float in [0, 1], or ConfigError naming ``what``."""
    if not is_finite_number(value) or not 0 <= value <= 1:
        raise ConfigError(f"{what} must be a number in [0, 1], not {shown(value)}")
    return float(value)


def field_rules(opts: Mapping[str, object], registry: Registry | Binder) -> tuple[FieldRule, ...]:
    """The rules of the ``ignore`` and ``fields`` options, ``ignore`` first, in order."""
    ignore = opts.get("ignore")
    if ignore is None:
        ignore = ()
    elif isinstance(ignore, str):
        ignore = [ignore]
    elif not isinstance(ignore, (list, tuple)) or not all(isinstance(p, str) for p in ignore):
        raise ConfigError(f"ignore must be a path pattern or a list of them, not {shown(ignore)}")
    rules = [FieldRule(PathPattern(pattern), FieldSpec(skip=True)) for pattern in ignore]
    fields = opts.get("fields")
    if fields is None:
        fields = {}
    if type(fields) is not dict and not isinstance(fields, Mapping):
        raise ConfigError(f"fields must map path patterns to settings, not {shown(fields)}")
    for pattern, settings in fields.items():
        if not isinstance(pattern, str):
            raise ConfigError(f"fields: a key is a path pattern (a string), not {shown(pattern)}")
        rules.append(FieldRule(PathPattern(pattern), _field_spec(pattern, settings, registry)))
    return tuple(rules)


def rule_spec(pattern: str, settings: object, registry: Registry, content: object) -> FieldSpec:
    """The spec of one rule on ``pattern`` (settings None: ``ignore``), as
    :func:`field_rules` reads it with ``registry`` (no comparator defaults), kept by
    ``content``, the settings as hashable plain data (an assertion's rule is on a key of
    its own, its settings those of many others: ``{"tolerance": 5}``); errors name the
    pattern, and are never kept."""
    if settings is None:
        return _SKIP
    key = (id(registry), content)
    known = _SPECS.get(key)
    if known is not None and known[0] is registry and known[1] == registry.generation:
        return known[2]
    spec = _field_spec(pattern, settings, registry)
    if len(_SPECS) >= 256:
        _SPECS.clear()
    _SPECS[key] = (registry, registry.generation, spec)
    return spec


# ``ignore``'s spec, and rule_spec's, by the settings' content and the registry's id
_SKIP = FieldSpec(skip=True)
_SPECS: dict[tuple[int, object], tuple[Registry, int, FieldSpec]] = {}


def _field_spec(pattern: str, settings: object, registry: Registry | Binder) -> FieldSpec:
    """One ``fields`` entry's settings as a FieldSpec; errors name the pattern."""
    if type(settings) is not dict and not isinstance(settings, Mapping):
        raise ConfigError(
            f"fields[{pattern!r}] must be a mapping of settings, not {shown(settings)}"
        )
    if not _RULE_KEYS.issuperset(settings):
        unknown = set(settings) - _RULE_KEYS
        hint = did_you_mean(next(iter(unknown)), FIELD_RULE_KEYS) if len(unknown) == 1 else ""
        raise ConfigError(
            f"fields[{pattern!r}]: unknown setting {', '.join(map(repr, sorted(unknown)))}"
            f"{hint}; "
            f"known: {', '.join(FIELD_RULE_KEYS)}"
        )
    try:
        comparator = (
            registry.comparator(settings["comparator"]) if "comparator" in settings else None
        )
        if "tolerance" in settings:
            if comparator is not None:
                raise ConfigError("give either comparator or tolerance, not both")
            tol = settings["tolerance"]
            mapped = type(tol) not in _NUMBERS and isinstance(tol, Mapping)
            comparator = registry.comparator({"numeric": dict(tol) if mapped else {"abs": tol}})
        transform = (
            parse_transforms(settings["transform"], registry) if "transform" in settings else None
        )
        align = parse_align(settings["align"], "align") if "align" in settings else None
        min_score = settings.get("min_score")
        if min_score is not None:
            min_score = unit_number(min_score, "min_score")
        weight = parse_weight(settings["weight"], "weight") if "weight" in settings else None
    except ConfigError as exc:
        raise ConfigError(f"fields[{pattern!r}]: {exc}") from None
    skip = settings.get("skip", False)
    if not isinstance(skip, bool):
        raise ConfigError(f"fields[{pattern!r}]: skip must be true or false")
    return FieldSpec(comparator, transform, align, min_score, skip, weight)


_SCHEMA_CACHE: dict[tuple[int, int, SchemaReader | None, object], tuple[object, SchemaNode]] = {}


def schema_node(
    source: object, registry: Registry | Binder, reader: SchemaReader | None
) -> SchemaNode:
    """The parsed schema graph of ``source`` (a mapping, a file, a pydantic model class),
    kept per schema document, registry state, comparator defaults and dialect."""
    from ..schemas.loading import load_schema  # (only when a schema is given)

    loaded = load_schema(source)
    base = registry.registry if isinstance(registry, Binder) else registry
    key = (
        id(loaded.contents),
        registry.generation,
        reader,
        registry.key if isinstance(registry, Binder) else "",
    )
    cached = _SCHEMA_CACHE.get(key)
    if cached is not None and cached[0] is loaded.contents and base is REGISTRY:
        return cached[1]
    node = parse_schema(loaded, registry, reader)
    if base is REGISTRY:
        if len(_SCHEMA_CACHE) > 256:
            _SCHEMA_CACHE.clear()
        _SCHEMA_CACHE[key] = (loaded.contents, node)
    return node
