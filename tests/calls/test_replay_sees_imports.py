"""Replay that sees the tools (issue 95, F3): an agent's tools live in ``warehouse.py``,
imported by the target's module ``agent.py``; a regression in a tool makes every recording
stale, named by the module, under ``once`` (re-recorded: the regression is scored) and under
``none`` (the case fails naming it). Through real pytest sessions, in process: a package with
relative imports, named targets, a hook in conftest.py, ``files=`` naming the module too, a
recording made before imports counted, a module imported for type checkers only."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.calls import project_imports
from tests.helpers.plugin_cases import ARGS, write

AGENT = """
import json
from typing import TYPE_CHECKING

from pytest_jsonmatch import AgentRun
from warehouse import Warehouse

if TYPE_CHECKING:
    import hints


def agent(input):
    house = Warehouse({"SKU-3301": 4})
    result = house.receive("SKU-3301", 5)
    call = {"id": "c1", "type": "function",
            "function": {"name": "receive", "arguments": json.dumps({"sku": "SKU-3301", "qty": 5})}}
    messages = [
        input["messages"][0],
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(result)},
        {"role": "assistant", "content": json.dumps({"status": "received"})},
    ]
    return AgentRun(messages, state=house)
"""

WAREHOUSE = """
class Warehouse:
    def __init__(self, stock):
        self.stock = dict(stock)

    def receive(self, sku, qty):
        self.stock[sku] = self.stock.get(sku, 0) + qty
        return {"sku": sku, "stock": self.stock[sku]}
"""
# the regression a team made: the tool overwrites the count instead of adding to it
OVERWRITES = WAREHOUSE.replace("self.stock.get(sku, 0) + qty", "qty")

CASES = """
cases:
  - id: restock
    input:
      messages: [{role: user, content: "receive 5 of SKU-3301"}]
    expected: {status: received}
    expected_state: {stock: {SKU-3301: 9}}
"""

INI = """
[pytest]
pythonpath = .
jsonmatch_golden = golden
jsonmatch_target = agent:agent
"""

RECORDING = "golden/__recordings__/stock.yaml/restock.json"


def _stale(changed: str, recording: str = RECORDING) -> str:
    return (
        f"the recording {recording} is stale ({changed} changed since it was recorded): "
        f"re-record it with --jsonmatch-record=once"
    )


@pytest.fixture
def suite(pytester):
    write(pytester, "agent.py", AGENT)
    write(pytester, "warehouse.py", WAREHOUSE)
    write(pytester, "hints.py", "Stock = dict\n")
    write(pytester, "notes.py", "NOTE = 1\n")  # imported by nothing
    write(pytester, "golden/stock.yaml", CASES)
    write(pytester, "pytest.ini", INI)
    return pytester


def _run(pytester, record, *flags):
    """The session's result and each comparison's (source, recording, status, error)."""
    result = pytester.runpytest_inprocess(
        *ARGS, f"--jsonmatch-record={record}", "--jsonmatch-report=r.json", *flags
    )
    report = json.loads((pytester.path / "r.json").read_text())
    rows = [(c["source"], c["recording"], c["status"], c["error"]) for c in report["comparisons"]]
    return result, rows


def _fingerprint(pytester, recording=RECORDING):
    return json.loads((pytester.path / recording).read_text())["fingerprint"]


def test_a_tool_regression_in_an_imported_module_makes_replay_stale(suite):
    result, rows = _run(suite, "once")
    result.assert_outcomes(passed=1)
    assert list(_fingerprint(suite)["imports"]) == ["warehouse.py"]  # not hints.py, notes.py
    # edits to a module imported for type checkers only, or by nothing: it still replays
    write(suite, "hints.py", "Stock = list\n")
    write(suite, "notes.py", "NOTE = 2\n")
    assert _run(suite, "none")[1] == [("replayed", "", "passed", "")]
    write(suite, "warehouse.py", OVERWRITES)
    result, rows = _run(suite, "none")
    result.assert_outcomes(failed=1)
    assert rows == [("live", "", "error", _stale("module warehouse.py (imported by the target)"))]
    # once calls the agent again: the regression is scored, and recorded
    result, rows = _run(suite, "once")
    result.assert_outcomes(failed=1)
    assert rows == [("live", "stale", "failed", "")]
    assert _run(suite, "none")[1] == [("replayed", "", "failed", "")]


def test_a_recording_made_before_imports_counted_is_stale_once(suite):
    _run(suite, "once")
    path = suite.path / RECORDING
    recording = json.loads(path.read_text())
    del recording["fingerprint"]["imports"]
    path.write_text(json.dumps(recording, indent=2))
    result, rows = _run(suite, "none")
    result.assert_outcomes(failed=1)
    assert rows[0][3] == _stale(
        "module warehouse.py (imported by the target; the recording holds no digest of it)"
    )
    assert _run(suite, "once")[1] == [("live", "stale", "passed", "")]
    assert _run(suite, "none")[1] == [("replayed", "", "passed", "")]


def test_a_module_files_names_is_held_there_alone(suite):
    # the workaround a team used before: files= names the tool module; it stays a file
    result, _ = _run(suite, "once files=warehouse.py")
    result.assert_outcomes(passed=1)
    fingerprint = _fingerprint(suite)
    assert list(fingerprint["files"]) == ["warehouse.py"] and "imports" not in fingerprint
    write(suite, "warehouse.py", OVERWRITES)
    _, rows = _run(suite, "none files=warehouse.py")
    assert rows[0][3] == _stale("file warehouse.py")


PACKAGE = {
    "shop/__init__.py": "",
    "shop/agent.py": AGENT.replace("from warehouse import", "from .tools.warehouse import"),
    "shop/tools/__init__.py": "from . import units\n",
    "shop/tools/units.py": "UNIT = 'each'\n",
    "shop/tools/warehouse.py": "from ..db import connect\n" + WAREHOUSE,
    "shop/db.py": "def connect():\n    return None\n",
    "hints.py": "",
}


def test_a_package_with_relative_imports_and_named_targets(pytester):
    # two named targets in a package: each recording is held to the modules its module
    # imports, through the packages' __init__.py and relative imports
    for name, text in PACKAGE.items():
        write(pytester, name, text)
    write(pytester, "golden/stock.yaml", CASES)
    write(
        pytester,
        "pytest.ini",
        INI.replace(
            "jsonmatch_target = agent:agent",
            "jsonmatch_targets =\n    a = shop.agent:agent\n    b = shop.agent:agent",
        ),
    )
    _run(pytester, "once")[0].assert_outcomes(passed=2)
    recording = "golden/__recordings__/stock.yaml/restock[a].json"
    assert list(_fingerprint(pytester, recording)["imports"]) == [
        "shop/__init__.py",
        "shop/db.py",
        "shop/tools/__init__.py",
        "shop/tools/units.py",
        "shop/tools/warehouse.py",
    ]
    write(pytester, "shop/db.py", "def connect():\n    return 1\n")
    result, rows = _run(pytester, "none")
    result.assert_outcomes(failed=2)
    assert [row[3] for row in rows] == [
        _stale("module shop/db.py (imported by the target)", recording),
        _stale("module shop/db.py (imported by the target)", recording.replace("[a]", "[b]")),
    ]


HOOK = """
from warehouse import Warehouse
import agent


def pytest_jsonmatch_target(case, config, target):
    return agent.agent(case.input)
"""


def test_the_modules_a_hook_in_conftest_imports_count(suite):
    write(suite, "conftest.py", HOOK)
    write(suite, "pytest.ini", INI.replace("jsonmatch_target = agent:agent\n", ""))
    _run(suite, "once")[0].assert_outcomes(passed=1)
    assert list(_fingerprint(suite)["imports"]) == ["agent.py", "warehouse.py"]
    write(suite, "warehouse.py", OVERWRITES)
    assert _run(suite, "none")[1][0][3] == _stale("module warehouse.py (imported by the target)")


def test_a_session_that_records_nothing_reads_no_import(suite, monkeypatch):
    # under off, the report's provenance takes the fingerprint: its imports are never read
    walks = []
    real = project_imports.project_modules
    monkeypatch.setattr(project_imports, "project_modules", lambda *a: walks.append(a) or real(*a))
    _run(suite, "off")[0].assert_outcomes(passed=1)
    assert walks == []
    _run(suite, "once")[0].assert_outcomes(passed=1)
    assert len(walks) == 1
