"""Every case of a report as the HTML page embeds it: one JSON value in a
``<script type="application/json">`` block, written a case and a comparison at a time as
they are read (a spooled report is never held), read by the page's script
(html_script.py), which makes a case's row only when it is scrolled to or found by a filter.

The value is compact: each case and each comparison is an array, not an object; strings
that repeat (metrics, statuses, files, gates, keywords) are written once in ``strings`` and
referred to by index, as are the fields' places (``places``: instance path and field path);
a field's value is written once where expected and actual are the same JSON value.

``cases``: ``[case_id, status, metric, mean_score, file, line, extra?]`` (status, metric and
file: indexes into ``strings``, file -1 for none; a case id that is its file, ``::`` and a
rest, as the plugin's are, written as ``[rest]``; ``extra``, only when there is any: an
object of ``runs`` [runs, min, max, passed], ``error``, ``truncated`` (runs cut off), ``valid``
[checked, valid], ``gate`` (the per-case gate that failed it), ``target``, ``flaky`` (1: its
scored runs disagree, as the report's ``reliability.flaky`` says), ``quarantine`` [reason,
until] (a quarantined case: it gates nothing)).

``runs`` (the comparisons): ``[case, repeat, status, score, threshold, prf, shape, fields,
extra?]``: ``case`` the index of its case in ``cases`` (its case id where the comparisons do
not come in the cases' order); ``prf`` 0 where precision, recall and F1 are the score, else
``[precision, recall, f1]``; numbers shown to 4 decimals written rounded to 4 (the page
prints them so; a case's own mean score is written whole, as the order by score needs it).
``shape`` is the places of the comparison's fields in order: an index into ``shapes``
(lists of place indexes: most comparisons of a run share a few), or the list itself once
``shapes`` holds :data:`MAX_SHAPES`. ``fields`` is flat: per field a code (the field status's
index in ``field_statuses`` plus :data:`CODE` times its flags XOR :data:`USUAL`; flags:
:data:`HAS_SCORE`, :data:`HAS_EXPECTED`, :data:`HAS_ACTUAL`, :data:`SAME`,
:data:`EXPECTED_CUT`, :data:`ACTUAL_CUT`, :data:`VALUE_TEXT`), then the items the flags say are
there: the score (else 1 for a match, 0 for any other status), the expected value, the actual
value (left out under SAME). A match whose two values are the same value, the usual field,
is code 0 and its value. Under VALUE_TEXT the values not cut are written as the JSON text the
page shows. ``extra``: ``error``, ``pairings`` [[path, expected index, actual index, score]],
``floors`` [[path, min score, score]], ``cut`` [line, column, chars], ``conformance`` [valid,
count, [[path, keyword]]], ``target``, ``by`` (who decided which fields, by index, as the
report's ``by``), ``steps`` [start, end, [[row, heading]]] (a trajectory's rows, from the
comparison's parts, and the row each step starts at), ``input`` and ``output`` (the case's input and the
model's output as the report keeps them: text as it is, other JSON indented), ``transcript``
(a conversation's turns, each its messages and its rows: html_transcript.py; a comparison
with one has no ``steps``), ``spans`` (a run read from a trace: its span tree, each scored
step's span with its row: html_spans.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from typing import IO

from ...engine.results.field_results import MATCH
from ...engine.results.field_results import STATUSES as FIELD_STATUSES
from ..run_model.comparisons import parts_of, trajectory_rows
from ..run_model.report_types import CaseDict, ComparisonDict, FieldDict
from .failure_message import step_of
from .html_spans import spans_of
from .html_transcript import TURN_ROW, transcript_of
from .tables import page_text

JSONItem = object  # what the rows hold: JSON values only (str, int, float, bool, None, lists)

CODE = 8  # a field's code: its status's index + CODE * its flags (FIELD_STATUSES has 6)
HAS_SCORE, HAS_EXPECTED, HAS_ACTUAL, SAME, EXPECTED_CUT, ACTUAL_CUT = 1, 2, 4, 8, 16, 32
VALUE_TEXT = 64  # the values are written as the JSON text the page shows (see _as_text)
_EXACT_INT = 2**53  # integers a browser's JSON.parse reads exactly
_STATUS_INDEX = {status: k for k, status in enumerate(FIELD_STATUSES)}
USUAL = HAS_EXPECTED | HAS_ACTUAL | SAME  # the flags of most fields: their code is the status's
MAX_SHAPES = 4096  # shapes kept in the table (each a tuple of ints), so memory stays bounded

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
# what a JSON text holds where one of its strings holds a character the page must show as its
# escape (page_text): the encoder's escape of a control character (``\u001b``, ``\r``,
# ``\b``, ``\f``; a line's end and a tab are kept); any other such character (a format
# character, a lone surrogate) stands in the text as it is, which ``isprintable`` finds
_CONTROL_ESCAPE = re.compile(r"\\[rbfu]")


def script_json(value: object) -> str:
    """A JSON value as text a ``<script type="application/json">`` block may hold: compact,
    each string's control and format characters written as their escapes (``page_text``:
    the page's script shows what it reads as it is, and a right-to-left override would turn
    the text around it; a lone surrogate, which UTF-8 cannot write, is one of them), and
    ``<`` (``</script>``, ``<!--``) as ``\\u003c``, so the text parses back to the values
    as the page shows them."""
    text = _encode(value)
    if not text.isprintable() or _CONTROL_ESCAPE.search(text) is not None:
        text = _encode(_shown(value))
    return text.replace("<", "\\u003c")


def _shown(value: object) -> object:
    """A JSON value with each string (key or value) as the page shows it (``page_text``)."""
    if isinstance(value, str):
        return page_text(value)
    if isinstance(value, (list, tuple)):
        return [_shown(item) for item in value]
    if isinstance(value, dict):
        return {_shown(key): _shown(item) for key, item in value.items()}
    return value


def _same(expected: object, actual: object) -> bool:
    """Whether two JSON values are the same value, as JSON sees them (a boolean is no number;
    1 and 1.0 are written differently, so kept apart)."""
    if type(expected) is not type(actual):
        return False
    if isinstance(expected, (list, dict)):
        return _encode(expected) == _encode(actual)
    if isinstance(expected, float):
        return repr(expected) == repr(actual)
    return expected == actual


def _as_text(value: object) -> bool:
    """Whether a value is written as its JSON text rather than as the value: a float a
    browser would print otherwise than Python (1.0 as 1, 1e-05 as 0.00001, 1e+16 as
    10000000000000000; between 1e-4 and 1e16 both print the same shortest digits), an
    integer a double cannot hold exactly, an array or an object (shown indented, as Python
    writes it)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return False
    if isinstance(value, int):
        return abs(value) > _EXACT_INT
    if isinstance(value, float):
        return value.is_integer() or not 1e-4 <= abs(value) < 1e16
    return True


def _text(value: object) -> str:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, indent=1)
    return _encode(value)


def _r4(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _steps(run: ComparisonDict) -> list[JSONItem] | None:
    """Where a trajectory's rows are among a comparison's (read from its parts: an agent's
    run's trajectory part, or all of a comparison by the trajectory metric alone) and the
    row each of its steps starts at: [start, end, [[row, heading]]]; None: no trajectory."""
    fields = run["fields"]
    rows = trajectory_rows(run["metric"], parts_of(run), len(fields))
    if not rows:
        return None
    heads: list[JSONItem] = []
    last = None
    for k in rows:
        path = fields[k]["path"]
        turn = TURN_ROW.match(path)  # a conversation's turn's steps: ``turns[1].run[0]...``
        step, named = step_of(path[turn.end() :] if turn else path)
        if (turn and turn.group(1), step) != last:
            last = (turn and turn.group(1), step)
            heading = f"step {step}" + (f": {named[0]}" if named else "")
            heads.append([k, f"turn {turn.group(1)}, {heading}" if turn else heading])
    return [rows.start, rows.stop, heads]


class CaseData:
    """The tables of the cases and comparisons written: strings and places by index."""

    def __init__(self) -> None:
        self.strings: dict[str, int] = {}
        self.places: dict[tuple[str, str], int] = {}
        self.shapes: dict[tuple[int, ...], int] = {}

    def string(self, text: str) -> int:
        found = self.strings.get(text)
        if found is None:
            found = self.strings[text] = len(self.strings)
        return found

    def place(self, path: str, field_path: str) -> int:
        key = (path, field_path)
        found = self.places.get(key)
        if found is None:
            found = self.places[key] = len(self.places)
        return found

    def case_row(self, case: CaseDict, gate: str | None, flaky: bool = False) -> list[JSONItem]:
        extra: dict[str, JSONItem] = {}
        if case.get("runs", 1) > 1:
            extra["runs"] = [
                case["runs"],
                _r4(case["min_score"]),
                _r4(case["max_score"]),
                case["passed_runs"],
            ]
        if case.get("error"):
            extra["error"] = case["error"]
        if case.get("truncated"):
            extra["truncated"] = case["truncated"]
        checked = case.get("conformance")
        if checked is not None:
            extra["valid"] = [checked["checked"], checked["valid"]]
        if gate:
            extra["gate"] = gate
        if case.get("target"):
            extra["target"] = case["target"]
        if flaky:
            extra["flaky"] = 1
        quarantine = case.get("quarantine")
        if quarantine is not None:
            extra["quarantine"] = [quarantine["reason"], quarantine["until"]]
        where = case.get("file") or ""
        case_id = case["case_id"]
        row: list[JSONItem] = [
            [case_id[len(where) + 2 :]]
            if where and case_id.startswith(where) and case_id[len(where) : len(where) + 2] == "::"
            else case_id,
            self.string(case["status"]),
            self.string(case["metric"]),
            case["mean_score"],
            self.string(where) if where else -1,
            case.get("line"),
        ]
        if extra:
            row.append(extra)
        return row

    def run_row(self, run: ComparisonDict, case: int | str) -> list[JSONItem]:
        fields: list[JSONItem] = []
        places = tuple([self._field(f, fields) for f in run["fields"]])
        shape: JSONItem = self.shapes.get(places)
        if shape is None:
            if len(self.shapes) < MAX_SHAPES:
                shape = self.shapes[places] = len(self.shapes)
            else:
                shape = list(places)
        extra: dict[str, JSONItem] = {}
        if run.get("error"):
            extra["error"] = run["error"]
        if run["pairings"]:
            extra["pairings"] = [
                [self.string(p["path"]), p["expected_index"], p["actual_index"], p["score"]]
                for p in run["pairings"]
            ]
        if run["floor_failures"]:
            extra["floors"] = [
                [self.string(f["path"]), _r4(f["min_score"]), _r4(f["score"])]
                for f in run["floor_failures"]
            ]
        cut = run.get("truncated")
        if cut:
            extra["cut"] = [cut["line"], cut["column"], cut["chars"]]
        conformance = run.get("conformance")
        if conformance is not None:
            extra["conformance"] = [
                1 if conformance["valid"] else 0,
                conformance["count"],
                [
                    [self.string(v["path"]), self.string(v["keyword"])]
                    for v in conformance["violations"]
                ],
            ]
        if run.get("target"):
            extra["target"] = run["target"]
        if "by" in run:
            extra["by"] = dict(run["by"])
        shown_turns = transcript_of(run)  # a conversation's, turn by turn; else its steps
        steps = _steps(run) if shown_turns is None else None
        if steps is not None:
            extra["steps"] = steps
        if shown_turns is not None:
            extra["transcript"] = shown_turns
        tree = spans_of(run)  # a run read from a trace: its span tree
        if tree is not None:
            extra["spans"] = tree
        for side in ("input", "output"):  # as the page shows them: text, or indented JSON
            if run.get(side) is not None:
                value = run[side]
                extra[side] = value if isinstance(value, str) else _text(value)
        score = _r4(run["score"])
        prf = [_r4(run["precision"]), _r4(run["recall"]), _r4(run["f1"])]
        row: list[JSONItem] = [
            case,
            run["repeat"],
            self.string(run["status"]),
            score,
            _r4(run["threshold"]),
            0 if prf == [score, score, score] else prf,
            shape,
            fields,
        ]
        if extra:
            row.append(extra)
        return row

    def _field(self, f: FieldDict, out: list[JSONItem]) -> int:
        """Append a field's code and items to ``out``; return its place's index."""
        status = f["status"]
        index = _STATUS_INDEX[status]  # the schema's field_status: FIELD_STATUSES, no other
        score = f["score"]
        flags = 0
        items: list[JSONItem] = []
        if score != (1.0 if status == MATCH else 0.0):
            flags |= HAS_SCORE
            items.append(_r4(score))
        has_expected, has_actual = "expected" in f, "actual" in f
        expected_cut, actual_cut = bool(f.get("expected_cut")), bool(f.get("actual_cut"))
        if (has_expected and not expected_cut and _as_text(f["expected"])) or (
            has_actual and not actual_cut and _as_text(f["actual"])
        ):
            flags |= VALUE_TEXT
        if has_expected:
            flags |= HAS_EXPECTED | (EXPECTED_CUT if expected_cut else 0)
            expected = f["expected"]
            items.append(_text(expected) if flags & VALUE_TEXT and not expected_cut else expected)
        if has_actual:
            flags |= HAS_ACTUAL | (ACTUAL_CUT if actual_cut else 0)
            actual = f["actual"]
            if has_expected and expected_cut == actual_cut and _same(f["expected"], actual):
                flags |= SAME
            else:
                items.append(_text(actual) if flags & VALUE_TEXT and not actual_cut else actual)
        out.append(index + CODE * (flags ^ USUAL))
        out.extend(items)
        return self.place(f["path"], f["field_path"])

    def tables(self) -> dict[str, JSONItem]:
        return {
            "strings": list(self.strings),
            "places": [[path, field_path] for path, field_path in self.places],
            "shapes": [list(shape) for shape in self.shapes],
            "field_statuses": list(FIELD_STATUSES),
        }


def write_case_data(
    fh: IO[str],
    cases: Iterable[CaseDict],
    comparisons: Iterable[ComparisonDict],
    blocked: Mapping[str, str],
    flaky: Collection[str] = (),
) -> int:
    """The page's data block's JSON text written to ``fh``, a case and a comparison at a
    time; ``flaky``: the ids of the cases whose runs disagree. Returns how many cases it
    holds."""
    data = CaseData()
    count = 0
    fh.write('{"cases":[')
    for case in cases:
        fh.write(
            ("," if count else "")
            + script_json(
                data.case_row(case, blocked.get(case["case_id"]), case["case_id"] in flaky)
            )
        )
        count += 1
    fh.write('],"runs":[')
    first = True
    # each comparison's case by its index: the cases read again beside the comparisons,
    # which come in the same order where they are one run's (a case's repeats together)
    again = iter(cases)
    index, current = -1, None
    for run in comparisons:
        case_id = run["case_id"]
        if case_id != current:
            following = next(again, None)
            if following is not None:
                index, current = index + 1, following["case_id"]
        reference: int | str = index if case_id == current else case_id
        fh.write(("" if first else ",") + script_json(data.run_row(run, reference)))
        first = False
    fh.write("]," + script_json(data.tables())[1:])
    return count
