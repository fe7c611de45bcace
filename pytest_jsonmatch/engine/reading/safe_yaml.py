"""Reading YAML safely (case files, schema files), keeping line numbers.

The C YAML parser composes a node tree (fast, no Python objects built yet), ``_check_tree``
walks it once for what a safe loader still lets through (tags that are not plain JSON,
non-string and duplicate keys, alias bombs), and only then are values constructed. Every
mistake is a :class:`CaseFileError` (or the error class the caller names) reading
``path:line: what is wrong``.

A file without aliases, explicit tags or merge keys (most case files) is built by
``_build_plain``, one pass over the nodes that checks the keys as it goes: strings as
written, every other scalar by the safe loader's own constructor for its tag, so the values
are the safe loader's. Every other file goes through the safe loader's construction.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from ..core.errors import CaseFileError, JsonMatchError
from ..core.values import JsonArray, JsonObject, JsonValue
from .user_files import read_regular, utf8_text

if TYPE_CHECKING:
    from pathlib import Path

    from yaml import CSafeLoader, SafeLoader
    from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# A node of the YAML library's tree, its ``id`` naming its kind (``scalar``, ``sequence``,
# ``mapping``); the loader class the case loader is built on (the C one where it is there).
YamlNode: TypeAlias = "ScalarNode | SequenceNode | MappingNode"
_LoaderClass: TypeAlias = "type[SafeLoader] | type[CSafeLoader]"

MAX_VALUES = 1_000_000  # values a file may expand to through aliases (billion laughs)
_YAML = "tag:yaml.org,2002:"
_STR, _MERGE = _YAML + "str", _YAML + "merge"
_SAFE_TAGS = frozenset(
    _YAML + t for t in ("null", "bool", "int", "float", "str", "seq", "map", "timestamp", "merge")
)


class _NotPlain(Exception):
    """A scalar whose tag the safe loader constructs no value for (``=``, say)."""


class _BadKeys(Exception):
    """A mapping with a key that is not a string, or given twice (found while building)."""

    def __init__(self, node: Node) -> None:
        self.node = node


def _yaml() -> tuple[ModuleType, _LoaderClass]:
    """The yaml module and the case loader built on it, made once. The module is kept with
    the loader so that its exception and node classes always match the loader's."""
    if not _LOADER:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        scalar_node = yaml.nodes.ScalarNode

        class CaseLoader(base):  # type: ignore[misc, valid-type]
            """The safe loader, with dates kept as the strings they were written as (JSON has
            no date type, and an invoice date must compare as text), mapping keys checked
            (strings, no duplicates) in the construction pass itself, not in one more walk,
            and the tags of plain scalars remembered (``_PLAIN_TAGS``)."""

            # The composer asks for the tag of every node it makes, a Python call each
            # (about a hundred a case file, most of them keys like ``name`` written in every
            # file): the tag of a plain scalar follows from its text alone (the implicit
            # resolvers' patterns; no path resolver is ever added to this loader), so it is
            # worked out once per text.
            def resolve(self, kind: type[Node], value: str, implicit: tuple[bool, bool]) -> str:
                if kind is scalar_node and implicit[0]:
                    tag = _PLAIN_TAGS.get(value)
                    if tag is None:
                        tag = super().resolve(kind, value, implicit)
                        _remember(_PLAIN_TAGS, value, value, tag)
                    return tag
                resolved: str = super().resolve(kind, value, implicit)
                return resolved

            # (the path resolvers' bookkeeping, asked for at every node: there are none)
            def descend_resolver(self, current_node: Node | None, current_index: object) -> None:
                pass

            def ascend_resolver(self) -> None:
                pass

            def construct_mapping(
                self, node: MappingNode, deep: bool = False
            ) -> dict[Hashable, object]:
                _check_built_keys(node)
                mapping: dict[Hashable, object] = super().construct_mapping(node, deep)
                return mapping

        CaseLoader.add_constructor(
            _YAML + "timestamp", lambda loader, node: loader.construct_scalar(node)
        )
        _LOADER.append((yaml, CaseLoader))
    return _LOADER[0]


_LOADER: list[tuple[ModuleType, _LoaderClass]] = []
_PLAIN_TAGS: dict[str, str] = {}  # a plain scalar's text -> its resolved tag (CaseLoader)
MAX_PLAIN_TAGS = 20_000  # texts remembered before the memo starts over
# only texts this short are remembered (keys, numbers, short values: what files repeat), so
# that a memo holds at most about 2.5 MB of text whatever the files read hold
MAX_REMEMBERED = 128
# a scalar that is not a string (a number, a boolean, null), by its tag and text -> its value
# (_build_plain): immutable, so one value serves every file that writes it so
_SCALARS: dict[tuple[str, str], object] = {}


def _remember(memo: dict[Any, Any], text: str, key: object, value: object) -> None:
    """``memo[key] = value`` for a ``text`` short enough to remember; a full memo starts
    over (the texts a long process reads vary)."""
    if len(text) <= MAX_REMEMBERED:
        if len(memo) >= MAX_PLAIN_TAGS:
            memo.clear()
        memo[key] = value


def _check_built_keys(node: MappingNode) -> None:
    """Raise :class:`_BadKeys` for a mapping with a key that is not a string or is given twice,
    looking through merge keys (``<<: {...}``): the loader folds merged pairs in without
    constructing them as mappings, so their keys get the same check here. A key given
    explicitly beside a merge overrides the merged one, which is what merging is for."""
    pending = [node]
    while pending:
        mapping = pending.pop()
        seen: set[str] = set()
        for key, value in mapping.value:
            if key.tag == _MERGE:
                merged = value.value if value.id == "sequence" else [value]
                pending.extend(m for m in merged if m.id == "mapping")
                continue
            if key.tag != _STR or key.value in seen:
                raise _BadKeys(mapping)
            seen.add(key.value)


def read_yaml(path: Path, display: str) -> tuple[JsonValue, YamlNode]:
    """The file's constructed value and its root node (for line numbers)."""
    return parse_yaml(read_text(path, display), display)


def read_text(path: Path, display: str, error: type[JsonMatchError] = CaseFileError) -> str:
    """A YAML file's text (a regular file of bounded size, UTF-8, a byte-order mark dropped;
    line endings as they are)."""
    return decode_text(read_regular(path, "file", error, shown=display), display, error)


def decode_text(raw: bytes, display: str, error: type[JsonMatchError] = CaseFileError) -> str:
    """A YAML file's bytes as text (UTF-8, a byte-order mark dropped)."""
    return utf8_text(
        raw,
        error,
        lambda byte, offset, line: (
            f"{display}:{line}: not a text file: byte 0x{byte:02x} at offset {offset} "
            "is not valid UTF-8"
        ),
    )


def parse_yaml(
    text: str,
    display: str,
    error: type[JsonMatchError] = CaseFileError,
    context: Callable[[str, int], str] | None = None,
) -> tuple[JsonValue, YamlNode]:
    """YAML text read safely: its constructed value and its root node. Every mistake is
    ``error`` (a case file's by default) reading ``display:line: what is wrong``; a syntax
    error ``display:line:column: invalid YAML...``, with what ``context`` says of the text
    and the line (a case file: `` in case 'x'``, the case it falls in)."""
    try:
        return _parse(text, display, context)
    except CaseFileError as exc:
        if error is CaseFileError:
            raise
        message = str(exc).replace(
            "; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)", ""
        )
        raise error(message) from None


def _parse(
    text: str, display: str, context: Callable[[str, int], str] | None
) -> tuple[JsonValue, YamlNode]:
    yaml, loader_class = _yaml()
    loader = loader_class(text)
    try:
        root = cast("YamlNode | None", loader.get_single_node())  # (one of its three)
        if root is None:
            raise CaseFileError(
                f"{display}:1: the file is empty; a case file holds a mapping "
                f"with 'expected' (one case) or 'cases' (a list)"
            )
        if "*" in text:  # an alias is possible: bound what it expands to
            _check_tree(root, display)
        elif "!" in text:  # an explicit tag is possible: refuse unsafe ones before building
            _check_plain(root, display)
        try:
            if "<<" not in text and "!" not in text and "*" not in text:
                try:
                    return _build_plain(root, loader), root
                except _NotPlain:  # a tag the safe loader has no constructor for: its error
                    pass
            return loader.construct_document(root), root
        except _BadKeys as bad:
            _check_keys(bad.node, display)
            raise  # not reached: _check_keys raises the error naming the key and its line
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise _syntax_error(text, display, line, column, what, context) from None
    except yaml.YAMLError as exc:  # the reader's errors (control characters) carry a position
        position = getattr(exc, "position", 0)
        line = text[:position].count("\n") + 1
        column = position - text.rfind("\n", 0, position)
        what = str(exc).splitlines()[0]
        raise _syntax_error(text, display, line, column, what, context) from None
    except RecursionError:  # the YAML library composes and builds nodes recursively
        raise CaseFileError(f"{display}:1: the YAML nests too deeply to read") from None
    finally:
        loader.dispose()


def keys_before(text: str, line: int) -> Iterator[tuple[tuple[str, ...], str]]:
    """Each scalar value ``text`` gives above ``line`` (1-based), with the keys leading to
    it (``("cases", "[]", "id")``), up to the first YAML error: what a message about a text
    that cannot be read can say of where the error falls. Nothing is constructed."""
    yaml, loader = _yaml()
    # each open container: [its keys from the root, whether a key comes next, the last key]
    stack: list[list[Any]] = []
    try:
        for event in yaml.parse(text, Loader=loader):
            if event.start_mark.line + 1 > line:
                return
            kind = type(event)
            if kind in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
                stack.pop()
                continue
            top = stack[-1] if stack else None
            is_key = top is not None and top[1]
            here: tuple[str, ...] = (
                () if top is None else (*top[0], top[2] if top[2] is not None else "[]")
            )
            if top is not None and top[2] is not None and not is_key:
                top[1] = True  # the value given: a key comes next
            if kind in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
                stack.append([here, kind is yaml.MappingStartEvent, None])
            elif kind in (yaml.ScalarEvent, yaml.AliasEvent) and is_key:
                top[1], top[2] = False, str(getattr(event, "value", ""))  # type: ignore[index]
            elif kind is yaml.ScalarEvent:
                yield here, str(event.value)
    except (yaml.YAMLError, RecursionError):
        return


def _syntax_error(
    text: str,
    display: str,
    line: int,
    column: int,
    what: str,
    context: Callable[[str, int], str] | None,
) -> CaseFileError:
    """``display:line:column: invalid YAML[ in case 'x']: what`` (1-based, as editors count)."""
    said = context(text, line) if context is not None else ""
    return CaseFileError(f"{display}:{line}:{column}: invalid YAML{said}: {what}")


def _build_plain(root: YamlNode, loader: SafeLoader | CSafeLoader) -> JsonValue:
    """The value of a node tree without aliases, explicit tags or merge keys, built without
    recursion (a deep file must not hit Python's limit): each container is made empty, put
    in its parent in order, then filled. A mapping whose key is not a string or is given
    twice raises :class:`_BadKeys`."""
    constructors = loader.yaml_constructors

    def scalar(node: Node) -> JsonValue:
        tag = node.tag
        if tag == _STR:
            text: str = node.value
            return text
        key = (tag, node.value)
        built = _SCALARS.get(key, _SCALARS)
        if built is not _SCALARS:
            return cast(JsonValue, built)
        constructor = constructors.get(tag)
        if constructor is None:
            raise _NotPlain
        built = constructor(loader, node)  # (a safe tag's: plain data, immutable)
        _remember(_SCALARS, node.value, key, built)
        return cast(JsonValue, built)

    if root.id == "scalar":
        return scalar(root)
    value: JsonObject | JsonArray = {} if root.id == "mapping" else []
    pending: list[tuple[JsonObject | JsonArray, YamlNode]] = [(value, root)]
    while pending:
        target, node = pending.pop()
        if isinstance(target, dict):  # (made here: a dict or a list, exactly)
            for key, child in node.value:
                name = key.value
                if key.tag != _STR or name in target:
                    raise _BadKeys(node)
                if child.id == "scalar":
                    target[name] = scalar(child)
                else:
                    made: JsonObject | JsonArray = {} if child.id == "mapping" else []
                    target[name] = made
                    pending.append((made, child))
        else:
            for child in node.value:
                if child.id == "scalar":
                    target.append(scalar(child))
                else:
                    made = {} if child.id == "mapping" else []
                    target.append(made)
                    pending.append((made, child))
    return value


def _check_tree(root: YamlNode, display: str) -> None:
    """Reject what is not plain JSON-like data, in one iterative pass (deep nesting must not
    hit Python's recursion limit). Aliases make the tree a graph: each node's expanded size
    is computed once, so an alias bomb is caught in time linear in the file."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[YamlNode, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            children = _children(node)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_VALUES:
                raise CaseFileError(
                    f"{display}:{line_of(node)}: aliases expand to more than "
                    f"{MAX_VALUES:,} values; is this an alias bomb?"
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise CaseFileError(
                f"{display}:{line_of(node)}: an alias refers to a value that "
                f"contains it; recursive data is not JSON"
            )
        if node.tag not in _SAFE_TAGS:
            _refuse_tag(node, display)
        if node.id == "mapping":
            _check_keys(node, display)
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node))


def _check_plain(root: YamlNode, display: str, tagged: bool = True) -> None:
    """``_check_tree`` for a file without aliases (most files): one pass over the nodes.
    Without a ``!`` in the file, every tag is one the resolver chose for plain data, so only
    the keys need checking; this runs once per case file, so it is kept lean."""
    stack = [root]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        if tagged and node.tag not in _SAFE_TAGS:
            _refuse_tag(node, display)
        value = node.value
        if type(value) is not list or not value:
            continue
        if type(value[0]) is not tuple:  # a sequence
            extend(value)
            continue
        seen: set[str] = set()
        for key, child in value:
            if key.tag != _STR:
                if key.tag == _MERGE:
                    push(child)
                    continue
                _check_keys(node, display)  # reports the key with its line
            if key.value in seen:
                _check_keys(node, display)
            seen.add(key.value)
            push(child)


def _refuse_tag(node: Node, display: str) -> None:
    tag = "!!" + node.tag[len(_YAML) :] if node.tag.startswith(_YAML) else node.tag
    raise CaseFileError(
        f"{display}:{line_of(node)}: tag {tag!r} is not allowed; "
        f"case files hold plain data (unsafe tags are never executed)"
    )


def _children(node: Node) -> list[YamlNode]:
    if isinstance(node.value, str):
        return []
    if node.value and isinstance(node.value[0], tuple):
        return [n for pair in node.value for n in pair]
    return list(node.value)


def _check_keys(node: Node, display: str) -> None:
    seen: dict[str, int] = {}
    for key, _ in node.value:
        if key.tag == _MERGE:
            continue
        if key.tag not in _SAFE_TAGS:
            _refuse_tag(key, display)
        if key.tag != _STR or not isinstance(key.value, str):
            shown = (
                key.value if isinstance(key.value, str) else "a " + type(key).__name__[:-4].lower()
            )
            raise CaseFileError(
                f"{display}:{line_of(key)}: key {shown!r} is not a string "
                f"(JSON keys are strings; quote it: '{shown}')"
            )
        if key.value in seen:
            raise CaseFileError(
                f"{display}:{line_of(key)}: duplicate key {key.value!r} "
                f"(first given at line {seen[key.value]})"
            )
        seen[key.value] = line_of(key)


def line_of(node: Node) -> int:
    line: int = node.start_mark.line + 1
    return line


def key_lines(node: Node) -> dict[str, int]:
    """Line of each key of a mapping node (values of a constructed dict carry no lines)."""
    return {k.value: line_of(k) for k, _ in getattr(node, "value", ()) if isinstance(k.value, str)}


def item_nodes(root: Node, key: str) -> list[YamlNode]:
    for k, v in root.value:
        if k.value == key and isinstance(v.value, list):
            return list(v.value)
    return []
