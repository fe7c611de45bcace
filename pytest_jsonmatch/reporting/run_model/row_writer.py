"""A dataset record's fields written as the JSON report's rows while the record is scored
(the generated scorers' row form: engine/walking/row_scorers.py), for a group of records
that share one table of heads (field_rows.py).

:class:`RowWriter` is the row form's writer (``row_scorers.Rows``): it gives the scorers the
start of each key's rows from its table, and puts each record's rows together in field
order (:meth:`RowWriter.took`): the rows the scorers wrote, and a row for each FieldResult
among them written as ``comparison_lines`` writes every field of a record scored in full.
The text is the one the report's own way writes (``fields_text`` of the record's fields),
byte for byte, heads made in the same order: a record whose rows it cannot vouch for so is
given up (:attr:`RowWriter.text` None, every head it made taken back), and its caller writes
it from its fields.
"""

from __future__ import annotations

from json.encoder import encode_basestring as _encode_str
from math import copysign
from typing import Any

from ...engine.core.values import MISSING
from ...engine.results.field_results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    Tally,
    tally,
)
from ...engine.walking.row_scorers import RowForm
from .comparison_lines import fields_text
from .comparisons import SHORT_INT, SHORT_STR
from .field_rows import Heads

_TEXT, _TALLY = {str}, {tuple}


def row_form(mode: str) -> RowForm:
    """The row form of a report that keeps values as ``mode`` says (short, full, none)."""
    return RowForm(mode != "none", 1 << 62 if mode == "full" else SHORT_STR, SHORT_INT)


class RowWriter:
    """The rows of a group of records, each a row of ``table`` (see the module docstring);
    ``mode`` is how much of each value a row keeps."""

    def __init__(self, table: Heads, mode: str) -> None:
        self.table, self.mode = table, mode
        self._heads = table.heads  # (the table's list, its length read as the record goes)
        self.form = row_form(mode)
        self.roots: dict[tuple[str, ...], Any] = {}  # the row form's root scorers
        self.token = object()  # a new one when heads are taken back (scorers ask again)
        self.text: str | None = None  # the last record's rows, as a comparison's "fields"
        self._mark = 0  # the table's length when the record began
        self._keep = mode != "none"

    def begin(self) -> None:
        """A record begins: its rows not yet written."""
        self.text, self._mark = None, len(self._heads)

    def give_up(self) -> None:
        """The record's rows are not used (its scoring failed, or its rows need what a row
        cannot say): the heads it made are taken back."""
        self.text = None
        self.restart()

    def restart(self) -> None:
        if len(self._heads) > self._mark:
            self.table.take_back(self._mark)
            self.token = object()

    def matched(self, path: str, field_path: str) -> str:
        """Row form: the start of a match's row, its one value kept whole."""
        at = self.table.found(path, field_path, MATCH, "=" if self._keep else "", 1.0)[0]
        return f"[{at}, " if self._keep else f"[{at}]"

    def missed(self, path: str, field_path: str) -> str:
        """Row form: the start of a mismatch's row, both values kept whole."""
        at = self.table.found(path, field_path, MISMATCH, "ea" if self._keep else "", 0.0)[0]
        return f"[{at}, " if self._keep else f"[{at}]"

    def took(self, fields: list[Any]) -> list[Tally]:
        """A row-form walk's fields (each row the scorers wrote, then its tally; the general
        walk's FieldResults) as the record's tallies, its rows kept in :attr:`text`.

        Whoever writes a row appends its tally right after it (the generated scorers'
        row form, unpaired.py), and nothing else is a string: the fields are runs of
        (row, tally) pairs and lone non-strings (a FieldResult, or a tally whose row no one
        wrote). The first lone one would sit at an even place, where ``join`` refuses it;
        so a join of the even places that succeeds, over an even count, leaves tallies
        alone at the odd ones, with no pass over their types. Else :meth:`_merged` sorts
        them (tests/cli/test_report_rows.py holds both ways to the fields' own rows)."""
        try:  # (join takes strings only: a text that is not one is a FieldResult or a tally)
            text = ", ".join(fields[0::2])
        except TypeError:
            return self._merged(fields)
        if len(fields) % 2:  # (a row without its tally: none is written so)
            return self._merged(fields)
        self.text = text
        return fields[1::2]

    def _merged(self, fields: list[Any]) -> list[Tally]:
        """:meth:`took` for fields among which are FieldResults: the runs of rows and
        tallies between them taken by slices, each FieldResult written as its row in turn; a
        tally of the tally form, whose row no one wrote, a field counting for other than 1,
        or a head made for a FieldResult after heads the scorers made for fields after it,
        makes the record given up."""
        kinds = list(map(type, fields))
        parts: list[str] = []
        tallies: list[Tally] = []
        made = len(self._heads) > self._mark  # (heads the scorers made, in their order)
        usable, at, count = True, 0, len(fields)
        while at < count:
            try:
                found = kinds.index(FieldResult, at)
            except ValueError:
                found = count
            if found > at:  # rows, each followed by its tally
                texts, counted = kinds[at:found:2], kinds[at + 1 : found : 2]
                if (found - at) % 2 or not set(texts) <= _TEXT or not set(counted) <= _TALLY:
                    usable = False
                    tallies += [item for item in fields[at:found] if type(item) is not str]
                else:
                    parts.append(", ".join(fields[at:found:2]))
                    tallies += fields[at + 1 : found : 2]
            end, before = found, len(self._heads)
            while end < count and kinds[end] is FieldResult:  # a run of FieldResults
                field = fields[end]
                tallies.append(tally(field[7], field[1], field[2]))
                if usable:  # (each row's head made as it is written, in order)
                    text = self._one_sided(field)
                    if text is None:
                        text = fields_text((field,), self.mode, self.table)
                    if text is None:
                        usable = False
                    else:
                        parts.append(text)
                end += 1
            # a head made for the run after heads the scorers made for fields after it: the
            # rows would not be the report's
            if made and end < count and len(self._heads) > before:
                usable = False
            at = end
        if usable:
            self.text = ", ".join(parts)
        else:
            self.give_up()
        return tallies

    def _one_sided(self, field: FieldResult) -> str | None:
        """The row of an omitted or hallucinated leaf (most FieldResults among a dataset's
        rows: an element or a key one side lacks), as ``fields_text`` writes it; None for
        any other field (``fields_text`` writes it)."""
        path, status, score, expected, actual, _, _, field_path, _, weight, _ = field
        if (
            weight != 1.0
            or score != 0.0
            or copysign(1.0, score) < 0.0
            or (status != OMISSION and status != HALLUCINATION)
            or (actual if status == OMISSION else expected) is not MISSING
        ):
            return None
        return self.one_sided(path, field_path, status, expected if status == OMISSION else actual)

    def one_sided(self, path: str, field_path: str, status: str, value: Any) -> str | None:
        """The row of a leaf one side alone has (``status`` omission: expected's, or
        hallucination: actual's), scoring 0 and counting 1, its head made now; None where
        the row would not hold ``value`` whole (``fields_text`` writes it). The walk asks
        this of a lacking element's or key's leaves as it meets them (unpaired.py)."""
        if not self._keep:
            return f"[{self.table.found(path, field_path, status, '', 0.0)[0]}]"
        kind = type(value)
        if kind is str:
            text = _encode_str(value) if len(value) <= self.form.str_limit else None
        elif kind is float:
            text = repr(value) if value - value == 0.0 else None
        elif kind is int:
            limit = self.form.int_limit
            text = repr(value) if -limit < value < limit else None
        elif kind is bool:
            text = "true" if value else "false"
        else:
            text = "null" if value is None else None
        if text is None:
            return None
        key = (path, field_path, status, "e" if status == OMISSION else "a", 0.0)
        got = self.table.known.get(key) or self.table.found(*key)  # (Heads.found's own first step)
        return f"[{got[0]}, {text}]"
