"""BFCL's multi-turn verdict: the same verdict as BFCL's own ``multi_turn_checker``.

The differential test runs BFCL's checker (``bfcl_eval``, installed with ``--no-deps``) and
``bfcl_multi_turn_verdict`` over every entry of the four multi-turn categories with every
kind of model output tests/helpers/bfcl_multi_turn_entries.py makes from the ground truth
(correct, reordered, dropped, an argument changed, an extra read-only call, an extra
state-changing call, a call in the wrong turn, calls where none are expected). BFCL's classes
keep state between entries, so the reference is BFCL's checker on each check in a fresh
process (``FreshChecks``), with every turn checked by BFCL's own functions on BFCL's own
execution there; ours scores every check of a category in this one process, in order. The
verdict and BFCL's error type must be equal on every one, and each turn's checking (right,
error type, differing attributes, missing results, both sides' results), on all 800 entries
(MathAPI's environment imports ``mpmath``, which ``--no-deps`` leaves out: the test extra
holds it); a second pass then scores every entry again, in the other order, with one of its
outputs, and must give the first pass's verdict and turns; benchmarks/bfcl_multi_turn_full.py runs
the same set as a script. The other tests hold the executor's result texts to BFCL's own
execution, and the per-turn credit and fields to hand-worked examples.
"""

from __future__ import annotations

import collections
import sys
from typing import Any

import pytest

pytest.importorskip("bfcl_eval", reason="pip install --no-deps bfcl-eval")

from pytest_jsonmatch import (
    BfclMultiTurnVerdict,
    ConfigError,
    bfcl_multi_turn_verdict,
)
from pytest_jsonmatch.engine.bfcl.bfcl_execution import (
    BfclEnvironment,
    environment_class,
)
from tests.helpers.bfcl_multi_turn_entries import (
    CATEGORIES,
    KINDS,
    FreshChecks,
    entries,
    loadable,
    output,
    theirs,
)

pytestmark = pytest.mark.slow  # every entry of four categories, 8 outputs each


def _ours(entry: dict[str, Any], truth: list, turns: list) -> dict[str, Any]:
    """Our verdict on one check, in the form of ``FreshChecks``' answers (JSON's lists)."""
    verdict = bfcl_multi_turn_verdict(entry, turns, truth)
    rows = verdict.checked_turns.rows if verdict.checked_turns is not None else []
    return {
        "verdict": [verdict.valid, verdict.problem],
        "turns": [
            [r[0], r[1], list(r[2]), list(r[3]), [list(step) for step in r[6]], list(r[7])]
            for r in rows
        ],
        "verdict object": verdict,
    }


@pytest.mark.whole_reference
@pytest.mark.parametrize("category", CATEGORIES)
def test_the_verdict_and_each_turn_are_bfcls_in_a_fresh_process(category: str) -> None:
    checks = [(e, t, output(e, t, kind)) for e, t in entries(category) for kind in KINDS]
    assert all(loadable(entry) for entry, _, _ in checks[:: len(KINDS)])
    reference = FreshChecks(checks)  # (runs beside ours, in its own processes)
    first = [_ours(*check) for check in checks]
    counts: collections.Counter[str] = collections.Counter()
    differ, turns_differ = [], []
    for index, ((entry, _, _), kind, ours, bfcl) in enumerate(
        zip(checks, KINDS * 200, first, reference.result())
    ):
        counts[kind] += 1
        counts[f"{kind} valid"] += ours["verdict"][0]
        if ours["verdict"] != bfcl["verdict"]:
            differ.append((entry["id"], kind, bfcl["verdict"], ours["verdict"]))
        if ours["turns"] != bfcl["turns"]:
            turns_differ.append((entry["id"], kind))
        # (a failed turn's fields read on every 4th entry: reading executes it again)
        _check_beside(ours["verdict object"], index // len(KINDS) % 4 == 0)
    assert differ == []
    assert turns_differ == []
    # every entry (200) is checked with every kind: MathAPI's (25 a category) need mpmath,
    # in the test extra
    assert all(counts[kind] == 200 for kind in KINDS)
    # the correct outputs pass and none of the dropped ones do, except where BFCL's own
    # rules let one through (a dropped read-only call whose result is not compared)
    assert counts["correct valid"] == counts["correct"]
    assert counts["dropped valid"] <= 1
    # a second pass, after all of the first, in the other order: every entry again with one
    # of its outputs (the i-th entry's i-th kind, so 25 entries of each kind), the same
    again = [
        (index, _ours(*checks[index]))
        for entry_index in reversed(range(len(checks) // len(KINDS)))
        for index in [entry_index * len(KINDS) + entry_index % len(KINDS)]
    ]
    assert [(i, o["verdict"], o["turns"]) for i, o in again] == [
        (i, first[i]["verdict"], first[i]["turns"]) for i, _ in again
    ]


def _check_beside(verdict: BfclMultiTurnVerdict, read_fields: bool) -> None:
    """What stands beside the verdict agrees with it (and the failed turn's fields say what
    differed, where ``read_fields``)."""
    assert 0.0 <= verdict.score <= 1.0
    checked = [turn for turn in verdict.turns if turn.checked]
    assert verdict.valid == all(turn.right for turn in checked)
    if not verdict.valid:
        failed = verdict.turns[verdict.failed_turn]
        assert failed.problem == verdict.problem
        if not read_fields:
            return
        assert failed.fields, "a failed turn says what differed"
        assert all(f.path.startswith(f"turns[{failed.index}]") for f in failed.fields)


# -- one entry worked by hand ---------------------------------------------------------------

FIRST, TRUTH = next(item for item in entries("base") if item[0]["id"] == "multi_turn_base_0")


def one_step(turns: list[list[str]]) -> list[list[list[str]]]:
    """The ground truth as a model's turns, one step each (copies: a test may change them)."""
    return [[list(turn)] if turn else [] for turn in turns]


def test_the_first_base_entry_correct() -> None:
    verdict = bfcl_multi_turn_verdict(FIRST, one_step(TRUTH), TRUTH)
    assert (verdict.valid, verdict.problem, verdict.failed_turn) == (True, None, None)
    assert [turn.problem for turn in verdict.turns] == [None] * len(TRUTH)
    assert verdict.score == 1.0 and verdict.fields == ()


def test_an_empty_turn_fails_there_and_the_rest_keeps_its_credit() -> None:
    # turn 2 of 4 asks for sort('final_report.pdf'); the model does nothing in it. BFCL
    # stops there; turns 0, 1 and 3 are right (sort changes no state, and its result is
    # not asked for later): per-turn credit 3/4
    turns = one_step(TRUTH)
    turns[2] = []
    verdict = bfcl_multi_turn_verdict(FIRST, turns, TRUTH)
    assert (verdict.valid, verdict.problem, verdict.failed_turn) == (
        False,
        "multi_turn:empty_turn_model_response",
        2,
    )
    assert [turn.right for turn in verdict.turns] == [True, True, False, True]
    assert verdict.score == 0.75
    (field,) = verdict.fields
    assert (field.path, field.status, field.expected) == (
        "turns[2]",
        "omission",
        ["sort('final_report.pdf')"],
    )


def test_an_extra_directory_is_named_by_its_path_in_every_later_turn() -> None:
    turns = one_step(TRUTH)
    turns[1][0].append("mkdir(dir_name='extra')")
    verdict = bfcl_multi_turn_verdict(FIRST, turns, TRUTH)
    assert (verdict.valid, verdict.problem, verdict.failed_turn) == (
        False,
        "multi_turn:instance_state_mismatch",
        1,
    )
    # the extra folder stays: turns 1, 2 and 3 are wrong, turn 0 right: 1/4
    assert verdict.score == 0.25
    assert verdict.turns[1].differing == ("GorillaFileSystem.root",)
    paths = [(f.path, f.status) for f in verdict.turns[1].fields]
    # the model is in document/temp after turn 1's cd
    assert paths == [
        (
            "turns[1].GorillaFileSystem.root.contents.document.contents.temp.contents.extra",
            "hallucination",
        ),
    ]
    assert verdict.turns[1].fields[0].actual == {
        "name": "extra",
        "parent": "<ref GorillaFileSystem.root.contents.document.contents.temp>",
        "contents": {},
    }


def test_a_missing_result_is_named_by_its_place() -> None:
    # turn 1's grep is called with another pattern: the state is the same, its result is not
    truth_grep = TRUTH[1][1]
    turns = one_step(TRUTH)
    turns[1][0][1] = "grep(file_name='final_report.pdf',pattern='no such words')"
    verdict = bfcl_multi_turn_verdict(FIRST, turns, TRUTH)
    assert (verdict.valid, verdict.problem, verdict.failed_turn) == (
        False,
        "multi_turn:execution_response_mismatch",
        1,
    )
    assert theirs(FIRST, turns, TRUTH) == (False, "multi_turn:execution_response_mismatch")
    (field,) = verdict.turns[1].fields
    assert (field.path, field.field_path, field.status) == (
        "turns[1].execution_results[1]",
        "turns[].execution_results[]",
        "omission",
    )
    assert field.expected == verdict.turns[1].expected_results[1]
    assert "budget analysis" in field.expected and truth_grep.startswith("grep(")


def test_calls_where_none_are_expected_cost_credit_not_the_verdict() -> None:
    # a turn whose ground truth is empty is not checked by BFCL's multi-turn verdict; a call
    # that changes nothing there leaves the entry valid, and the turn wrong in the credit
    truth = [*TRUTH, []]
    turns = [*one_step(TRUTH), [["pwd()"]]]
    verdict = bfcl_multi_turn_verdict(FIRST, turns, truth)
    assert verdict.valid is True
    assert theirs(FIRST, turns, truth) == (True, None)
    assert [turn.right for turn in verdict.turns] == [True, True, True, True, False]
    assert verdict.score == 0.8
    (field,) = verdict.fields
    assert (field.path, field.status, field.actual) == (
        "turns[4].calls",
        "hallucination",
        [["pwd()"]],
    )


def test_a_turn_count_that_differs_is_bfcls_force_terminated() -> None:
    verdict = bfcl_multi_turn_verdict(FIRST, one_step(TRUTH)[:2], TRUTH)
    assert (verdict.valid, verdict.problem, verdict.turns, verdict.score) == (
        False,
        "multi_turn:force_terminated",
        (),
        0.0,
    )


# -- the executor against BFCL's execution --------------------------------------------------

ODD_CALLS = [
    "pwd()",
    "  ls(a=True)",  # eval drops leading blanks
    "cd(folder='document')",
    "cd(folder='no such folder')",
    "ls(bad=1)",  # a TypeError from the method's signature
    "no_such_tool(x=1)",
    "ls(",  # a syntax error
    "kill()",  # refused by name
    "remove(x=1)",
    "touch(file_name='note.txt')",
    "echo(content='then ls() again', file_name='note.txt')",  # the rewrite enters literals
    "cat(file_name='note.txt')",
    "'plain text'",
    "[1, 2]",
    "cd('..')",
    "ls()",
]


def test_result_texts_are_bfcls() -> None:
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    ours = BfclEnvironment(
        FIRST["id"], FIRST["involved_classes"], FIRST["initial_config"], False, "jm_eval"
    )
    try:
        expected, _ = multi_turn_utils.execute_multi_turn_func_call(
            ODD_CALLS,
            FIRST["initial_config"],
            FIRST["involved_classes"],
            "jm",
            FIRST["id"],
            long_context=False,
            is_evaL_run=True,
        )
    finally:
        kept = vars(multi_turn_utils)
        for key in [key for key in kept if key.startswith("jm_eval_")]:
            del kept[key]
    assert ours.execute(ODD_CALLS) == expected
    assert "Error during execution: name 'no_such_tool' is not defined" in expected
    assert "Error during execution: Function call kill is not allowed." in expected


@pytest.mark.parametrize(
    ("call", "why"),
    [
        ("cat(file_name=pwd())", "not 'jm_eval_multi_turn_base_0_GorillaFileSystem_instance"),
        ("__import__('os')", "name '__import__' is not defined"),
        ("ls(**{'a': True})", "literal arguments are executed, not"),
        ("1 + 1", "literal arguments are executed, not '1 + 1'"),
    ],
)
def test_what_bfcls_eval_would_run_is_not_run(call: str, why: str) -> None:
    environment = BfclEnvironment(
        FIRST["id"], FIRST["involved_classes"], FIRST["initial_config"], False, "jm_eval"
    )
    (result,) = environment.execute([call])
    assert result.startswith("Error during execution: ") and why in result


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "turns", "truth", "message"),
    [
        ("entry", [], [], "a BFCL entry must be a mapping"),
        ({"id": 3}, [], [], "the BFCL entry's id must be text, not 3"),
        (
            {"id": "e", "involved_classes": "X", "initial_config": {}},
            [],
            [],
            "involved_classes must be a list of class names",
        ),
        (
            {"id": "e", "involved_classes": [], "initial_config": []},
            [],
            [],
            "initial_config must be an object",
        ),
        (FIRST, "ls()", TRUTH, r"decoded_turns: must be a list of turns, not 'ls\(\)'"),
        (FIRST, [[["ls()"]], [[7]]], TRUTH, r"decoded_turns\[1\]\[0\]\[0\]: a call must be text"),
        (FIRST, [[["ls()"]]], [["ls()"], "pwd()"], r"ground_truth\[1\]: must be a list"),
        (
            {**FIRST, "initial_config": {"GorillaFileSystem": {"root": {1, 2}}}},
            [[["ls()"]]],
            [["ls()"]],
            r"BFCL entry 'multi_turn_base_0': initial_config is not JSON \(Object of type set",
        ),
    ],
)
def test_bad_input_is_a_config_error(entry, turns, truth, message) -> None:
    with pytest.raises(ConfigError, match=message):
        bfcl_multi_turn_verdict(entry, turns, truth)


def test_an_initial_config_the_environment_cannot_load() -> None:
    entry = {**FIRST, "initial_config": {"GorillaFileSystem": {"root": 7}}}
    with pytest.raises(ConfigError, match="GorillaFileSystem's initial_config cannot be loaded"):
        bfcl_multi_turn_verdict(entry, one_step(TRUTH), TRUTH)


def test_an_unknown_environment_class() -> None:
    with pytest.raises(ConfigError, match="BFCL has no environment class 'Nope': its classes"):
        environment_class("Nope")


def test_without_bfcl_eval_the_error_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bfcl_eval.constants.executable_backend_config", None)
    with pytest.raises(ConfigError, match=r'pip install --no-deps "bfcl-eval==2026.3.23"'):
        bfcl_multi_turn_verdict(FIRST, one_step(TRUTH), TRUTH)
