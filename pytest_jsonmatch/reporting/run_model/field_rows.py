"""A report's field verdicts as it stores them: each field a short row referring to a head
in a table, the report's ``field_heads``, instead of an object that repeats its paths,
status and (for a match) its value.

A *head* is ``[path, field_path, status, sides, score]``: what many fields share. ``score``
is 1.0 or 0.0 (most fields score one of those), or null when each field of the head gives
its own. Two optional members follow for a field that counts for other than 1 or scored
below its floor: ``weight`` (a number >= 0, what it counts for in precision and recall),
then ``min_score`` (the floor it scored below); ``[..., weight]`` or
``[..., weight, min_score]``, so that a report without weights or floors is written as it
was before them. ``sides`` says which values a row holds, in order:

- ``"="``: both sides present and equal (a match, most of the time): the value once;
- ``"ea"``, ``"e"``, ``"a"``: both values, only the expected one, only the actual one;
- ``""``: none (a run that keeps no values, ``jsonmatch_report = PATH values=none``);
- a ``!`` after a side's letter: that value is compact JSON cut to 200 characters.

A *row* is ``[h, score?, value...]``: the index of its head in the comparison's table
(``comparison.heads`` names the table among ``field_heads``), its score when the head has
none, then the values ``sides`` says. Every field of every comparison comes back from a row
as the object the renderers and the baseline read (``shapes.FieldDict``, :func:`fields_of`):
path, field path, status, score, ``expected``/``actual`` as kept, ``expected_cut``/``actual_cut``.

A table belongs to the process that wrote the comparisons referring to it (a worker's chunk
of a dataset has its own), so that comparisons are written as they are scored and never
held: the tables are written after the comparisons.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import copysign
from typing import TYPE_CHECKING, NoReturn, TypeAlias, TypeVar, cast

from ...engine.core.slotted import Slotted

if TYPE_CHECKING:
    from .report_types import ComparisonDict, FieldDict, JSONValue

# what ``sides`` may say, and how many values a row holds for each
SIDES: dict[str, int] = {
    "=": 1,
    "ea": 2,
    "e!a": 2,
    "ea!": 2,
    "e!a!": 2,
    "e": 1,
    "e!": 1,
    "a": 1,
    "a!": 1,
    "": 0,
}
_FOUND_KEPT = 65_536  # fields' own scores remembered by Heads.found
Head: TypeAlias = (
    "list[JSONValue]"  # [path, field_path, status, sides, score or None, weight?, min_score?]
)
# a head's optional members: (), (weight,) or (weight, min_score)
Rules = tuple[float, ...]
_Error = TypeVar("_Error", bound=Exception)


def _named(value: object) -> str:
    """A value of a refused report as a message names it: a number, boolean or null as it
    is; anything else by its kind (a report may come from anywhere: its text is never
    echoed)."""
    if value is None or type(value) in (bool, int, float):
        return repr(value)
    return f"a {type(value).__name__}"


def same_value(expected: object, actual: object) -> bool:
    """Whether two kept values are one JSON value that a row may hold once: leaves only
    (a string, a whole number, a boolean, null, a float of the same sign), of the same
    type (``1`` and ``True`` and ``1.0`` are three values)."""
    kind = type(expected)
    if kind is not type(actual) or expected != actual:
        return False
    if kind is float:
        return copysign(1.0, expected) == copysign(1.0, actual)  # type: ignore[arg-type]
    return kind is str or kind is int or kind is bool or expected is None


def table_score(score: float) -> float | None:
    """The score a head holds for a field that scored ``score``: 1.0 or 0.0 (not -0.0),
    else None (the row holds it)."""
    if score == 1.0 or (score == 0.0 and copysign(1.0, score) > 0.0):
        return float(score)
    return None


class Heads:
    """A table of heads being filled: the index of each head as fields ask for it."""

    def __init__(self) -> None:
        self._index: dict[tuple[str, str, str, str, float | None, Rules], int] = {}
        # Heads.found's answers by its arguments (looked up first by comparison_lines.py)
        self.known: dict[tuple[str, str, str, str, float], tuple[int, bool]] = {}
        # the head of a match scoring 1.0 whose row holds its value once (sides "="), by the
        # field's path: (its field path, the head's index); most fields of a dataset's
        # comparisons are such a match, looked up by one string (comparison_lines.py)
        self.matched: dict[str, tuple[str, int]] = {}
        self.heads: list[Head] = []

    def __len__(self) -> int:
        return len(self.heads)

    def index(
        self,
        path: str,
        field_path: str,
        status: str,
        sides: str,
        score: float | None,
        rules: Rules = (),
    ) -> int:
        """The index of the head (``score`` as :func:`table_score` gives it; ``rules`` its
        optional members, :func:`head_rules`)."""
        key = (path, field_path, status, sides, score, rules)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.heads)
            self.heads.append([path, field_path, status, sides, score, *rules])
        return found

    def found(
        self, path: str, field_path: str, status: str, sides: str, score: float
    ) -> tuple[int, bool]:
        """The index of the head of a field that scored ``score`` (as :func:`table_score`
        places it; an empty path is ``$``), and whether its row holds the score; kept by
        the field's own score (:attr:`known`), as most fields of a chunk repeat a few."""
        key = (path, field_path, status, sides, score)
        found = self.known.get(key)
        if found is None or (not score and copysign(1.0, score) < 0.0):
            held = table_score(score)
            index = self.index(path or "$", field_path or "$", status, sides, held)
            found = (index, held is None)
            # (-0.0 would be found by 0.0's key: never kept)
            if (score or copysign(1.0, score) > 0.0) and len(self.known) < _FOUND_KEPT:
                self.known[key] = found
        return found

    def take_back(self, mark: int) -> None:
        """Forget every head from the ``mark``-th on (made for a record whose rows are
        written again, the report's own way: row_writer.py), and what remembers them."""
        if len(self.heads) <= mark:
            return
        del self.heads[mark:]
        # (in place: a writer may hold these dicts)
        index = {k: v for k, v in self._index.items() if v < mark}
        known = {k: v for k, v in self.known.items() if v[0] < mark}
        matched = {k: v for k, v in self.matched.items() if v[1] < mark}
        self._index.clear()
        self._index.update(index)
        self.known.clear()
        self.known.update(known)
        self.matched.clear()
        self.matched.update(matched)

    def row(self, field: FieldDict) -> list[JSONValue]:
        """A field (as it is held: ``shapes.FieldDict``) as a row of this table."""
        score = field["score"]
        held = table_score(score)
        values: list[JSONValue] = []
        sides = ""
        if "expected" in field:
            values.append(field["expected"])
            sides = "e!" if field.get("expected_cut") else "e"
        if "actual" in field:
            values.append(field["actual"])
            sides += "a!" if field.get("actual_cut") else "a"
        if sides == "ea" and same_value(values[0], values[1]):
            sides = "="
            del values[1]
        rules = head_rules(field.get("weight"), field.get("min_score"))
        index = self.index(field["path"], field["field_path"], field["status"], sides, held, rules)
        return [index, *values] if held is not None else [index, score, *values]


def head_rules(weight: float | None, floor: float | None) -> Rules:
    """A head's optional members for a field of ``weight`` (None: 1) that scored below
    ``floor`` (None: no floor it fails): none for the usual field, so that its head is
    the five items a report without weights has always written."""
    if floor is not None:
        return (1.0 if weight is None else float(weight), float(floor))
    if weight is None or weight == 1.0:
        return ()
    return (float(weight),)


def stored_comparison(comparison: ComparisonDict, heads: Heads, table: int) -> dict[str, object]:
    """A comparison (as it is held) as a report stores it: ``heads`` first, its fields as
    rows of ``heads``, the ``table``-th of the report's ``field_heads``."""
    out: dict[str, object] = {"heads": table}
    out.update(comparison)
    out["fields"] = [heads.row(f) for f in comparison["fields"]]
    return out


FIELD_STATUSES = frozenset(
    ("match", "mismatch", "omission", "hallucination", "skipped", "batch_error")
)


class _Head(Slotted):
    """A head read back and checked: the start of each of its fields, the score its rows
    give (None: each its own), the keys of the values its rows hold."""

    __slots__ = ("start", "score", "keys", "cuts")

    def __init__(
        self,
        start: FieldDict,
        score: float | None,
        keys: tuple[str, ...],
        cuts: tuple[str, ...],
    ) -> None:
        self.start, self.score = start, score
        self.keys, self.cuts = keys, cuts


def _rules_problem(rules: Sequence[object]) -> str:
    """Why a head's optional members (weight, then min_score) are not what a report
    writes ("" when they are)."""
    weight = rules[0]
    if type(weight) not in (float, int) or not 0.0 <= weight < float("inf"):  # type: ignore[operator]
        return f"weight {_named(weight)} is not a number >= 0"
    if len(rules) > 1:
        floor = rules[1]
        if type(floor) not in (float, int) or not 0.0 <= floor <= 1.0:  # type: ignore[operator]
            return f"min_score {_named(floor)} is not a number in [0, 1]"
    return ""


def _read_head(head: object, where: str, at: tuple[int, int], error: type[_Error]) -> _Head:
    if not isinstance(head, list) or not 5 <= len(head) <= 7:
        raise error(f"{where}: $.field_heads[{at[0]}][{at[1]}]: not a head of five to seven items")
    path, field_path, status, sides, score = head[:5]
    rules = head[5:]
    why = ""
    if type(path) is not str or type(field_path) is not str:
        why = "its paths are not strings"
    elif status not in FIELD_STATUSES:
        why = f"status is not a field status ({', '.join(sorted(FIELD_STATUSES))})"
    elif type(sides) is not str or sides not in SIDES:
        why = f"sides is not one of {', '.join(map(repr, SIDES))}"
    elif not (score is None or (type(score) in (float, int) and score in (0, 1))):
        why = f"score {_named(score)} is not 1.0, 0.0 or null"
    elif rules:
        why = _rules_problem(rules)
    if why:
        raise error(f"{where}: $.field_heads[{at[0]}][{at[1]}]: {why}")
    assert type(path) is str and type(field_path) is str and type(sides) is str
    keys: tuple[str, ...] = ("expected", "actual") if sides == "=" else ()
    cuts: tuple[str, ...] = ()
    if sides != "=":
        if sides.startswith("e"):
            keys += ("expected",)
            cuts += ("expected_cut",) if sides.startswith("e!") else ("",)
        if sides.endswith(("a", "a!")):
            keys += ("actual",)
            cuts += ("actual_cut",) if sides.endswith("a!") else ("",)
    start = cast("FieldDict", {"path": path, "field_path": field_path, "status": status})
    if rules and rules[0] != 1.0:
        start["weight"] = float(rules[0])
    if len(rules) > 1:
        start["min_score"] = float(rules[1])
    return _Head(start, None if score is None else float(score), keys, cuts)


def fields_of(
    rows: Sequence[JSONValue],
    table: Sequence[_Head],
    where: str,
    at: int,
    error: type[_Error],
) -> list[FieldDict]:
    """A stored comparison's rows (the ``at``-th comparison of the file ``where``) made
    into its fields as they are held (``shapes.FieldDict``), the table's heads read beforehand
    (:func:`comparisons_of`); a row that does not fit its head is ``error`` naming its
    JSON path. Each row's shape (a list of one to four items) is the schema's to check."""
    out: list[FieldDict] = []
    append = out.append
    count = len(table)
    for j, row in enumerate(rows):
        assert isinstance(row, list)  # (the schema's)
        index = row[0]
        if type(index) is not int or not 0 <= index < count:
            _refuse(where, at, j, f"head {_named(index)} is not one of the {count} heads", error)
        head = table[index]
        held, keys, cuts = head.score, head.keys, head.cuts
        field = head.start.copy()
        first = 1
        if held is None:
            score = row[1] if len(row) > 1 else None
            if type(score) not in (float, int) or not 0.0 <= score <= 1.0:  # type: ignore[operator]
                _refuse(where, at, j, f"score {_named(score)} is not a number in [0, 1]", error)
            field["score"] = float(score)  # type: ignore[arg-type]
            first = 2
        else:
            field["score"] = held
        if len(row) - first != (1 if len(keys) == 2 and not cuts else len(keys)):
            _refuse(where, at, j, f"holds {len(row) - first} values, not what its head says", error)
        if not cuts and keys:  # "=": the one value, both sides
            field["expected"] = field["actual"] = row[first]
        else:
            for key, cut, value in zip(keys, cuts, row[first:]):
                field[key] = value  # type: ignore[literal-required]
                if cut:
                    field[cut] = True  # type: ignore[literal-required]
        append(field)
    return out


def _refuse(where: str, at: int, row: int, why: str, error: type[_Error]) -> NoReturn:
    raise error(f"{where}: $.comparisons[{at}].fields[{row}]: {why}")


class StoredFields:
    """The reader of a report's stored comparisons: ``tables`` is its ``field_heads``, each
    table read (its heads checked) when a comparison first refers to it."""

    def __init__(self, tables: object, where: str, error: type[_Error]) -> None:
        self._tables = tables if isinstance(tables, list) else []
        self._read: dict[int, list[_Head]] = {}
        self._where, self._error = where, error

    def comparison(self, entry: dict[str, JSONValue], at: int) -> ComparisonDict:
        """The ``at``-th stored comparison as it is held, its fields made from its rows
        (:func:`fields_of`); ``entry`` is changed in place. Its shape is the schema's to
        check, beforehand."""
        table_at = entry.pop("heads", None)
        rows = entry["fields"]
        if isinstance(rows, list) and rows:
            tables = self._tables
            if type(table_at) is not int or not 0 <= table_at < len(tables):
                raise self._error(
                    f"{self._where}: $.comparisons[{at}].heads: "
                    f"{_named(table_at)} is not one of the {len(tables)} tables of field_heads"
                )
            table = self._read.get(table_at)
            if table is None:
                table = self._read[table_at] = self._table(table_at)
            entry["fields"] = fields_of(rows, table, self._where, at, self._error)  # type: ignore[assignment]
        return cast("ComparisonDict", entry)

    def _table(self, at: int) -> list[_Head]:
        heads = self._tables[at]
        if not isinstance(heads, list):
            raise self._error(f"{self._where}: $.field_heads[{at}]: not a list of heads")
        return [_read_head(head, self._where, (at, k), self._error) for k, head in enumerate(heads)]


def comparisons_of(
    stored: Sequence[dict[str, JSONValue]], tables: object, where: str, error: type[_Error]
) -> list[ComparisonDict]:
    """A report's stored comparisons as they are held (:class:`StoredFields`)."""
    reader = StoredFields(tables, where, error)
    return [reader.comparison(entry, at) for at, entry in enumerate(stored)]
