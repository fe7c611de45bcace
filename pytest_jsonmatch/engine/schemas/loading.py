"""Schemas as users have them: a mapping, a JSON or YAML file, or a pydantic model class, read
through their references.

:func:`load_schema` turns any of these into a :class:`LoadedSchema`: the document, and a
``referencing`` resolver for its ``$ref``s (within the document, ``$defs`` and
``definitions``, and files next to it; never the network). :func:`locate` reads one node the
way the scorer needs it: references followed (with the keys written beside them laid over),
``allOf`` merged, a nullable union (``anyOf``/``oneOf`` with a ``{"type": "null"}`` branch)
read as its other branch. Children are handed back unread, as :data:`Parts`, so a recursive
schema is followed only as deep as the data goes.

A caller that reads schemas from untrusted files (the pytest plugin, for golden case files)
confines the files references may read with :func:`references_confined_to`: a ``$ref``
resolving anywhere else (``../..``, an absolute path, a symlink out) is refused before the
file is opened, so a refusal says nothing of what lies outside.

A construct the scorer cannot honour is loud: a union of two shapes is a SchemaError naming
the schema path (unless the node is compared whole or skipped), and a keyword that would
change which fields exist or how they compare, and is not read (``patternProperties``,
``prefixItems``, ``if``/``then``/``else``, ...), is a :class:`SchemaWarning`.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, TypeAlias, TypeGuard, cast

from ..core.errors import SchemaError, SchemaWarning, shown
from ..core.slotted import HashedSlotted
from ..core.values import JsonValue

if TYPE_CHECKING:
    from pathlib import Path

    from referencing import Resource
    from referencing._core import Resolved, Resolver
    from referencing.jsonschema import Schema

    # The ``referencing`` resolver a schema's references are looked up with.
    SchemaResolver: TypeAlias = Resolver[Schema]

# One source of a node's keywords: a raw schema node (a mapping, true or false, checked
# where it is read) and the resolver its references use.
Part: TypeAlias = "tuple[object, SchemaResolver]"
Parts: TypeAlias = tuple[Part, ...]
# A node's own keywords as read: JSON values, but ``properties`` (a name's Parts) and
# ``items`` (Parts), paired with their resolver.
Keyword: TypeAlias = "JsonValue | dict[str, Parts] | Parts"

# Keywords that would change which fields exist or how they compare, and are not read.
_UNHONOURED = {
    "patternProperties": "fields matching a pattern are not given its schema",
    "prefixItems": "array positions are not given their own schemas",
    "additionalItems": "array positions are not given their own schemas",
    "if": "conditional schemas are not applied",
    "then": "conditional schemas are not applied",
    "else": "conditional schemas are not applied",
    "dependentSchemas": "conditional schemas are not applied",
    "dependencies": "conditional schemas are not applied",
    "unevaluatedProperties": "it is not applied",
    "unevaluatedItems": "it is not applied",
    "contains": "it is not applied",
    "propertyNames": "it is not applied",
    "$dynamicRef": "dynamic references are not followed",
    "$recursiveRef": "dynamic references are not followed",
}
_SCALARS = frozenset({"string", "number", "integer", "boolean", "null"})


class LoadedSchema(HashedSlotted):
    """A schema document and the resolver its references start from. ``origin`` names it in
    messages (a file path, a model class, or ``schema``). ``files``: each schema file read for
    it (its own, then those its ``$ref``s read as they are followed), absolute path ->
    SHA-256 of the bytes read, told again (``schema_files_since``) whenever the cached
    schema is used: a report's provenance names what its scores were made from."""

    __slots__ = (
        "contents",
        "resolver",
        "origin",
        "files",
    )
    _uncompared = frozenset({"files"})

    contents: Mapping[str, JsonValue]
    resolver: SchemaResolver
    origin: str
    files: dict[str, str]

    def __init__(
        self,
        contents: Mapping[str, JsonValue],
        resolver: SchemaResolver,
        origin: str = "schema",
        files: dict[str, str] | None = None,
    ) -> None:
        self.contents, self.resolver, self.origin = contents, resolver, origin
        self.files = {} if files is None else files

    @property
    def root(self) -> Parts:
        return ((self.contents, self.resolver),)


class Located(HashedSlotted):
    """One schema node as the scorer reads it. ``keywords``: its own keys with every
    reference followed and ``allOf`` merged (``type`` a string or a list); ``properties``
    and ``items``: its children, unread; ``nullable``: a union offered null besides;
    ``union``: the types of a union of shapes that only a whole-value comparison can honour."""

    __slots__ = (
        "keywords",
        "properties",
        "items",
        "nullable",
        "union",
    )

    keywords: Mapping[str, JsonValue]
    properties: dict[str, Parts] | None
    items: Parts | None
    nullable: bool
    union: tuple[str, ...]

    def __init__(
        self,
        keywords: Mapping[str, JsonValue],
        properties: dict[str, Parts] | None,
        items: Parts | None,
        nullable: bool = False,
        union: tuple[str, ...] = (),
    ) -> None:
        self.keywords, self.properties, self.items = keywords, properties, items
        self.nullable, self.union = nullable, union


# -- loading ------------------------------------------------------------------------------------

_FILES: dict[str, tuple[float, LoadedSchema]] = {}
_MAPPINGS: dict[int, LoadedSchema] = {}
_MODELS: dict[type, LoadedSchema] = {}
_CACHE_LIMIT = 256

# Every schema file a schema was made from, as last read or used from the cache: absolute
# path -> (SHA-256 of its bytes, the tick of the clock it was told at). A session notes the
# clock as it starts (schema_clock) and takes what was told since (schema_files_since) for
# its report's provenance, without importing this module before it loads a schema. One
# entry per file: bounded by the files there are.
_TOLD: dict[str, tuple[str, int]] = {}
_CLOCK = [0]


def schema_clock() -> int:
    """The clock now: a later :func:`schema_files_since` gives what is told after it."""
    return _CLOCK[0]


def schema_files_since(tick: int) -> dict[str, str]:
    """Each schema file read or used since the clock said ``tick``: path -> SHA-256."""
    return {path: digest for path, (digest, told) in tuple(_TOLD.items()) if told > tick}


def _tell(files: Mapping[str, str]) -> None:
    for path, digest in tuple(files.items()):
        _CLOCK[0] += 1
        _TOLD[path] = (digest, _CLOCK[0])


def is_model_class(source: object) -> TypeGuard[type]:
    """A pydantic model class (or anything else that makes its JSON Schema the same way)."""
    return isinstance(source, type) and callable(getattr(source, "model_json_schema", None))


def load_schema(source: object) -> LoadedSchema:
    """A schema given as a mapping, as a path to a JSON or YAML file, or as a pydantic model
    class (its ``model_json_schema()``), with the resolver of its references."""
    if isinstance(source, LoadedSchema):
        return source
    if isinstance(source, Mapping):
        cached = _MAPPINGS.get(id(source))
        if cached is not None and cached.contents is source:
            _tell(cached.files)
            return cached
        files: dict[str, str] = {}
        loaded = LoadedSchema(
            source, _resolver(source, _base_of_mapping(source), files), files=files
        )
        if len(_MAPPINGS) >= _CACHE_LIMIT:
            _MAPPINGS.clear()
        _MAPPINGS[id(source)] = loaded  # holds the mapping: its id is not reused meanwhile
        return loaded
    if is_model_class(source):
        return _load_model(source)
    if isinstance(source, (str, os.PathLike)):
        from pathlib import Path  # (only for a schema file: a mapping's scoring never needs it)

        return _load_file(Path(source))
    raise SchemaError(
        f"a schema is a mapping, a file path or a pydantic model class, not {type(source).__name__}"
    )


def _load_model(model: type) -> LoadedSchema:
    loaded = _MODELS.get(model)
    if loaded is not None:
        _tell(loaded.files)
    else:
        name = getattr(model, "__name__", "model")
        try:
            contents = model.model_json_schema()  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - the model's own failure, named
            raise SchemaError(
                f"{name}.model_json_schema() failed: {type(exc).__name__}: {exc}"
            ) from None
        if not isinstance(contents, Mapping):
            raise SchemaError(
                f"{name}.model_json_schema() returned {type(contents).__name__}, not a mapping"
            )
        files: dict[str, str] = {}
        base = _base_of_mapping(contents)
        loaded = LoadedSchema(contents, _resolver(contents, base, files), name, files)
        if len(_MODELS) >= _CACHE_LIMIT:
            _MODELS.clear()
        _MODELS[model] = loaded
    return loaded


def _load_file(path: Path) -> LoadedSchema:
    try:
        stamp = path.stat().st_mtime
    except OSError as exc:
        raise SchemaError(f"cannot read schema file {str(path)!r}: {exc.strerror}") from None
    cached = _FILES.get(str(path))
    if cached and cached[0] == stamp:
        _tell(cached[1].files)
        return cached[1]
    files: dict[str, str] = {}
    contents = _read_noted(path, files)
    loaded = LoadedSchema(
        contents, _resolver(contents, path.resolve().as_uri, files), str(path), files
    )
    if len(_FILES) >= _CACHE_LIMIT:
        _FILES.clear()
    _FILES[str(path)] = (stamp, loaded)
    return loaded


def _read_noted(path: Path, files: dict[str, str]) -> Mapping[str, JsonValue]:
    """A schema file's mapping, its SHA-256 noted in ``files`` and told."""
    contents, digest = read_schema_bytes(path, str(path))
    noted = {str(path.resolve()): digest}
    files.update(noted)
    _tell(noted)
    return contents


def read_schema_bytes(path: Path, shown: str) -> tuple[Mapping[str, JsonValue], str]:
    """The mapping a schema file holds, and the SHA-256 of the very bytes it was read from."""
    import hashlib  # (only for a schema file: it loads OpenSSL)

    # (only for a schema file: a schema given as a mapping, the one a dataset's records
    # infer among them, is read from none)
    from ..reading.safe_yaml import parse_yaml
    from ..reading.user_files import decoded, read_regular

    raw = read_regular(path, "schema file", SchemaError, shown=shown)
    text = decoded(raw, "schema file", SchemaError, shown)
    if path.suffix.lower() in (".yaml", ".yml"):
        # the case files' safe reader: plain data, keys checked, aliases bounded
        data, _ = parse_yaml(text, shown, SchemaError)
    else:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise SchemaError(f"schema file {shown!r} is not JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise SchemaError(f"schema file {shown!r} must hold a mapping")
    return data, hashlib.sha256(raw).hexdigest()


def _base_of_mapping(contents: Mapping[str, JsonValue]) -> Callable[[], str]:
    """What gives a mapping's base URI: its absolute ``$id``, else the working directory as
    it is now (so that a ``$ref`` to ``money.json`` reads the file there), made a URI when
    first asked for."""
    folder = os.path.realpath(os.getcwd())

    def base() -> str:
        from pathlib import Path  # (only when a reference is followed)
        from urllib.parse import urlsplit

        given = contents.get("$id")
        if isinstance(given, str) and urlsplit(given).scheme:
            return given
        return Path(folder).as_uri() + "/"

    return base


def _resolver(
    contents: Mapping[str, JsonValue], base_uri: Callable[[], str], files: dict[str, str]
) -> SchemaResolver:
    """The resolver of a schema's references; each file they read is noted in ``files``.
    Without a ``$schema`` (whose dialect is checked here, as the schema is loaded) it is
    built when a reference or a nested ``$id`` first asks for it: most schemas have
    neither, and ``referencing`` takes longer to import than such a schema to score."""
    if "$schema" in contents:
        return _built_resolver(contents, base_uri(), files)
    return cast("SchemaResolver", _ResolverOnDemand(contents, base_uri, files))


class _ResolverOnDemand:
    """Stands for a schema's resolver (the two calls this package makes of one, and the
    base URI the conformance checker keys its plans by) until one of those calls builds
    it."""

    def __init__(
        self, contents: Mapping[str, JsonValue], base_uri: Callable[[], str], files: dict[str, str]
    ):
        self._contents, self._base_of, self._files = contents, base_uri, files
        self._base: str | None = None
        self._built: SchemaResolver | None = None

    @property
    def _base_uri(self) -> str:
        """The base URI, worked out when first read (a mapping's is the working directory
        as a ``file:`` URI, which loads ``urllib``)."""
        if self._base is None:
            self._base = self._base_of()
        return self._base

    def _real(self) -> SchemaResolver:
        if self._built is None:
            self._built = _built_resolver(self._contents, self._base_uri, self._files)
        return self._built

    def lookup(self, ref: str) -> Resolved[Schema]:
        return self._real().lookup(ref)

    def in_subresource(self, subresource: Resource[Schema]) -> SchemaResolver:
        return self._real().in_subresource(subresource)


def _built_resolver(
    contents: Mapping[str, JsonValue], base_uri: str, files: dict[str, str]
) -> SchemaResolver:
    from referencing import Registry

    def retrieve(uri: str) -> Resource[Schema]:
        return _retrieve(uri, files)

    resource = _resource(contents)
    registry: Registry[Schema] = Registry(retrieve=retrieve).with_resource(  # type: ignore[call-arg]
        base_uri, resource
    )
    return registry.resolver(base_uri=base_uri)


def _resource(contents: Mapping[str, JsonValue]) -> Resource[Schema]:
    from referencing import Resource
    from referencing.jsonschema import DRAFT202012

    try:
        return Resource.from_contents(contents, default_specification=DRAFT202012)
    except Exception as exc:  # noqa: BLE001 - e.g. an unknown $schema dialect
        raise SchemaError(f"cannot read the schema: {type(exc).__name__}: {exc}") from None


class _Confinement(HashedSlotted):
    """The folders ``$ref`` may read files under, as given, and the setting that adds one."""

    __slots__ = (
        "given",
        "setting",
    )

    given: tuple[os.PathLike[str] | str, ...]
    setting: str  # what lets a user add a folder, named in refusals

    def __init__(
        self,
        given: tuple[os.PathLike[str] | str, ...],
        setting: str,
    ) -> None:
        self.given, self.setting = given, setting

    @property
    def folders(self) -> tuple[Path, ...]:
        """The folders, symlinks resolved when a reference is read (most comparisons that
        run confined read none: a golden case's, each one)."""
        from pathlib import Path

        return tuple(Path(f).resolve() for f in self.given)


_CONFINED: ContextVar[_Confinement | None] = ContextVar("references_confined_to", default=None)


class references_confined_to:  # noqa: N801 (a context manager, named as one is used)
    """While the block runs, a ``$ref`` may read files only under ``folders`` (symlinks
    resolved); refusals name ``setting``, where a user lists more folders. A class rather
    than a generator: a golden case enters one for every run it scores."""

    __slots__ = ("_confinement", "_token")

    def __init__(self, folders: Iterable[os.PathLike[str] | str], setting: str) -> None:
        self._confinement = _Confinement(tuple(folders), setting)
        self._token: Token[_Confinement | None] | None = None

    def __enter__(self) -> None:
        self._token = _CONFINED.set(self._confinement)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _CONFINED.reset(self._token)
            self._token = None


def _retrieve(uri: str, files: dict[str, str]) -> Resource[Schema]:
    """Read a referenced document: local files only, never the network, and only under the
    folders a confinement allows (noted in ``files``)."""
    from pathlib import Path
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(uri)
    if parts.scheme != "file":
        raise SchemaError(f"{uri!r}: only files are read (nothing is fetched from the network)")
    path = Path(unquote(parts.path))
    confined = _CONFINED.get()
    if confined is not None:
        real = path.resolve()
        folders = confined.folders
        if not any(real.is_relative_to(folder) for folder in folders):
            raise SchemaError(
                f"$ref {uri!r} reads outside {', '.join(map(str, folders))}: "
                f"refused, unread (a case file's schema reads only there; "
                f"{confined.setting} lists more folders)"
            )
    return _resource(_read_noted(path, files))


# -- reading one node ---------------------------------------------------------------------------


def locate(parts: Parts, where: str) -> Located:
    """The node ``parts`` stand for (usually one raw mapping; several when ``allOf``
    branches give the same property), read through its references. Errors name ``where``."""
    nodes = []
    for raw, resolver in parts:
        keywords, found = _flatten(raw, resolver, where, frozenset())
        nodes.append(_merge(found, keywords, where))
    return nodes[0] if len(nodes) == 1 else _merge(nodes, {}, where)


def _flatten(
    raw: object, resolver: SchemaResolver, where: str, seen: frozenset[int]
) -> tuple[dict[str, Keyword], list[Located]]:
    """A raw node's own keywords, and the nodes its ``$ref``, ``allOf`` and union stand
    for (to be merged under them)."""
    if not isinstance(raw, Mapping):
        if raw is True or raw == {}:
            return {}, []
        raise SchemaError(f"schema node {where} must be a mapping, not {type(raw).__name__}")
    if id(raw) in seen:
        raise SchemaError(f"schema node {where}: $ref refers to itself without adding anything")
    seen = seen | {id(raw)}
    resolver = _enter(raw, resolver)
    _warn_unhonoured(raw, where)
    found = _composed(raw, resolver, where, seen)
    return _own_keywords(raw, resolver, where), found


def _composed(
    raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str, seen: frozenset[int]
) -> list[Located]:
    """The nodes a raw node's ``$ref``, ``allOf`` branches and ``anyOf``/``oneOf`` unions
    stand for, each flattened and merged, in that order."""
    found: list[Located] = []
    if "$ref" in raw:
        target, target_resolver = _follow(raw["$ref"], resolver, where)
        keywords, inner = _flatten(target, target_resolver, where, seen)
        found.append(_merge(inner, keywords, where))
    branches = raw.get("allOf")
    if branches is not None:
        if not isinstance(branches, list):
            raise SchemaError(f"schema node {where}: allOf must be a list")
        for branch in branches:
            keywords, inner = _flatten(branch, resolver, where, seen)
            found.append(_merge(inner, keywords, where))
    for union_key in ("anyOf", "oneOf"):
        if union_key in raw:
            found.append(_union(raw, union_key, resolver, where, seen))
    return found


def _own_keywords(
    raw: Mapping[str, JsonValue], resolver: SchemaResolver, where: str
) -> dict[str, Keyword]:
    """A raw node's keywords but those that compose it, its properties' and items' schemas
    paired with the resolver they are read under (positional items dropped, with a warning)."""
    own: dict[str, Keyword] = {}
    for key, value in raw.items():
        if key in ("$ref", "allOf", "anyOf", "oneOf"):
            continue
        if key == "properties":
            if not isinstance(value, Mapping):
                raise SchemaError(f"schema node {where}: properties must be a mapping")
            for name in value:
                if not isinstance(name, str):
                    # a property name is a JSON key: a string, or no field could ever match
                    raise SchemaError(
                        f"schema node {where}: properties: the name {shown(name)} "
                        f"is not a string (a property name is a JSON key)"
                    )
            parts: dict[str, Parts] = {name: ((child, resolver),) for name, child in value.items()}
            own[key] = parts
        elif key == "items":
            if isinstance(value, list):  # draft 4-7 positional items
                _warn(where, "items", "array positions are not given their own schemas")
                continue
            own[key] = ((value, resolver),)
        else:
            own[key] = value
    if raw.get("nullable") is True:
        own["nullable"] = True
    return own


def _enter(raw: Mapping[str, JsonValue], resolver: SchemaResolver) -> SchemaResolver:
    """The resolver inside ``raw``: a nested ``$id`` starts a new base URI."""
    if "$id" in raw and isinstance(raw["$id"], str):
        try:
            return resolver.in_subresource(_resource(raw))
        except SchemaError:
            raise
        except Exception:  # noqa: BLE001 - an $id the library cannot use leaves the base as is
            return resolver
    return resolver


def _follow(ref: JsonValue, resolver: SchemaResolver, where: str) -> tuple[object, SchemaResolver]:
    if not isinstance(ref, str):
        raise SchemaError(f"schema node {where}: $ref must be a string, not {shown(ref)}")
    from referencing.exceptions import Unresolvable

    try:
        resolved = resolver.lookup(ref)
    except SchemaError as exc:
        raise SchemaError(f"schema node {where}: {exc}") from None
    except Unresolvable as exc:
        raise SchemaError(
            f"schema node {where}: $ref {ref!r} cannot be resolved ({_why(exc)})"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the library crawls the whole document first
        raise SchemaError(
            f"schema node {where}: $ref {ref!r} cannot be resolved: the library "
            f"could not read the schema ({type(exc).__name__}: {shown(str(exc), 120)}); "
            f"every subschema must be a mapping, true or false"
        ) from None
    return resolved.contents, resolved.resolver


def _why(exc: BaseException) -> str:
    """The first reason in an exception's chain that says more than the reference itself."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 8:
        if isinstance(cause, SchemaError):
            return str(cause)
        cause = cause.__cause__ or cause.__context__
        seen += 1
    return type(exc).__name__


def _union(
    raw: Mapping[str, JsonValue],
    key: str,
    resolver: SchemaResolver,
    where: str,
    seen: frozenset[int],
) -> Located:
    """An ``anyOf``/``oneOf``: null branches dropped; one branch left is the node; branches
    of different types are one node of several types, compared whole; two branches of one
    container type (two object shapes) are a union the scorer can only compare whole when
    told to (``union`` lists them)."""
    branches = raw[key]
    if not isinstance(branches, list) or not branches:
        raise SchemaError(f"schema node {where}: {key} must be a non-empty list")
    kept: list[Located] = []
    nullable = False
    for branch in branches:
        keywords, inner = _flatten(branch, resolver, where, seen)
        node = _merge(inner, keywords, where)
        if _is_null_only(node):
            nullable = True
        else:
            kept.append(node)
    if not kept:
        return Located({"type": "null"}, None, None, nullable=True)
    if len(kept) == 1:
        only = kept[0]
        return Located(
            only.keywords, only.properties, only.items, nullable or only.nullable, only.union
        )
    kinds = [_kind(node) for node in kept]
    containers = [kind for kind in kinds if kind in ("object", "array")]
    if len(containers) == len(set(containers)):
        # branches of different types (string or integer, an object or a string): one field
        # of several types, compared whole, as a list-valued type is (extract-eval's reading);
        # a branch that allows anything leaves the type open
        if None in kinds:
            return Located({}, None, None, nullable)
        types = sorted({k for kind in kinds if kind is not None for k in kind.split("/")})
        kind = cast("JsonValue", types if len(types) > 1 else types[0])  # (str or list[str])
        return Located({"type": kind}, None, None, nullable)
    shown = tuple(kind or "any" for kind in kinds)
    return Located({}, None, None, nullable, union=shown)


def _is_null_only(node: Located) -> bool:
    """A branch that allows nothing but null."""
    if node.properties is not None or node.items is not None or node.union:
        return False
    kw = node.keywords
    return (
        _types(kw.get("type")) == {"null"}
        or kw.get("enum") == [None]
        or ("const" in kw and kw["const"] is None)
    )


def _kind(node: Located) -> str | None:
    kinds = [k for k in _types(node.keywords.get("type")) if k != "null"]
    if len(kinds) == 1:
        return kinds[0]
    if node.properties is not None:
        return "object"
    if node.items is not None:
        return "array"
    return None if not kinds else "/".join(sorted(kinds))


def _types(kind: object) -> set[str]:
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


# -- merging ------------------------------------------------------------------------------------

# Keys whose values must agree when allOf branches (or a reference and its target) meet.
_MUST_AGREE = (
    "x-eval-compare",
    "x-eval-transform",
    "x-eval-align",
    "x-eval-skip",
    "x-eval-weight",
    "x-override-evaluator",
)


def _merge(pieces: list[Located], own: Mapping[str, Keyword], where: str) -> Located:
    """``pieces`` (a reference's target, allOf branches, a union's branch) merged, then the
    node's own keywords laid over them: pieces must agree on how the node is scored, the
    node's own keys may change it."""
    mine = _as_located(own)
    if not pieces:
        return mine
    keywords: dict[str, JsonValue] = {}
    properties: dict[str, Parts] | None = None
    items: Parts | None = None
    nullable = False
    union: tuple[str, ...] = ()
    kinds: set[str] | None = None
    for piece in [*pieces, mine]:
        for key, value in piece.keywords.items():
            if key == "type":
                kinds = _intersect(kinds, _types(value), where)
            elif key == "required" and isinstance(value, list):
                earlier = cast("list[JsonValue]", keywords.get(key, []))  # (the names so far)
                keywords[key] = list(dict.fromkeys([*earlier, *value]))
            elif (
                key in _MUST_AGREE
                and piece is not mine
                and key in keywords
                and keywords[key] != value
            ):
                raise SchemaError(
                    f"schema node {where}: allOf branches give different {key} "
                    f"({keywords[key]!r} and {value!r})"
                )
            else:
                keywords[key] = value
        if piece.properties is not None:
            properties = dict(properties or {})
            for name, parts in piece.properties.items():
                properties[name] = properties.get(name, ()) + parts
        if piece.items is not None:
            items = (items or ()) + piece.items
        nullable = nullable or piece.nullable
        union = union or piece.union
    if kinds is not None:
        ordered = sorted(kinds)
        keywords["type"] = cast("JsonValue", ordered[0] if len(ordered) == 1 else ordered)
    return Located(keywords, properties, items, nullable, union)


def _as_located(own: Mapping[str, Keyword]) -> Located:
    # (_own_keywords pairs only ``properties`` and ``items`` with resolvers: the rest is JSON)
    keywords = {k: v for k, v in own.items() if k not in ("properties", "items")}
    return Located(
        cast("dict[str, JsonValue]", keywords),
        cast("dict[str, Parts] | None", own.get("properties")),
        cast("Parts | None", own.get("items")),
        bool(own.get("nullable")) or "null" in _types(own.get("type")),
    )


def _intersect(kinds: set[str] | None, more: set[str], where: str) -> set[str]:
    if kinds is None or not kinds:
        return set(more)
    if not more:
        return kinds
    both = kinds & more
    if "number" in kinds and "integer" in more or "integer" in kinds and "number" in more:
        both.add("integer")
    if not both:
        raise SchemaError(
            f"schema node {where}: allOf branches disagree on type "
            f"({'/'.join(sorted(kinds))} and {'/'.join(sorted(more))})"
        )
    return both


# -- loud about what is not read -----------------------------------------------------------------


def _warn_unhonoured(raw: Mapping[str, JsonValue], where: str) -> None:
    for key, why in _UNHONOURED.items():
        if key in raw:
            _warn(where, key, why)
    extra = raw.get("additionalProperties")
    if isinstance(extra, Mapping) and extra and "properties" not in raw:
        _warn(
            where,
            "additionalProperties",
            "the object's keys are not given its schema; the object is compared whole",
        )


def _warn(where: str, key: str, why: str) -> None:
    warnings.warn(f"schema node {where}: {key} is not read: {why}", SchemaWarning, stacklevel=5)
