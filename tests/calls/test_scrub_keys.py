"""``scrub=`` reaches mapping keys (a key a ``/REGEX/`` matches is rewritten in the key,
calls/stable_form.py), and ``ignore`` and floors name keys by a glob in a quoted key
(``state["tickets/*"]``, engine/core/paths.py): issue 95's F1, a ticket file named after its
id, as a team writes it, through a real pytest session recorded, re-recorded and replayed."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.calls.stable_form import Scrub, stable_form
from pytest_jsonmatch.engine.core.paths import PathPattern
from tests.helpers.plugin_cases import ARGS, write

AGENT = '''
import json, tempfile, uuid
from pathlib import Path
from pytest_jsonmatch import AgentRun

def agent(input):
    """Opens a ticket named after a fresh id, in a folder that is its end state."""
    folder = Path(tempfile.mkdtemp())
    (folder / "tickets").mkdir()
    ticket = f"TCK-{uuid.uuid4().hex[:8]}"
    (folder / "tickets" / f"{ticket}.json").write_text(json.dumps({"sku": "SKU-3301", "qty": 5}))
    (folder / "aisle-B.json").write_text(json.dumps({"stock": 4}))
    answer = {"ticket_id": ticket, "status": "opened"}
    messages = [input["messages"][0], {"role": "assistant", "content": json.dumps(answer)}]
    return AgentRun(messages, state=folder)
'''

CASES = """
cases:
  - id: restock
    input:
      messages: [{role: user, content: "restock SKU-3301"}]
    expected: {status: opened}
    expected_state:
      aisle-B.json: '{"stock": 4}'
      tickets/<scrubbed>.json: '{"sku": "SKU-3301", "qty": 5}'
"""

INI = """
[pytest]
pythonpath = .
jsonmatch_golden = golden
jsonmatch_target = agent:agent
jsonmatch_record = once scrub=/TCK-[0-9a-f]{8}/
"""


@pytest.fixture
def suite(pytester):
    write(pytester, "agent.py", AGENT)
    write(pytester, "golden/stock.yaml", CASES)
    write(pytester, "pytest.ini", INI)
    return pytester


def _recording(pytester) -> bytes:
    [path] = (pytester.path / "golden" / "__recordings__").rglob("*.json")
    return path.read_bytes()


def test_a_key_holding_an_id_is_scrubbed_recorded_alike_and_replayed(suite):
    assert suite.runpytest_inprocess(*ARGS).ret == 0
    first = _recording(suite)
    assert b"TCK-" not in first  # neither in the answer nor in the state's keys
    # re-recorded: a fresh ticket id, the same bytes
    assert suite.runpytest_inprocess(*ARGS, "--jsonmatch-record=all").ret == 0
    assert _recording(suite) == first
    assert suite.runpytest_inprocess(*ARGS, "--jsonmatch-record=none").ret == 0


def test_ignore_and_floors_name_keys_by_a_glob(suite):
    write(suite, "golden/stock.yaml", CASES.replace('"qty": 5', '"qty": 6'))
    result = suite.runpytest_inprocess(*ARGS)
    assert result.ret == 1  # the ticket's text differs: below the threshold
    cases = CASES.replace('"qty": 5', '"qty": 6').replace(
        "    expected: {status: opened}",
        "    expected: {status: opened}\n    options: {ignore: ['state[\"tickets/*\"]']}",
    )
    write(suite, "golden/stock.yaml", cases)
    assert suite.runpytest_inprocess(*ARGS, "--jsonmatch-record=none").ret == 0


def test_keys_rewritten_alike_are_told_apart_by_their_values_not_their_ids():
    scrub = Scrub.parse("/TCK-[0-9a-f]{8}/", "s")
    one = {"tickets/TCK-0000000a.json": {"q": 2}, "tickets/TCK-0000000b.json": {"q": 1}}
    other = {"tickets/TCK-ffffffff.json": {"q": 1}, "tickets/TCK-11111111.json": {"q": 2}}
    form = stable_form(one, scrub)
    assert form == {"tickets/<scrubbed>.json": {"q": 1}, "tickets/<scrubbed>.json#2": {"q": 2}}
    assert json.dumps(stable_form(other, scrub)) == json.dumps(form)  # same bytes, same order
    assert stable_form(form, scrub) == form  # idempotent


@pytest.mark.parametrize(
    ("pattern", "path", "takes"),
    [
        ('state["tickets/*"]', 'state["tickets/TCK-1.json"]', True),
        ('state["tickets/*"]', "state.tickets", False),
        ('state["tickets/*.json"].qty', 'state["tickets/a.json"].qty', True),
        ('state["tickets/*.json"].qty', 'state["tickets/a.yaml"].qty', False),
        ('**["TCK-*"]', 'a.b["TCK-9"]', True),
        ('["a\\\\*b"]', '["a*b"]', True),  # an escaped star is a star itself
        ('["a\\\\*b"]', '["axb"]', False),
        ('["*a*b"]', '["xaxxb"]', True),
        ('["*a*b"]', '["xaxxba"]', False),
    ],
)
def test_a_star_in_a_quoted_key_is_any_run_of_characters(pattern, path, takes):
    assert PathPattern(pattern).matches(path) is takes


def test_a_glob_from_a_data_file_takes_time_linear_in_the_key():
    """A case file's ``ignore`` is data: a glob of many stars against a long key a model
    wrote must not backtrack (a regular expression of ``.*``s would take minutes)."""
    glob = '["' + "*a" * 60 + 'b"]'
    key = '["' + "a" * 200_000 + '"]'
    assert PathPattern(glob).matches(key) is False


def test_a_floor_names_keys_by_a_glob():
    from pytest_jsonmatch import assert_json_match

    expected = {"tickets/a.json": {"qty": 5}, "tickets/b.json": {"qty": 1}, "note": "x"}
    actual = {"tickets/a.json": {"qty": 4}, "tickets/b.json": {"qty": 1}, "note": "x"}
    floors = {'["tickets/*"].qty': {"min_score": 1.0}}
    with pytest.raises(AssertionError, match=r"tickets/a.json.*qty"):
        assert_json_match(actual, expected, threshold=0.0, fields=floors)
    assert_json_match(
        actual, expected, threshold=0.0, fields={'["other/*"].qty': {"min_score": 1.0}}
    )
