"""A state read stays inside what it was given and within its limits (engine/agents/
state_reading.py): a directory without following a link or opening a FIFO, a database without
bringing a huge value into Python, any state within its counts of values, text, files and
depth; past a limit, or where a file cannot be read, a ConfigError naming the side, the place
and the limit. Each input here once leaked, hung, ran for hours or filled memory; each test
that could hang runs within a deadline (``within``, or a child process's alarm)."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_jsonmatch import ConfigError, match_state, read_state
from pytest_jsonmatch.engine.agents import state_reading
from pytest_jsonmatch.engine.agents.state_reading import (
    MAX_STATE_BYTES,
    MAX_STATE_DEPTH,
    MAX_STATE_VALUES,
    MAX_VALUE_BYTES,
    read_apart,
)
from tests.helpers.timeout import within

NOBODY = 65534


def _in_child(
    work: Callable[[], object],
    seconds: int = 20,
    uid: int | None = None,
    memory: int | None = None,
) -> str:
    """``work`` run in a forked child, as ``uid`` (where this process may change it: as
    root, which permission bits do not stop) and with at most ``memory`` more bytes of
    address space: what it returned (as JSON) or raised (``ConfigError: ...``). The child is
    killed past ``seconds``, which fails the test instead of hanging it."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read_end)
        try:
            signal.alarm(seconds)
            try:
                if memory is not None:
                    pages = int(Path("/proc/self/statm").read_text().split()[0])
                    most = pages * os.sysconf("SC_PAGE_SIZE") + memory
                    resource.setrlimit(resource.RLIMIT_AS, (most, most))
                if uid is not None and os.geteuid() == 0:
                    os.setgid(uid)
                    os.setuid(uid)
                text = "returned: " + json.dumps(work())
            except Exception as error:  # noqa: BLE001 - what it raised is what is looked at
                text = f"{type(error).__name__}: {error}"
            os.write(write_end, text.encode("utf-8", "replace"))
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    assert not os.WIFSIGNALED(status), f"the child was killed by signal {os.WTERMSIG(status)}"
    return b"".join(chunks).decode("utf-8")


# --- links, FIFOs: nothing outside the directory is read, nothing that could block is opened


def test_a_link_to_a_file_outside_reads_as_its_target_never_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JSONMATCH_TEST_SECRET", "do-not-leak-4f2a")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside text", encoding="utf-8")
    state = tmp_path / "state"
    state.mkdir()
    (state / "env").symlink_to("/proc/self/environ")
    (state / "secret").symlink_to(outside)
    result = read_state(state)
    assert result == {"env": "<link to /proc/self/environ>", "secret": f"<link to {outside}>"}
    assert "do-not-leak-4f2a" not in json.dumps(result)


def test_a_link_to_a_folder_outside_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "inner.txt").write_text("inner", encoding="utf-8")
    state = tmp_path / "state"
    state.mkdir()
    (state / "out").symlink_to(outside, target_is_directory=True)
    (state / "up").symlink_to("..", target_is_directory=True)
    assert read_state(state) == {"out": f"<link to {outside}>", "up": "<link to ..>"}


def test_a_dangling_link_and_a_link_inside_read_as_their_targets(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A", encoding="utf-8")
    (tmp_path / "b.txt").symlink_to("a.txt")
    (tmp_path / "gone").symlink_to("missing.txt")
    assert read_state(tmp_path) == {
        "a.txt": "A",
        "b.txt": "<link to a.txt>",
        "gone": "<link to missing.txt>",
    }


def test_two_states_that_differ_in_a_link_differ(tmp_path: Path) -> None:
    actual, expected = tmp_path / "actual", tmp_path / "expected"
    for root, target in ((actual, "a.txt"), (expected, "c.txt")):
        root.mkdir()
        (root / "a.txt").write_text("A", encoding="utf-8")
        (root / "current").symlink_to(target)
    result = match_state(actual, expected)
    # fields a.txt (a match) and current (its link's target differs): F1 1/2
    assert result.score == 0.5
    assert [f.path for f in result.fields if f.status == "mismatch"] == ["current"]


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("A", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe")
    with within():  # opened for reading, a FIFO with no writer would block
        assert read_state(tmp_path) == {"a.txt": "A", "pipe": "<FIFO>"}


# --- the limits of a directory


def test_a_file_past_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with open(tmp_path / "huge.bin", "wb") as handle:
        handle.truncate(2**30)  # 1 GiB, sparse: nothing written, nothing to read
    (tmp_path / "small.txt").write_text("s", encoding="utf-8")
    message = (
        r"^actual state: file 'huge.bin' is 1,073,741,824 bytes, past the limit of 16 MiB "
        r"for one file$"
    )
    with pytest.raises(ConfigError, match=message):
        read_state(tmp_path, "actual state")


def test_the_files_together_past_the_limit_are_refused_at_the_file_that_passes_it(
    tmp_path: Path,
) -> None:
    count = MAX_STATE_BYTES // MAX_VALUE_BYTES  # files at the size limit: exactly the total
    for index in range(count):
        with open(tmp_path / f"f{index}", "wb") as handle:
            handle.truncate(MAX_VALUE_BYTES)
    (tmp_path / "last").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"more than 64 MiB together .* at file 'last'"):
        read_state(tmp_path)


def test_entries_past_the_limit_are_refused_while_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (100,000 entries take seconds to make; the count is the same at any limit)
    monkeypatch.setattr(state_reading, "MAX_STATE_FILES", 30)
    (tmp_path / "sub").mkdir()
    for index in range(31):
        (tmp_path / "sub" / f"f{index:02}").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"more than 30 files and folders .* in 'sub'$"):
        read_state(tmp_path)


def test_a_tree_past_the_depth_limit_is_refused_without_recursion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 300 folders deep: refused at the 201st, no deeper folder listed (os.walk recursed
    # through them all: at 1,200, a RecursionError). Made and removed from the working
    # folder, one level at a time (each by its full path is quadratic)
    monkeypatch.chdir(tmp_path)
    os.mkdir("t")
    os.chdir("t")
    for _ in range(300):
        os.mkdir("d")
        os.chdir("d")
    Path("deep.txt").write_text("deep", encoding="utf-8")
    try:
        with within(), pytest.raises(ConfigError) as raised:
            read_state(tmp_path / "t")
    finally:  # (pytest's own clean-up would recurse through the tree)
        os.unlink("deep.txt")
        for _ in range(300):
            os.chdir("..")
            os.rmdir("d")
    message = str(raised.value)
    assert message.startswith("state: folder 'd/d/d/")
    assert message.endswith(
        f"is more than {MAX_STATE_DEPTH} folders deep (the limit for one state)"
    )


def test_a_file_that_cannot_be_read_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "open.txt").write_text("o", encoding="utf-8")
    (state / "secret.txt").write_text("s", encoding="utf-8")
    (state / "secret.txt").chmod(0)
    monkeypatch.chdir(state)  # (the child reads "." as another user: tmp_path is not theirs)
    outcome = _in_child(lambda: read_state(Path("."), "actual state"), uid=NOBODY)
    assert outcome == "ConfigError: actual state: cannot read file 'secret.txt' (Permission denied)"


def test_a_folder_that_cannot_be_listed_is_an_error_not_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    (state / "locked").mkdir(parents=True)
    (state / "locked" / "inside.txt").write_text("i", encoding="utf-8")
    (state / "locked").chmod(0)
    monkeypatch.chdir(state)
    try:
        outcome = _in_child(lambda: read_state(Path(".")), uid=NOBODY)
    finally:
        (state / "locked").chmod(0o755)  # (for pytest's clean-up when not run as root)
    assert outcome == "ConfigError: state: cannot list folder 'locked' (Permission denied)"


# --- the limits of objects, and of read_apart


class Node:
    """An object whose two attributes are one object: 32 of them make a DAG of 2**32 paths."""

    def __init__(self, child: Node | None) -> None:
        self.left = child
        self.right = child


def _dag(levels: int) -> Node | None:
    node = None
    for _ in range(levels):
        node = Node(node)
    return node


def test_a_dag_of_shared_objects_is_refused_at_the_count_of_values() -> None:
    # 2**33 values read along every path (hours): refused at 250,000, in about a second
    with within(), pytest.raises(ConfigError) as raised:
        read_state({"root": _dag(32)}, "actual state")
    message = str(raised.value)
    assert message.startswith("actual state at root.left.left.")
    assert message.endswith(
        f"the state holds more than {MAX_STATE_VALUES:,} values (the limit for one state; an "
        f"object met again by another path is read again)"
    )


def test_read_apart_keeps_the_same_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # the rule, at a lower limit: two DAGs read apart are refused as one is read whole
    monkeypatch.setattr(state_reading, "MAX_STATE_VALUES", 1_000)
    with within(), pytest.raises(ConfigError) as raised:
        read_apart(_dag(32), _dag(32), "root")
    message = str(raised.value)
    assert message.startswith("state at root.left.")
    assert "the state holds more than 1,000 values (the limit for one state;" in message


def test_text_past_the_limit_is_refused_though_one_text_is_shared() -> None:
    text = "x" * 2**20  # one MiB, met 65 times: the state's JSON would hold 65 MiB
    with pytest.raises(ConfigError, match=r"^state at \[64\]: the state holds more than 64 MiB"):
        read_state([text] * 65)


# --- a database: no value past its limit reaches Python


def _database(path: Path, column: str, rows: int = 1) -> sqlite3.Connection:
    connection = sqlite3.connect(path)
    connection.execute(
        f"CREATE TABLE big (id INTEGER, payload BLOB GENERATED ALWAYS AS ({column}))"
    )
    connection.executemany("INSERT INTO big (id) VALUES (?)", [(i,) for i in range(rows)])
    connection.commit()
    return connection


def _length_limit(connection: sqlite3.Connection) -> int | None:
    """The connection's limit on a value's length, where Python reads it (3.11+)."""
    getlimit = getattr(connection, "getlimit", None)
    return None if getlimit is None else int(getlimit(0))  # (0: SQLITE_LIMIT_LENGTH)


def test_a_generated_value_of_400_mb_is_refused_without_being_made(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    _database(path, "zeroblob(400000000)").close()
    assert path.stat().st_size <= 8192  # the file is small; its value would be 400 MB

    def read() -> object:
        connection = sqlite3.connect(path)
        limit = _length_limit(connection)
        try:
            return read_state(connection, "actual state")
        finally:  # the connection's own length limit is as it was
            assert _length_limit(connection) == limit

    # with 200 MB more of address space than it holds, a read of the value fails for memory
    outcome = _in_child(read, memory=200 * 2**20)
    assert outcome.startswith("ConfigError: actual state: table 'big', row 0 (as stored), ")
    assert "column 'payload'" in outcome


def test_a_value_past_the_limit_names_its_table_row_and_column(tmp_path: Path) -> None:
    connection = _database(tmp_path / "state.db", "zeroblob(20000000)")
    with pytest.raises(ConfigError) as raised:
        read_state(connection)
    assert str(raised.value) == (
        "state: table 'big', row 0 (as stored), column 'payload': a value of 20,000,000 "
        "bytes, past the limit of 16 MiB for one value"
    )


def test_values_past_the_total_are_refused_before_any_is_read(tmp_path: Path) -> None:
    connection = _database(tmp_path / "state.db", "zeroblob(15000000)", rows=5)
    with pytest.raises(ConfigError) as raised:
        read_state(connection)
    # 15,000,000 bytes a row: past 64 MiB (67,108,864) at the fifth
    assert str(raised.value) == (
        "state: table 'big', row 4 (as stored): the state holds more than 64 MiB of text "
        "(the limit for one state)"
    )


# a generated column whose values are small numbers, each costly to compute: replace() over
# the 1,000,000-character text of a 500,000-byte zeroblob (the row's id in it, so that sqlite
# cannot compute it once for all rows), 10 to 20 ms a value on a loaded 2-core machine, and
# computed again in each pass of the read (sized, then read): 1,000 rows, more than 20 s of
# sqlite's work, in a file of 20 KB
SLOW = "length(replace(hex(zeroblob(500000 + id % 2)), '00', 'ab'))"


def _slow_database(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE big (id INTEGER)")
    connection.executemany("INSERT INTO big (id) VALUES (?)", [(i,) for i in range(1_000)])
    # (added after the rows: an insert would compute it)
    connection.execute(f"ALTER TABLE big ADD COLUMN payload GENERATED ALWAYS AS ({SLOW}) VIRTUAL")
    connection.commit()
    connection.close()


def test_a_database_whose_generated_column_is_slow_ends_at_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.db"
    _slow_database(path)
    assert path.stat().st_size <= 32_768
    # a limit of 0.3 s (MAX_DATABASE_SECONDS, 5 s, would make a slow test): the read ends
    # there, not after its 20 s; the child is killed at 10 s, which fails the test
    monkeypatch.setattr(state_reading, "MAX_DATABASE_SECONDS", 0.3)
    outcome = _in_child(lambda: read_state(sqlite3.connect(path), "actual state"), seconds=10)
    assert outcome == (
        "ConfigError: actual state: table 'big': sqlite took more than 0.3 seconds to read "
        "the database, the limit for one state (a generated column computes its values as "
        "they are read)"
    )


def test_after_a_read_cut_at_the_time_limit_the_connection_is_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.db"
    _slow_database(path)
    monkeypatch.setattr(state_reading, "MAX_DATABASE_SECONDS", 0.3)

    def read_then_query() -> object:
        connection = sqlite3.connect(path)
        steps = []
        connection.set_progress_handler(lambda: steps.append(1), 100)  # the user's own
        try:
            read_state(connection)
        except ConfigError:
            pass
        before = len(steps)
        # a query of the user's longer than the limit runs to its end (nothing interrupts
        # it), and the user's progress handler is still the connection's
        (total,) = connection.execute("SELECT count(payload) FROM big WHERE id < 60").fetchone()
        return [total, len(steps) > before > 0]

    assert _in_child(read_then_query, seconds=10) == "returned: [60, true]"


def test_a_database_within_the_limits_reads_as_before(tmp_path: Path) -> None:
    connection = _database(tmp_path / "state.db", "'p' || id", rows=3)
    connection.row_factory = sqlite3.Row  # the user's row factory changes nothing
    assert read_state(connection) == {
        "big": [{"id": i, "payload": f"p{i}"} for i in range(3)],
    }


def test_where_folders_cannot_be_held_open_the_same_rules_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a system without descriptors relative to a folder, Windows: each entry by its path)
    monkeypatch.setattr(state_reading, "_HELD", False)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "inner.txt").write_text("inner", encoding="utf-8")
    state = tmp_path / "state"
    (state / "sub").mkdir(parents=True)
    (state / "sub" / "a.txt").write_text("A\r\nB", encoding="utf-8")
    (state / "sub" / "out").symlink_to(outside, target_is_directory=True)
    (state / "secret").symlink_to(outside / "inner.txt")
    os.mkfifo(state / "pipe")
    with within():
        assert read_state(state) == {
            "pipe": "<FIFO>",
            "secret": f"<link to {outside / 'inner.txt'}>",
            "sub/a.txt": "A\nB",  # line ends as text mode reads them, as before
            "sub/out": f"<link to {outside}>",
        }


def test_a_table_sqlite_cannot_read_is_an_error_naming_it(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "state.db")
    connection.execute("CREATE TABLE notes (body TEXT)")
    connection.execute("INSERT INTO notes VALUES (CAST(x'ff' AS TEXT))")  # not UTF-8
    with pytest.raises(ConfigError, match=r"^actual state: cannot read table 'notes' \(sqlite3: "):
        read_state(connection, "actual state")
