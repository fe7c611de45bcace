"""BFCL's multi-turn entries (from the installed ``bfcl-eval``), model outputs made from their
ground truth, and BFCL's own ``multi_turn_checker`` run on them. Shared by the differential
test (tests/engine/bfcl/test_bfcl_multi_turn.py) and the full run
(benchmarks/bfcl_multi_turn_full.py).

A model output is a list per turn of steps, each a list of call texts. Every kind is made
from the ground truth, its choices drawn from a generator seeded by the entry's id and the
kind, so that each run makes the same outputs:

- ``correct``: each turn's ground-truth calls as one step (a turn with none: no step);
- ``reordered``: one turn's calls in another order (a turn of two or more different calls;
  an entry with none gives the correct output);
- ``dropped``: one call left out of one turn;
- ``argument``: one argument of one call changed (text gets ``_x`` appended, a number 1
  added, a boolean flipped, a list one more item, an object one more key);
- ``extra_read``: a call that reads the state (``pwd()``, ``get_current_time()``, ... of an
  involved class, the table below) put at a drawn place of a drawn turn;
- ``extra_write``: a call that changes the state (``mkdir(...)``, ``add_to_watchlist(...)``,
  ...) put the same way;
- ``wrong_turn``: the first call of a turn moved to the end of the turn before it;
- ``unexpected``: calls in a turn where the ground truth makes none (the next turn's calls,
  made early), or where every turn has calls, a second step in the last turn repeating its
  calls.
"""

from __future__ import annotations

import ast
import copy
import datetime
import importlib
import itertools
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
KINDS = (
    "correct",
    "reordered",
    "dropped",
    "argument",
    "extra_read",
    "extra_write",
    "wrong_turn",
    "unexpected",
)
READS = {
    "GorillaFileSystem": "pwd()",
    "MathAPI": "absolute_value(number=-2)",
    "MessageAPI": "list_users()",
    "TwitterAPI": "posting_get_login_status()",
    "TicketAPI": "ticket_get_login_status()",
    "TradingBot": "get_current_time()",
    "TravelAPI": "list_all_airports()",
    "VehicleControlAPI": "get_current_speed()",
}
WRITES = {  # each changes its class's state on nearly every entry's initial state
    "GorillaFileSystem": "mkdir(dir_name='jsonmatch_extra')",
    "MessageAPI": "add_contact(user_name='jsonmatch_extra')",
    "TwitterAPI": "follow_user(username_to_follow='jsonmatch_extra')",  # when logged in
    "TicketAPI": "ticket_login(username='jsonmatch', password='extra')",
    "TradingBot": "add_to_watchlist(stock='AAPL')",
    "TravelAPI": (
        "authenticate_travel(client_id='jsonmatch', client_secret='extra', "
        "refresh_token='extra', grant_type='read_write', user_first_name='Json', "
        "user_last_name='Match')"
    ),
    "VehicleControlAPI": "set_navigation(destination='Jsonmatch Street')",
}
Turns = list[list[list[str]]]


def data_dir() -> Path:
    import bfcl_eval

    return Path(bfcl_eval.__file__).parent / "data"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def entries(category: str) -> list[tuple[dict[str, Any], list[list[str]]]]:
    """The entries of a multi-turn category, each with its ground truth."""
    root = data_dir()
    answers = {
        item["id"]: item["ground_truth"]
        for item in _lines(root / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json")
    }
    return [
        (entry, answers[entry["id"]])
        for entry in _lines(root / f"BFCL_v4_multi_turn_{category}.json")
        if entry["id"] in answers
    ]


def loadable(entry: dict[str, Any]) -> bool:
    """Whether every environment class of the entry imports here (MathAPI needs mpmath,
    which bfcl-eval installed with --no-deps does not bring)."""
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

    for name in entry["involved_classes"]:
        try:
            importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
        except ImportError:
            return False
    return True


# -- BFCL's checker ------------------------------------------------------------------------

_RUNS = itertools.count()


def theirs(
    entry: dict[str, Any], turns: Turns, truth: list[list[str]]
) -> tuple[object, str | None]:
    """BFCL's verdict and its error type (None when valid: BFCL gives none): its runner's
    turn-count check, then ``multi_turn_checker`` ("raises" where it raises). Each call
    gets a model name of its own (the checker keeps its instances in its module's globals
    under that name, and would carry them into the next call), and drops them after."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    if len(turns) != len(truth):
        return False, "multi_turn:force_terminated"
    name = f"jm{next(_RUNS)}"
    try:
        checked = multi_turn_checker(turns, truth, entry, "multi_turn", name)
    except Exception:  # noqa: BLE001 (the checker's own crash is a verdict here)
        return "raises", None
    finally:
        kept = vars(multi_turn_utils)
        for key in [key for key in kept if key.startswith(name + "_")]:
            del kept[key]
    return checked["valid"], checked.get("error_type")


# -- model outputs -------------------------------------------------------------------------


def output(entry: dict[str, Any], truth: list[list[str]], kind: str) -> Turns:
    """The model output of ``kind`` for the entry (the module's docstring says how)."""
    rng = random.Random(f"{entry['id']}:{kind}")
    calls = copy.deepcopy(truth)
    made = _MAKERS[kind](entry, calls, rng)
    return [[turn] if turn else [] for turn in calls] if made is None else made


def _correct(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> None:
    return None


def _reordered(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> None:
    turns = [turn for turn in calls if len(set(turn)) >= 2]
    if turns:
        turn = rng.choice(turns)
        original = list(turn)
        while turn == original:
            rng.shuffle(turn)


def _busy_turn(calls: list[list[str]], rng: random.Random) -> list[str] | None:
    turns = [turn for turn in calls if turn]
    return rng.choice(turns) if turns else None


def _dropped(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> None:
    turn = _busy_turn(calls, rng)
    if turn is not None:
        del turn[rng.randrange(len(turn))]


def _changed(value: Any) -> Any:
    if type(value) is bool:
        return not value
    if type(value) in (int, float):
        return value + 1
    if type(value) is str:
        return value + "_x"
    if type(value) is list:
        return [*value, value[0] if value else "x"]
    if type(value) is dict:
        return {**value, "jsonmatch_extra": 1}
    return value


def _argument(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> None:
    places = [
        (turn, position) for turn in calls for position, call in enumerate(turn) if _arguments(call)
    ]
    if not places:
        return
    turn, position = rng.choice(places)
    tree = ast.parse(turn[position], mode="eval")
    node = rng.choice(_arguments(turn[position], tree))
    value = _changed(ast.literal_eval(node.value if isinstance(node, ast.keyword) else node))
    if isinstance(node, ast.keyword):
        node.value = ast.parse(repr(value), mode="eval").body
    else:
        call = tree.body
        assert isinstance(call, ast.Call)
        call.args[call.args.index(node)] = ast.parse(repr(value), mode="eval").body
    turn[position] = ast.unparse(tree)


def _arguments(call: str, tree: ast.Expression | None = None) -> list[Any]:
    body = (tree or ast.parse(call, mode="eval")).body
    assert isinstance(body, ast.Call)
    return [*body.args, *body.keywords]


def _extra(table: dict[str, str]) -> Callable[..., None]:
    def make(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> None:
        classes = [name for name in entry["involved_classes"] if name in table]
        turn = _busy_turn(calls, rng)
        if classes and turn is not None:
            turn.insert(rng.randrange(len(turn) + 1), table[rng.choice(classes)])

    return make


def _wrong_turn(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> None:
    places = [index for index in range(len(calls) - 1) if calls[index + 1]]
    if places:
        index = rng.choice(places)
        calls[index].append(calls[index + 1].pop(0))


def _unexpected(entry: dict[str, Any], calls: list[list[str]], rng: random.Random) -> Turns | None:
    empty = [index for index, turn in enumerate(calls) if not turn]
    if empty:
        index = rng.choice(empty)
        later = [turn for turn in calls[index + 1 :] if turn] or [
            turn for turn in calls[:index] if turn
        ]
        if later:
            calls[index] = list(later[0])
        return None
    turns: Turns = [[turn] for turn in calls]
    turns[-1].append(list(calls[-1]))
    return turns


_MAKERS: dict[str, Callable[..., Turns | None]] = {
    "correct": _correct,
    "reordered": _reordered,
    "dropped": _dropped,
    "argument": _argument,
    "extra_read": _extra(READS),
    "extra_write": _extra(WRITES),
    "wrong_turn": _wrong_turn,
    "unexpected": _unexpected,
}


# -- BFCL's checker, each check in a fresh process -------------------------------------------
#
# BFCL's environment classes keep state between entries (a shared default list, a module's
# table), so its checker's verdict on an entry depends on what the process ran before. The
# reference for ``bfcl_multi_turn_verdict`` is the checker on each check in a fresh process:
# a helper process imports bfcl-eval (and runs none of it), then forks a child per check.

EMPTY = "multi_turn:empty_turn_model_response"
STATE = "multi_turn:instance_state_mismatch"
RESULT = "multi_turn:execution_response_mismatch"
IRRELEVANT = "multi_turn:irrelevance_error"
FORCE = "multi_turn:force_terminated"
Check = tuple[dict[str, Any], list[list[str]], Turns]  # (entry, ground truth, model output)


class FreshChecks:
    """BFCL on each check, each in a process of its own, run in the background from the
    moment it is made (a thread waits for the helper process): ``result()`` gives, per check
    and in order, ``{"verdict": [valid, error_type], "turns": [...], "cpu": seconds}``
    (``fresh_check`` says what each holds). ``turns=False``: the checker alone, its CPU time
    measured in its child (no per-turn record)."""

    def __init__(self, checks: list[Check], turns: bool = True) -> None:
        lines = [json.dumps([entry, truth, output, turns]) for entry, truth, output in checks]
        self._input = "\n".join(lines).encode()
        self._out: list[Any] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        boot = (
            "import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
            "from tests.helpers.bfcl_multi_turn_entries import fresh_main; fresh_main()"
        )
        done = subprocess.run(
            [sys.executable, "-c", boot, json.dumps(sys.path)],
            input=self._input,
            capture_output=True,
            timeout=900,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # (the fork server's: the same sets' order)
        )
        self._out = [json.loads(line) for line in done.stdout.splitlines()]

    def result(self) -> list[Any]:
        self._thread.join()
        return self._out


def fresh_main() -> None:
    """The helper process: bfcl-eval's checker and environments imported, then a child forked
    for each check read from stdin (a JSON line), its answer written to stdout (a line)."""
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_checker  # noqa: F401

    for name in READS:
        importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
    # the two patterns BFCL's execution uses, compiled here once into ``re``'s cache, which
    # every child inherits (each compiled them afresh otherwise: a seventh of a child's time)
    re.compile(r"[-./:]")
    re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
    # and what the standard library does on a date's first parse (TravelAPI's and
    # TradingBot's ``datetime.strptime``): ``_strptime`` and ``calendar`` imported, the
    # locale's patterns and each format's compiled; a quarter of the children did it
    # afresh. No BFCL code runs here: its classes' state stays as imported
    time.localtime()
    for text, form in (("2024-01-02", "%Y-%m-%d"), ("2024-01-02 03:04:05", "%Y-%m-%d %H:%M:%S")):
        datetime.datetime.strptime(text, form)
    for line in sys.stdin.buffer:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read_end)
                answer = json.dumps(fresh_check(*json.loads(line))).encode()
                with os.fdopen(write_end, "wb") as out:
                    out.write(answer)
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as answer_in:
            answer = answer_in.read()
        os.waitpid(pid, 0)
        sys.stdout.buffer.write(answer + b"\n")
    sys.stdout.flush()


def fresh_check(
    entry: dict[str, Any], truth: list[list[str]], turns: Turns, record: bool
) -> dict[str, Any]:
    """In a fresh process: BFCL's ``multi_turn_checker`` verdict (with its runner's turn-count
    check) and, where ``record``, every turn as BFCL's own functions check it on BFCL's own
    execution: each turn's results recorded as its checker executes them, the turns after the
    checker stops executed by the same function under the same names, and each turn checked
    by BFCL's checks in its order (empty turn, ``_compare_instances`` on every class, its
    ``_is_subsequence_unordered`` against the model's results so far; a turn whose ground
    truth makes no call right when the model made none). Per turn: [right, error type,
    differing attributes (``Class.attribute``), missing results, the model's results per
    step, the ground truth's results]."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_checker as checker

    if len(turns) != len(truth):
        return {"verdict": [False, FORCE], "turns": [], "cpu": 0.0}
    records: list[dict[str, Any]] = []
    if record:
        _record_turns(checker, entry, records)
    start = time.process_time()
    try:
        checked = checker.multi_turn_checker(turns, truth, entry, "multi_turn", "jm")
        verdict = [checked["valid"], checked.get("error_type")]
    except Exception:  # noqa: BLE001 (the checker's own crash is a verdict here)
        return {"verdict": ["raises", None], "turns": [], "cpu": 0.0}
    cpu = time.process_time() - start
    if not record:
        return {"verdict": verdict, "turns": [], "cpu": cpu}
    execute = checker.execute_multi_turn_func_call
    long_context = "long_context" in entry["id"]
    parts = (entry["initial_config"], entry["involved_classes"])
    for index in range(len(records), len(truth)):  # (the turns after the checker stopped)
        for step in turns[index]:
            execute(step, *parts, "jm", entry["id"], long_context, True)
        execute(truth[index], *parts, "jm_ground_truth", entry["id"], long_context, True)
    return {"verdict": verdict, "turns": _judged(records, turns, truth), "cpu": cpu}


def _record_turns(checker: Any, entry: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """The checker's ``execute_multi_turn_func_call`` replaced by one that records each step's
    results and, after each turn's ground truth, its results and every differing attribute."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import _compare_instances

    original = checker.execute_multi_turn_func_call
    steps: list[list[str]] = []

    def recording(
        func_call_list: list[str],
        initial_config: dict[str, Any],
        involved_classes: list[str],
        model_name: str,
        test_entry_id: str,
        long_context: bool = False,
        is_evaL_run: bool = False,  # noqa: N803 (BFCL's name)
    ) -> tuple[list[str], dict[str, Any]]:
        # (the checker passes these by name)
        parts = (initial_config, involved_classes)
        results, instances = original(
            func_call_list, *parts, model_name, test_entry_id, long_context, is_evaL_run
        )
        if not model_name.endswith("_ground_truth"):
            steps.append(results)
            return results, instances
        model_name = model_name[: -len("_ground_truth")]
        model = original([], *parts, model_name, test_entry_id, long_context, is_evaL_run)[1]
        differing = [
            f"{class_name}.{attribute}"
            for class_name in involved_classes
            for attribute in _compare_instances(model[class_name], instances[class_name])[1]
        ]
        records.append({"model": list(steps), "expected": results, "differing": differing})
        steps.clear()
        return results, instances

    checker.execute_multi_turn_func_call = recording


def _judged(records: list[dict[str, Any]], turns: Turns, truth: list[list[str]]) -> list[Any]:
    """Each recorded turn checked by BFCL's checks, in its checker's order."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import (
        _is_subsequence_unordered,
    )
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
        is_empty_execute_response,
    )

    so_far: list[str] = []
    out = []
    for record, steps, calls in zip(records, turns, truth):
        for results in record["model"]:
            so_far.extend(results)
        empty = not steps or is_empty_execute_response(steps)
        if not calls:
            row = [empty, "" if empty else IRRELEVANT, [], []]
        else:
            differing = record["differing"]
            missing = _is_subsequence_unordered(record["expected"], so_far)[1]
            problem = EMPTY if empty else STATE if differing else RESULT if missing else ""
            row = [not problem, problem, differing, missing]
        out.append([*row, record["model"], record["expected"]])
    return out
