"""A golden suite whose agent leaves its end state as a folder of JSON files (one per
location) and a database with a JSON column, as a user writes it: each file's fields are
rows (``state["aisle-B.json"].stock["SKU-3301"]``), an ``ignore`` and a ``min_score`` floor
reach them, key order and spacing do not count, an expected state written as the file's
text still passes, and a file that is not JSON is compared as text, its row saying so
(docs/agents.md, "End states read as data")."""

from __future__ import annotations

from tests.helpers.plugin_cases import ARGS, write

AGENT = """
import pathlib, sqlite3, tempfile
from pytest_jsonmatch import AgentRun

MESSAGES = [{"role": "user", "content": "count aisle B"}, {"role": "assistant", "content": "done"}]

def agent(case_input):
    if "orders" in case_input:  # a database whose items column is declared JSON
        db = sqlite3.connect(":memory:")
        db.execute("CREATE TABLE orders (id INTEGER, items JSON)")
        db.executemany("INSERT INTO orders VALUES (?, ?)", enumerate(case_input["orders"]))
        return AgentRun(messages=MESSAGES, state=db)
    root = pathlib.Path(tempfile.mkdtemp())
    (root / "aisle-B.json").write_text(case_input["aisle"], encoding="utf-8")
    (root / "log.txt").write_text("counted", encoding="utf-8")
    return AgentRun(messages=MESSAGES, state=root)
"""

# what the agent writes: SKU-3301 counted 4 where 5 are on the shelf
SHORT = '{"stock": {"SKU-1100": 2, "SKU-3301": 4}}'

CASES = """
cases:
  - id: short
    input: {aisle: '{short}'}
    expected_state:
      aisle-B.json: {stock: {SKU-1100: 2, SKU-3301: 5}}
      log.txt: counted
  - id: reordered
    input: {aisle: '{ "stock" : {"SKU-3301":5,   "SKU-1100":2} }'}
    expected_state:
      aisle-B.json: {stock: {SKU-1100: 2, SKU-3301: 5}}
      log.txt: counted
  - id: ignored
    input: {aisle: '{short}'}
    options: {ignore: ['state["aisle-B.json"].stock["SKU-3301"]']}
    expected_state:
      aisle-B.json: {stock: {SKU-1100: 2, SKU-3301: 5}}
      log.txt: counted
  - id: floored
    threshold: 0.5
    input: {aisle: '{short}'}
    options: {fields: {'state["aisle-B.json"].stock["SKU-3301"]': {min_score: 1}}}
    expected_state:
      aisle-B.json: {stock: {SKU-1100: 2, SKU-3301: 5}}
      log.txt: counted
  - id: written_as_text
    input: {aisle: '{short}'}
    expected_state:
      aisle-B.json: '{"stock": {"SKU-3301": 4,   "SKU-1100": 2}}'
      log.txt: counted
  - id: broken
    input: {aisle: '{"stock": {"SKU-3301": 4'}
    expected_state:
      aisle-B.json: {stock: {SKU-3301: 5}}
      log.txt: counted
  - id: json_column
    input: {orders: ['{"sku": "SKU-3301", "qty": 4}']}
    expected_state: {orders: [{id: 0, items: {qty: 5, sku: SKU-3301}}]}
  - id: json_column_reordered
    input: {orders: ['{"sku": "SKU-3301", "qty": 5}']}
    options: {fields: {'state.orders[].items.qty': {min_score: 1}}}
    expected_state: {orders: [{id: 0, items: '{"qty": 5, "sku": "SKU-3301"}'}]}
""".replace("{short}", SHORT)


def test_a_folder_of_json_files_is_scored_field_by_field(pytester):
    write(pytester, "agent.py", AGENT)
    write(pytester, "warehouse.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS, "-v", "-rA")
    outcomes = {
        line.split()[0].split("::")[1]: line.split()[1]
        for line in result.outlines
        if line.startswith("warehouse.jsonmatch.yaml::") and "%]" in line
    }
    assert outcomes == {
        "short": "FAILED",
        "reordered": "PASSED",
        "ignored": "PASSED",
        "floored": "FAILED",
        "written_as_text": "PASSED",
        "broken": "FAILED",
        "json_column": "FAILED",
        "json_column_reordered": "PASSED",
    }
    lines = result.outlines
    # short: 3 rows (the 2 counts, log.txt), the count wrong: F1 2/3; its row named
    assert (
        "state: score 0.6667 < threshold 1.0000 (precision 0.6667, recall 0.6667, F1 0.6667)"
        in lines
    )
    assert (
        '  state["aisle-B.json"].stock["SKU-3301"]  mismatch       score 0.00  expected 5  actual 4'
        in lines
    )
    # floored: above its threshold, held by the floor on the one count
    assert '  state["aisle-B.json"].stock["SKU-3301"]: score 0.00 < min_score 1' in lines
    # broken: compared as text, its row saying why
    assert (
        '  state["aisle-B.json"]  mismatch       score 0.00  expected {"stock": {"SKU-3301": 5}}  '
        'actual "{\\"stock\\": {\\"SKU-3301\\": 4"  (expected object, got string; actual: not JSON '
        "(Expecting ',' delimiter: line 1 column 25 (char 24)): compared as text)"
    ) in lines
    # the JSON column: its fields are rows
    assert "  state.orders[0].items.qty  mismatch       score 0.00  expected 5  actual 4" in lines
