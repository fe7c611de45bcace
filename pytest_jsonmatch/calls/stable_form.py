"""The stable form of a target's output: what a recording holds, so that re-recording a run
whose only changes are volatile values writes the same bytes.

Two things change from call to call without the answer changing:

- **Tool-call ids.** A model makes up a fresh id for every call (``call_8fK2...``); an id
  only ties a call to its result. They are renamed ``call_1``, ``call_2``, ... in order of
  first appearance, a call's id and its result's reference together: OpenAI chat
  (``tool_calls[].id``, a tool message's ``tool_call_id``), OpenAI Responses
  (``function_call`` and ``function_call_output`` items' ``call_id``), Anthropic
  (``tool_use`` blocks' ``id``, ``tool_result`` blocks' ``tool_use_id``) and LangChain
  (``tool_call`` entries' ``id``). No metric reads an id's value
  (engine/reading/agent_messages.py reads names, arguments and results), so no score moves.
- **What the record setting's ``scrub=`` names** (:class:`Scrub`): timestamps, generated
  ids in the output or an agent's state. Each such value becomes :data:`PLACEHOLDER`.

The stable form is what a session that records scores, live and replayed alike (the same
value either way, so the same scores), and what it writes. It is idempotent: the stable
form of a stable form is itself, so a recording made before ids were renamed replays and is
rewritten, once, by the next ``--jsonmatch-record=all``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping

from ..engine.core.errors import ConfigError
from ..engine.core.masking import MASK_SECONDS, MaskPattern
from ..engine.core.paths import PathPattern, index_segment, key_segment
from ..engine.core.slotted import HashedSlotted
from ..engine.reading.agent_messages import ID_KEYS, AgentKind

PLACEHOLDER = "<scrubbed>"  # what a scrubbed value is recorded (and scored) as


class Scrub(HashedSlotted):
    """The volatile values the ``record`` setting's ``scrub=`` names: path patterns
    (``ignore``'s syntax: ``**.created_at``, ``state.orders[*].id``), each value they match
    replaced whole, and ``/REGEX/`` patterns, each match in any text replaced.
    (HashedSlotted, not a dataclass: made when the golden session starts; _advanced's cache
    hashes it.)"""

    __slots__ = ("paths", "texts", "what")

    paths: tuple[PathPattern, ...]
    texts: tuple[MaskPattern, ...]
    what: str  # (the setting a pattern came from, for its errors)

    def __init__(
        self,
        paths: tuple[PathPattern, ...] = (),
        texts: tuple[MaskPattern, ...] = (),
        what: str = "jsonmatch_record",
    ) -> None:
        self.paths, self.texts, self.what = paths, texts, what

    @classmethod
    def parse(cls, value: str, what: str) -> Scrub:
        """``scrub=``'s value: ``/REGEX/`` whole, or path patterns split at commas."""
        if len(value) > 1 and value.startswith("/") and value.endswith("/"):
            import regex  # (MaskPattern's engine, loaded only where a pattern is given)

            try:  # (run on a model's text under the masks' time budget)
                return cls(texts=(MaskPattern(value[1:-1]),), what=what)
            except regex.error as exc:
                raise ConfigError(
                    f"{what}: scrub={value!r} is no regular expression ({exc})"
                ) from None
        paths = []
        for text in (part.strip() for part in value.split(",")):
            if not text:
                raise ConfigError(f"{what}: scrub={value!r} names an empty path")
            try:
                paths.append(PathPattern(text))
            except ConfigError as exc:
                raise ConfigError(f"{what}: scrub path {text!r}: {exc}") from None
        return cls(paths=tuple(paths))

    def __add__(self, other: Scrub) -> Scrub:
        return Scrub(self.paths + other.paths, self.texts + other.texts, other.what)

    def __bool__(self) -> bool:
        return bool(self.paths or self.texts)

    def named(self) -> list[str]:
        """The patterns as the setting spells them."""
        return [p.text for p in self.paths] + [f"/{t.pattern}/" for t in self.texts]

    def ignored(self, output: object, agent: AgentKind = None) -> tuple[str, ...]:
        """What a comparison of ``output`` (in its stable form) leaves out, as ``ignore``
        patterns: each scrub path as given, and where a ``/REGEX/`` is given, the place of
        each value it replaced whole (a text output holding JSON is read for them), its
        indices any index (``lines[].at``: one pattern per field, however many elements).
        A value a pattern replaced in part stays a text to compare. Empty when nothing is
        scrubbed: the values recorded are then scored as they are. An ``agent``'s output
        (``"run"`` or ``"reply"``) is read for them where its comparison reads fields: its
        answer's JSON (at the answer's paths) and its end state (under ``state.``)."""
        named = [p.text for p in self.paths] if isinstance(output, (dict, list)) else []
        if not self.texts:
            return tuple(named)
        if agent is None:
            if isinstance(output, str):
                output = _json_or_none(output)
            return (*named, *_placeholder_fields(output, self))
        from .answer_scrub import answer_paths, answer_text

        if agent == "run" and isinstance(output, dict) and output.get("state") is not None:
            named += _placeholder_fields({"state": output["state"]}, self)
        answer = answer_text(output, agent == "run")
        if answer is not None:
            named += _placeholder_fields(answer.value, Scrub(answer_paths(self.paths, output)))
        return tuple(named)

    def hits(self, path: str) -> bool:
        return any(pattern.matches(path) for pattern in self.paths)

    def text(self, value: str) -> str:
        for pattern in self.texts:
            replaced = pattern.bounded_sub(PLACEHOLDER, value)
            if replaced is None:
                raise ConfigError(
                    f"{self.what}: scrub={'/' + pattern.pattern + '/'!r} took more than "
                    f"{MASK_SECONDS} s on a text of {len(value)} characters: a pattern that "
                    "backtracks this much cannot be run on a model's text"
                )
            value = replaced
        return value


NO_SCRUB = Scrub()  # nothing named: ids renamed only


def _json_or_none(text: str) -> object:
    """``text`` read as JSON (a target's answer given as text), or None when it is not."""
    import json

    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _placeholder_fields(output: object, scrub: Scrub) -> list[str]:
    """The field paths (indices folded: ``lines[].at``) of the values of ``output`` that are
    :data:`PLACEHOLDER` whole and that no scrub path names, each once, in the order met.
    Iterative, as _rebuilt. A container carries its field path (one string for all the
    elements of an array) and its link to its parent; an instance path is written only for
    the first placeholder of each field, to hold it to the scrub paths."""
    found: dict[str, _Link] = {}  # field path -> the link of its first placeholder
    stack: list[tuple[str, _Link, object]] = [("", None, output)]
    while stack:
        field, link, node = stack.pop()
        below = ""  # (an array's elements' field path)
        if type(node) is dict:
            pairs: Iterable[tuple[str | int, object]] = node.items()
        elif type(node) is list:
            pairs, below = enumerate(node), index_segment(field, None)
        else:
            continue
        deeper = []
        for key, value in pairs:
            kind = type(value)
            if kind is str:
                if value == PLACEHOLDER:
                    at = below if isinstance(key, int) else key_segment(field, key)
                    found.setdefault(at, (link, key))
            elif kind is dict or kind is list:
                at = below if isinstance(key, int) else key_segment(field, key)
                deeper.append((at, (link, key), value))
        deeper.reverse()  # the stack pops the first child next
        stack.extend(deeper)
    if not scrub.paths:
        return list(found)
    return [at for at, link in found.items() if not scrub.hits(_instance_path(link))]


_Link = tuple["_Link", "str | int"] | None  # (the parent's link, the key or index)


def _instance_path(link: _Link) -> str:
    """The instance path of the value ``link`` names (``lines[1].at``)."""
    steps: list[str | int] = []
    while link is not None:
        link, step = link
        steps.append(step)
    path = ""
    for step in reversed(steps):
        path = key_segment(path, step) if isinstance(step, str) else index_segment(path, step)
    return path


def stable_form(output: object, scrub: Scrub = NO_SCRUB, agent: AgentKind = None) -> object:
    """``output`` (plain JSON, as read at the door) with its tool-call ids renamed in order
    of appearance and the values ``scrub`` names replaced; text stays text (a regular
    expression applies to it). An ``agent``'s output (``"run"`` or ``"reply"``) has the
    paths that name its answer's fields applied to the JSON its answer writes as text too
    (answer_scrub.py). A new value: ``output`` is not changed."""
    if isinstance(output, str):
        return scrub.text(output)
    names: dict[str, str] = {}

    def renamed(raw: str) -> str:
        if raw not in names:
            names[raw] = f"call_{len(names) + 1}"
        return names[raw]

    form = _rebuilt(output, lambda mapping: _ids_renamed(mapping, renamed), scrub)
    if agent is not None and scrub.paths:
        from ..engine.core.depth import with_door_room
        from .answer_scrub import answer_paths, answer_text

        answer = answer_text(form, agent == "run")
        paths = answer_paths(scrub.paths, form) if answer is not None else ()
        if answer is not None and paths:
            scrubbed = _rebuilt(answer.value, lambda mapping: mapping, Scrub(paths))
            if with_door_room(lambda: scrubbed != answer.value):
                answer.write(scrubbed)
    return form


def _ids_renamed(mapping: dict[str, object], renamed: Callable[[str], str]) -> dict[str, object]:
    """``mapping`` with the call ids it holds renamed (itself when it holds none)."""
    if _ID_NAMES.isdisjoint(mapping):  # most objects of an output: one set operation
        return mapping
    kind = mapping.get("type")
    for of_type, key in ID_KEYS:
        raw = mapping.get(key)
        if isinstance(raw, str) and (of_type is None or kind == of_type):
            if of_type == "function" and not isinstance(mapping.get("function"), Mapping):
                continue  # an object typed "function" that is no chat tool call
            mapping[key] = renamed(raw)
    return mapping


# the keys that can hold one (an object with none of them, or no "type" beside an "id", is
# passed over at the cost of one set operation)
_ID_NAMES = frozenset(key for _, key in ID_KEYS if key != "id") | {"type"}
# each scrub path's positions at a value (None: no pattern can match at or below it)
_States = tuple[frozenset[int], ...] | None
_Parent = list[object] | dict[str, object]


def _rebuilt(
    value: object, on_mapping: Callable[[dict[str, object]], dict[str, object]], scrub: Scrub
) -> object:
    """A copy of ``value``, each mapping passed through ``on_mapping`` in document order
    (its own keys before its children's), each value ``scrub`` names replaced. Iterative:
    an output may nest as deep as the door allows, past Python's recursion limit; each
    value carries the scrub paths' positions (an NFA's, paths.py), so no path is written."""
    top: list[object] = [value]
    start = tuple(p.start_states() for p in scrub.paths) if scrub.paths else None
    stack: list[tuple[_Parent, int | str, object, _States]] = [(top, 0, value, start)]
    texts = bool(scrub.texts)
    while stack:
        parent, key, node, states = stack.pop()
        if isinstance(node, str):
            parent[key] = scrub.text(node)  # type: ignore[index]
            continue
        copy: _Parent
        if isinstance(node, dict):
            copy = on_mapping(dict(node))
            if texts:
                copy = _keys_scrubbed(copy, scrub)
        elif isinstance(node, list):
            copy = list(node)
        else:
            continue  # a number, true, false or null at the top: itself
        parent[key] = copy  # type: ignore[index]
        if states:
            _scrubbed_children(copy, states, scrub, stack)
            continue
        pairs = copy.items() if isinstance(copy, dict) else enumerate(copy)
        below = [
            (copy, k, v, None)
            for k, v in pairs
            if type(v) in _VISITED or (texts and type(v) is str)
        ]
        below.reverse()  # the stack pops the first child next: document order
        stack.extend(below)
    return top[0]


_VISITED = (dict, list)  # (the door hands on plain dicts and lists: their exact types)


def _keys_scrubbed(mapping: dict[str, object], scrub: Scrub) -> dict[str, object]:
    """``mapping`` with each key a ``/REGEX/`` matches rewritten (``tickets/TCK-c2388e28.json``
    -> ``tickets/<scrubbed>.json``); itself when none is. Keys rewritten alike are told apart
    by the order of their values (``#2``, ``#3``, ... after the first), not by the ids they
    held, and the mapping's keys are then sorted: a run whose only change is its ids gives the
    same keys, in the same order, holding the same values."""
    renamed = {key: scrub.text(key) for key in mapping}
    if all(new == key for key, new in renamed.items()):
        return mapping
    alike: dict[str, list[str]] = {}
    for key, new in renamed.items():
        alike.setdefault(new, []).append(key)
    taken = set(alike)
    out: dict[str, object] = {}
    for new, keys in alike.items():
        if len(keys) > 1:
            from ..engine.core.depth import deep_dumps

            keys.sort(key=lambda k: deep_dumps(mapping[k], sort_keys=True, ensure_ascii=False))
        for number, key in enumerate(keys, 1):
            name = new
            while number > 1 and (name == new or name in taken):
                name, number = f"{new}#{number}", number + 1
            taken.add(name)
            out[name] = mapping[key]
    return dict(sorted(out.items()))


def _scrubbed_children(
    copy: _Parent,
    states: tuple[frozenset[int], ...],
    scrub: Scrub,
    stack: list[tuple[_Parent, int | str, object, _States]],
) -> None:
    """Push the children of ``copy`` still to visit, last first, each with the scrub paths'
    positions at it; a child a path names is replaced here, not visited."""
    pairs: list[tuple[int | str, object]] = (
        list(copy.items()) if isinstance(copy, dict) else list(enumerate(copy))
    )
    for key, child in reversed(pairs):
        below = _advanced(scrub, states, f"k{key}" if isinstance(copy, dict) else f"i{key}")
        if below is _HIT:
            copy[key] = PLACEHOLDER  # type: ignore[index]
        elif isinstance(child, (dict, list)) or (scrub.texts and isinstance(child, str)):
            stack.append((copy, key, child, below))


_HIT: _States = (frozenset({-1}),)  # a scrub path matches the child itself (by identity)


@functools.lru_cache(maxsize=4096)  # an output's objects repeat their keys: one step each
def _advanced(scrub: Scrub, states: tuple[frozenset[int], ...], segment: str) -> _States:
    """The scrub paths' positions at a child (its ``segment``): _HIT when one matches it,
    None when none can match at or below it."""
    moved = tuple(p.advance(s, segment) for p, s in zip(scrub.paths, states))
    if any(p.accepts(s) for p, s in zip(scrub.paths, moved)):
        return _HIT
    return moved if any(moved) else None
