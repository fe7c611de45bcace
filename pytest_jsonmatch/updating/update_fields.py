"""Which fields of a case an update writes: the changes between a case's old expected value
and the output (each a place, its old value and its new one), and of those only the ones the
metric counted wrong (a mismatch, an omission, a hallucination), never a field it scored as
right or left out (update_review.py shows them; updates.py and review_accept.py write them).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine.core.paths import along_path, display_path, index_segment, key_segment
from ..engine.core.values import json_equal
from ..engine.results.field_results import BATCH_ERROR, MATCH, SKIPPED

if TYPE_CHECKING:
    from ..engine.results.field_results import FieldResult, MatchResult

ABSENT = object()  # a key one side lacks
_DEPTH = 64  # deeper than this, a change is shown and accepted as one field

Step = str | int  # a key of a mapping, an index of a list
Change = tuple[tuple[Step, ...], object, object]  # where, old (or ABSENT), new (or ABSENT)


# -- what changes --------------------------------------------------------------------------


def changes(old: object, new: object) -> list[Change]:
    """Every field in which ``new`` differs from ``old``: a key's value in two mappings, an
    item of two lists of one length, else the value as a whole (a list that grows, a value
    that changes kind). Accepting every change of a case gives exactly ``new``. Values as
    deep as the door lets a case's nest are compared with room for their depth."""
    found: list[Change] = []
    try:
        _walk(old, new, (), found)
    except RecursionError:  # (rare: measured only then)
        from ..engine.core.depth import call_with_depth, nesting
        from ..engine.reading.intake import MAX_DEPTH

        found.clear()
        depth = max(nesting(old, MAX_DEPTH), nesting(new, MAX_DEPTH))
        call_with_depth(depth, _walk, old, new, (), found)
    return found


def _walk(old: object, new: object, at: tuple[Step, ...], found: list[Change]) -> None:
    # (mappings and lists are walked into, not compared first: a comparison at each level
    # would read a deep value's rest once per level)
    if old is ABSENT or new is ABSENT:  # a key one side lacks
        found.append((at, old, new))
    elif len(at) < _DEPTH and isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            _walk(old.get(key, ABSENT), new.get(key, ABSENT), (*at, key), found)
    elif (
        len(at) < _DEPTH
        and isinstance(old, list)
        and isinstance(new, list)
        and old
        and (len(old) == len(new))
    ):
        for index, (one, other) in enumerate(zip(old, new, strict=True)):
            _walk(one, other, (*at, index), found)
    elif not json_equal(old, new):
        found.append((at, old, new))


def path_of(at: Sequence[Step]) -> str:
    """The instance path of ``at`` as the field tables write it (``items[0].sku``), ``$`` the
    root."""
    path = ""
    for step in at:
        path = index_segment(path, step) if isinstance(step, int) else key_segment(path, step)
    return display_path(path)


# -- what the metric counted wrong -------------------------------------------------------------

# the statuses of a row an update keeps its expected value for: counted right (1.0: a total
# within its tolerance, a note the judge accepted, a text equal once normalized), left out
# of the score (an ignored field), or not scored (a field the judge could not score: an
# update does not write what nobody judged)
_KEPT = frozenset((MATCH, SKIPPED, BATCH_ERROR))


@dataclass(frozen=True)
class Hold:
    """An xfail that holds a case's update: the case documents a known flaw, and writing its
    output as the expected value would make the flaw its right answer. ``why``: what the
    mark says (``xfail (reason)``); ``covers``: the row paths it holds (an xfail naming
    fields), None for every change (an xfail of the whole case)."""

    why: str
    covers: Callable[[str], bool] | None = None


class Rows:
    """The rows of a comparison by path: a value's own, those inside it (found in the
    sorted paths), and which lists the pairing reordered."""

    def __init__(self, rows: Iterable[FieldResult]) -> None:
        self.by_path: dict[str, list[FieldResult]] = {}
        for row in rows:
            self.by_path.setdefault(row.path, []).append(row)
        self.paths = sorted(self.by_path)
        # the lists whose pairing moved an element (a row's actual path differs): their
        # items are not paired index for index, so each such list is changed or kept whole
        self.moved: set[str] = set()
        for row in (r for found in self.by_path.values() for r in found):
            moved, path = row.actual_path, row.path
            if moved is not None and moved != path:
                same = next((i for i, (a, b) in enumerate(zip(path, moved)) if a != b), None)
                index = path.rfind("[", 0, (len(path) if same is None else same) + 1)
                if index >= 0:  # the list whose index differs first
                    self.moved.add(path[:index])

    def address(self, *values: object) -> bool:
        """Whether every row is at a path of one of ``values`` (the expected value and the
        output): the metric's rows are the value's fields. A metric that names its rows
        otherwise (``tool_calls``: by the call's name) does not, and its value is changed
        or kept whole."""
        known = [{"": value} for value in values]  # a path's value, each found from its parent's
        try:
            return all(
                any(along_path(k, path, _child, k[""]) is not ABSENT for k in known)
                for path in self.by_path
            )
        except (ValueError, IndexError):  # (no instance path: a metric's own name for a row)
            return False

    def under(self, path: str) -> list[FieldResult]:
        """The rows at ``path`` and inside it."""
        if not path:
            return [r for found in self.by_path.values() for r in found]
        rows = list(self.by_path.get(path, ()))
        for sep in (".", "["):
            index = bisect_left(self.paths, path + sep)
            while index < len(self.paths) and self.paths[index].startswith(path + sep):
                rows += self.by_path[self.paths[index]]
                index += 1
        return rows


def _child(value: object, segment: str) -> object:
    """The value at ``segment`` (``k<key>`` or ``i<index>``) of ``value``; ABSENT: none."""
    name = segment[1:]
    if segment[0] == "k":
        return value.get(name, ABSENT) if isinstance(value, dict) else ABSENT
    if isinstance(value, list) and name.isdigit() and int(name) < len(value):
        return value[int(name)]
    return ABSENT


def answer_rows(result: MatchResult) -> tuple[FieldResult, ...]:
    """The rows of ``result`` about the expected value an update writes: all of them, or,
    for a result made of parts (an agent's reply or run), the answer's."""
    if not result.parts:
        return result.fields
    start = 0
    for part in result.parts:
        if part.name == "answer":
            return result.fields[start : start + part.rows]
        start += part.rows
    return ()


class Selection:
    """What an update writes of an output: the expected value with each part of it the
    metric counted wrong taken from the output, every other part kept as written.

    A part is counted wrong when a row about it is not kept (a mismatch, partial credit
    included, an omission, a hallucination): its own row, a row inside it, or the row of a
    field holding it (a field compared whole: a key of ``field_match``, a comparator given
    to a mapping). Mappings are walked key by key: a key the output lacks is removed, and
    one it adds is added, only when counted wrong (a key the metric does not score stays
    out). Lists are walked item by item over the length both have; the items one has past
    it are one part; a list whose items the pairing reordered is one part. Rows that are
    not the value's fields (``Rows.address``) make the whole value one part.

    ``hold`` (an xfail) holds the parts it covers: each is recorded in ``held``, and taken
    only with ``take_held`` (a review shows them, marked). ``writes``: a part not held was
    taken."""

    def __init__(self, rows: Rows, hold: Hold | None = None, take_held: bool = False) -> None:
        self.rows, self.hold, self.take_held = rows, hold, take_held
        self.held: list[tuple[Step, ...]] = []
        self.writes = False

    def of(self, old: object, new: object) -> object:
        """The value written: ``old`` with what was counted wrong taken from ``new``."""
        if not self.rows.address(old, new):
            return new if self._take((), self.rows.under("")) else old
        return self._value(old, new, (), "", ())

    def _value(
        self,
        old: object,
        new: object,
        at: tuple[Step, ...],
        path: str,
        above: tuple[FieldResult, ...],
    ) -> object:
        if json_equal(old, new):
            return old
        if len(at) < _DEPTH and path not in self.rows.moved:
            inner = (*above, *self.rows.by_path.get(path, ()))
            if isinstance(old, dict) and isinstance(new, dict):
                return self._mapping(old, new, at, path, inner)
            if isinstance(old, list) and isinstance(new, list):
                return self._list(old, new, at, path, inner)
        return new if self._take(at, [*above, *self.rows.under(path)]) else old

    def _mapping(
        self,
        old: dict[str, object],
        new: dict[str, object],
        at: tuple[Step, ...],
        path: str,
        above: tuple[FieldResult, ...],
    ) -> dict[str, object]:
        def about(key: str) -> list[FieldResult]:
            return [*above, *self.rows.under(key_segment(path, key))]

        out: dict[str, object] = {}
        added: dict[str | None, list[str]] = {}  # a key added, after which kept key
        previous: str | None = None
        for key in new:
            if key in old:
                previous = key
            elif self._take((*at, key), about(key)):
                added.setdefault(previous, []).append(key)
        out.update((key, new[key]) for key in added.get(None, ()))
        for key, was in old.items():
            if key in new:
                out[key] = self._value(was, new[key], (*at, key), key_segment(path, key), above)
            elif not self._take((*at, key), about(key)):
                out[key] = was  # the output lacks it, and the metric did not fault that
            out.update((one, new[one]) for one in added.get(key, ()))
        return out

    def _list(
        self,
        old: list[object],
        new: list[object],
        at: tuple[Step, ...],
        path: str,
        above: tuple[FieldResult, ...],
    ) -> list[object]:
        both = min(len(old), len(new))
        head = [
            self._value(old[i], new[i], (*at, i), index_segment(path, i), above)
            for i in range(both)
        ]
        if len(old) == len(new):
            return head
        past = max(len(old), len(new))
        rows = [r for i in range(both, past) for r in self.rows.under(index_segment(path, i))]
        return head + (new[both:] if self._take((*at, both), [*above, *rows]) else old[both:])

    def _take(self, at: tuple[Step, ...], rows: Iterable[FieldResult]) -> bool:
        """Whether the part at ``at``, which ``rows`` are about, is taken from the output."""
        wrong = [row for row in rows if row.status not in _KEPT]
        if not wrong:
            return False
        hold = self.hold
        if hold is not None and (hold.covers is None or any(hold.covers(r.path) for r in wrong)):
            self.held.append(at)
            return self.take_held
        self.writes = True
        return True


def partial(old: object, new: object, taken: Sequence[Change]) -> object:
    """``old`` with the ``taken`` changes (of ``changes(old, new)``) made: a key added where
    it stands in ``new``, a key gone removed. Only the containers on a change's path are
    copied; ``old`` is left as it was."""
    if not taken:
        return old
    if any(not at for at, _, _ in taken):  # the root: the one change there is
        return new
    value = _copy(old)
    copied = {id(value)}
    for at, _, now in taken:
        parent, model = value, new
        for step in at[:-1]:
            child = parent[step]  # type: ignore[index]
            if id(child) not in copied:
                child = _copy(child)
                parent[step] = child  # type: ignore[index]
                copied.add(id(child))
            parent, model = child, model[step]  # type: ignore[index]
        last = at[-1]
        if now is ABSENT:
            del parent[last]  # type: ignore[attr-defined]
        elif isinstance(parent, dict) and last not in parent and isinstance(model, dict):
            keys = list(model)
            before = [k for k in keys[: keys.index(last)] if k in parent]
            items = list(parent.items())
            at_index = 1 + [k for k, _ in items].index(before[-1]) if before else 0
            items.insert(at_index, (last, now))
            parent.clear()
            parent.update(items)
        else:
            parent[last] = now  # type: ignore[index]
    return value


def _copy(value: object) -> object:
    if isinstance(value, dict):
        return dict(value)
    return list(value) if isinstance(value, list) else value
