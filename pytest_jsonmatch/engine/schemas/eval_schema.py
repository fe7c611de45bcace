"""Eval schemas: a JSON Schema (references resolved, see schema_load.py) whose nodes carry
``x-eval-compare``, ``x-eval-transform``, ``x-eval-align``, ``x-eval-skip`` and
``x-eval-weight``.

``infer_schema`` builds one from gold instances, ``annotate_schema`` fills in default
comparators, ``validate_gold`` checks gold against it, and ``parse_schema`` turns it into
the SchemaNode tree (a graph, for a recursive schema) the walk reads.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from functools import partial
from itertools import chain as _chain
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from ..comparing.comparators import BoundComparator
from ..comparing.field_spec import NO_SPEC, FieldSpec, parse_align
from ..comparing.registry import JSON_TYPES, REGISTRY
from ..comparing.transforms import TransformFn, chain
from ..core.depth import call_with_depth, nesting
from ..core.errors import ConfigError, SchemaError, SchemaWarning, known_names, shown
from ..core.numbers import is_finite_number
from ..core.paths import index_segment, key_segment
from ..core.slotted import Slotted
from ..core.values import JsonObject, JsonValue, schema_type
from ..reading.intake import MAX_DEPTH, Unread, as_data, plain_shapes, plain_within, read_json

if TYPE_CHECKING:  # (loading.py, with urllib and YAML, loads where a schema is read)
    from ..comparing.registry import Binder, Registry
    from .loading import Located, Parts

T = TypeVar("T")

X_KEYS = ("x-eval-compare", "x-eval-transform", "x-eval-align", "x-eval-skip", "x-eval-weight")
JSON_SCHEMA_TYPES = JSON_TYPES

# A schema dialect's own keys (structeval's ``x-override-evaluator``, its enums): given a
# node's keywords, the registry and the node's path, the comparator they name (None: none).
SchemaReader: TypeAlias = (
    "Callable[[Mapping[str, JsonValue], Registry | Binder, str], BoundComparator | None]"
)


class SchemaNode(Slotted):
    """One node of a parsed eval schema: its JSON type, its children, and the spec its
    ``x-eval-*`` keys give (comparator, transforms, alignment, skip, weight). A recursive
    schema parses into a graph: a node may be its own descendant."""

    __slots__ = (
        "type",
        "properties",
        "items",
        "spec",
        "default_comparator",
        "raw",
        "plain",
        "plain_by_key",
        "nullable",
        "allowed",
        "scorers",
        "plans",
    )
    _uncompared = frozenset({"scorers", "plans"})  # caches kept beside the node

    type: str | None
    properties: dict[str, SchemaNode] | None
    items: SchemaNode | None
    spec: FieldSpec
    default_comparator: BoundComparator | None  # by type, for leaves without one
    raw: Mapping[str, JsonValue]  # the keywords, references followed
    # the comparator of a leaf that needs nothing else (no transform, not skipped, not a
    # batch judge): the walk scores such leaves inline
    plain: BoundComparator | None
    # the children that are such leaves, by key
    plain_by_key: dict[str, BoundComparator]
    nullable: bool  # null is allowed besides the type
    allowed: tuple[str, ...]  # the types of a node of several (type "multi")
    # the walk's object scorers generated for this node, by key shape (walking/generated_scorers.py)
    scorers: dict[Hashable, Any]
    # what array pairing works out once per node of elements (pairing/columns.py and
    # pair_scores.py): how an element flattens into columns, each column's comparator
    plans: dict[Hashable, object]

    def __init__(
        self,
        type: str | None = None,
        properties: dict[str, SchemaNode] | None = None,
        items: SchemaNode | None = None,
        spec: FieldSpec = NO_SPEC,
        default_comparator: BoundComparator | None = None,
        raw: Mapping[str, JsonValue] | None = None,
        plain: BoundComparator | None = None,
        plain_by_key: dict[str, BoundComparator] | None = None,
        nullable: bool = False,
        allowed: tuple[str, ...] = (),
        scorers: dict[Hashable, Any] | None = None,
        plans: dict[Hashable, object] | None = None,
    ) -> None:
        self.type, self.properties, self.items = type, properties, items
        self.spec, self.default_comparator = spec, default_comparator
        self.raw = {} if raw is None else raw
        self.plain = plain
        self.plain_by_key = {} if plain_by_key is None else plain_by_key
        self.nullable, self.allowed = nullable, allowed
        self.scorers = {} if scorers is None else scorers
        self.plans = {} if plans is None else plans

    def seal(self) -> SchemaNode:
        comp = self.spec.comparator or self.default_comparator
        if (
            self.is_leaf
            and comp is not None
            and comp.trusted
            and not comp.batch
            and self.spec.transform is None
            and not self.spec.skip
        ):
            self.plain = comp
        self.plain_by_key = {
            key: child.plain
            for key, child in (self.properties or {}).items()
            if child.plain is not None
        }
        return self

    @property
    def is_leaf(self) -> bool:
        """A node is compared as a whole when it names a comparator or has no children."""
        if self.spec.comparator is not None:
            return True
        return not self.properties and self.items is None

    @property
    def skip(self) -> bool:
        return self.spec.skip


# -- inference -------------------------------------------------------------------------------


def infer_schema(instances: Iterable[object]) -> JsonObject:
    """Infer a resolved schema from gold instances: each node's type is that of its first
    non-null value, object properties are the union of keys, array items pool every element.
    (The rule lives in ``infer_node``; this is its tree written out as a mapping.)"""
    if isinstance(instances, (str, bytes, Mapping)) or not isinstance(instances, Iterable):
        raise ConfigError(
            f"infer_schema takes a list of gold instances, not "
            f"{type(instances).__name__} (wrap one instance in a list)"
        )
    values, depth = [], 0
    for index, instance in enumerate(instances):  # each through the door: plain JSON only
        value, instance_depth = read_json(
            as_data(instance, f"instance {index}"), f"instance {index}"
        )
        values.append(value)
        depth = max(depth, instance_depth)
    if not values:
        raise SchemaError("infer_schema needs at least one instance")
    return call_with_depth(
        depth, lambda: _as_mapping(infer_node(values, REGISTRY, warn_mixed=True))
    )


def _as_mapping(node: SchemaNode) -> JsonObject:
    out: JsonObject = {"type": node.type}
    if node.properties is not None:
        out["properties"] = {k: _as_mapping(v) for k, v in node.properties.items()}
    if node.items is not None:
        out["items"] = _as_mapping(node.items)
    return out


def annotate_schema(
    schema: object, type_defaults: Mapping[str, JsonValue] | None = None
) -> JsonObject:
    """A copy of ``schema`` (a mapping, a file or a pydantic model class) where every leaf
    without ``x-eval-compare`` (and not skipped) names its default comparator: strings and
    booleans ``exact``, numbers ``numeric`` (see ``set_type_default``), changed per type by
    ``type_defaults``. References stay as they are; the leaves they lead to are annotated
    where they are defined (``$defs``, ``definitions``)."""
    if type_defaults is not None and not isinstance(type_defaults, Mapping):
        raise ConfigError(
            f"annotate_schema: type_defaults maps JSON types to comparators, "
            f"not {type(type_defaults).__name__}"
        )
    for json_type, comparator in (type_defaults or {}).items():
        REGISTRY.check_type_default(json_type, comparator, "annotate_schema: type_defaults")
    # each a comparator spec the registry binds (a name or {name: params}): JSON to write
    defaults = cast("dict[str, JsonValue]", {**REGISTRY.type_defaults, **(type_defaults or {})})
    from .loading import load_schema

    contents = load_schema(schema).contents

    def annotated() -> JsonObject:
        import copy  # (here: a run without a schema file never imports it)

        out = copy.deepcopy(dict(contents))
        _annotate(out, defaults, set())
        return out

    return _with_room(contents, annotated)


# A schema of a value nested MAX_DEPTH levels (the door's bound) nests about twice as deep
# (an object's "properties" is a level of its own).
MAX_SCHEMA_DEPTH = 2 * MAX_DEPTH + 10
_TOO_DEEP = "the schema nests too deeply to read (its references lead deeper than it nests)"


def _with_room(contents: object, fn: Callable[[], T]) -> T:
    """``fn()``, reading a schema whose document is ``contents``, with stack for its depth."""
    depth = nesting(contents, MAX_SCHEMA_DEPTH)
    if depth > MAX_SCHEMA_DEPTH:
        raise SchemaError(f"the schema nests more than {MAX_SCHEMA_DEPTH:,} levels")
    try:
        return call_with_depth(depth, fn)
    except RecursionError:
        raise SchemaError(_TOO_DEEP) from None


_COMPOSED = ("$ref", "allOf", "anyOf", "oneOf")


def _annotate(node: JsonValue, defaults: Mapping[str, JsonValue], seen: set[int]) -> None:
    if not isinstance(node, dict) or id(node) in seen:
        return
    seen.add(id(node))
    for key in ("$defs", "definitions"):
        if isinstance(node.get(key), dict):
            for child in cast(JsonObject, node[key]).values():  # (a dict: checked above)
                _annotate(child, defaults, seen)
    props = node.get("properties")
    items = node.get("items")
    branches = [
        b
        for k in ("allOf", "anyOf", "oneOf")
        if isinstance(node.get(k), list)
        for b in cast("list[JsonValue]", node[k])
    ]
    if _primary_type(node.get("type")) == "multi" and not any(k in node for k in _COMPOSED):
        # a node of several types is compared whole, whatever properties or items it gives
        if "x-eval-compare" not in node and not node.get("x-eval-skip"):
            node["x-eval-compare"] = defaults.get("multi", "exact")
        return
    if isinstance(props, dict) and props:
        for child in props.values():
            _annotate(child, defaults, seen)
    elif isinstance(items, dict):
        _annotate(items, defaults, seen)
    elif branches:
        real = [b for b in branches if not _null_only(b)]
        if (
            len(real) > 1
            and not any(k in node for k in ("$ref", "allOf"))
            and "x-eval-compare" not in node
            and all(_plain_scalar(b) for b in real)
        ):
            node["x-eval-compare"] = defaults.get("multi", "exact")  # a node of several types
            return
        for branch in branches:
            _annotate(branch, defaults, seen)
    elif (
        "x-eval-compare" not in node
        and not node.get("x-eval-skip")
        and "$ref" not in node
        and not _null_only(node)
    ):
        node["x-eval-compare"] = defaults.get(_primary_type(node.get("type")) or "", "exact")


def _null_only(node: JsonValue) -> bool:
    return isinstance(node, Mapping) and (node.get("type") == "null" or node.get("enum") == [None])


def _plain_scalar(node: JsonValue) -> bool:
    return (
        isinstance(node, Mapping)
        and not any(k in node for k in (*_COMPOSED, "properties", "items"))
        and node.get("type") in ("string", "number", "integer", "boolean")
    )


def _primary_type(kind: JsonValue) -> str | None:
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        # (a type's name: a node's types are checked where it is read, _declared_types)
        return cast(str, real[0]) if len(real) == 1 else ("multi" if real else "null")
    return kind if isinstance(kind, str) else None


# -- parsing ----------------------------------------------------------------------------------


def parse_schema(
    schema: object, registry: Registry | Binder, reader: SchemaReader | None = None
) -> SchemaNode:
    """Check an eval schema (a mapping, a file, a pydantic model class) and bind its
    comparators and transforms; errors name the node. ``reader`` reads a dialect's own keys
    (structeval's, under structural_f1)."""
    from .loading import load_schema

    loaded = load_schema(schema)
    return _with_room(loaded.contents, lambda: _Builder(registry, reader).node(loaded.root, "$"))


class _Builder:
    """Builds the SchemaNode graph of one schema: each schema node once, however many
    references lead to it, so a recursive schema becomes a cycle."""

    def __init__(self, registry: Registry | Binder, reader: SchemaReader | None) -> None:
        self.registry = registry
        self.reader = reader
        self.built: dict[tuple[int, ...], SchemaNode] = {}

    def node(self, parts: Parts, where: str) -> SchemaNode:
        key = tuple(id(raw) for raw, _ in parts)
        found = self.built.get(key)
        if found is not None:
            return found
        from .loading import locate

        located = locate(parts, where)
        keywords = located.keywords
        kind = keywords.get("type")
        kinds = _declared_types(kind, where)
        primary = _primary_type(kind)
        real = tuple(k for k in kinds if k != "null")
        spec = _node_spec(
            keywords,
            self.registry,
            where,
            self.reader,
            is_array=primary == "array" or (primary is None and located.items is not None),
        )
        if located.union and spec.comparator is None and not spec.skip:
            raise SchemaError(
                f"schema node {where}: a union of {len(located.union)} shapes "
                f"({', '.join(located.union)}) cannot be scored field by field; give the node "
                f"x-eval-compare to compare its value whole, or x-eval-skip to leave it out"
            )
        node = SchemaNode(
            type=primary,
            raw=keywords,
            spec=spec,
            nullable=located.nullable or "null" in kinds,
            allowed=real if primary == "multi" else (),
        )
        self.built[key] = node  # before the children: a recursive schema comes back here
        if primary == "multi" and (located.properties is not None or located.items is not None):
            _warn_multi_unread(node, located, where, real)
        elif located.properties is not None:
            node.properties = {
                name: self.node(child, key_segment("" if where == "$" else where, name))
                for name, child in located.properties.items()
            }
        if located.items is not None and primary != "multi":
            node.items = self.node(located.items, ("" if where == "$" else where) + "[]")
        _check_key_field(node, where)
        node.default_comparator = self.registry.comparator(self.registry.type_default(node.type))
        return node.seal()


def _warn_multi_unread(
    node: SchemaNode, located: Located, where: str, real: tuple[str, ...]
) -> None:
    """A node of several types (``real``, null aside) is one field compared whole
    (docs/schemas.md, and extract-eval): its properties and items describe one of its
    types, not fields, and are not read; a SchemaWarning says so unless the node names a
    comparator or is skipped."""
    if node.spec.comparator is None and not node.spec.skip:
        warnings.warn(
            f"schema node {where}: its {'properties' if located.properties is not None else 'items'} "
            f"are not read: a node of several types ({', '.join(real)}) is "
            f"compared whole",
            SchemaWarning,
            stacklevel=5,
        )


def _declared_types(kind: JsonValue, where: str) -> list[str]:
    """The types a node's ``type`` names (none, one or a list), or SchemaError naming the
    first that JSON Schema does not know."""
    kinds = [k for k in (kind if isinstance(kind, list) else [kind]) if k is not None]
    bad = [k for k in kinds if k not in JSON_SCHEMA_TYPES]
    if bad:
        raise SchemaError(
            f"schema node {where}: unknown type {bad[0]!r}; known: {known_names(JSON_SCHEMA_TYPES)}"
        )
    return cast("list[str]", kinds)  # (each a JSON type's name: checked above)


def _check_key_field(node: SchemaNode, where: str) -> None:
    """A ``key_field`` alignment must be able to pair: its array's items are objects (as
    extract-eval requires), else identical arrays would score 0; a key the items do not
    declare is a SchemaWarning (the reference warns too)."""
    align = node.spec.align
    if (
        align is None
        or align.mode != "key_field"
        or node.spec.comparator is not None
        or node.spec.skip
    ):
        return
    items = node.items
    if items is None:
        raise SchemaError(
            f"schema node {where}: x-eval-align matches by key {align.key!r}, but the "
            f"array gives no items schema: give it items of type object with that "
            f"property"
        )
    if items.type not in (None, "object"):
        raise SchemaError(
            f"schema node {where}: x-eval-align matches by key {align.key!r}, but the "
            f"items are {items.type}, not objects: no element has a key to pair by"
        )
    if items.properties is None:
        warnings.warn(
            f"schema node {where}[]: the items of an array aligned by key "
            f"{align.key!r} have no properties",
            SchemaWarning,
            stacklevel=5,
        )
    elif align.key not in items.properties:
        warnings.warn(
            f"schema node {where}: the alignment key {align.key!r} is not among the "
            f"items' properties ({', '.join(items.properties) or 'none'})",
            SchemaWarning,
            stacklevel=5,
        )


def _node_spec(
    schema: Mapping[str, JsonValue],
    registry: Registry | Binder,
    where: str,
    reader: SchemaReader | None,
    is_array: bool,
) -> FieldSpec:
    """The spec a schema node's ``x-eval-*`` keys (and a dialect's) give."""
    _warn_unread_keys(schema, where, reader)
    if "x-eval-align" in schema and not is_array:
        raise SchemaError(
            f"schema node {where}: x-eval-align is only valid on arrays, and this node "
            f"is {_primary_type(schema.get('type')) or 'not typed as one'}"
        )
    try:
        comparator = (
            registry.comparator(schema["x-eval-compare"]) if "x-eval-compare" in schema else None
        )
        if reader is not None:
            dialect = reader(schema, registry, where)
            if dialect is not None and comparator is None:
                comparator = dialect
        transform = (
            parse_transforms(schema["x-eval-transform"], registry)
            if "x-eval-transform" in schema
            else None
        )
        align = (
            parse_align(schema["x-eval-align"], "x-eval-align")
            if "x-eval-align" in schema
            else None
        )
    except SchemaError:
        raise
    except ConfigError as exc:
        raise SchemaError(f"schema node {where}: {exc}") from None
    skip = schema.get("x-eval-skip", False)
    if not isinstance(skip, bool):
        raise SchemaError(
            f"schema node {where}: x-eval-skip must be true or false, not {shown(skip)}"
        )
    return FieldSpec(comparator, transform, align, None, skip, _node_weight(schema, where))


def _warn_unread_keys(
    schema: Mapping[str, JsonValue], where: str, reader: SchemaReader | None
) -> None:
    """A SchemaWarning for each kind of key a node gives that this metric does not read:
    ``x-eval-*`` keys it does not know, structeval's key outside structural_f1."""
    unknown = [
        k for k in schema if isinstance(k, str) and k.startswith("x-eval-") and k not in X_KEYS
    ]
    if unknown:
        warnings.warn(
            f"schema node {where}: unknown keys {unknown} are not read; known: {', '.join(X_KEYS)}",
            SchemaWarning,
            stacklevel=7,
        )
    if reader is None and "x-override-evaluator" in schema:
        warnings.warn(
            f"schema node {where}: x-override-evaluator is structeval's key, read under "
            f"structural_f1 only; this metric uses x-eval-compare",
            SchemaWarning,
            stacklevel=7,
        )


def _node_weight(schema: Mapping[str, JsonValue], where: str) -> float | None:
    """A node's ``x-eval-weight`` (None: not given), or SchemaError naming the node."""
    weight = schema.get("x-eval-weight")
    if weight is None:
        return None
    try:
        return parse_weight(weight, "x-eval-weight")
    except ConfigError as exc:
        raise SchemaError(f"schema node {where}: {exc}") from None


def parse_weight(value: object, what: str) -> float:
    """A field weight: a finite number >= 0, or ConfigError naming ``what``."""
    # (is_finite_number: an int or a float)
    if not is_finite_number(value) or cast(float, value) < 0:
        raise ConfigError(f"{what} must be a number >= 0, not {shown(value)}")
    return float(cast(float, value))


def infer_node(
    values: Sequence[JsonValue],
    registry: Registry | Binder,
    warn_mixed: bool = False,
    bound: int | None = None,
) -> SchemaNode:
    """``parse_schema(infer_schema(values))`` without the intermediate mapping: leaves are
    shared per type, so inferring a record's schema costs one node per container. Without
    recursion: the values may be ignored fields the door did not measure, nested deeper than
    the stack the caller was given. ``warn_mixed``: a field whose values have several types
    (the first non-null one's is kept) is a SchemaWarning, as the reference warns.
    ``bound``: the values have not been through the door (``match.py``, gold read in the
    walk), and a node nested more than ``bound`` levels below the root raises ``Unread``
    (a value that holds itself would be inferred without end)."""
    table = _leaf_table(registry)
    root: list[Any] = [None]
    # a task: (the values one node describes, the container receiving the node, its slot,
    # its depth); a SchemaNode alone seals that node, popped once every node below it is
    # sealed
    stack: list[Any] = [(values, root, 0, 0)]
    deepest = math.inf if bound is None else bound
    # a task's field path, by its values' id (kept only for the warning)
    paths: dict[int, str] | None = {id(values): ""} if warn_mixed else None
    while stack:
        task = stack.pop()
        if type(task) is SchemaNode:
            task.seal()
            continue
        pooled_values, target, slot, depth = task
        if depth > deepest:
            raise Unread
        path = ""
        if paths is not None:
            path = paths.pop(id(pooled_values), "")
            _warn_mixed(pooled_values, path)
        first = next((v for v in pooled_values if v is not None), None)
        if first is None:
            target[slot] = _shared_leaf("string", registry)
            continue
        leaf = table.get(type(first))
        if leaf is not None:
            target[slot] = leaf
            continue
        kind = schema_type(first)
        if kind == "object":
            target[slot] = _inferred_object(
                pooled_values, path, table, registry, stack, paths, depth + 1
            )
        elif kind == "array":
            target[slot] = _inferred_array(pooled_values, path, registry, stack, paths, depth + 1)
        else:
            target[slot] = _shared_leaf(kind, registry)
    return root[0]  # type: ignore[no-any-return]


def _inferred_object(
    pooled_values: Sequence[JsonValue],
    path: str,
    table: dict[type, SchemaNode],
    registry: Registry | Binder,
    stack: list[Any],
    paths: dict[int, str] | None,
    below: int,
) -> SchemaNode:
    """``infer_node``'s object node for ``pooled_values``' mappings, pushed to be sealed
    after its children: a property whose node is a shared leaf gets it at once, any other
    a task on ``stack`` at depth ``below`` (with its field path in ``paths``, when warnings
    are asked for)."""
    # (plain dicts, nearly all of them, are told apart without the ABC's check)
    dicts = [v for v in pooled_values if type(v) is dict or isinstance(v, Mapping)]
    props: dict[str, SchemaNode | None] = {}  # (None: a node to come, set before sealing)
    node = SchemaNode(
        type="object",
        properties=cast("dict[str, SchemaNode]", props),
        default_comparator=_shared_leaf("object", registry).default_comparator,
    )
    stack.append(node)  # sealed after its children
    if len(dicts) == 1:
        for k, v in dicts[0].items():
            leaf = table.get(type(v))
            props[k] = leaf
            if leaf is None:
                stack.append(([v], props, k, below))
                if paths is not None:
                    paths[id(stack[-1][0])] = key_segment(path, k)
        return node
    for k in dict.fromkeys(_chain.from_iterable(dicts)):  # each key once, first seen first
        if paths is None:
            # a scalar's node is its first non-null value's: its values need not be
            # gathered (only the warning about mixed types reads them)
            first = next((v for d in dicts if (v := d.get(k)) is not None), None)
            leaf = table.get(type(first)) if first is not None else None
            if leaf is not None:
                props[k] = leaf
                continue
        props[k] = None
        stack.append(([d.get(k) for d in dicts], props, k, below))
        if paths is not None:
            paths[id(stack[-1][0])] = key_segment(path, k)
    return node


def _inferred_array(
    pooled_values: Sequence[JsonValue],
    path: str,
    registry: Registry | Binder,
    stack: list[Any],
    paths: dict[int, str] | None,
    below: int,
) -> SchemaNode:
    """``infer_node``'s array node for ``pooled_values``' lists, pushed to be sealed after
    its items' node, which a task on ``stack`` at depth ``below`` infers from every element
    pooled (no element: string items)."""
    pooled = [x for v in pooled_values if isinstance(v, (list, tuple)) for x in v]
    node = SchemaNode(
        type="array",
        items=None if pooled else _shared_leaf("string", registry),
        default_comparator=_shared_leaf("array", registry).default_comparator,
    )
    stack.append(node)
    if pooled:
        stack.append((pooled, _ItemsSlot(node), "items", below))
        if paths is not None:
            paths[id(pooled)] = index_segment(path, None)
    return node


def _warn_mixed(values: Sequence[JsonValue], path: str) -> None:
    kinds = list(dict.fromkeys(schema_type(v) for v in values if v is not None))
    if len(kinds) > 1 and set(kinds) != {"integer", "number"}:  # an integer is a number
        warnings.warn(
            f"infer_schema: field {path or '$'} has values of several types across the "
            f"instances ({', '.join(kinds)}); the schema keeps the first, {kinds[0]}",
            SchemaWarning,
            stacklevel=4,
        )


# The switch of the kept item nodes (docs/architecture.md, "Fast paths"): False infers an
# array's item node afresh for every array, as infer_node does.
KEEP_ITEMS = True
MAX_KEPT_ELEMENTS = 64  # a longer array's skeleton would make a long key; it is inferred
_ITEMS: dict[tuple[object, ...], tuple[object, SchemaNode]] = {}
_CONTAINERS = frozenset({dict, list})  # (a skeleton's elements hold none below the top)


def inferred_items(elements: Sequence[JsonValue], registry: Registry | Binder) -> SchemaNode:
    """``infer_node(elements, registry)``: the node of an array's elements, as field_f1
    without a schema infers it for every array it meets. Elements whose first value that
    is not null is a scalar have that scalar's shared leaf (what infer_node reads of them).
    Where the elements are objects of scalars (and scalars), the node is kept by their
    *skeleton* (each element's type, or its keys in order and their values' types): what
    infer_node reads of them, so equal skeletons infer equal nodes. The kept node is the
    same object each time, and with it the scorers generated for its objects' shapes
    (generated_scorers.py), which a node inferred per array made afresh for every
    comparison. A node is kept once the first object's keys recur (``_SIGHTED``): an
    assertion's array, its keys its own, is inferred once and never kept."""
    first: Any = None
    for element in elements:
        if element is not None:
            first = element
            break
    kind = type(first)
    if kind is not dict:
        leaf = _leaf_table(registry).get(kind) if first is not None else None
        return infer_node(elements, registry) if leaf is None else leaf
    if not KEEP_ITEMS or not _sighted(first):
        return infer_node(elements, registry)
    skeleton = _skeleton(elements)
    if skeleton is None:
        return infer_node(elements, registry)
    key = (id(registry), registry.generation, skeleton)
    kept = _ITEMS.get(key)
    if kept is not None and kept[0] is registry:
        return kept[1]
    node = infer_node(elements, registry)
    if len(_ITEMS) >= 512:
        _ITEMS.clear()
    _ITEMS[key] = (registry, node)  # (the registry held: its id is not reused meanwhile)
    return node


def checked_items(
    elements: Sequence[JsonValue], registry: Registry | Binder, levels: int
) -> SchemaNode:
    """``inferred_items`` of an array's elements that have not been through the door (an
    unread expected array, walking/unread_sides.py): ``Unread`` unless they are what it
    passes as it is within ``levels`` (``plain_within``), checked before anything is
    inferred from them (it could loop on a cycle) or counted. Where their node is kept by
    their skeleton, the pass that reads it checks them (``plain_shapes``), instead of a
    read of them first. (Apart from inferred_items, whose frame the walk of a deep array
    stacks at every level, and which keeps its size.)"""
    first: Any = None
    for element in elements:
        if element is not None:
            first = element
            break
    if (
        type(first) is dict
        and KEEP_ITEMS
        and levels > 1
        and len(elements) <= MAX_KEPT_ELEMENTS
        and tuple(first) in _SIGHTED
    ):
        skeleton = plain_shapes(elements)
        if skeleton is not None:  # (sighted: inferred_items would count nothing)
            key = (id(registry), registry.generation, skeleton)
            kept = _ITEMS.get(key)
            if kept is not None and kept[0] is registry:
                return kept[1]
            node = infer_node(elements, registry)
            if len(_ITEMS) >= 512:
                _ITEMS.clear()
            _ITEMS[key] = (registry, node)  # (as inferred_items keeps it)
            return node
    if not plain_within(elements, levels):
        raise Unread
    return inferred_items(elements, registry)


# The first object's keys of the arrays met, for inferred_items: a skeleton is read, and its
# node kept, from the second array whose first object has them (a hint only: the kept nodes
# are keyed by the registry's state and the whole skeleton).
_SIGHTED: dict[tuple[str, ...], None] = {}
_SIGHTED_LIMIT = 4096


def _sighted(first: dict[str, Any]) -> bool:
    """Whether an array whose first object has ``first``'s keys was met before (counted
    now)."""
    key = tuple(first)
    if key in _SIGHTED:
        return True
    if len(_SIGHTED) >= _SIGHTED_LIMIT:
        _SIGHTED.clear()
    _SIGHTED[key] = None
    return False


def _skeleton(elements: Sequence[JsonValue]) -> tuple[object, ...] | None:
    """The elements' skeleton (see inferred_items), or None where one holds a container
    below the top (its node is inferred afresh) or there are over MAX_KEPT_ELEMENTS."""
    if len(elements) > MAX_KEPT_ELEMENTS:
        return None
    parts: list[object] = []
    element: Any  # (read by its type; a cast a call on this path, met for every array)
    for element in elements:
        kind = type(element)
        if kind is dict:
            types = tuple(map(type, element.values()))
            if not _CONTAINERS.isdisjoint(types):
                return None
            parts.append((tuple(element), types))
        elif kind is list:
            return None
        else:
            parts.append(kind)
    return tuple(parts)


class _ItemsSlot:
    """Where infer_node puts an array node's ``items`` (``slot[...] = node``)."""

    __slots__ = ("node",)

    def __init__(self, node: SchemaNode) -> None:
        self.node = node

    def __setitem__(self, _slot: str, value: SchemaNode) -> None:
        self.node.items = value


_LEAVES: dict[tuple[int, int, str], SchemaNode] = {}
_LEAF_TABLES: dict[tuple[int, int], dict[type, SchemaNode]] = {}


def _leaf_table(registry: Registry | Binder) -> dict[type, SchemaNode]:
    """Python scalar type -> the shared leaf node inference gives it (null: string)."""
    key = (id(registry), registry.generation)
    table = _LEAF_TABLES.get(key)
    if table is None:
        if len(_LEAF_TABLES) > 64:
            _LEAF_TABLES.clear()
        table = _LEAF_TABLES[key] = {
            str: _shared_leaf("string", registry),
            bool: _shared_leaf("boolean", registry),
            int: _shared_leaf("integer", registry),
            float: _shared_leaf("number", registry),
            type(None): _shared_leaf("string", registry),
        }
    return table


def _shared_leaf(kind: str, registry: Registry | Binder) -> SchemaNode:
    key = (id(registry), registry.generation, kind)
    node = _LEAVES.get(key)
    if node is None:
        if len(_LEAVES) > 512:
            _LEAVES.clear()
        node = _LEAVES[key] = SchemaNode(
            type=kind, default_comparator=registry.comparator(registry.type_default(kind))
        ).seal()
    return node


def parse_transforms(spec: object, registry: Registry | Binder) -> TransformFn | None:
    if isinstance(spec, (str, Mapping)):
        spec = [spec]
    if not isinstance(spec, (list, tuple)):
        raise ConfigError(f"transforms are a list of names or {{name: params}}, not {shown(spec)}")
    return chain([registry.transform(item) for item in spec])


# -- validation -------------------------------------------------------------------------------


def validate_gold(
    gold: object, schema: object, registry: Registry | Binder | None = None
) -> list[str]:
    """Check gold records against an eval schema (a mapping, a file or a pydantic model
    class; references followed). Fields the schema does not know and values of the wrong type
    are errors (one SchemaError listing them all); schema fields a record lacks are returned
    as warnings."""
    root = parse_schema(schema, registry or REGISTRY)
    records = gold if isinstance(gold, (list, tuple)) and root.type != "array" else [gold]
    errors: list[str] = []
    warnings_found: list[str] = []
    for index, record in enumerate(records):
        # through the door comparisons use: numpy values, tuples and subclasses as the JSON
        # they hold, so gold fits the schema inferred from it
        value, depth = read_json(as_data(record, f"record {index}"), f"record {index}")
        call_with_depth(
            depth, partial(_check, value, root, f"record {index}", "", errors, warnings_found)
        )
    if errors:
        raise SchemaError("gold does not fit the schema:\n  " + "\n  ".join(errors))
    return warnings_found


def _fits(value: JsonValue, node: SchemaNode) -> bool:
    kind = node.type
    if kind is None:
        return True
    actual = schema_type(value)
    allowed = node.allowed if kind == "multi" else (kind,)
    return actual in allowed or (actual == "integer" and "number" in allowed)


def _check(
    value: JsonValue,
    node: SchemaNode,
    record: str,
    path: str,
    errors: list[str],
    warnings_found: list[str],
) -> None:
    if value is None or node.skip:
        return
    where = f"{record}: {path or '$'}"
    if not _fits(value, node):
        wanted = " or ".join(node.allowed) if node.type == "multi" else node.type
        errors.append(f"{where} is {schema_type(value)}, the schema says {wanted}")
        return
    if node.spec.comparator is not None:
        return
    if isinstance(value, Mapping) and node.properties is not None:
        for key in value:
            if key not in node.properties:
                errors.append(f"{where}: field {key!r} is not in the schema")
        for key, child in node.properties.items():
            child_path = key_segment(path, key)
            if key in value:
                _check(value[key], child, record, child_path, errors, warnings_found)
            elif not child.skip:
                warnings_found.append(f"{record}: {child_path} is missing")
    elif isinstance(value, (list, tuple)) and node.items is not None:
        for i, item in enumerate(value):
            _check(item, node.items, record, index_segment(path, i), errors, warnings_found)
