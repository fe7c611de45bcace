"""A database's tables read as plain JSON (``{table: [rows]}``), for state_reading.py.

A database an agent under test wrote is read within bounds: no value past its size reaches
Python (each value's size read first, as a number; where Python can lower sqlite's length
limit, no value past a state's text is even made), within one state's limits, and within a
time for sqlite's work (a generated column computes its values as they are read). The limits
are state_reading.py's, handed in as the read starts (:class:`Limits`), so that a state read
from a database is held to the same ones as any other; each past its limit is a ConfigError
naming the side, the table, the row and the column.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, Protocol

from ..core.errors import ConfigError
from ..core.paths import index_segment, key_segment
from ..core.values import JsonValue

_INTERRUPT_AGAIN = 0.01  # seconds between interrupts past it (one between statements is lost)


class Limits(NamedTuple):
    """One state's limits as the read starts, and what a message says past two of them."""

    values: int  # values read in all
    text: int  # bytes of text in all
    value: int  # bytes of one value
    seconds: float  # sqlite's work for the whole read
    too_many: str  # what is said past ``values``
    too_much: str  # what is said past ``text``


class Cells(Protocol):
    """What reads one value of a table to JSON, counting it against the state's limits."""

    def cell(self, value: object, path: str, holds_json: bool) -> JsonValue: ...


def mib(size: int) -> str:
    """A size as the limits' messages give it."""
    return f"{size // 2**20} MiB"


def read_sqlite(
    connection: sqlite3.Connection, side: str, cells: Cells, limits: Limits
) -> dict[str, JsonValue]:
    """Every table of ``connection`` (not sqlite's own) as ``{table: [rows]}``, each row an
    object of its columns. Rows are sorted by their columns in order (as stored), since a
    table's rows have no order of their own; BLOBs are read as UTF-8 text; in a column that
    holds JSON (:func:`_json_columns`) a value that is a JSON object or array as that.

    Each table is read twice: its values' sizes first (numbers only), refused past
    ``limits.value`` a value, ``limits.text`` and ``limits.values`` in all, then its values
    (each read by ``cells``), each value past its limit left in sqlite; and where sqlite lets
    a connection's length limit be lowered (Python 3.11+), no value past ``limits.text`` is
    even made (a generated column), the limit put back after. sqlite's work for the whole
    read is cut at ``limits.seconds`` (a generated column computes its values as they are
    read, each pass again: a small file can hold hours of it); the connection is left as it
    was."""
    with _length_limit(connection, limits.text), _Watchdog(connection, limits.seconds) as watchdog:
        try:
            tables = (
                _plain(connection)
                .execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
                .fetchall()
            )
        except sqlite3.Error as error:
            raise watchdog.error(side, None) or ConfigError(
                f"{side}: cannot read the database (sqlite3: {str(error)[:200]!r})"
            ) from None
        sizes = _Sizes(side, limits)
        out: dict[str, JsonValue] = {}
        for (table,) in tables:
            name = str(table)
            try:
                out[name] = _table(connection, side, name, cells, sizes)
            except ConfigError as error:
                raise watchdog.error(side, name) or error from None
    return out


def _table(
    connection: sqlite3.Connection, side: str, name: str, cells: Cells, sizes: _Sizes
) -> JsonValue:
    """One table's rows, within the limits ``sizes`` and ``cells`` count."""
    quoted = _quoted(name)
    columns = _columns(connection, side, name, quoted)
    json_columns = _json_columns(connection, side, name, quoted)
    sizes.check(connection, name, quoted, columns)
    rows = _rows(connection, side, name, _values_query(quoted, columns, sizes.limits.value))
    rows.sort(key=_row_order)
    path = key_segment("", name)
    return [
        {
            column: cells.cell(
                value, key_segment(index_segment(path, index), column), column in json_columns
            )
            for column, value in zip(columns, row)
        }
        for index, row in enumerate(rows)
    ]


def _json_columns(
    connection: sqlite3.Connection, side: str, name: str, quoted: str
) -> frozenset[str]:
    """The columns of a table that hold JSON: declared with a type naming it (``data JSON``,
    as SQLAlchemy's and peewee's JSON fields declare it) or checked by ``json_valid`` in
    the table's definition (``CHECK (JSON_VALID("data"))``, as Django's JSONField does)."""
    try:
        try:
            declared = _plain(connection).execute(f"PRAGMA table_xinfo({quoted})").fetchall()
        except sqlite3.OperationalError:  # (sqlite before 3.26: no generated columns either)
            declared = _plain(connection).execute(f"PRAGMA table_info({quoted})").fetchall()
        found = (
            _plain(connection)
            .execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
            .fetchone()
        )
    except sqlite3.Error as error:
        raise _cannot_read_table(side, name, error) from None
    definition = str(found[0]) if found and found[0] else ""
    return frozenset(
        str(column[1])
        for column in declared
        if "JSON" in str(column[2] or "").upper() or _checked_json(definition, str(column[1]))
    )


def _checked_json(definition: str, column: str) -> bool:
    """Whether a table's definition checks ``column`` with ``json_valid`` (named bare or in
    any of SQL's quotes)."""
    if "json_valid" not in definition.lower():
        return False
    named = "|".join(
        re.escape(form)
        for form in (
            column,
            '"' + column.replace('"', '""') + '"',
            "`" + column.replace("`", "``") + "`",
            f"[{column}]",
        )
    )
    return re.search(rf"json_valid\s*\(\s*(?:{named})\s*\)", definition, re.I) is not None


class _Watchdog:
    """A thread that interrupts sqlite's work on a connection (``interrupt``, which leaves
    the connection's own handlers as they are) once ``seconds`` have passed, and
    again every _INTERRUPT_AGAIN seconds (an interrupt while no statement runs is lost)
    until the read ends: sqlite stops at its next check, between rows (one row's own work,
    its generated columns' expressions, is not cut)."""

    def __init__(self, connection: sqlite3.Connection, seconds: float) -> None:
        self.connection = connection
        self.seconds = seconds
        self.passed = False  # whether it interrupted the read
        self.done = threading.Event()
        self.lock = threading.Lock()  # no interrupt once the read has ended
        self.thread = threading.Thread(target=self.watch, name="jsonmatch-sqlite-limit")
        self.thread.daemon = True

    def __enter__(self) -> _Watchdog:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.done.set()
        self.thread.join()

    def watch(self) -> None:
        wait = self.seconds
        while not self.done.wait(wait):
            with self.lock:
                if self.done.is_set():
                    return
                self.passed = True
                self.connection.interrupt()
            wait = _INTERRUPT_AGAIN

    def error(self, side: str, name: str | None) -> ConfigError | None:
        """The error of a read the time limit cut (None where it did not)."""
        if not self.passed:
            return None
        where = "" if name is None else f"table {name!r}: "
        return ConfigError(
            f"{side}: {where}sqlite took more than {self.seconds:g} seconds to read the "
            f"database, the limit for one state (a generated column computes its values as "
            f"they are read)"
        )


@contextmanager
def _length_limit(connection: sqlite3.Connection, limit: int) -> Iterator[None]:
    """sqlite's limit on one value's length lowered to ``limit`` for the read (where Python
    can set it: 3.11+), so that no generated value past it is made; put back after."""
    setlimit = getattr(connection, "setlimit", None)
    which = getattr(sqlite3, "SQLITE_LIMIT_LENGTH", None)
    old: int | None = None
    if setlimit is not None and which is not None:
        old = setlimit(which, limit)
        if old is not None and old <= limit:
            setlimit(which, old)  # already as low: left as the user set it
            old = None
    try:
        yield
    finally:
        if old is not None and setlimit is not None:
            setlimit(which, old)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _size_of(quoted: str) -> str:
    """SQL for the size of a column's value in bytes (NULL for null): a text's bytes, a
    BLOB's (a zeroblob's without making it: a cast would), a number's as text."""
    return (
        f"CASE typeof({quoted}) WHEN 'text' THEN length(CAST({quoted} AS BLOB)) "
        f"ELSE length({quoted}) END"
    )


def _columns(connection: sqlite3.Connection, side: str, name: str, quoted: str) -> list[str]:
    """The columns ``SELECT *`` gives for a table (generated ones included), none read."""
    try:
        cursor = connection.execute(f"SELECT * FROM {quoted} LIMIT 0")
    except sqlite3.Error as error:
        raise _cannot_read_table(side, name, error) from None
    return [str(column[0]) for column in cursor.description]


def _values_query(quoted: str, columns: list[str], most: int) -> str:
    """SQL for a table's values, each one past ``most`` bytes read as null (its size was
    refused already: a value that grew since is not brought into Python)."""
    cells = ", ".join(
        f"CASE WHEN {_size_of(_quoted(c))} <= {most} THEN {_quoted(c)} END "
        f"AS {_quoted(c)}"  # (named as the column, where sqlite names it in an error)
        for c in columns
    )
    return f"SELECT {cells} FROM {quoted}"


def _rows(
    connection: sqlite3.Connection, side: str, name: str, query: str
) -> list[tuple[Any, ...]]:
    try:
        return list(_plain(connection).execute(query))
    except sqlite3.Error as error:
        raise _cannot_read_table(side, name, error) from None


def _plain(connection: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor giving rows as plain tuples, whatever the connection's row factory."""
    cursor = connection.cursor()
    cursor.row_factory = None
    return cursor


def _cannot_read_table(side: str, name: str, error: sqlite3.Error) -> ConfigError:
    return ConfigError(f"{side}: cannot read table {name!r} (sqlite3: {str(error)[:200]!r})")


class _Sizes:
    """The sizes of a database's values, read as numbers before any value is read: each
    within its limit, all within the state's (``limits``)."""

    def __init__(self, side: str, limits: Limits) -> None:
        self.side, self.limits = side, limits
        self.bytes = 0
        self.values = 0

    def check(
        self, connection: sqlite3.Connection, name: str, quoted: str, columns: list[str]
    ) -> None:
        if self.fits(connection, quoted, columns):
            return
        # past a limit: the table's rows, one by one, to name the first row past it
        query = f"SELECT {', '.join(_size_of(_quoted(c)) for c in columns)} FROM {quoted}"
        row = 0  # the rows checked so far: the row being read when sqlite refuses one
        try:
            for sizes in _plain(connection).execute(query):
                self.row(name, row, columns, sizes)
                row += 1
        except sqlite3.Error as error:
            if getattr(error, "sqlite_errorname", "") != "SQLITE_TOOBIG":  # (named: 3.11+)
                raise _cannot_read_table(self.side, name, error) from None
            column = _too_big(connection, quoted, columns, row)
            raise self.fail(
                name,
                row,
                column,
                f"a value larger than {mib(self.limits.text)}, the most a "
                f"state may hold (sqlite refused to make it)",
            ) from None

    def fits(self, connection: sqlite3.Connection, quoted: str, columns: list[str]) -> bool:
        """Whether the table is within the limits, counted in sqlite at once (its rows, each
        column's largest value and total): then its sizes are added to the budget."""
        sizes = ", ".join(
            f"max({_size_of(_quoted(c))}), total({_size_of(_quoted(c))})" for c in columns
        )
        try:
            found = _plain(connection).execute(f"SELECT count(*), {sizes} FROM {quoted}").fetchone()
        except sqlite3.Error:
            return False  # (the rows one by one meet the error, and name its row)
        values = self.values + found[0] * len(columns)
        total = self.bytes + int(sum(found[2::2]))
        largest = max((size for size in found[1::2] if size is not None), default=0)
        limits = self.limits
        if values > limits.values or total > limits.text or largest > limits.value:
            return False
        self.values, self.bytes = values, total
        return True

    def row(self, name: str, row: int, columns: list[str], sizes: tuple[Any, ...]) -> None:
        self.values += len(columns)
        if self.values > self.limits.values:
            raise self.fail(name, row, None, self.limits.too_many)
        for column, size in zip(columns, sizes):
            if size is not None and size > self.limits.value:
                raise self.fail(
                    name,
                    row,
                    column,
                    f"a value of {size:,} bytes, past the limit of "
                    f"{mib(self.limits.value)} for one value",
                )
            self.bytes += size or 0
        if self.bytes > self.limits.text:
            raise self.fail(name, row, None, self.limits.too_much)

    def fail(self, name: str, row: int, column: str | None, what: str) -> ConfigError:
        where = f"table {name!r}, row {row} (as stored)"
        if column is not None:
            where += f", column {column!r}"
        return ConfigError(f"{self.side}: {where}: {what}")


def _too_big(
    connection: sqlite3.Connection, quoted: str, columns: list[str], row: int
) -> str | None:
    """The column whose value at ``row`` sqlite refused to make (each tried alone)."""
    for column in columns:
        try:
            connection.execute(
                f"SELECT {_size_of(_quoted(column))} FROM {quoted} LIMIT 1 OFFSET {row}"
            ).fetchall()
        except sqlite3.Error:
            return column
    return None


def _row_order(row: tuple[Any, ...]) -> tuple[tuple[int, str], ...]:
    """A sort key for a row whatever its cells hold (null first, then by JSON text)."""
    return tuple((0, "") if cell is None else (1, repr(cell)) for cell in row)
