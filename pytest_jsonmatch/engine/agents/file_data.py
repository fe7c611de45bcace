"""A file's text read as the data its format holds: what a state's data files read to.

A file is read as data by the ending of its name (any case): ``.json`` by the door's reader
(``reading/deep_json.py``: NaN and Infinity refused, nesting bounded, a key given twice
keeping its last value, a leading byte-order mark skipped), ``.yaml`` and ``.yml`` by the
case files' safe reader (``reading/safe_yaml.py``: plain tags only, aliases bounded, keys
text; a state's YAML files while they hold MAX_YAML_CHARS together, :func:`yaml_refused`),
``.toml`` by the standard library's ``tomllib`` (Python 3.11 and later; NaN and
Infinity refused; on 3.10 a TOML file is text, :class:`NotData` saying so) and ``.csv`` as a
list of row objects keyed by its header row, its values text as written (CSV holds no
types). Any other file is text.

Each reader gives Python values (a TOML date, say), which ``state_reading.py`` reads to JSON
within one state's limits. Text that is none of its format's data is :class:`NotData`,
whose ``note`` says why, for the row that compares the text instead.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from typing import Any

from ..core.errors import ConfigError, JsonMatchError
from ..reading.deep_json import read_whole
from ..reading.safe_yaml import parse_yaml

# a file's format by the ending of its name (lower case)
FORMATS = {".json": "JSON", ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML", ".csv": "CSV"}
MAX_NOTE = 240  # characters of a reader's own words kept in a note
# the YAML one state reads as data, all its files together: the safe reader builds about a
# megabyte in three seconds, so a state's YAML (64 MiB at most) is read as data while small;
# past it, none of its YAML files is (so that a state reads alike whatever order its files
# are read in, and whichever of them a recording or an expected state gives as text)
MAX_YAML_CHARS = 2**20


class NotData(Exception):
    """Text that is not its format's data; ``note`` says so, for the row comparing it."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


def yaml_refused(total: int) -> str:
    """The note of each YAML file of a state whose YAML files hold ``total`` characters
    together; "" where they are read as data (within MAX_YAML_CHARS)."""
    if total <= MAX_YAML_CHARS:
        return ""
    return (
        f"not read as data: the state's YAML files hold more than {MAX_YAML_CHARS:,} "
        f"characters together (the safe reader takes seconds a megabyte): compared as text"
    )


def data_format(name: str) -> str | None:
    """The format a file named ``name`` (a relative path) is read as data in, or None."""
    base = name.rpartition("/")[2].lower()
    dot = base.rfind(".")
    return FORMATS.get(base[dot:]) if dot > 0 else None


def read_data(fmt: str, text: str, max_values: int) -> object:
    """``text`` read as ``fmt`` (a value of FORMATS); NotData where it is none, or where
    its rows alone make more than ``max_values`` values (a CSV file, whose rows are counted
    as they are read: a state's limit)."""
    if text.startswith("\ufeff"):  # a byte-order mark (as spreadsheets write CSV) is no data
        text = text[1:]
    try:
        return _READERS[fmt](text, max_values)
    except NotData:
        raise
    except (JsonMatchError, ValueError, csv.Error) as error:
        raise NotData(not_format(fmt, str(error))) from None
    except RecursionError:
        raise NotData(not_format(fmt, "it nests too deeply to read")) from None


def not_format(fmt: str, why: str) -> str:
    """The note of text that is not ``fmt``: ``not JSON (Expecting value: ...): compared as
    text`` (the reader's words on one line, cut)."""
    return f"not {fmt} ({cut(why)}): compared as text"


def cut(words: str) -> str:
    """A reader's words on one line, their middle cut where they are long (a deep path)."""
    words = " ".join(words.split())
    if len(words) <= MAX_NOTE:
        return words
    return f"{words[: MAX_NOTE // 2]}...{words[-(MAX_NOTE // 2 - 3) :]}"


def _json(text: str, max_values: int) -> object:
    return read_whole(text, "JSON")


_YAML_PLACE = re.compile(r"(\d+)(?::(\d+))?: ", re.S)


def _yaml(text: str, max_values: int) -> object:
    try:
        return parse_yaml(text, "", ConfigError)[0]
    except ConfigError as error:
        # the safe reader's words, ``:LINE:COLUMN: what``, without the file it names
        words = str(error)[1:]
        place = _YAML_PLACE.match(words)
        if place is not None:
            at = f"line {place[1]}" + (f", column {place[2]}" if place[2] else "")
            words = f"{at}: {words[place.end() :]}"
        raise NotData(not_format("YAML", words)) from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a JSON number")
    return value


def _toml(text: str, max_values: int) -> object:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads(text, parse_float=_finite)
    raise NotData("TOML is read as data from Python 3.11 (tomllib): compared as text")


def _csv(text: str, max_values: int) -> object:
    """A list of row objects keyed by the header row; blank lines left out."""
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)
    header: list[str] | None = None
    out: list[dict[str, str]] = []
    values = 1  # the list
    for row in rows:
        values += len(row) + 1  # (a row's object and its fields; a blank line counts one)
        if values > max_values:
            raise NotData(
                f"read as CSV, its rows hold more than {max_values:,} values (the limit for "
                f"one state), past it at line {rows.line_num}: compared as text"
            )
        if not row:
            continue
        if header is None:
            if len(set(row)) < len(row):
                raise NotData(not_format("CSV", f"the header row names a column twice: {row!r}"))
            header = row
            continue
        if len(row) != len(header):
            raise NotData(
                not_format(
                    "CSV",
                    f"line {rows.line_num} has {len(row)} fields, the header row {len(header)}",
                )
            )
        out.append(dict(zip(header, row)))
    return out


_READERS: dict[str, Any] = {"JSON": _json, "YAML": _yaml, "TOML": _toml, "CSV": _csv}
