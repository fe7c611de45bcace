"""What a report records of its settings reads back to the same settings (reporting/
provenance.py: ``jsonmatch merge`` judges by them), and what differs between two runs'
provenance is named."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.reporting.verdicts.gates import gate_settings
from pytest_jsonmatch.reporting.verdicts.provenance import (
    gate_texts,
    golden_provenance,
    provenance_changes,
    reference_text,
    target_provenance,
)
from pytest_jsonmatch.reporting.verdicts.versus import parse_reference


def _gates(texts):
    return gate_settings(
        fail_under=texts.get("fail_under", ""),
        floor_lines=texts.get("field_floors", []),
        drop_parts=[(texts.get("max_drop", ""), "jsonmatch_gates max_drop")],
        case_parts=[(texts.get("max_case_drop", ""), "jsonmatch_gates max_case_drop")],
        prefix="jsonmatch_",
        min_valid=texts.get("min_valid", ""),
    )


@pytest.mark.parametrize(
    "fail_under, floors, drop, case, valid",
    [
        ("", [], "0", "", ""),
        ("0.1234567890123", ["items[].sku=0.9", 'field_f1:["a:b"]=0.3', "strict"], "", "", ""),
        ("1", ["*=0.5"], "0.02 strict", "0.1 allow=3", "0.95"),
        ("0", [], "0.3", "allow=2", "0"),
    ],
)
def test_the_gates_recorded_read_back_to_the_same_gates(fail_under, floors, drop, case, valid):
    given = gate_settings(
        fail_under=fail_under,
        floor_lines=floors,
        drop_parts=[(drop, "jsonmatch_gates max_drop")],
        case_parts=[(case, "jsonmatch_gates max_case_drop")],
        prefix="jsonmatch_",
        min_valid=valid,
    )
    assert _gates(gate_texts(given)) == given


@pytest.mark.parametrize(
    "text",
    ["", "base", "base latency_p95=1.25x cost=0.5", "b total_cost=0.1234567 latency_p95=2.5s"],
)
def test_the_reference_recorded_reads_back_to_the_same(text):
    given = parse_reference(text)
    assert parse_reference(reference_text(given)) == given


def test_what_differs_between_two_runs_provenance_is_named():
    one = target_provenance({"llm.py": "1"}, {"prompt.txt": "a"}, {"model": "m1"})
    two = target_provenance({"llm.py": "1"}, {"prompt.txt": "b"}, {"model": "m2"})
    before = {
        **golden_provenance({"a.yaml": "x", "b.yaml": "y"}),
        "targets": {"t": one},
        "judge": "j1",
    }
    after = {
        **golden_provenance({"a.yaml": "x", "b.yaml": "z"}),
        "targets": {"t": two},
        "judge": "j2",
    }
    assert provenance_changes(before, after) == [
        "different prompt version: target t: file prompt.txt, the declared fingerprint",
        "different golden set: 1 case file differs: b.yaml",
        "different judge: fingerprint j1 and j2",
    ]
    assert provenance_changes(before, before) == []
    # a run that records nothing of a part (an older report; anything read back) says nothing
    assert provenance_changes(None, after) == provenance_changes({"targets": 3}, after) == []


def test_merged_shards_keep_the_network_block_they_all_ran_under():
    from pytest_jsonmatch.reporting.verdicts.provenance import joined_parts

    offline = {"offline": {"allowed": ["127.0.0.1"]}}
    assert joined_parts([("s1.json", offline), ("s2.json", offline)])["offline"] == {
        "allowed": ["127.0.0.1"]
    }
    assert "offline" not in joined_parts([("s1.json", {}), ("s2.json", {})])
    # one shard online, or other hosts allowed: the merged run could not say it was offline
    with pytest.raises(ValueError) as caught:
        joined_parts([("s1.json", offline), ("s2.json", {})])
    assert str(caught.value) == (
        "the shards ran with different network blocks: s1.json (offline, allowed: "
        '["127.0.0.1"]) and s2.json (not offline)'
    )
    hostile = {"offline": {"allowed": ["a\nb\x1b[2J"]}}
    with pytest.raises(ValueError, match="different network blocks") as caught:
        joined_parts([("s1.json", offline), ("s2.json", hostile)])
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)
