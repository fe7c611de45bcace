"""Text that stands for data in an end state is read as data (engine/agents/file_data.py,
state_reading.py): a directory's ``.json``, ``.yaml``/``.yml``, ``.toml`` and ``.csv`` files
and a database's JSON columns, on both sides alike, so that their fields are rows, key order
and spacing do not count and a state written as text (an old recording, a hand-written
expected state) compares as data; a file that does not read is compared as text, its row
saying why; the limits of one state hold on the data read."""

from __future__ import annotations

import json
import sqlite3
import sys
import types
from pathlib import Path

import pytest

from pytest_jsonmatch import ConfigError, match_run, match_state, read_state
from pytest_jsonmatch.engine.agents import file_data, state_reading
from pytest_jsonmatch.engine.agents.file_data import MAX_YAML_CHARS

AISLE = {"stock": {"SKU-1100": 2, "SKU-3301": 5}}
COUNT = '["aisle-B.json"].stock["SKU-3301"]'


def _folder(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _rows(result: object) -> dict[str, tuple[str, str]]:
    return {f.path: (f.status, f.reason) for f in result.fields}  # type: ignore[attr-defined]


def test_each_data_file_reads_as_its_data_any_other_as_text(tmp_path: Path) -> None:
    files = {
        "aisle-B.json": '{"stock": {"SKU-3301": 4}}',
        "zones/dock.YML": "dock: 3\nopen: [mon, tue]\n",
        "zones/yard.yaml": "lanes: 2\n",
        "moves.csv": "sku,qty\nSKU-3301,4\n\nSKU-1100,2\n",
        "notes.txt": '{"not": "read"}',
        "quoted.json": '"a text"',  # data that is itself text reads as the file's text
        "broken.json": "{oops",
        "tickets/TCK-1.json": "[1, 2.5, null, true]",
    }
    state = read_state(_folder(tmp_path / "s", files))
    assert state == {
        "aisle-B.json": {"stock": {"SKU-3301": 4}},
        "broken.json": "{oops",
        "moves.csv": [{"sku": "SKU-3301", "qty": "4"}, {"sku": "SKU-1100", "qty": "2"}],
        "notes.txt": '{"not": "read"}',
        "quoted.json": '"a text"',
        "tickets/TCK-1.json": [1, 2.5, None, True],
        "zones/dock.YML": {"dock": 3, "open": ["mon", "tue"]},
        "zones/yard.yaml": {"lanes": 2},
    }


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib: Python 3.11+")
def test_a_toml_file_reads_as_its_data(tmp_path: Path) -> None:
    text = 'name = "B"\nchecked = 2026-01-02\n[stock]\n"SKU-3301" = 4\n'
    assert read_state(_folder(tmp_path / "s", {"aisle.toml": text})) == {
        "aisle.toml": {"name": "B", "stock": {"SKU-3301": 4}, "checked": "2026-01-02"}
    }


def test_on_python_3_10_a_toml_file_is_compared_as_text_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_data, "sys", types.SimpleNamespace(version_info=(3, 10, 14)))
    text = 'name = "B"\n'
    root = _folder(tmp_path / "s", {"aisle.toml": text})
    assert read_state(root) == {"aisle.toml": text}
    rows = _rows(match_state(root, {"aisle.toml": text}))
    note = "TOML is read as data from Python 3.11 (tomllib): compared as text"
    assert rows == {'["aisle.toml"]': ("match", f"actual: {note}; expected: {note}")}


def test_a_wrong_count_is_its_own_row_and_key_order_and_spacing_do_not_count(
    tmp_path: Path,
) -> None:
    expected = _folder(tmp_path / "e", {"aisle-B.json": json.dumps(AISLE)})
    reordered = _folder(
        tmp_path / "a", {"aisle-B.json": '{ "stock":{"SKU-3301":5,\n"SKU-1100":2}}'}
    )
    assert match_state(reordered, expected).score == 1.0
    short = _folder(
        tmp_path / "short", {"aisle-B.json": '{"stock": {"SKU-3301": 4, "SKU-1100": 2}}'}
    )
    result = match_state(short, expected)
    assert result.score == 0.5
    assert _rows(result) == {
        '["aisle-B.json"].stock["SKU-1100"]': ("match", ""),
        COUNT: ("mismatch", ""),
    }
    # an ignore and a floor reach the row
    assert match_state(short, expected, ignore=[COUNT]).score == 1.0
    floored = match_state(short, expected, fields={COUNT: {"min_score": 1}})
    assert [(f.path, f.score) for f in floored.floor_failures] == [(COUNT, 0.0)]


def test_an_expected_state_written_as_the_files_text_compares_as_data(tmp_path: Path) -> None:
    short = _folder(tmp_path / "a", {"aisle-B.json": '{"stock": {"SKU-3301": 4, "SKU-1100": 2}}'})
    # an old case: the file's text, in another order and spacing
    as_text = {"aisle-B.json": '{"stock": {"SKU-1100": 2,\n  "SKU-3301": 4}}'}
    assert match_state(short, as_text).score == 1.0
    # and an old recording (the run's state read as text) against data
    recorded = {"aisle-B.json": '{"stock": {"SKU-3301": 4, "SKU-1100": 2}}'}
    assert match_state(recorded, {"aisle-B.json": AISLE}).score == 0.5
    run = {"messages": [{"role": "assistant", "content": "done"}], "state": recorded}
    result = match_run(run, expected_state={"aisle-B.json": AISLE})
    assert [f.path for f in result.fields if f.status != "match"] == [f"state{COUNT}"]


def test_a_file_that_does_not_read_is_compared_as_text_its_row_saying_why(
    tmp_path: Path,
) -> None:
    broken = _folder(tmp_path / "a", {"aisle-B.json": "", "dock.yaml": "a: [1\n"})
    expected = {"aisle-B.json": AISLE, "dock.yaml": "a: [1\n"}
    assert _rows(match_state(broken, expected)) == {
        '["aisle-B.json"]': (
            "mismatch",
            "expected object, got string; actual: not JSON (Expecting value: line 1 column 1 "
            "(char 0)): compared as text",
        ),
        '["dock.yaml"]': (
            "match",
            "actual: not YAML (line 2, column 1: invalid YAML: while parsing a flow sequence "
            "did not find expected ',' or ']'): compared as text; expected: not YAML (line 2, "
            "column 1: invalid YAML: while parsing a flow sequence did not find expected ',' "
            "or ']'): compared as text",
        ),
    }
    # in a run, under state
    run = {"messages": [{"role": "assistant", "content": "done"}], "state": {"aisle-B.json": "{"}}
    (row,) = match_run(run, expected_state={"aisle-B.json": AISLE}).fields
    assert (row.path, row.reason) == (
        'state["aisle-B.json"]',
        "expected object, got string; actual: not JSON (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1)): compared as text",
    )


NOT_DATA = [
    ("nan.json", '{"a": NaN}', "not JSON (NaN is not a JSON number): compared as text"),
    (
        "tagged.yaml",
        "a: !!python/object/apply:os.system [touch pwned]\n",
        "not YAML (line 1: tag '!!python/object/apply:os.system' is not "
        "allowed; case files hold plain data (unsafe tags are never executed)): compared "
        "as text",
    ),
    (
        "keys.yaml",
        "1: a\n",
        "not YAML (line 1: key '1' is not a string (JSON keys are strings; quote it: "
        "'1')): compared as text",
    ),
    (
        "rows.csv",
        "sku,qty\nA,1,extra\n",
        "not CSV (line 2 has 3 fields, the header row 2): compared as text",
    ),
    (
        "twice.csv",
        "sku,sku\nA,B\n",
        "not CSV (the header row names a column twice: ['sku', 'sku']): compared as text",
    ),
    ("quote.csv", 'sku\n"A\n', "not CSV (unexpected end of data): compared as text"),
]


@pytest.mark.parametrize(("name", "text", "note"), NOT_DATA, ids=[case[0] for case in NOT_DATA])
def test_what_does_not_read_as_data_stays_text_with_its_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str, note: str
) -> None:
    monkeypatch.chdir(tmp_path)  # (where a tag executed would leave its file)
    root = _folder(tmp_path / "s", {name: text})
    assert read_state(root) == {name: text}  # never executed, never refused
    assert not (tmp_path / "pwned").exists()
    rows = _rows(match_state(root, root))
    assert rows == {f'["{name}"]': ("match", f"actual: {note}; expected: {note}")}


def test_data_nested_past_a_states_depth_stays_text_its_note_cut(tmp_path: Path) -> None:
    text = "[" * 250 + "]" * 250  # a state holds 200 levels (the text was read before)
    root = _folder(tmp_path / "s", {"deep.json": text})
    assert read_state(root) == {"deep.json": text}
    (row,) = match_state(root, {"deep.json": text}).fields
    note = row.reason.split("; expected: ")[0]
    assert note.startswith('actual: read as JSON, its data at ["deep.json"][0][0][0]')
    assert note.endswith("[0][0]: the state nests more than 200 levels deep: compared as text")
    assert "..." in note and len(note) < 300


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib: Python 3.11+")
def test_a_toml_nan_stays_text_as_a_json_nan_does(tmp_path: Path) -> None:
    root = _folder(tmp_path / "s", {"a.toml": "x = nan\n"})
    assert read_state(root) == {"a.toml": "x = nan\n"}
    (row,) = match_state(root, root).fields
    assert row.reason.startswith("actual: not TOML (nan is not a JSON number): compared as text")


def test_yaml_past_its_size_and_aliases_past_their_count_stay_text(tmp_path: Path) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefg", "bcdefgh")
    )
    root = _folder(tmp_path / "bomb", {"bomb.yaml": bomb})
    assert read_state(root) == {"bomb.yaml": bomb}
    (row,) = match_state(root, root).fields
    assert row.reason.split("; expected")[0] == (
        "actual: not YAML (line 6: aliases expand to more than 1,000,000 values; is this an "
        "alias bomb?): compared as text"
    )
    # a state's YAML files past 1 MiB together are all text (the safe reader is slow),
    # alike whether a side is a folder or written as text, whatever the order of its files
    half = "a: " + "x" * (MAX_YAML_CHARS // 2) + "\n"
    files = {"a.yaml": half, "b.yml": half, "c.json": "[1]"}
    root = _folder(tmp_path / "big", files)
    assert read_state(root) == {"a.yaml": half, "b.yml": half, "c.json": [1]}
    result = match_state(root, dict(reversed(files.items())))
    assert result.score == 1.0
    note = (
        "not read as data: the state's YAML files hold more than 1,048,576 characters "
        "together (the safe reader takes seconds a megabyte): compared as text"
    )
    assert {f.path: f.reason for f in result.fields} == {
        '["a.yaml"]': f"actual: {note}; expected: {note}",
        '["b.yml"]': f"actual: {note}; expected: {note}",
        '["c.json"][0]': "",
    }
    # within it, read as data
    small = _folder(tmp_path / "small", {"a.yaml": "a: 1\n", "b.yml": "- x\n"})
    assert read_state(small) == {"a.yaml": {"a": 1}, "b.yml": ["x"]}


def test_the_limits_of_a_state_hold_on_the_data_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state_reading, "MAX_STATE_VALUES", 100)
    # one file's data past the limit: that file is compared as text
    many = json.dumps(list(range(150)))
    root = _folder(tmp_path / "one", {"many.json": many, "rows.csv": "a\n" + "1\n" * 80})
    state = read_state(root)
    assert state["many.json"] == many
    assert state["rows.csv"] == "a\n" + "1\n" * 80
    rows = _rows(match_state(root, root))
    assert rows['["many.json"]'][1].startswith(
        'actual: read as JSON, its data at ["many.json"][99]: the state holds more than 100 '
        "values (the limit for one state;"
    )
    assert rows['["rows.csv"]'][1].startswith(
        "actual: read as CSV, its rows hold more than 100 values (the limit for one state), "
        "past it at line 50: compared as text"
    )
    # files each within it, together past it: the state is refused, naming where
    half = json.dumps(list(range(60)))
    two = _folder(tmp_path / "two", {"a.json": half, "b.json": half})
    with pytest.raises(ConfigError) as raised:
        read_state(two, "actual state")
    assert str(raised.value).startswith(
        'actual state at ["b.json"]: the state holds more than 100 values'
    )
    # and where the files come as text (an old recording), when compared
    with pytest.raises(ConfigError) as raised:
        match_state({"a.json": half, "b.json": half}, {"a.json": []})
    assert str(raised.value).startswith("actual state at $: the state holds more than 100 values")


def _orders(rows: list[tuple[int, str]], declared: str = "items JSON") -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE orders (id INTEGER, {declared})")
    db.executemany("INSERT INTO orders VALUES (?, ?)", rows)
    return db


def test_a_json_column_reads_as_data(tmp_path: Path) -> None:
    stored = '{"sku": "SKU-3301", "qty": 4}'
    rows = [(1, stored), (2, "[1, 2]"), (3, '"a text"'), (4, "{broken"), (5, "plain")]
    want = [
        {"id": 1, "items": {"sku": "SKU-3301", "qty": 4}},
        {"id": 2, "items": [1, 2]},
        {"id": 3, "items": '"a text"'},  # not an object or array: as stored
        {"id": 4, "items": "{broken"},
        {"id": 5, "items": "plain"},
    ]
    assert read_state(_orders(rows)) == {"orders": want}
    # Django's JSONField: a text column checked by json_valid
    django = '"items" text NULL CHECK ((JSON_VALID("items") OR "items" IS NULL))'
    assert read_state(_orders(rows[:1], django)) == {"orders": want[:1]}
    # a column that does not say it holds JSON is read as stored
    assert read_state(_orders(rows[:1], "items TEXT")) == {"orders": [{"id": 1, "items": stored}]}


def test_a_json_column_compares_as_data_whatever_its_key_order_or_form() -> None:
    actual = _orders([(1, '{"sku": "SKU-3301", "qty": 4}')])
    expected = {"orders": [{"id": 1, "items": {"qty": 5, "sku": "SKU-3301"}}]}
    result = match_state(actual, expected)
    assert [(f.path, f.status) for f in result.fields if f.status != "match"] == [
        ("orders[0].items.qty", "mismatch")
    ]
    # an expected state written with the column's text, in another key order, still passes
    as_text = {"orders": [{"id": 1, "items": '{"qty": 4,  "sku": "SKU-3301"}'}]}
    assert match_state(actual, as_text).score == 1.0
    # an old recording holding the text, against the data
    recorded = {"orders": [{"id": 1, "items": '{"sku": "SKU-3301", "qty": 4}'}]}
    assert match_state(recorded, _orders([(1, '{"qty": 4, "sku": "SKU-3301"}')])).score == 1.0
    # a text that opens JSON but does not read, where the other side holds data: said
    broken = {"orders": [{"id": 1, "items": '{"sku": "SKU-3301", "qty": }'}]}
    row = next(f for f in match_state(broken, expected).fields if f.path == "orders[0].items")
    assert row.reason == (
        "expected object, got string; actual: not JSON (Expecting value: line 1 column 28 "
        "(char 27)): compared as text"
    )
