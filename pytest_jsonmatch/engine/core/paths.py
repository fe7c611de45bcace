"""How values are named: instance paths, field paths, where a value sits, and path patterns.

An instance path names one value: ``items[0].sku``, ``["unit price"]``; the root is ``""``,
shown as ``$``. A field path folds array indices away (``items[].sku``) so that one field is
aggregated across positions. A pattern (for ``ignore`` and ``fields``) is an instance path in
which ``[*]`` (or ``[]``) stands for any index, ``*`` for any one key, ``**`` for any run
of segments, and a ``*`` inside a quoted key for any run of characters in that key
(``state["tickets/*"]``; ``\\*`` is a star itself).
"""

import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple, TypeVar

from .errors import ConfigError

T = TypeVar("T")

_PLAIN_KEY = re.compile(r"[^\W\d]\w*")

# key -> (its form at the root, its form below a parent); keys repeat across records (the
# walk reads it directly in its hot loop; key_forms fills it)
KEY_FORMS: dict[str, tuple[str, str]] = {}
KEY_FORMS_LIMIT = 100_000


def key_forms(key: str) -> tuple[str, str]:
    """How ``key`` is written as a path segment: at the root, and below a parent."""
    forms = KEY_FORMS.get(key)
    return new_key_forms(key) if forms is None else forms


def new_key_forms(key: str) -> tuple[str, str]:
    """``key_forms`` of a key KEY_FORMS was just asked for and does not hold (the walk's
    loops look there first: a key met once is not looked up twice)."""
    # (an ASCII key is plain exactly when it is an identifier: a letter or ``_``, then
    # letters, digits and ``_``, as the pattern reads it; str's own test is quicker)
    if key.isidentifier() if key.isascii() else _PLAIN_KEY.fullmatch(key):
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


def nearest_paths(pattern: str, paths: Iterable[str]) -> list[str]:
    """The (at most three) paths closest to ``pattern``: what a path that matches nothing
    was likely meant to be (a field floor's warning, a case's ``fields`` or ``ignore``)."""
    import difflib  # (here: a run without a path that matches nothing never imports it)

    return difflib.get_close_matches(pattern, sorted(set(paths)), n=3, cutoff=0.5)


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

    def key(self, key: str) -> "Where":
        """The child under ``key`` on both sides."""
        forms = KEY_FORMS.get(key)  # (key_forms, written out: the walk's hot loop calls this)
        root, below = new_key_forms(key) if forms is None else forms
        path, field, actual = self
        if actual is not None:
            actual += below
        if not path:  # (a key of the root: its root form)
            return _new(Where, (root, field + below if field else root, actual))
        child = path + below
        field = child if field == path else (field + below if field else root)
        return _new(Where, (child, field, actual))

    def pair(self, expected_index: int, actual_index: int) -> "Where":
        """Element ``expected_index`` of the array here, paired with ``actual_index``."""
        moved = self.actual is not None or expected_index != actual_index
        return _new(
            Where,
            (
                f"{self.path}[{expected_index}]",
                f"{self.field}[]",
                f"{self.actual_path}[{actual_index}]" if moved else None,
            ),
        )

    def actual_key(self, key: str) -> "Where":
        """A key only the actual side has, named on the actual side."""
        root, below = key_forms(key)
        base = self.actual_path
        field = self.field + below if self.field else root
        return _new(Where, (base + below if base else root, field, None))

    def element(self, index: int, side_path: str | None = None) -> "Where":
        """Element ``index`` of one side alone (an omitted or a hallucinated element), named
        below ``side_path`` (default: the expected side's path)."""
        base = self.path if side_path is None else side_path
        return _new(Where, (f"{base}[{index}]", f"{self.field}[]", None))


ROOT = Where("", "")
# (a Where's child made as the tuple it is, without the Python-level __new__ a NamedTuple's
# call runs: the walk makes one per array, object or one-sided element below it)
_new = tuple.__new__


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


# An instance path's segments: "k<key>" or "i<index>" each. The walk names a child by adding
# one segment to its parent's path, so a path's segments are its parent's plus the last one:
# kept per path, they cost one step per path, not one per segment (deep values).
Segments = tuple[str, ...]
_SEGMENTS: dict[str, Segments] = {"": ()}
_SEGMENTS_LIMIT = 200_000
_NO_KEYS: frozenset[str] = frozenset()
# a pattern's positions before any segment, where no ``**`` may skip ahead
_FIRST = frozenset((0,))


def path_segments(path: str) -> Segments:
    """The segments of an instance path as the walk writes it (``items[0].sku`` ->
    ``("kitems", "i0", "ksku")``)."""
    return along_path(_SEGMENTS, path, _appended, ())


def _appended(segments: Segments, segment: str) -> Segments:
    return (*segments, segment)


def along_path(known: dict[str, T], path: str, step: Callable[[T, str], T], root: T) -> T:
    """What ``known`` keeps for ``path``, made from its nearest known ancestor one segment at
    a time (``step(the parent's value, segment)``) and kept for each path on the way.
    ``known`` holds the root path ``""`` (``root``) and is emptied past _SEGMENTS_LIMIT
    entries."""
    found = known.get(path)
    if found is not None:
        return found
    pending: list[tuple[str, str]] = []
    while path not in known:
        parent, segment = _last_segment(path)
        pending.append((path, segment))
        path = parent
    value = known[path]
    if len(known) > _SEGMENTS_LIMIT:
        known.clear()
        known[""] = root
    for whole, segment in reversed(pending):
        value = step(value, segment)
        known[whole] = value
    return value


def parent_path(path: str) -> str:
    """The instance path of the value holding ``path``'s (``""`` for a key of the root)."""
    return _last_segment(path)[0] if path else ""


def _last_segment(path: str) -> tuple[str, str]:
    """(parent path, last segment) of an instance path. Inside a quoted key's JSON text every
    ``"`` is escaped, so the first unescaped ``"`` before the closing one opens it (the key
    itself may hold ``["``); a plain key holds no ``.`` or ``]``, so the last of those ends
    its parent."""
    if path.endswith('"]'):
        start = _opening_quote(path, len(path) - 2)
        return path[: start - 1], "k" + json.loads(path[start:-1])
    if path.endswith("]"):
        start = path.rfind("[")
        return path[:start], "i" + path[start + 1 : -1]
    cut = max(path.rfind("."), path.rfind("]"))
    if cut < 0:
        return "", "k" + path
    return (path[:cut] if path[cut] == "." else path[: cut + 1]), "k" + path[cut + 1 :]


def _opening_quote(path: str, closing: int) -> int:
    """The index of the unescaped ``"`` that opens the JSON string closed at ``closing``."""
    at = closing
    while True:
        at = path.rfind('"', 0, at)
        slashes = at
        while path[slashes - 1] == "\\":  # the opening quote follows "[", never a backslash
            slashes -= 1
        if (at - slashes) % 2 == 0:
            return at


class PathPattern:
    """A pattern over instance paths: ``[*]`` (or ``[]``) any index, ``*`` any one key,
    ``**`` any run of segments, including none (``**.created_at`` matches ``created_at``).

    Matching runs the pattern as a set of positions over the path's segments (an NFA), so
    it takes time in proportion to segments times pattern tokens, whatever the ``**``s."""

    __slots__ = ("text", "_steps", "_globbed", "_start", "_states", "_ends")

    text: str
    _steps: tuple[str, ...]
    _globbed: bool
    _ends: str | None
    _start: frozenset[int]
    # instance path -> the pattern's positions after reading it: a path's positions are its
    # parent's advanced by one segment, so each path of a deep value costs one step
    _states: dict[str, frozenset[int]]

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise ConfigError(f"a path pattern must be a string, not {type(text).__name__}")
        self.text = text
        if text.isascii() and text.isidentifier():
            # one plain key (an assertion's ``ignore=["id"]``): its one step, what the
            # tokens would read of it, without the reading
            self._steps, self._globbed, self._ends = ("=k" + text,), False, text
            self._start = _FIRST
            self._states = {"": _FIRST}
            return
        steps: list[str] = []  # "k<key>", "i<index>", "i" (any index), "k" (any key), "**"
        for kind, value in path_tokens(text, allow_globs=True):
            if kind == "key" and "*" in value:
                step = "~k" + value  # a quoted key with a star: any key it spells
            elif kind == "key":
                step = "=k" + value
            elif kind == "index":
                step = "=i" + value
            elif kind == "anyindex":
                step = "^i"
            elif value == "*":
                step = "^k"
            else:
                step = "**"
            if step == "**" and steps and steps[-1] == "**":
                continue  # ** ** is **
            steps.append(step)
        self._steps = tuple(steps)
        self._globbed = "**" in steps
        self._ends = _ending(self._steps)
        self._start = frozenset(_closure(self._steps, {0})) if self._globbed else _FIRST
        self._states = {"": self._start}

    def matches(self, path: str) -> bool:
        if not self._globbed:
            ends = self._ends
            if ends is not None and not path.endswith(ends) and not path.endswith('"]'):
                return False  # (its last segment is not the pattern's: see _ending)
            return self.matches_segments(path_segments(path))
        return len(self._steps) in self._states_after(path)

    def matches_segments(self, segments: Segments) -> bool:
        """Whether the pattern matches the path of these segments (see path_segments)."""
        steps = self._steps
        if not self._globbed:
            return len(segments) == len(steps) and all(
                _step_takes(step, segment) for step, segment in zip(steps, segments)
            )
        states = self._start
        for segment in segments:
            states = self._advance(states, segment)
            if not states:
                return False
        return len(steps) in states

    def _states_after(self, path: str) -> frozenset[int]:
        return along_path(self._states, path, self._advance, self._start)

    def _advance(self, states: frozenset[int], segment: str) -> frozenset[int]:
        """The positions after reading one more segment from ``states``."""
        if not states:  # the pattern failed on an earlier segment
            return states
        steps = self._steps
        moved = set()
        for i in states:
            if i < len(steps):
                step = steps[i]
                if step == "**":
                    moved.add(i)
                elif _step_takes(step, segment):
                    moved.add(i + 1)
        return frozenset(_closure(steps, moved)) if moved else frozenset()

    def start_states(self) -> frozenset[int]:
        """The pattern's positions before reading any segment: with :meth:`advance` and
        :meth:`accepts`, a walk carries each value's positions down to its children itself
        (no path text built, none kept)."""
        return self._start

    def advance(self, states: frozenset[int], segment: str) -> frozenset[int]:
        """The positions after one more segment (``"k<key>"`` or ``"i<index>"``)."""
        return self._advance(states, segment)

    def accepts(self, states: frozenset[int]) -> bool:
        """Whether the segments read to ``states`` make a path the pattern matches."""
        return len(self._steps) in states

    def matching_prefixes(self, segments: Segments) -> list[bool]:
        """For each d from 0 to len(segments): whether the pattern matches the path of the
        first d segments (one pass over the segments, not one per prefix)."""
        steps = self._steps
        out = [False] * (len(segments) + 1)
        if not self._globbed:
            d = len(steps)
            if d <= len(segments):
                out[d] = all(_step_takes(step, segment) for step, segment in zip(steps, segments))
            return out
        states = self._start
        out[0] = len(steps) in states
        for d, segment in enumerate(segments, 1):
            states = self._advance(states, segment)
            if not states:
                break
            out[d] = len(steps) in states
        return out

    def may_match_below(self, path: str) -> bool:
        """Whether the pattern may match some path below ``path`` (``path`` and one segment
        or more): whether reading ``path`` leaves it a step still to take."""
        steps = self._steps
        if self._globbed:
            return any(i < len(steps) for i in self._states_after(path))
        if len(steps) == 1:  # (any path but the root's has a segment: none is left)
            return not path
        segments = path_segments(path)
        return len(segments) < len(steps) and all(
            _step_takes(step, segment) for step, segment in zip(steps, segments)
        )

    def keys_below(self, path: str) -> frozenset[str] | None:
        """The keys of the object at ``path`` through which the pattern may match ``path``
        and one segment or more: none where it matches nothing below ``path`` (as
        :meth:`may_match_below` says), the one key its next step names where that step is a
        literal key, None where it may reach any key (a wildcard, ``**``, an index next).
        The walk scores the other keys' leaves in the object's own loop."""
        steps = self._steps
        if self._globbed:
            return None if self.may_match_below(path) else _NO_KEYS
        if len(steps) == 1:  # (a path below the root has a segment already: only the root)
            if path:
                return _NO_KEYS
            return frozenset((steps[0][2:],)) if steps[0].startswith("=k") else None
        segments = path_segments(path)
        depth = len(segments)
        if depth >= len(steps) or not all(
            _step_takes(step, segment) for step, segment in zip(steps, segments)
        ):
            return _NO_KEYS
        step = steps[depth]
        return frozenset((step[2:],)) if step.startswith("=k") else None

    def root_key(self) -> str | None:
        """The key where the pattern names one key of the root and nothing else (``id``,
        ``["unit price"]``: it matches that key's path alone), else None."""
        steps = self._steps
        return steps[0][2:] if len(steps) == 1 and steps[0][:2] == "=k" else None

    def names_an_index(self) -> bool:
        """Whether the pattern names one array position (``items[2]``), which only a walk
        of that element can honour."""
        return re.search(r"\[\d+\]", self.text) is not None

    def __repr__(self) -> str:
        return f"PathPattern({self.text!r})"


def _ending(steps: tuple[str, ...]) -> str | None:
    """The text every path the pattern matches ends with, unless its last segment is a
    quoted key (it ends with ``"]``): for a last step of one key, that key's own text (a
    path whose last segment is a plain key ends with it, see ``_last_segment``); of one
    index, ``[index]``. None where the last step is a wildcard (or there is none): a path
    that ends otherwise is refused without reading its segments."""
    if not steps:
        return None
    last = steps[-1]
    if last.startswith("=k"):
        return last[2:]
    if last.startswith("=i"):
        return f"[{last[2:]}]"
    return None


def _step_takes(step: str, segment: str) -> bool:
    """Whether one pattern step (not ``**``) takes one path segment."""
    if step[0] == "=":
        return segment == step[1:]
    if step[0] == "~":  # "~k<glob>": a key the glob spells
        return segment[0] == "k" and _glob_takes(_key_glob(step[2:]), segment, 1)
    return segment[0] == step[1]  # "^k": any key, "^i": any index


@functools.lru_cache(maxsize=1024)
def _key_glob(glob: str) -> tuple[str, ...]:
    """A quoted key's glob as the texts between its stars (``\\*`` is a star itself)."""
    pieces = [""]
    at = 0
    while at < len(glob):
        if glob.startswith("\\*", at):
            pieces[-1] += "*"
            at += 2
        elif glob[at] == "*":
            pieces.append("")
            at += 1
        else:
            pieces[-1] += glob[at]
            at += 1
    return tuple(pieces)


def _glob_takes(pieces: tuple[str, ...], key: str, start: int = 0) -> bool:
    """Whether ``key[start:]`` is the glob's ``pieces`` with any text at each star between
    them: the first piece a prefix, the last a suffix, each other found leftmost in turn
    (for stars alone the leftmost place is never wrong), so a glob from a data file takes
    time linear in the key, however many stars."""
    first, last = pieces[0], pieces[-1]
    if len(pieces) == 1:
        return key[start:] == first
    if not key.startswith(first, start) or len(key) - start < len(first) + len(last):
        return False
    at, end = start + len(first), len(key) - len(last)
    for piece in pieces[1:-1]:
        found = key.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return key.endswith(last, at)


def _closure(steps: tuple[str, ...], states: set[int]) -> set[int]:
    """``states`` with every position a ``**`` may skip to (it matches no segment too)."""
    out = set(states)
    pending = list(states)
    while pending:
        i = pending.pop()
        if i < len(steps) and steps[i] == "**" and i + 1 not in out:
            out.add(i + 1)
            pending.append(i + 1)
    return out
