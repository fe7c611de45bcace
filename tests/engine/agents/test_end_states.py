"""End states: a state read to JSON (objects, databases, directories) and compared by any
metric, after a run and after every turn of it (engine/agents/state_reading.py,
end_states.py). Scores are worked out by hand from docs/metrics.md's rules."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import math
import sqlite3
import uuid
from pathlib import Path, PurePosixPath

import pytest

from pytest_jsonmatch import (
    ConfigError,
    TurnStates,
    match_state,
    match_turn_states,
    read_state,
)


class Account:
    """An environment object: public attributes are its state, ``_``-prefixed ones are not."""

    def __init__(self, owner: str, balance: float, tags: list[str]) -> None:
        self.owner = owner
        self.balance = balance
        self.tags = tags
        self._session = object()  # private: never read
        self._last_seen = datetime.datetime.now()


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: int
    _hidden: int = 0


class Slotted:
    __slots__ = ("kind", "_secret")

    def __init__(self) -> None:
        self.kind = "slot"
        self._secret = 1


class Folder:
    def __init__(self, name: str, parent: Folder | None = None) -> None:
        self.name = name
        self.parent = parent
        self.contents: dict[str, Folder] = {}


def test_an_objects_public_attributes_are_its_state() -> None:
    assert read_state(Account("ann", 10.5, ["a"])) == {
        "owner": "ann",
        "balance": 10.5,
        "tags": ["a"],
    }


def test_private_attributes_never_count() -> None:
    actual, expected = Account("ann", 10.5, ["a"]), Account("ann", 10.5, ["a"])
    actual._session = "something else entirely"
    result = match_state(actual, expected)
    # 3 fields (owner, balance, tags[0]), all equal: 3/3
    assert result.score == 1.0
    assert [field.path for field in result.fields] == ["owner", "balance", "tags[0]"]


def test_one_attribute_of_four_fields_differs() -> None:
    actual = Account("ann", 12.0, ["a", "b"])
    expected = Account("ann", 10.5, ["a", "b"])
    result = match_state(actual, expected)
    # fields owner, balance, tags[0], tags[1]: 3 match, 1 mismatch on both sides;
    # precision = recall = 3/4, F1 = 0.75
    assert (result.precision, result.recall, result.score) == (0.75, 0.75, 0.75)
    assert [f.path for f in result.fields if f.status == "mismatch"] == ["balance"]


def test_any_metric_scores_a_state() -> None:
    # field_match: the share of expected leaf fields equal: owner equal, balance not -> 1/2
    actual = {"owner": "ann", "balance": 1}
    assert match_state(actual, {"owner": "ann", "balance": 2}, metric="field_match").score == 0.5


def test_conversions() -> None:
    state = {
        "when": datetime.datetime(2024, 1, 2, 3, 4, 5),
        "day": datetime.date(2024, 1, 2),
        "wait": datetime.timedelta(minutes=1, seconds=30),
        "price": decimal.Decimal("2.50"),
        "count": decimal.Decimal("3"),
        "colour": Colour.RED,
        "id": uuid.UUID(int=1),
        "file": PurePosixPath("/tmp/x"),
        "raw": b"bytes",
        "pair": (1, 2),
        "set": {"b", "a", "c"},
        "point": Point(1, 2, 3),
        "slotted": Slotted(),
        1: "one",
        None: "null",
        2.5: "float",
    }
    assert read_state(state) == {
        "when": "2024-01-02T03:04:05",
        "day": "2024-01-02",
        "wait": 90.0,
        "price": 2.5,
        "count": 3,
        "colour": "red",
        "id": "00000000-0000-0000-0000-000000000001",
        "file": "/tmp/x",
        "raw": "bytes",
        "pair": [1, 2],
        "set": ["a", "b", "c"],
        "point": {"x": 1, "y": 2},
        "slotted": {"kind": "slot"},
        "1": "one",
        "null": "null",
        "2.5": "float",
    }


def test_a_parent_link_is_a_reference_to_where_the_parent_was_read() -> None:
    root = Folder("/")
    root.contents["home"] = Folder("home", root)
    root.contents["home"].contents["ann"] = Folder("ann", root.contents["home"])
    assert read_state({"root": root}) == {
        "root": {
            "name": "/",
            "parent": None,
            "contents": {
                "home": {
                    "name": "home",
                    "parent": "<ref root>",
                    "contents": {
                        "ann": {"name": "ann", "parent": "<ref root.contents.home>", "contents": {}}
                    },
                }
            },
        }
    }


def test_the_same_object_twice_is_read_twice_not_as_a_reference() -> None:
    shared = [1]
    assert read_state({"a": shared, "b": shared}) == {"a": [1], "b": [1]}


def test_database_rows_compared_whatever_their_order(tmp_path: Path) -> None:
    def database(rows: list[tuple[int, str]]) -> sqlite3.Connection:
        connection = sqlite3.connect(":memory:")
        connection.execute("CREATE TABLE users (id INTEGER, name TEXT)")
        connection.execute("CREATE TABLE empty (x INTEGER)")
        connection.executemany("INSERT INTO users VALUES (?, ?)", rows)
        return connection

    actual = database([(2, "bo"), (1, "al")])
    expected = database([(1, "al"), (2, "bob")])
    assert read_state(actual) == {
        "empty": [],
        "users": [{"id": 1, "name": "al"}, {"id": 2, "name": "bo"}],
    }
    result = match_state(actual, expected)
    # fields: empty (both empty arrays: a match), users[0].id, users[0].name, users[1].id,
    # users[1].name; only users[1].name differs: 4/5 on both sides, F1 = 0.8
    assert result.score == pytest.approx(0.8)
    assert [f.path for f in result.fields if f.status != "match"] == ["users[1].name"]


def test_a_directory_is_its_files_text(tmp_path: Path) -> None:
    expected, actual = tmp_path / "expected", tmp_path / "actual"
    for root in (expected, actual):
        (root / "sub").mkdir(parents=True)
        (root / "a.txt").write_text("A", encoding="utf-8")
    (expected / "sub" / "b.txt").write_text("B", encoding="utf-8")
    (actual / "sub" / "b.txt").write_text("b2", encoding="utf-8")
    (actual / "c.txt").write_text("C", encoding="utf-8")
    assert read_state(actual) == {"a.txt": "A", "c.txt": "C", "sub/b.txt": "b2"}
    result = match_state(actual, expected)
    # expected fields a.txt, sub/b.txt; actual a.txt, sub/b.txt, c.txt: one match, one
    # mismatch, one hallucination. precision 1/3, recall 1/2, F1 = 2(1/6)/(5/6) = 0.4
    assert result.precision == pytest.approx(1 / 3)
    assert result.recall == 0.5
    assert result.score == pytest.approx(0.4)
    statuses = {field.path: field.status for field in result.fields}
    assert statuses == {
        '["a.txt"]': "match",
        '["sub/b.txt"]': "mismatch",
        '["c.txt"]': "hallucination",
    }


def test_a_file_that_is_not_text_names_it(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match=r"file 'blob.bin' is not UTF-8 text"):
        read_state(tmp_path)
    with pytest.raises(ConfigError, match="is not a directory"):
        read_state(tmp_path / "missing")


def test_per_turn_credit_beside_the_strict_verdict() -> None:
    actual = [{"files": ["a"]}, {"files": ["a", "c"]}, {"files": ["a", "b", "d"]}]
    expected = [{"files": ["a"]}, {"files": ["a", "b"]}, {"files": ["a", "b", "d"]}]
    result = match_turn_states(actual, expected)
    assert isinstance(result, TurnStates)
    # turn 0: 1/1; turn 1: files[0] matches, files[1] does not -> 1/2; turn 2: 3/3.
    # per-turn credit (1 + 0.5 + 1) / 3 = 5/6; strict: no (turn 1 is wrong)
    assert [turn.score for turn in result.turns] == [1.0, 0.5, 1.0]
    assert result.score == pytest.approx(5 / 6)
    assert (result.strict, result.first_wrong, result.right) == (False, 1, (True, False, True))
    wrong = [f for f in result.fields if f.status != "match"]
    assert [(f.path, f.field_path) for f in wrong] == [("turns[1].files[1]", "turns[].files[]")]
    assert len(result.fields) == 1 + 2 + 3


def test_every_turn_right_is_strict() -> None:
    result = match_turn_states([{"a": 1}, {"a": 2}], [{"a": 1}, {"a": 2}])
    assert (result.score, result.strict, result.first_wrong) == (1.0, True, None)


def test_a_run_that_ended_early_scores_its_missing_turns_zero() -> None:
    result = match_turn_states([{"a": 1}], [{"a": 1}, {"a": 2}, {"a": 3}])
    # turns 1 and 2 never reached: (1 + 0 + 0) / 3
    assert result.score == pytest.approx(1 / 3)
    assert result.turns[1].error == "turn 1: the run ended before this turn"
    assert result.first_wrong == 1


def test_bad_turn_input_names_the_turn_and_the_path() -> None:
    with pytest.raises(ConfigError, match=r"^turn 1: actual state at x\[0\]: nan is not"):
        match_turn_states([{"x": [1.0]}, {"x": [math.nan]}], [{"x": [1.0]}, {"x": [1.0]}])
    with pytest.raises(ConfigError, match="2 actual states for 1 expected turns"):
        match_turn_states([{}, {}], [{}])
    with pytest.raises(ConfigError, match="no expected turns"):
        match_turn_states([], [])
    with pytest.raises(ConfigError, match="a list of states for each side, not text"):
        match_turn_states("abc", ["abc"])


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"f": len}, r"state at f: builtin_function_or_method is not state"),
        ({"k": {(1, 2): 3}}, r"state at k: key \(1, 2\) is not text"),
        ({"n": math.inf}, r"state at n: inf is not a JSON number"),
        ({1: "a", "1": "b"}, r"two keys read as '1'"),
        ({"d": decimal.Decimal("NaN")}, r"nan is not a JSON number"),
    ],
)
def test_what_is_not_state_is_a_config_error_naming_its_path(state: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_state(state)


def test_a_state_that_is_not_an_object() -> None:
    with pytest.raises(ConfigError, match="actual state reads to list"):
        match_state([1, 2], {"a": 1})


def test_scores_stay_in_the_unit_interval() -> None:
    states = [{}, {"a": None}, {"a": [1, {"b": "x"}]}, {"z": True}, {"a": [2]}]
    for actual in states:
        for expected in states:
            if not expected:
                continue
            result = match_turn_states([actual, actual], [expected, expected])
            assert 0.0 <= result.score <= 1.0
            assert all(0.0 <= turn.score <= 1.0 for turn in result.turns)
