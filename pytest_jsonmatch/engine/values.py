"""The JSON value model: what type a value is, when two values are equal, how paths are named.

Two rules everywhere: a boolean is never a number (Python's ``True == 1`` does not leak
into scores), and numbers compare by value (``42`` equals ``42.0``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Callable

from .errors import ConfigError, ParseError

NULL, BOOLEAN, NUMBER, STRING, ARRAY, OBJECT = "null", "boolean", "number", "string", "array", "object"


class _Missing:
    """The absence of a value (a key one side does not have), distinct from JSON null."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()

# Exact type lookups first: they cover nearly every value and cost one dict probe.
_TYPE_OF: dict[type, str] = {
    type(None): NULL,
    bool: BOOLEAN,
    int: NUMBER,
    float: NUMBER,
    str: STRING,
    list: ARRAY,
    tuple: ARRAY,
    dict: OBJECT,
}


def json_type(value: Any, path: str = "$") -> str:
    """Return the JSON type name of a Python value, or raise ParseError naming the path."""
    tag = _TYPE_OF.get(type(value))
    if tag is not None:
        return tag
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, (int, float)):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, Mapping):
        return OBJECT
    if isinstance(value, (list, tuple)):
        return ARRAY
    raise ParseError(f"{path}: {type(value).__name__} is not a JSON value ({value!r:.60})")


def _not_a_number(value: float, path: str, side: str) -> ParseError:
    return ParseError(f"{path or '$'}: {value!r} in {side} is not a JSON number "
                      f"(NaN and Infinity are not JSON)")


def check_finite(value: float, path: str, side: str) -> None:
    """NaN and the infinities are not JSON: raise ParseError naming the field."""
    if not (value - value == 0.0):
        raise _not_a_number(value, path, side)


def invalid_inside(value: Any, path: str, side: str) -> ParseError | None:
    """The error naming the first value inside ``value`` (document order) that is not JSON:
    a NaN, an infinity, or a Python object of no JSON type; None when there is none.

    Comparators that take a value whole meet such a value without knowing where it sits;
    this finds it again, so that the error names its own field (``items[0].price``) and
    side, not only the field compared whole.
    """
    stack: list[tuple[Any, str]] = [(value, path)]
    seen: set[int] = set()  # a container reached twice (shared, or holding itself) is read once
    while stack:
        item, where = stack.pop()
        try:
            tag = json_type(item, display_path(where))
        except ParseError as exc:
            return exc
        if tag in (OBJECT, ARRAY):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if tag == OBJECT:
            stack.extend((child, key_segment(where, key)) for key, child in reversed(list(item.items())))
        elif tag == ARRAY:
            stack.extend((child, index_segment(where, i)) for i, child in reversed(list(enumerate(item))))
        elif isinstance(item, float) and not (item - item == 0.0):
            return _not_a_number(item, where, side)
    return None


def _only_json(value: Any) -> bool:
    """Whether a container holds nothing but plain JSON values (exact types), at any depth.
    False may also mean an unusual but valid type (a tuple, a Mapping): the caller then
    searches properly. A loop over the values with type tests, not a call per value: this
    runs over whole values on the happy path."""
    for x in (value.values() if type(value) is dict else value):
        tx = type(x)
        if tx is str or tx is int or tx is bool or x is None:
            continue
        if tx is float:
            if x - x == 0.0:
                continue
            return False
        if (tx is not dict and tx is not list) or not _only_json(x):
            return False
    return True


def check_json_inside(value: Any, path: str, side: str) -> None:
    """Raise the ParseError of invalid_inside when ``value`` is or holds anything that is not
    JSON. For values a comparison did not read to the end (a mismatch stops at the
    first difference) or never compared (one side only).

    A quick test of the types first (_only_json); only a value it does not clear is
    searched, for the field to name.
    """
    tv = type(value)
    if tv is dict or tv is list:
        if _only_json(value):  # a RecursionError goes up: match_json names it (too deep)
            return
    elif tv is str or tv is int or tv is bool or value is None or (tv is float and value - value == 0.0):
        return
    exc = invalid_inside(value, path, side)
    if exc is not None:
        raise exc


def json_equal(a: Any, b: Any, normalize: Callable[[str], str] | None = None) -> bool:
    """Deep JSON equality: types must agree (bool is not a number), numbers by value,
    arrays in order with the same length, objects with the same key set.

    ``normalize`` is applied to every string value (not to keys) before comparing.
    """
    ta, tb = json_type(a), json_type(b)
    if ta != tb:
        return False
    if ta == OBJECT:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if key not in b or not json_equal(value, b[key], normalize):
                return False
        return True
    if ta == ARRAY:
        return len(a) == len(b) and all(json_equal(x, y, normalize) for x, y in zip(a, b))
    if ta == STRING and normalize is not None:
        return normalize(a) == normalize(b)
    if type(a) is float or type(b) is float:
        check_finite(float(a), "", "a value")
        check_finite(float(b), "", "a value")
    return bool(a == b)


def canonical_key(value: Any) -> Any:
    """A hashable key under which JSON-equal values coincide (used to bucket and pair values)."""
    tag = json_type(value)
    if tag == OBJECT:
        return (OBJECT, tuple(sorted((k, canonical_key(v)) for k, v in value.items())))
    if tag == ARRAY:
        return (ARRAY, tuple(canonical_key(v) for v in value))
    return (tag, value)


# ---------------------------------------------------------------------------------------
# Paths.  Instance paths name one value (``items[0].sku``); field paths fold the indices
# away (``items[].sku``) so that one field is aggregated across array positions.

_PLAIN_KEY = re.compile(r"[^\W\d]\w*")


_SEGMENTS: dict[str, tuple[str, str]] = {}


def key_segment(parent: str, key: str) -> str:
    """The path of ``key`` below ``parent`` ('' is the root's own prefix)."""
    forms = _SEGMENTS.get(key)
    if forms is None:
        if _PLAIN_KEY.fullmatch(key):
            forms = (key, "." + key)
        else:
            quoted = f"[{json.dumps(key, ensure_ascii=False)}]"
            forms = (quoted, quoted)
        if len(_SEGMENTS) < 100_000:  # keys repeat across records; bound the memo anyway
            _SEGMENTS[key] = forms
    return parent + forms[1] if parent else forms[0]


def index_segment(parent: str, index: int | None) -> str:
    """The path of element ``index`` below ``parent``; None gives the field form ``[]``."""
    return f"{parent}[]" if index is None else f"{parent}[{index}]"


def display_path(path: str) -> str:
    return path or "$"


_TOKEN = re.compile(
    r"""\.?(?P<key>[^\W\d]\w*)            # plain key
      | \[(?P<index>\d+)\]                # [3]
      | \[(?P<quoted>"(?:[^"\\]|\\.)*")\] # ["unit price"]
      | \[(?P<anyindex>\*?)\]             # [*] or []
      | \.?(?P<glob>\*\*?)                # * or **
    """,
    re.VERBOSE,
)

_SEP = "\x1f"


def _tokens(text: str, allow_globs: bool) -> list[tuple[str, str]]:
    if text in ("", "$"):
        return []
    if text.startswith("$"):
        text = text[1:]
        if text.startswith("."):
            text = text[1:]
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ConfigError(f"cannot read path {text!r} at character {pos}")
        kind = m.lastgroup
        if kind in ("anyindex", "glob") and not allow_globs:
            raise ConfigError(f"path {text!r} holds a wildcard; only patterns may")
        if kind == "quoted":
            out.append(("key", json.loads(m.group("quoted"))))
        elif kind == "anyindex":
            out.append(("anyindex", ""))
        else:
            out.append((kind, m.group(kind)))  # type: ignore[arg-type]
        pos = m.end()
    return out


@lru_cache(maxsize=65536)
def _encoded(path: str) -> str:
    parts = []
    for kind, value in _tokens(path, allow_globs=False):
        parts.append(f"{_SEP}k{value}" if kind == "key" else f"{_SEP}i{value}")
    return "".join(parts)


class PathPattern:
    """A pattern over instance paths: ``[*]`` (or ``[]``) any index, ``*`` any one key,
    ``**`` any run of segments, including none (``**.created_at`` matches ``created_at``)."""

    __slots__ = ("text", "_regex")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise ConfigError(f"a path pattern must be a string, not {type(text).__name__}")
        self.text = text
        parts = []
        for kind, value in _tokens(text, allow_globs=True):
            if kind == "key":
                parts.append(re.escape(f"{_SEP}k{value}"))
            elif kind == "index":
                parts.append(re.escape(f"{_SEP}i{value}"))
            elif kind == "anyindex":
                parts.append(f"{_SEP}i\\d+")
            elif value == "*":
                parts.append(f"{_SEP}k[^{_SEP}]*")
            else:
                parts.append(f"(?:{_SEP}[^{_SEP}]*)*")
        self._regex = re.compile("".join(parts), re.DOTALL)

    def matches(self, path: str) -> bool:
        return self._regex.fullmatch(_encoded(path)) is not None

    def __repr__(self) -> str:
        return f"PathPattern({self.text!r})"


def error_at(prefix: str, exc: ParseError) -> ParseError:
    """The same error, its path now under ``prefix`` (errors name the field from the root)."""
    text = str(exc)
    head, sep, rest = text.partition(": ")
    if not sep or " " in head:
        return ParseError(f"{display_path(prefix)}: {text}")
    if head == "$":
        return ParseError(f"{display_path(prefix)}: {rest}")
    joined = prefix + head if head.startswith("[") or not prefix else f"{prefix}.{head}"
    return ParseError(f"{joined}: {rest}")
