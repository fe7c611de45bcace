"""How values are named: instance paths, field paths, where a value sits, and path patterns.

An instance path names one value: ``items[0].sku``, ``["unit price"]``; the root is ``""``,
shown as ``$``. A field path folds array indices away (``items[].sku``) so that one field is
aggregated across positions. A pattern (for ``ignore`` and ``fields``) is an instance path in
which ``[*]`` (or ``[]``) stands for any index, ``*`` for any one key and ``**`` for any run
of segments.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import NamedTuple

from .errors import ConfigError

_PLAIN_KEY = re.compile(r"[^\W\d]\w*")

# key -> (its form at the root, its form below a parent); keys repeat across records (the
# walk reads it directly in its hot loop; key_forms fills it)
KEY_FORMS: dict[str, tuple[str, str]] = {}
KEY_FORMS_LIMIT = 100_000


def key_forms(key: str) -> tuple[str, str]:
    """How ``key`` is written as a path segment: at the root, and below a parent."""
    forms = KEY_FORMS.get(key)
    if forms is None:
        if _PLAIN_KEY.fullmatch(key):
            forms = (key, "." + key)
        else:
            quoted = f"[{json.dumps(key, ensure_ascii=False)}]"
            forms = (quoted, quoted)
        if len(KEY_FORMS) < KEY_FORMS_LIMIT:
            KEY_FORMS[key] = forms
    return forms


def key_segment(parent: str, key: str) -> str:
    """The path of ``key`` below ``parent`` (``""`` is the root)."""
    forms = key_forms(key)
    return parent + forms[1] if parent else forms[0]


def index_segment(parent: str, index: int | None) -> str:
    """The path of element ``index`` below ``parent``; None gives the field form ``[]``."""
    return f"{parent}[]" if index is None else f"{parent}[{index}]"


def display_path(path: str) -> str:
    """A path as users read it: the root is ``$``."""
    return path or "$"


class Where(NamedTuple):
    """Where a compared value sits: its instance ``path`` on the expected side, its
    ``field`` path (indices folded), and its instance path on the ``actual`` side when array
    pairing put it at another index (None: the same as ``path``)."""

    path: str
    field: str
    actual: str | None = None

    @property
    def actual_path(self) -> str:
        return self.path if self.actual is None else self.actual

    def key(self, key: str) -> Where:
        """The child under ``key`` on both sides."""
        root, below = key_forms(key)
        path = self.path + below if self.path else root
        field = path if self.field == self.path else (self.field + below if self.field else root)
        actual = None if self.actual is None else self.actual + below
        return Where(path, field, actual)

    def pair(self, expected_index: int, actual_index: int) -> Where:
        """Element ``expected_index`` of the array here, paired with ``actual_index``."""
        moved = self.actual is not None or expected_index != actual_index
        return Where(f"{self.path}[{expected_index}]", f"{self.field}[]",
                     f"{self.actual_path}[{actual_index}]" if moved else None)

    def actual_key(self, key: str) -> Where:
        """A key only the actual side has, named on the actual side."""
        root, below = key_forms(key)
        base = self.actual_path
        field = self.field + below if self.field else root
        return Where(base + below if base else root, field)

    def element(self, index: int, side_path: str | None = None) -> Where:
        """Element ``index`` of one side alone (an omitted or a hallucinated element), named
        below ``side_path`` (default: the expected side's path)."""
        base = self.path if side_path is None else side_path
        return Where(f"{base}[{index}]", f"{self.field}[]")


ROOT = Where("", "")


# -- patterns --------------------------------------------------------------------------------

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


def path_tokens(text: str, allow_globs: bool) -> list[tuple[str, str]]:
    """``items[0].sku`` -> [("key", "items"), ("index", "0"), ("key", "sku")]."""
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
    """An instance path as one string of separated segments, for pattern regexes."""
    return "".join(f"{_SEP}k{value}" if kind == "key" else f"{_SEP}i{value}"
                   for kind, value in path_tokens(path, allow_globs=False))


class PathPattern:
    """A pattern over instance paths: ``[*]`` (or ``[]``) any index, ``*`` any one key,
    ``**`` any run of segments, including none (``**.created_at`` matches ``created_at``)."""

    __slots__ = ("text", "_regex")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise ConfigError(f"a path pattern must be a string, not {type(text).__name__}")
        self.text = text
        parts = []
        for kind, value in path_tokens(text, allow_globs=True):
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

    def names_an_index(self) -> bool:
        """Whether the pattern names one array position (``items[2]``), which only a walk
        of that element can honour."""
        return re.search(r"\[\d+\]", self.text) is not None

    def __repr__(self) -> str:
        return f"PathPattern({self.text!r})"
