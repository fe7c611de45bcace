"""The agents section: the trajectory metric against agentevals' trajectory match, and BFCL's
multi-turn verdict against BFCL's own ``multi_turn_checker``, each in the same process (the
verdict with the fork server it executes each entry under, whose CPU time is counted).

Trajectories. Seeded pairs as the agentevals parity test makes them
(tests/helpers/trajectory_pairs.py: a run of one or two steps of one to three calls, and the
expected run a little changed from it, one pair in four left equal), both sides written as
OpenAI chat messages; the argument mode cycles through exact, ignore, subset and superset
from pair to pair. A row per trajectory mode (strict, unordered, subset, superset) times the
whole set through agentevals' evaluator (one made per argument mode, outside the timing)
and through ``match_json(metric="trajectory")`` with the default pairing, its field records
read (the detail agentevals does not give); a last row mixes the four modes and writes each
side in a drawn shape (OpenAI, Anthropic, LangChain). Target: at most 2x agentevals' time.

BFCL multi-turn. Every entry of the four multi-turn categories whose environments import
here, with the model outputs tests/helpers/bfcl_multi_turn_entries.py makes (the
differential test's: correct, reordered, dropped, a changed argument, an extra read, an extra
write, a call in the wrong turn, a call where none is expected; a quick run takes a seeded
handful of entries and two kinds). Two comparisons, target at most the checker's time:

- the whole verdict, each side executing the calls its own way (BFCL's checker through its
  ``eval`` of rewritten call texts, ``bfcl_multi_turn_verdict`` through its own executor,
  which reads the calls without ``eval``), then judging: a row per category and one for all;
  an INFO row beside them reads the verdict's fields too (every 4th entry: a turn's
  fields are made when read, and reading a state that differs executes the entry again);
- the scoring after execution alone: the calls executed once per run by our executor (not
  timed), and after each turn, on the very same instances and results, BFCL's checker's own
  work after a turn's execution (its record of the turn's results, its asserts on the
  instances, and, with its empty-turn check, its ``state_checker`` and ``response_checker``,
  turn by turn until the entry's first failure, as its checker goes) against our verdict's
  judging of the turn as a user who reads the verdict gets it (``TurnChecks.check``: the
  turn's row, the states compared by ``!=`` where calls may have parted them, the missing
  results; on every turn, since our verdict gives per-turn credit; the entry's checks made in
  its first turn, its verdict and per-turn credit in its last; its turns' ``BfclTurn``
  objects and fields are made only when read, and are not timed here), the target row; an
  INFO row beside it times ours on the turns BFCL judges too.

Every row: the median of the runs' times per pair or per check, the ratio (ours / theirs: below
1x, ours is faster) as the median of the per-run ratios, each run timing both sides in ABBA
order, in CPU time (the wall clock on a shared machine measures the neighbours too); the note
gives the ratios' min and max. ``bfcl_multi_turn_verdict`` executes each entry in a child of
a fork server (``bfcl_isolation.py``), so the whole-verdict rows count the CPU time of every
process the verdict uses: this one, the server and the children it forked and reaped (read
from the server's ``/proc/<pid>/stat`` once it has reaped the last child; without ``/proc``
the server is closed at the end of each run and counted as a reaped child, its start
included). The server's start, once per process, is made in the warm-up and not timed.
A reference that is not installed gives INFO rows (``pip install agentevals``;
``pip install --no-deps bfcl-eval``).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

SECTION = "agents"
TRAJECTORY_TARGET = 2.0
BFCL_TARGET = 1.0
ROOT = Path(__file__).resolve().parent.parent
MODES = ("strict", "unordered", "subset", "superset")
ARG_MODES = ("exact", "ignore", "subset", "superset")
NOT_INSTALLED = (
    "{} not installed: a reference implementation, installed beside the project to measure this row"
)


def _paired(
    ours: Callable[[], object],
    theirs: Callable[[], object],
    runs: int,
    clock: Callable[[], float] = time.process_time,
) -> tuple[list[float], list[float]]:
    """Both timed in CPU time (``clock``) in every run, in ABBA order (neither always first)."""
    import references

    return references._abba(ours, theirs, runs, clock=clock)


def _row(
    make_row: Callable[..., Any],
    case: str,
    baseline: str,
    mine: Sequence[float],
    refs: Sequence[float],
    per: int,
    target: float,
    note: str,
    agree: bool = True,
) -> Any:
    ratios = sorted(m / r for m, r in zip(mine, refs))
    ratio = statistics.median(ratios)
    spread = f"ratio min {ratios[0]:.2f}x median {ratio:.2f}x max {ratios[-1]:.2f}x"
    ok = ratio <= target and agree
    return make_row(
        SECTION,
        case,
        statistics.median(mine) / per,
        baseline,
        statistics.median(refs) / per,
        ratio,
        f"<={target:.2f}x",
        "PASS" if ok else "MISS",
        len(mine),
        f"{spread}; {note}",
    )


def _importable(package: str) -> bool:
    """Whether a reference imports here (importing it, as its rows will)."""
    try:
        importlib.import_module(package)
    except ImportError:
        return False
    return True


def _shared_helpers() -> None:
    if str(ROOT) not in sys.path:  # the generators are the differential tests' (tests/helpers)
        sys.path.insert(0, str(ROOT))


# -- trajectories ----------------------------------------------------------------------------

TRAJECTORY_BASELINE = "agentevals trajectory match"


def _trajectory_pairs(count: int, mixed: bool, seed: int) -> list[tuple[object, object, str, str]]:
    """(run, expected, mode, argument mode) per pair; ``mixed``: every mode, each side in a
    drawn shape; else OpenAI chat messages (the mode is set by the row)."""
    from tests.helpers import trajectory_pairs as tp

    rng = random.Random(seed)
    out = []
    for k in range(count):
        expected = tp.messages(rng)
        run = tp.mutated(rng, expected) if k % 4 else expected
        mode = MODES[(k // 4) % 4] if mixed else ""
        run_shape = rng.choice(tp.SHAPES) if mixed else tp.openai
        ref_shape = rng.choice(tp.SHAPES) if mixed else tp.openai
        out.append((run_shape(run), ref_shape(expected), mode, ARG_MODES[k % 4]))
    return out


def _trajectory_row(
    make_row: Callable[..., Any], case: str, pairs: list, mode: str, runs: int
) -> Any:
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    from pytest_jsonmatch import match_json

    evaluators = {
        (m, a): create_trajectory_match_evaluator(trajectory_match_mode=m, tool_args_match_mode=a)
        for m in MODES
        for a in ARG_MODES
    }
    work = [(run, ref, mode or m, a) for run, ref, m, a in pairs]

    def theirs() -> list[bool]:
        return [
            bool(evaluators[m, a](outputs=run, reference_outputs=ref)["score"])
            for run, ref, m, a in work
        ]

    def ours() -> list[bool]:
        out = []
        for run, ref, m, a in work:
            result = match_json(run, ref, metric="trajectory", mode=m, args=a)
            fields = result.fields  # (read: each expected step's and argument's record)
            out.append(result.score == 1.0 and fields is not None)
        return out

    reference, mine = theirs(), ours()  # (also the warm-up)
    # the default pairing parts from agentevals only where first fit missed a valid pairing
    # (docs/metrics.md): there ours passes and agentevals fails
    passed = sum(reference)
    first_fit = sum(m and not r for m, r in zip(mine, reference))
    other = sum(r and not m for m, r in zip(mine, reference))
    note = (
        f"{len(work)} pairs; agentevals passes {passed}, ours {sum(mine)} "
        f"({first_fit} where first fit missed a pairing"
        + (f", {other} OTHER DIFFERENCES)" if other else ")")
    )
    mine_t, refs_t = _paired(ours, theirs, runs)
    return _row(
        make_row,
        case,
        TRAJECTORY_BASELINE,
        mine_t,
        refs_t,
        len(work),
        TRAJECTORY_TARGET,
        note + "; per pair",
        agree=not other,
    )


def trajectory_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    count = 40 if args.quick else 1000
    cases = [f"trajectory mode={mode}, {count} pairs (OpenAI chat)" for mode in MODES]
    mixed_case = f"trajectory, 4 modes mixed, {count} pairs (mixed shapes)"
    if not _importable("agentevals.trajectory.match"):
        note = NOT_INSTALLED.format("agentevals")
        return [
            make_row(SECTION, c, None, TRAJECTORY_BASELINE, None, None, "<=2.00x", "INFO", 0, note)
            for c in (*cases, mixed_case)
        ]
    _shared_helpers()
    pairs = _trajectory_pairs(count, mixed=False, seed=62)
    runs = args.runs
    rows = [_trajectory_row(make_row, c, pairs, m, runs) for c, m in zip(cases, MODES)]
    mixed = _trajectory_pairs(count, mixed=True, seed=63)
    return rows + [_trajectory_row(make_row, mixed_case, mixed, "", runs)]


# -- BFCL multi-turn -------------------------------------------------------------------------

BFCL_BASELINE = "bfcl multi_turn_checker"
BFCL_POST_BASELINE = "bfcl state_checker + response_checker"
FIELDS_CASE = "bfcl_multi_turn_verdict, 4 categories, executing, fields read"
QUICK_ENTRIES = 3  # per category, drawn with a fixed seed
QUICK_KINDS = ("correct", "argument")
_PROC = os.path.exists("/proc/self/stat")
_REAPED_SECONDS = 5.0  # how long the clock waits for the server to reap its last child


def _verdict_cpu() -> float:
    """CPU time of this process, of its reaped children, and of the running fork server of
    ``bfcl_isolation`` with every child it has reaped: all the CPU ``bfcl_multi_turn_verdict``
    costs (each entry executed in a child of the server). A server that was closed counts
    among this process's reaped children; one started since adds from zero: the sum goes on
    without a jump."""
    own = time.process_time()
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + reaped.ru_utime + reaped.ru_stime + _server_cpu()


def _server_cpu() -> float:
    """The running fork server's CPU time and its reaped children's (utime, stime, cutime,
    cstime of ``/proc/<pid>/stat``), read once it has no child left to reap: it answers
    before it reaps the child that answered, whose time it counts only then (a sleep
    here costs no CPU time). 0 where no server runs, or without ``/proc``."""
    from pytest_jsonmatch.engine.bfcl import bfcl_isolation

    process = bfcl_isolation._SERVER._process
    if process is None or not _PROC:
        return 0.0
    base = f"/proc/{process.pid}"
    deadline = time.monotonic() + _REAPED_SECONDS
    while _has_children(f"{base}/task/{process.pid}/children") and time.monotonic() < deadline:
        time.sleep(0.001)
    try:
        with open(f"{base}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:  # (it ended: it counts among the reaped children once reaped)
        return 0.0
    return sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _has_children(path: str) -> bool:
    """Whether the process of ``path`` (its ``/proc/.../children``) has a child not yet
    reaped; where the kernel does not list children, a moment is waited once instead."""
    try:
        with open(path, encoding="ascii") as children:
            return bool(children.read().strip())
    except OSError:
        time.sleep(0.01)
        return False


def _counted() -> str:
    """What the whole-verdict rows' times hold, for their notes."""
    if _PROC:
        return "ours: CPU time of this process, the fork server and the children it forks"
    return (
        "ours: CPU time of this process, the fork server and the children it forks (no "
        "/proc: the server closed at each run's end, its start counted)"
    )


def _end_of_run() -> None:
    """Without ``/proc`` the server's time is counted only when it ends: it is closed (and
    started again, its start timed, by the next run)."""
    if not _PROC:
        from pytest_jsonmatch.engine.bfcl import bfcl_isolation

        bfcl_isolation._SERVER.close()


def _bfcl_work(quick: bool) -> tuple[dict[str, list[tuple[Any, ...]]], int, int]:
    """Per category, (entry, ground truth, model output) per check; the entries in all and
    those left out (an environment that does not import here)."""
    from tests.helpers import bfcl_multi_turn_entries as bfcl

    work: dict[str, list[tuple[Any, ...]]] = {}
    total = left_out = 0
    for category in bfcl.CATEGORIES:
        found = bfcl.entries(category)
        usable = [(e, t) for e, t in found if bfcl.loadable(e)]
        total += len(found)
        left_out += len(found) - len(usable)
        if quick:
            usable = random.Random(f"agents:{category}").sample(usable, QUICK_ENTRIES)
        kinds = QUICK_KINDS if quick else bfcl.KINDS
        work[category] = [(e, t, bfcl.output(e, t, k)) for e, t in usable for k in kinds]
    return work, total, left_out


def _agreement(differ: int) -> str:
    return f"DIFFER: {differ}" if differ else "all agree"


def _whole_verdict_rows(
    make_row: Callable[..., Any], work: dict[str, list], runs: int, what: str, quick: bool
) -> list[Any]:
    from pytest_jsonmatch import bfcl_multi_turn_verdict
    from tests.helpers.bfcl_multi_turn_entries import theirs

    mine_all = [0.0] * runs
    refs_all = [0.0] * runs
    rows = []
    differ_all = 0
    for category, checks in work.items():

        def bfcl_side(checks: list = checks) -> list:
            return [theirs(e, turns, truth) for e, truth, turns in checks]

        def our_side(checks: list = checks) -> list:
            out = []
            for e, truth, turns in checks:
                verdict = bfcl_multi_turn_verdict(e, turns, truth)
                out.append((verdict.valid, verdict.problem))
            _end_of_run()
            return out

        differ = sum(a != b for a, b in zip(bfcl_side(), our_side()))  # (also the warm-up)
        differ_all += differ
        mine, refs = _paired(our_side, bfcl_side, runs, clock=_verdict_cpu)
        for k in range(runs):
            mine_all[k] += mine[k]
            refs_all[k] += refs[k]
        note = f"{len(checks)} checks; verdicts {_agreement(differ)}"
        rows.append(
            _row(
                make_row,
                f"bfcl_multi_turn_verdict, {category}, executing",
                BFCL_BASELINE,
                mine,
                refs,
                len(checks),
                BFCL_TARGET,
                f"{note}; {_counted()}; per check",
                agree=not differ,
            )
        )
    checks_all = sum(len(c) for c in work.values())
    note = f"{what}; verdicts {_agreement(differ_all)}"
    rows.append(
        _row(
            make_row,
            "bfcl_multi_turn_verdict, 4 categories, executing",
            BFCL_BASELINE,
            mine_all,
            refs_all,
            checks_all,
            BFCL_TARGET,
            f"{note}; {_counted()}; per check",
            agree=not differ_all,
        )
    )
    return rows + [_fields_row(make_row, work, runs, quick)]


def _fields_row(make_row: Callable[..., Any], work: dict[str, list], runs: int, quick: bool) -> Any:
    """The whole verdict with its fields read (an INFO row: a turn's fields are made when
    read, and reading a state that differs executes the entry's calls again)."""
    from pytest_jsonmatch import bfcl_multi_turn_verdict
    from tests.helpers.bfcl_multi_turn_entries import KINDS, theirs

    # every 4th entry of each category with all its outputs (a category's checks are its
    # entries', each entry's outputs together)
    kinds = len(QUICK_KINDS) if quick else len(KINDS)
    sample = [c for checks in work.values() for i, c in enumerate(checks) if i // kinds % 4 == 0]

    def bfcl_side() -> list:
        return [theirs(e, turns, truth) for e, truth, turns in sample]

    def our_side() -> list:
        out = [len(bfcl_multi_turn_verdict(e, turns, truth).fields) for e, truth, turns in sample]
        _end_of_run()
        return out

    fields = sum(our_side())  # (also the warm-up)
    mine, refs = _paired(our_side, bfcl_side, runs, clock=_verdict_cpu)
    row = _row(
        make_row,
        FIELDS_CASE,
        BFCL_BASELINE,
        mine,
        refs,
        len(sample),
        BFCL_TARGET,
        f"{len(sample)} checks (every 4th entry of each category), {fields} fields: the verdict, "
        "then its fields read (each differing state read to JSON, by executing the entry's "
        f"calls again, in a child, and compared field by field); {_counted()}; per check",
    )
    row.status = "INFO"
    row.target = "-"
    return row


class _Totals:
    """One run's CPU time of each side's judging, and the turns each judged."""

    def __init__(self) -> None:
        self.ours = self.ours_same = self.theirs = 0.0
        self.turns = self.turns_same = 0


def _scoring_pass(work: dict[str, list], ours_first: bool) -> _Totals:
    """One run of the scoring after execution: every check's turns executed (not timed), and
    after each, both sides' judging of the same instances timed in CPU time. ``ours_same``:
    our time on the turns BFCL's checker judges too (up to the entry's first failure)."""
    from pytest_jsonmatch.engine.bfcl import bfcl_multi_turn as ours_module
    from pytest_jsonmatch.engine.bfcl.bfcl_execution import BfclEnvironment

    totals = _Totals()
    gc.collect()
    sides = (ours_module._MODEL_SIDE, ours_module._TRUTH_SIDE)
    for checks in work.values():
        for entry, truth_turns, turns in checks:
            if len(turns) != len(truth_turns):
                continue  # (both stop before executing anything)
            entry_id, classes = entry["id"], entry["involved_classes"]
            config = entry["initial_config"]
            long_context = "long_context" in entry_id or "composite" in entry_id
            model, truth = (
                BfclEnvironment(entry_id, classes, config, long_context, side) for side in sides
            )
            entry_parts = (entry_id, classes, config, long_context, sides, model, truth)
            ours_parts: list[Any] = []  # (made in our first turn's timing, as the verdict makes it)
            so_far: list[str] = []  # (BFCL's side: its checker's record of results)
            records: list[dict[str, Any]] = []
            theirs_going = True
            last = len(turns) - 1
            for index, (steps, calls) in enumerate(zip(turns, truth_turns)):
                model_results = tuple(tuple(model.execute(step)) for step in steps)
                expected = tuple(truth.execute(calls))
                turn = (index, last, steps, calls, model_results, expected, so_far, records)
                theirs_going = _time_turn(
                    totals, turn, entry_parts, ours_parts, theirs_going, ours_first
                )
            assert 0.0 <= ours_parts[1].score <= 1.0
    return totals


def _time_turn(
    totals: _Totals,
    turn: tuple,
    entry_parts: tuple,
    ours_parts: list[Any],
    theirs_going: bool,
    ours_first: bool,
) -> bool:
    """Both sides' judging of one executed turn timed (BFCL's only while its checker has not
    stopped); whether BFCL's checker goes on after it. Ours makes its per-entry parts in the
    entry's first turn (``ours_parts``: its turn checks) and its verdict in the last
    (appended to ``ours_parts``), each inside that turn's timing."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import (
        response_checker,
        state_checker,
    )
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import is_empty_execute_response

    from pytest_jsonmatch.engine.bfcl import bfcl_multi_turn as ours_module
    from pytest_jsonmatch.engine.bfcl.bfcl_turn_checks import CheckedTurns, TurnChecks

    index, last, steps, calls, model_results, expected, so_far, records = turn
    entry_id, classes, config, long_context, sides, model, truth = entry_parts

    def theirs() -> bool:
        """BFCL's checks of the turn, in its checker's order, after its record of the turn's
        results (as its checker keeps them, the model's so far and each turn's); False where
        the entry fails. (Its checker's asserts on the instances are made as it makes them.)"""
        combined: list[str] = []
        uncombined = []
        for results in model_results:
            combined.extend(results)
            uncombined.append(results)
        so_far.extend(combined)
        records.append({"model": uncombined, "ground_truth": expected})
        if calls and (not steps or is_empty_execute_response(steps)):
            return False
        if not calls:
            return True
        ours_, theirs_ = model.instances, truth.instances  # (its checker's checks of them)
        assert len(ours_) == len(theirs_) and set(ours_.keys()) == set(theirs_.keys())
        if not state_checker(ours_, theirs_)["valid"]:
            return False
        return bool(response_checker(so_far, expected, index)["valid"])

    def ours() -> bool:
        """Our verdict's judging of the turn once its calls are executed, as the verdict
        keeps it (its ``BfclTurn`` objects and fields made only when read)."""
        if not ours_parts:
            ours_parts.append(TurnChecks(model, truth))
        right = ours_parts[0].check(steps, calls, model_results, expected)
        if index == last:
            checked_turns = CheckedTurns(
                entry_id, classes, config, long_context, sides, ours_parts[0].rows
            )
            ours_parts.append(ours_module.verdict_of(checked_turns))
        return right

    going = False
    order = [ours, theirs] if ours_first else [theirs, ours]
    for judge in order:
        if judge is theirs and not theirs_going:
            continue
        t0 = time.process_time()
        right = judge()
        spent = time.process_time() - t0
        if judge is ours:
            totals.ours += spent
            totals.turns += 1
            if theirs_going:
                totals.ours_same += spent
                totals.turns_same += 1
        else:
            totals.theirs += spent
            going = right
    return going


def _scoring_rows(
    make_row: Callable[..., Any], work: dict[str, list], runs: int, what: str
) -> list[Any]:
    passes = [_scoring_pass(work, ours_first=k % 2 == 1) for k in range(runs)]
    theirs = [p.theirs for p in passes]
    checks = sum(len(c) for c in work.values())
    every = (
        f"{what}, {passes[0].turns} turns judged by ours, {passes[0].turns_same} by BFCL's; "
        "the calls executed by our executor, not timed; ours: the verdict and per-turn "
        "credit as a user who reads them gets them (the fields, made when read, not timed); "
        "per check"
    )
    same = (
        f"ours timed on the {passes[0].turns_same} turns BFCL's checker judges (to the "
        "entry's first failure), against the same BFCL times; per check"
    )
    rows = [
        _row(
            make_row,
            "multi-turn scoring after execution, 4 categories, every turn",
            BFCL_POST_BASELINE,
            [p.ours for p in passes],
            theirs,
            checks,
            BFCL_TARGET,
            every,
        ),
        _row(
            make_row,
            "multi-turn scoring after execution, 4 categories, BFCL's turns",
            BFCL_POST_BASELINE,
            [p.ours_same for p in passes],
            theirs,
            checks,
            BFCL_TARGET,
            same,
        ),
    ]
    rows[1].status = "INFO"
    rows[1].target = "-"
    return rows


def bfcl_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    cases = [
        f"bfcl_multi_turn_verdict, {c}, executing"
        for c in ("base", "miss_func", "miss_param", "long_context", "4 categories")
    ]
    if not _importable("bfcl_eval"):
        note = NOT_INSTALLED.format("bfcl-eval")
        rows = [
            make_row(SECTION, c, None, BFCL_BASELINE, None, None, "<=1.00x", "INFO", 0, note)
            for c in cases
        ]
        rows.append(
            make_row(SECTION, FIELDS_CASE, None, BFCL_BASELINE, None, None, "-", "INFO", 0, note)
        )
        return rows + [
            make_row(SECTION, case, None, BFCL_POST_BASELINE, None, None, target, "INFO", 0, note)
            for case, target in (
                ("multi-turn scoring after execution, 4 categories, every turn", "<=1.00x"),
                ("multi-turn scoring after execution, 4 categories, BFCL's turns", "-"),
            )
        ]
    _shared_helpers()
    work, total, left_out = _bfcl_work(args.quick)
    from tests.helpers.bfcl_multi_turn_entries import KINDS

    kinds = len(QUICK_KINDS if args.quick else KINDS)
    entries = sum(len(c) for c in work.values()) // kinds
    what = f"{entries} entries of {total} x {kinds} outputs" + (
        f" ({left_out} left out: an environment that does not import here)" if left_out else ""
    )
    runs = 3 if args.quick else 5
    return _whole_verdict_rows(make_row, work, runs, what, args.quick) + _scoring_rows(
        make_row, work, runs, what
    )


def bench(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    # The objects alive once everything is imported (the project, agentevals' langchain,
    # bfcl-eval) are set aside from the collector: the full collection before each timing
    # then costs a millisecond, not 50 ms, and neither side's timings pay for walking them.
    import pytest_jsonmatch  # noqa: F401

    for reference in ("agentevals.trajectory.match", "bfcl_eval"):
        _importable(reference)
    gc.collect()
    gc.freeze()
    try:
        return trajectory_rows(args, make_row) + bfcl_rows(args, make_row)
    finally:
        gc.unfreeze()
