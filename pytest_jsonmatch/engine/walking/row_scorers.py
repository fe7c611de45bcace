"""The row form of the generated scorers: a JSON report's field rows written as the walk
scores, instead of a FieldResult per field made into a row afterwards.

A dataset run that writes the JSON report keeps every field of every record as a *row* of a
table of heads (reporting/run_model/field_rows.py: ``[h, value]`` for a match whose two
sides are one value, ``[h, expected, actual]`` for a mismatch, ``h`` the index of the head
``[path, field_path, status, sides, score]`` in the table of the records scored together).
The tally form (generated_scorers.py) already decides each plain leaf's status and score in
straight-line code and appends its *tally*; the row form does the same and appends, just
before the tally, the field's row as the report's JSON text. The text is what ``json``
writes for the row (``encode_basestring`` for a string, ``repr`` for a number), and the
head's index comes from the record's *row writer* (:class:`Rows`), which owns the table:
each scorer keeps, per table and per object path, the text that starts each key's match
and mismatch rows (``"[17, "``), asked of the writer the first time.

A leaf whose row is not one of those (a value the report cuts, a float zero whose sign the
row must show, a comparator's own score, a key the schema does not know) is appended as the
FieldResult the full form makes; so is everything the general walk scores. The writer makes
those into rows afterwards, the report's own way, and puts the record's rows together in
field order (``Rows.took``): its tallies are those of the tally form, to the bit. What the
writer cannot vouch for (a tally without its row: the tally form's candidate walks of an
array paired by score) makes it give the record's rows up; the caller writes them from the
record's fields, as every other record's.

``ROW_FORM = False`` turns the row form off (every record's rows made from its fields); the
differential tests compare both (tests/cli/test_report_rows.py).
"""

from __future__ import annotations

from json.encoder import encode_basestring as _enc
from typing import Any, Protocol

from ..results.field_results import MATCH, MISMATCH, FieldResult

_new = tuple.__new__

ROW_FORM = True  # False: no walk writes rows (dataset/scoring.py asks for none)

# The factory's constants of the row form, passed by name (generated_scorers._make).
ROW_NAMES = ("enc", "LIM", "ILIM", "lack", "other_scalar")


class RowForm:
    """What a row-form scorer's text depends on: whether rows hold values (``keep``; a
    report of ``values=none`` holds none), the longest string kept whole (``str_limit``)
    and the bound on an integer kept whole (``int_limit``: ``-int_limit < n <
    int_limit``). Hashed by those, a part of a scorer's shape: a walk's ``tally`` is one of
    these in the row form (truthy, as the tally form's ``True``)."""

    __slots__ = ("keep", "str_limit", "int_limit")

    def __init__(self, keep: bool, str_limit: int, int_limit: int) -> None:
        self.keep, self.str_limit, self.int_limit = keep, str_limit, int_limit

    def _key(self) -> tuple[bool, int, int]:
        return (self.keep, self.str_limit, self.int_limit)

    def __eq__(self, other: object) -> bool:
        return type(other) is RowForm and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"RowForm(keep={self.keep}, str_limit={self.str_limit}, int_limit={self.int_limit})"


class Rows(Protocol):
    """A record's row writer, as the row form reads it (``Walk.rows``): the form, the root
    scorers it keeps, the token that changes whenever heads are taken back (the scorers'
    kept row starts are then asked again), and the start of a key's rows."""

    form: RowForm
    roots: dict[tuple[str, ...], Any]
    token: object

    def matched(self, path: str, field_path: str) -> str:
        """The start of the row of a match scoring 1.0 whose two sides are one value kept
        whole (``"[h, "``; with no values kept, the whole row, ``"[h]"``)."""

    def missed(self, path: str, field_path: str) -> str:
        """The start of the row of a mismatch scoring 0.0 between two values kept whole
        (``"[h, "``; with no values kept, the whole row)."""

    def one_sided(self, path: str, field_path: str, status: str, value: Any) -> str | None:
        """The row of a leaf one side alone has (omission or hallucination, scoring 0), its
        head made now; None where the row would not hold the value whole (the walk then
        appends the leaf's FieldResult: unpaired.one_sided_rows, extra_leaf)."""

    def restart(self) -> None:
        """A walk of the record begins (again: the heads a walk that was given up added
        are taken back)."""

    def took(self, fields: list[Any]) -> list[Any]:
        """A row-form walk's fields made into the record's tallies (``as_tallies``), its
        rows kept by the writer."""


def row_constants(form: RowForm) -> dict[str, Any]:
    """The row form's constants, by the names its factory takes (ROW_NAMES)."""
    from json.encoder import encode_basestring  # what json writes a string with

    from .unpaired import lacking_key  # (a key actual lacks: its rows written too)

    return {
        "enc": encode_basestring,
        "LIM": form.str_limit,
        "ILIM": form.int_limit,
        "lack": lacking_key,
        "other_scalar": other_scalar,
    }


def row_header(n: int) -> list[str]:
    """The scorer's lines finding this object's row starts (per table, per path): two slots
    a key, its match's and its mismatch's, each asked of the writer when first needed."""
    return [
        "        rows = walk.rows",
        "        if seen[0] is not rows.token:  # another table, or heads taken back",
        "            seen[0], seen[1] = rows.token, {}",
        "        hs = seen[1].get(path)",
        "        if hs is None:",
        f"            hs = seen[1][path] = [None] * {2 * n}",
    ]


def _text(value: str, out: str, pad: str, zero_ok: bool) -> list[str]:
    """Lines setting ``out`` to the JSON text of the scalar ``value`` as a report keeps it
    whole, or None (a string or integer the report may cut; a float zero, unless
    ``zero_ok``)."""
    return [
        f"{pad}k = type({value})",
        f"{pad}if k is str:",
        f"{pad}    {out} = enc({value}) if len({value}) <= LIM else None",
        f"{pad}elif k is float:",
        f"{pad}    {out} = repr({value})" + ("" if zero_ok else f" if {value} else None"),
        f"{pad}elif k is int:",
        f"{pad}    {out} = repr({value}) if -ILIM < {value} < ILIM else None",
        f"{pad}elif k is bool:",
        f"{pad}    {out} = 'true' if {value} else 'false'",
        f"{pad}else:",
        f"{pad}    {out} = 'null'",
    ]


def _field_result(
    i: int, status: str, score: str, value: str, child: str, fld: str, act: str
) -> str:
    """The text of the FieldResult the full form appends for key ``i``."""
    return (
        f"append(new(FieldResult, ({child}, {status}, {score}, v{i}, {value}, name{i}, '', "
        f"{fld}, {act}, 1.0, None)))"
    )


# The Python type of a schema's scalar type, for which a key's first test is written.
_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


def row_leaf(
    i: int,
    kind: tuple[bool, bool],
    places: tuple[str, str, str],
    count_extras: bool,
    keep: bool,
    declared: str | None = None,
) -> list[str]:
    """A plain key's lines in the row form: ``kind`` is (equal scalars score 1, unequal
    ones of one type score 0: generated_scorers' kinds), ``places`` the key's instance
    path, field path and actual path as the scorer writes them, ``declared`` its schema
    type (both sides of that type are tested for first). A match or a mismatch between
    values kept whole appends its row and its tally; any other field the FieldResult of
    the full form; a key actual lacks is ``lack``'s (unpaired.lacking_key: its rows too)."""
    equal_one, exact = kind
    child, fld, act = places
    first = _TYPES.get(declared or "") if equal_one else None
    lines = [f"        o = get(k{i}, MISSING)"]
    if first is not None:
        lines += _typed(i, first, exact, places, keep)
    lines += [
        f"        {'elif' if first is not None else 'if'} o is MISSING:",
        f"            lack(walk, walk.read_expected(v{i}, below), "
        f"new(Where, ({child}, {fld}, {act})), node{i}, below)",
        *(["            missing += 1"] if count_extras else []),
    ]
    if first is not None and exact:  # (equal_one: first is set)
        # scalars of a type other than the schema's: rare, written by one shared function
        # rather than in the scorer's text (its compiling is a JSON run's to pay)
        return lines + [
            f"        elif type(v{i}) is type(o) and type(o) in SCALARS:",
            f"            other_scalar(walk, append, hs, {2 * i}, v{i}, o, ({child}, {fld}, {act}),",
            f"                         fp{i}, name{i}, hit{i}, miss{i})",
            *_comparator(i, places),
        ]
    if equal_one:
        lines += [
            f"        elif (type(v{i}) is type(o) and type(o) in SCALARS and v{i} == o",
            "              and (type(o) is not float or o - o == 0.0)):",
            *_match_row(i, child, fld, act, keep),
        ]
    if exact:
        lines += [
            f"        elif (type(v{i}) is type(o) and type(o) in SCALARS",
            f"              and (type(o) is not float or (o - o == 0.0 and v{i} - v{i} == 0.0))):",
            *_mismatch_row(i, child, fld, act, keep),
            f"        elif type(v{i}) is type(o) and type(o) in SCALARS:",
            "            walk.refuse()  # not a JSON number (NaN, an infinity): the door names it",
        ]
    return lines + _comparator(i, places)


def _comparator(i: int, places: tuple[str, str, str]) -> list[str]:
    """A key's last branch: its values scored by its comparator, as a FieldResult."""
    child, fld, act = places
    return [
        "        else:",
        f"            e, a = walk.read_expected(v{i}, below), walk.read(o, below)",
        f"            s = score{i}(e, a)",
        "            append(new(FieldResult, ("
        f"{child}, MATCH if s >= 1.0 else MISMATCH, s, e, a, name{i}, '', {fld}, {act}, "
        "1.0, None)))",
    ]


def other_scalar(
    walk: Any,
    append: Any,
    starts: list[str | None],
    slot: int,
    expected: Any,
    actual: Any,
    where: tuple[str, str, str | None],
    field_path: str,
    name: str,
    hit: Any,
    miss: Any,
) -> None:
    """A typed exact key's two values of one JSON scalar type other than its schema's (the
    row form's typed test took the usual ones): what :func:`row_leaf`'s general lines write
    for them, a match's or a mismatch's row and tally, or the FieldResult of a value the
    report cuts (a float zero matched: its sign), or the door's refusal of a number that is
    not finite. ``starts`` are the object's row starts (a key's match at ``slot``, its
    mismatch after it), ``where`` the key's instance path, field path and actual path."""
    rows = walk.rows
    form: RowForm = rows.form
    kind = type(actual)
    if expected == actual and (kind is not float or actual - actual == 0.0):
        text = _kept(actual, form, False) if form.keep else ""
        if text is None:  # cut, or a zero whose sign the row shows
            append(_field(where, MATCH, 1.0, expected, actual, name))
            return
        start = starts[slot]
        if start is None:
            start = starts[slot] = rows.matched(where[0], field_path)
        append(f"{start}{text}]" if form.keep else start)
        append(hit)
    elif kind is not float or (actual - actual == 0.0 and expected - expected == 0.0):
        texts = (_kept(expected, form, True), _kept(actual, form, True)) if form.keep else ("", "")
        if texts[0] is None or texts[1] is None:  # a value the report cuts
            append(_field(where, MISMATCH, 0.0, expected, actual, name))
            return
        start = starts[slot + 1]
        if start is None:
            start = starts[slot + 1] = rows.missed(where[0], field_path)
        append(f"{start}{texts[0]}, {texts[1]}]" if form.keep else start)
        append(miss)
    else:
        walk.refuse()  # not a JSON number (NaN, an infinity): the door names it


def _field(
    where: tuple[str, str, str | None],
    status: str,
    score: float,
    expected: Any,
    actual: Any,
    name: str,
) -> FieldResult:
    """The full form's FieldResult of a plain key (as the generated text makes it)."""
    return _new(
        FieldResult,
        (where[0], status, score, expected, actual, name, "", where[1], where[2], 1.0, None),
    )


def _kept(value: Any, form: RowForm, zero_ok: bool) -> str | None:
    """The JSON text of a scalar a report keeps whole, or None: a string or an integer it
    cuts, a float zero unless ``zero_ok``."""
    kind = type(value)
    if kind is str:
        return _enc(value) if len(value) <= form.str_limit else None
    if kind is float:
        return repr(value) if zero_ok or value else None
    if kind is int:
        return repr(value) if -form.int_limit < value < form.int_limit else None
    if kind is bool:
        return "true" if value else "false"
    return "null"


def _typed(i: int, kind: str, exact: bool, places: tuple[str, str, str], keep: bool) -> list[str]:
    """The first test of a key whose schema type is ``kind`` (str, int, float, bool): both sides
    of it, their row and tally written with no other test of their type."""
    child = places[0]
    finite = "o - o == 0.0 and " if kind == "float" else ""
    lines = [
        f"        if type(o) is {kind} and type(v{i}) is {kind}:",
        f"            if v{i} == o and {finite}{_whole(kind, 'o', True, keep)}:".replace(
            " and True:", ":"
        ),
        *["    " + line for line in _start(i, child, "matched", keep)],
    ]
    lines.append(
        f"                append(f'{{h}}{{{_written(kind, 'o')}}}]')"
        if keep
        else "                append(h)"
    )
    lines.append(f"                append(hit{i})")
    if exact:
        tests = [f"v{i} != o", _whole(kind, f"v{i}", False, keep), _whole(kind, "o", False, keep)]
        if kind == "float":
            tests[1:] = ["o - o == 0.0", f"v{i} - v{i} == 0.0"]
        both = " and ".join(test for test in tests if test != "True")
        lines += [
            f"            elif {both}:",
            *["    " + line for line in _start(i, child, "missed", keep)],
            f"                append(f'{{h}}{{{_written(kind, f'v{i}')}}}, "
            f"{{{_written(kind, 'o')}}}]')"
            if keep
            else "                append(h)",
            f"                append(miss{i})",
        ]
    return lines + [
        "            else:  # (the general tests below)",
        *["        " + line for line in _general(i, kind, exact, places)],
    ]


def _whole(kind: str, value: str, match: bool, keep: bool) -> str:
    """The test that a ``kind`` value is kept whole by a report (True: always, or when no
    value is kept); a match's float zero is not (its sign may differ from expected's)."""
    if not keep:
        return "True"
    if kind == "str":
        return f"len({value}) <= LIM"
    if kind == "int":
        return f"-ILIM < {value} < ILIM"
    if kind == "bool":
        return "True"
    return value if match else "True"  # (a float: any finite one, but a match's zero)


def _written(kind: str, value: str) -> str:
    """The JSON text of a ``kind`` value kept whole, as a replacement field of an f-string
    (a number's ``!r`` is its repr without a call of ``repr``)."""
    if kind == "str":
        return f"enc({value})"
    if kind == "bool":
        return f'"true" if {value} else "false"'
    # (a float's repr kept by value was found a third of the time: not kept)
    return f"{value}!r"


def _start(i: int, child: str, which: str, keep: bool) -> list[str]:
    """Lines setting ``h`` to the start of key ``i``'s match (``which`` "matched") or
    mismatch ("missed") row, kept per path."""
    slot = 2 * i + (which == "missed")
    return [
        f"            h = hs[{slot}]",
        "            if h is None:",
        f"                h = hs[{slot}] = rows.{which}({child}, fp{i})",
    ]


def _general(i: int, kind: str, exact: bool, places: tuple[str, str, str]) -> list[str]:
    """The lines of a typed key's values the typed test did not write: a match or a
    mismatch between values the report cuts (its FieldResult), or a comparator's score."""
    child, fld, act = places
    if exact:  # (a float that is not finite is not a JSON number: the door names it)
        refused = [f"        if o - o != 0.0 or v{i} - v{i} != 0.0:", "            walk.refuse()"]
        same = f"v{i} == o"
        return [
            *(refused if kind == "float" else []),
            "        "
            + _field_result(
                i, f"MATCH if {same} else MISMATCH", f"1.0 if {same} else 0.0", "o", child, fld, act
            ),
        ]
    return [
        f"        e, a = walk.read_expected(v{i}, below), walk.read(o, below)",
        f"        s = score{i}(e, a)",
        "        append(new(FieldResult, ("
        f"{child}, MATCH if s >= 1.0 else MISMATCH, s, e, a, name{i}, '', {fld}, {act}, "
        "1.0, None)))",
    ]


def _match_row(i: int, child: str, fld: str, act: str, keep: bool) -> list[str]:
    """A match's lines (both sides one scalar, equal): its row and tally."""
    start = _start(i, child, "matched", keep)
    if not keep:
        return start + ["            append(h)", f"            append(hit{i})"]
    return [
        *_text("o", "t", "            ", False),
        "            if t is None:  # cut, or a zero whose sign the row shows",
        "                " + _field_result(i, "MATCH", "1.0", "o", child, fld, act),
        "            else:",
        *["    " + line for line in start],
        "                append(f'{h}{t}]')",
        f"                append(hit{i})",
    ]


def _mismatch_row(i: int, child: str, fld: str, act: str, keep: bool) -> list[str]:
    """A mismatch's lines (one scalar type, unequal values, both finite): its row and
    tally."""
    start = _start(i, child, "missed", keep)
    if not keep:
        return start + ["            append(h)", f"            append(miss{i})"]
    return [
        *_text(f"v{i}", "te", "            ", True),
        *_text("o", "ta", "            ", True),
        "            if te is None or ta is None:  # a value the report cuts",
        "                " + _field_result(i, "MISMATCH", "0.0", "o", child, fld, act),
        "            else:",
        *["    " + line for line in start],
        "                append(f'{h}{te}, {ta}]')",
        f"                append(miss{i})",
    ]


def row_unknown(i: int, child: str, fld: str, act: str, count_extras: bool) -> list[str]:
    """A key the schema does not know, in the row form: the full form's FieldResult (its
    values checked as the tally form checks them)."""
    return [
        f"        o = get(k{i}, MISSING)",
        "        if walk.unread_expected:",
        f"            walk.read_expected(v{i}, below)",
        f"        append(FieldResult({child}, SKIPPED, 0.0, v{i}, walk.read(o, below), '', "
        f"'not in the schema', {fld}, {act}))",
        *(["        missing += o is MISSING"] if count_extras else []),
    ]
