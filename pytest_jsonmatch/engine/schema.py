"""Eval schemas: a resolved JSON Schema (type, properties, items) whose nodes carry
``x-eval-compare``, ``x-eval-transform``, ``x-eval-align`` and ``x-eval-skip``.

``infer_schema`` builds one from gold instances, ``annotate_schema`` fills in default
comparators, ``validate_gold`` checks gold against it, and ``parse_schema`` turns it into
the SchemaNode tree the walk reads.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .comparators import BoundComparator
from .errors import ConfigError, SchemaError, known_names
from .field_spec import NO_SPEC, FieldSpec, parse_align
from .paths import index_segment, key_segment
from .registry import REGISTRY
from .transforms import TransformFn, chain

X_KEYS = ("x-eval-compare", "x-eval-transform", "x-eval-align", "x-eval-skip")
_SCHEMA_KEYS = {"type", "properties", "items", "description", "title", "required",
                "additionalProperties", "enum", "format", "default", "$schema", "$id", "examples"}
TYPE_DEFAULTS = {"string": "exact", "boolean": "exact", "number": "numeric", "integer": "numeric"}
JSON_SCHEMA_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


@dataclass
class SchemaNode:
    """One node of a parsed eval schema: its JSON type, its children, and the spec its
    ``x-eval-*`` keys give (comparator, transforms, alignment, skip)."""

    type: str | None = None
    properties: dict[str, SchemaNode] | None = None
    items: SchemaNode | None = None
    spec: FieldSpec = NO_SPEC
    default_comparator: BoundComparator | None = None  # by type, for leaves without one
    raw: Mapping[str, Any] = field(default_factory=dict)
    # the comparator of a leaf that needs nothing else (no transform, not skipped, not a
    # batch judge): the walk scores such leaves inline
    plain: BoundComparator | None = None
    # the children that are such leaves, by key
    plain_by_key: dict[str, BoundComparator] = field(default_factory=dict)

    def seal(self) -> SchemaNode:
        comp = self.spec.comparator or self.default_comparator
        if (self.is_leaf and comp is not None and comp.trusted and not comp.batch
                and self.spec.transform is None and not self.spec.skip):
            self.plain = comp
        self.plain_by_key = {key: child.plain for key, child in (self.properties or {}).items()
                             if child.plain is not None}
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


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "string"


def infer_schema(instances: Iterable[Any]) -> dict[str, Any]:
    """Infer a resolved schema from gold instances: each node's type is that of its first
    non-null value, object properties are the union of keys, array items pool every element.
    (The rule lives in ``infer_node``; this is its tree written out as a mapping.)"""
    values = list(instances)
    if not values:
        raise SchemaError("infer_schema needs at least one instance")
    return _as_mapping(infer_node(values, REGISTRY))


def _as_mapping(node: SchemaNode) -> dict[str, Any]:
    out: dict[str, Any] = {"type": node.type}
    if node.properties is not None:
        out["properties"] = {k: _as_mapping(v) for k, v in node.properties.items()}
    if node.items is not None:
        out["items"] = _as_mapping(node.items)
    return out


def annotate_schema(schema: Mapping[str, Any], type_defaults: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A copy of ``schema`` where every leaf without ``x-eval-compare`` (and not skipped)
    names its default comparator: strings and booleans ``exact``, numbers ``numeric``."""
    defaults = {**TYPE_DEFAULTS, **(type_defaults or {})}
    out = copy.deepcopy(dict(schema))
    _annotate(out, defaults)
    return out


def _annotate(node: dict[str, Any], defaults: Mapping[str, str]) -> None:
    props = node.get("properties")
    items = node.get("items")
    if isinstance(props, dict) and props:
        for child in props.values():
            if isinstance(child, dict):
                _annotate(child, defaults)
    elif isinstance(items, dict):
        _annotate(items, defaults)
    elif "x-eval-compare" not in node and not node.get("x-eval-skip"):
        node["x-eval-compare"] = defaults.get(_primary_type(node.get("type")) or "", "exact")


def _primary_type(kind: Any) -> str | None:
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        return real[0] if len(real) == 1 else None
    return kind if isinstance(kind, str) else None


# -- parsing ----------------------------------------------------------------------------------

_LOADED: dict[str, tuple[float, dict[str, Any]]] = {}


def load_schema(source: Any) -> Mapping[str, Any]:
    """A schema given as a mapping, or as a path to a JSON or YAML file."""
    if isinstance(source, Mapping):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            stamp = path.stat().st_mtime
        except OSError as exc:
            raise SchemaError(f"cannot read schema file {str(path)!r}: {exc.strerror}") from None
        cached = _LOADED.get(str(path))
        if cached and cached[0] == stamp:
            return cached[1]
        text = path.read_text(encoding="utf-8")
        try:
            if path.suffix.lower() in (".yaml", ".yml"):
                import yaml

                loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
                data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
            else:
                data = json.loads(text)
        except Exception as exc:  # noqa: BLE001 - any parse failure becomes one clear error
            raise SchemaError(f"schema file {str(path)!r} cannot be read: {exc}") from None
        if not isinstance(data, Mapping):
            raise SchemaError(f"schema file {str(path)!r} must hold a mapping")
        _LOADED[str(path)] = (stamp, data)  # type: ignore[assignment]
        return data
    raise SchemaError(f"a schema is a mapping or a file path, not {type(source).__name__}")


def parse_schema(schema: Mapping[str, Any], registry: Any, where: str = "$") -> SchemaNode:
    """Check an eval schema and bind its comparators and transforms; errors name the node."""
    if not isinstance(schema, Mapping):
        raise SchemaError(f"schema node {where} must be a mapping, not {type(schema).__name__}")
    unknown = [k for k in schema if k.startswith("x-eval-") and k not in X_KEYS]
    if unknown:
        raise SchemaError(f"schema node {where}: unknown keys {unknown}; known: {', '.join(X_KEYS)}")
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        bad = [k for k in kinds if k not in JSON_SCHEMA_TYPES]
        if bad:
            raise SchemaError(f"schema node {where}: unknown type {bad[0]!r}; known: {known_names(JSON_SCHEMA_TYPES)}")
    primary = _primary_type(kind)
    node = SchemaNode(type=primary if primary else ("multi" if isinstance(kind, list) else None),
                      raw=schema, spec=_node_spec(schema, registry, where))
    props = schema.get("properties")
    if props is not None:
        if not isinstance(props, Mapping):
            raise SchemaError(f"schema node {where}: properties must be a mapping")
        node.properties = {
            k: parse_schema(v, registry, key_segment("" if where == "$" else where, k))
            for k, v in props.items()
        }
    items = schema.get("items")
    if items is not None:
        node.items = parse_schema(items, registry, ("" if where == "$" else where) + "[]")
    node.default_comparator = registry.comparator(TYPE_DEFAULTS.get(node.type or "", "exact"))
    return node.seal()


def _node_spec(schema: Mapping[str, Any], registry: Any, where: str) -> FieldSpec:
    """The spec a schema node's ``x-eval-*`` keys give."""
    try:
        comparator = (registry.comparator(schema["x-eval-compare"])
                      if "x-eval-compare" in schema else None)
        transform = (parse_transforms(schema["x-eval-transform"], registry)
                     if "x-eval-transform" in schema else None)
        align = parse_align(schema["x-eval-align"], "x-eval-align") if "x-eval-align" in schema else None
    except ConfigError as exc:
        raise SchemaError(f"schema node {where}: {exc}") from None
    skip = schema.get("x-eval-skip", False)
    if not isinstance(skip, bool):
        raise SchemaError(f"schema node {where}: x-eval-skip must be true or false, not {skip!r}")
    return FieldSpec(comparator, transform, align, None, skip)


def infer_node(values: list[Any], registry: Any) -> SchemaNode:
    """``parse_schema(infer_schema(values))`` without the intermediate mapping: leaves are
    shared per type, so inferring a record's schema costs one node per container."""
    first = next((v for v in values if v is not None), None)
    if first is None:
        return _shared_leaf("string", registry)
    leaf = _leaf_table(registry).get(type(first))
    if leaf is not None:
        return leaf
    kind = _type_name(first)
    if kind == "object":
        dicts = [v for v in values if isinstance(v, Mapping)]
        if len(dicts) == 1:
            table = _leaf_table(registry)
            props = {}
            for k, v in dicts[0].items():
                leaf = table.get(type(v))
                props[k] = leaf if leaf is not None else infer_node([v], registry)
        else:
            keys: dict[str, None] = {}
            for d in dicts:
                keys.update(dict.fromkeys(d))
            props = {k: infer_node([d.get(k) for d in dicts], registry) for k in keys}
        return SchemaNode(type="object", properties=props,
                          default_comparator=_shared_leaf("object", registry).default_comparator).seal()
    if kind == "array":
        pooled = [x for v in values if isinstance(v, (list, tuple)) for x in v]
        items = infer_node(pooled, registry) if pooled else _shared_leaf("string", registry)
        return SchemaNode(type="array", items=items,
                          default_comparator=_shared_leaf("array", registry).default_comparator).seal()
    return _shared_leaf(kind, registry)


_LEAVES: dict[tuple[int, str], SchemaNode] = {}
_LEAF_TABLES: dict[int, dict[type, SchemaNode]] = {}


def _leaf_table(registry: Any) -> dict[type, SchemaNode]:
    """Python scalar type -> the shared leaf node inference gives it (null: string)."""
    table = _LEAF_TABLES.get(id(registry))
    if table is None:
        table = _LEAF_TABLES[id(registry)] = {
            str: _shared_leaf("string", registry), bool: _shared_leaf("boolean", registry),
            int: _shared_leaf("integer", registry), float: _shared_leaf("number", registry),
            type(None): _shared_leaf("string", registry)}
    return table


def _shared_leaf(kind: str, registry: Any) -> SchemaNode:
    key = (id(registry), kind)
    node = _LEAVES.get(key)
    if node is None:
        node = _LEAVES[key] = SchemaNode(
            type=kind, default_comparator=registry.comparator(TYPE_DEFAULTS.get(kind, "exact"))).seal()
    return node


def parse_transforms(spec: Any, registry: Any) -> TransformFn | None:
    if isinstance(spec, (str, Mapping)):
        spec = [spec]
    if not isinstance(spec, (list, tuple)):
        raise ConfigError(f"transforms are a list of names or {{name: params}}, not {spec!r}")
    return chain([registry.transform(item) for item in spec])


# -- validation -------------------------------------------------------------------------------


def validate_gold(gold: Any, schema: Mapping[str, Any], registry: Any = None) -> list[str]:
    """Check gold records against an eval schema. Fields the schema does not know and values
    of the wrong type are errors (one SchemaError listing them all); schema fields a record
    lacks are returned as warnings."""
    root = parse_schema(schema, registry or REGISTRY)
    records = gold if isinstance(gold, (list, tuple)) and root.type != "array" else [gold]
    errors: list[str] = []
    warnings: list[str] = []
    for index, record in enumerate(records):
        _check(record, root, f"record {index}", "", errors, warnings)
    if errors:
        raise SchemaError("gold does not fit the schema:\n  " + "\n  ".join(errors))
    return warnings


def _fits(value: Any, kind: str | None) -> bool:
    if kind in (None, "multi"):
        return True
    actual = _type_name(value)
    return actual == kind or (kind == "number" and actual == "integer")


def _check(value: Any, node: SchemaNode, record: str, path: str,
           errors: list[str], warnings: list[str]) -> None:
    if value is None or node.skip:
        return
    where = f"{record}: {path or '$'}"
    if not _fits(value, node.type):
        errors.append(f"{where} is {_type_name(value)}, the schema says {node.type}")
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
                _check(value[key], child, record, child_path, errors, warnings)
            elif not child.skip:
                warnings.append(f"{record}: {child_path} is missing")
    elif isinstance(value, (list, tuple)) and node.items is not None:
        for i, item in enumerate(value):
            _check(item, node.items, record, index_segment(path, i), errors, warnings)
