"""The tools section: ``rules="bfcl"`` against BFCL's own AST checker, in the same process.

Every entry of BFCL's AST categories (simple Python, Java and JavaScript, multiple,
parallel, parallel_multiple and their live versions) is checked twice: against the model
output made from its first possible answer, and against one wrong output (a wrong value);
tests/helpers/bfcl_entries.py makes both. Each run times (in CPU time) the whole set once through
``ast_checker`` and once through ours, in ABBA order; the ratio is the median of the per-run
ratios (ours / the checker's: below 1x, pytest-jsonmatch is faster), the note gives their
spread (min-median-max) and whether every verdict agreed. Rows: ``bfcl_verdict`` (the
verdict alone, as the checker gives it); ``BfclChecker.score`` (the ``tool_calls`` metric's
result under BFCL's rules: score, precision, recall; one checker made per entry, inside the
timing, and given both outputs; the field records are not read, so not made);
``match_json(metric="tool_calls", rules="bfcl")`` (the same result with every field's
record made, both sides read through the door at every call); and an INFO row, the floor:
every check's data visited as the rules visit it, with no rule applied (each expected
call's document found by name, each argument of the model's calls, paired in order,
looked up in the document's properties and in the possible answer and looked for among
its acceptable values by Python equality), against the same checker runs: what a check
costs in Python before any rule decides anything.

BFCL is no dependency: ``pip install --no-deps bfcl-eval``; without it the rows are INFO.

Many parallel calls (measured whatever is installed): ``match_json(metric="tool_calls")`` of
100,000 calls of one function (``{"name": "f", "arguments": {"city": ..., "n": ...}}``, each
with its own arguments) against the same calls in order, in reverse order, and with every
call's ``n`` one more; and 10,000 calls against 10,000 expected calls of other functions.
Past the budget of pairing/__init__.py the calls pair in order within their function, in
linear time. The baseline, in the same process and in ABBA order, is the floor: each
expected call beside the call at its place, the names compared and each expected argument
looked up and compared with ``==``, one tuple a field (what any scoring of the fields
visits). The time is CPU time; the ratio ours / the floor's, its spread in the note.
Targets (issue 99): under 2 s for the calls in order and for the other functions; the other
rows are INFO.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECTION = "tools"
TARGET = 0.20  # 5x faster than the checker
ROOT = Path(__file__).resolve().parent.parent


def _timed(fn: Callable[[], object]) -> float:
    """The CPU time ``fn`` takes in this process: other work on a shared machine stretches
    it far less than the wall clock (both sides of a ratio are pure Python, one thread)."""
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _visit(functions: list[dict[str, Any]], output: object, possible: object) -> bool:
    """The floor row's work for one check: its data visited as the rules visit it (each
    expected call's document found by name, each argument of the calls, paired in order,
    looked up in the document's properties and in the possible answer and looked for
    among its acceptable values), no rule applied."""
    seen = 0
    for item, call in zip(possible, output):  # type: ignore[call-overload]
        for name, accepted in item.items():
            doc = functions[0]
            if len(functions) > 1:
                for doc in functions:
                    if doc["name"] == name:
                        break
            details = doc["parameters"]["properties"]
            for arguments in call.values():
                for param, value in arguments.items():
                    detail = details.get(param)
                    values = accepted.get(param)
                    if detail is not None and values is not None:
                        seen += len(values) + (value in values)
    return seen >= 0


def _work(quick: bool) -> tuple[list[tuple[Any, ...]], Any]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.helpers import bfcl_entries as bfcl

    checker, language = bfcl.load_checker()
    work = []
    for category in bfcl.CATEGORIES:
        lang = getattr(language, bfcl.language_of(category).upper())
        found = bfcl.entries(category)
        for entry in found[:20] if quick else found:
            good = next(bfcl.correct_outputs(entry))[1]
            bad = next(bfcl.wrong_outputs(entry))[1]
            expected = {"possible_answer": entry.possible_answer, "function": entry.functions}
            for output in (good, bad):
                work.append((entry, category, lang, output, expected))
    return work, checker


def bench(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    return _bfcl_rows(args, make_row) + _parallel_rows(args, make_row)


def _bfcl_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    try:
        import bfcl_eval  # noqa: F401
    except ImportError:
        note = "bfcl-eval not installed: pip install --no-deps bfcl-eval to measure this row"
        return [
            make_row(
                SECTION, case, None, "bfcl ast_checker", None, None, "<=0.20x", "INFO", 0, note
            )
            for case in ("bfcl_verdict", "BfclChecker.score", "match_json rules=bfcl")
        ]
    from pytest_jsonmatch import BfclChecker, bfcl_verdict, match_json

    if str(ROOT) not in sys.path:  # the entries are the differential test's (tests/helpers)
        sys.path.insert(0, str(ROOT))
    from tests.helpers.bfcl_entries import PLAIN_MODEL

    work, checker = _work(args.quick)

    def theirs() -> list[bool]:
        return [
            checker(e.functions, out, e.possible_answer, lang, cat, PLAIN_MODEL)["valid"]
            for e, cat, lang, out, _ in work
        ]

    def verdicts() -> list[bool]:
        return [
            bfcl_verdict(e.functions, out, e.possible_answer, cat).valid
            for e, cat, _, out, _ in work
        ]

    def checkers() -> list[bool]:
        out = []
        for i in range(0, len(work), 2):  # (the entry's right output, then its wrong one)
            e, cat, _, good, _ = work[i]
            checker = BfclChecker(e.functions, e.possible_answer, cat)
            out.append(checker.score(good).score == 1.0)
            out.append(checker.score(work[i + 1][3]).score == 1.0)
        return out

    def floor() -> list[bool]:
        return [_visit(e.functions, out, e.possible_answer) for e, _, _, out, _ in work]

    def scores() -> list[bool]:
        return [
            match_json(out, exp, metric="tool_calls", rules="bfcl", category=cat).score == 1.0
            for e, cat, _, out, exp in work
        ]

    reference = theirs()
    runs = 3 if args.quick else 9
    rows = []
    cases = (
        ("bfcl_verdict", verdicts),
        ("BfclChecker.score", checkers),
        ("match_json rules=bfcl", scores),
        ("floor: visit both sides", floor),
    )
    for case, ours in cases:
        info = ours is floor
        same = info or ours() == reference
        mine: list[float] = []
        refs: list[float] = []
        for k in range(runs):
            if k % 2 == 0:
                refs.append(_timed(theirs))
                mine.append(_timed(ours))
            else:
                mine.append(_timed(ours))
                refs.append(_timed(theirs))
        ratios = sorted(m / r for m, r in zip(mine, refs))
        ratio = statistics.median(ratios)
        note = (
            f"{len(work)} checks; ratio min {ratios[0]:.2f}x median {ratio:.2f}x max "
            f"{ratios[-1]:.2f}x; "
            + ("no rule applied" if info else f"verdicts {'all agree' if same else 'DIFFER'}")
        )
        rows.append(
            make_row(
                SECTION,
                case,
                statistics.median(mine),
                "bfcl ast_checker",
                statistics.median(refs),
                ratio,
                "<=0.20x",
                "INFO" if info else "PASS" if ratio <= TARGET and same else "MISS",
                runs,
                note,
            )
        )
    return rows


# -- many parallel calls -------------------------------------------------------------------

PARALLEL_SECONDS = 2.0  # issue 99 (issue 94: 5 s): 100,000 calls of one function, in order
OTHER_SECONDS = 2.0  # issue 99: 10,000 calls against 10,000 expected of other functions


def _calls(n: int, name: str = "f", shift: int = 0) -> list[dict[str, Any]]:
    return [
        {"name": name if name else f"f{i}", "arguments": {"city": f"c{i}", "n": i + shift}}
        for i in range(n)
    ]


def _parallel_floor(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> int:
    """The floor: each expected call beside the call at its place, the names compared, each
    expected argument looked up and compared with ``==``, one tuple a field."""
    fields = []
    missing = object()
    for want, call in zip(expected, actual):
        name = want["name"]
        fields.append((name, call["name"] == name))
        given = call["arguments"]
        for arg, value in want["arguments"].items():
            fields.append((arg, given.get(arg, missing) == value))
    return len(fields)


def _parallel_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    from pytest_jsonmatch import match_json

    n, others = (2_000, 400) if args.quick else (100_000, 10_000)
    runs = 3 if args.quick else 5
    expected = _calls(n)
    cases = (
        (f"{n:,} parallel calls of one function, in order", expected, _calls(n), True),
        (f"{n:,} parallel calls of one function, reversed", expected, _calls(n)[::-1], False),
        (f"{n:,} parallel calls of one function, n differs", expected, _calls(n, shift=1), False),
        (
            f"{others:,} calls against {others:,} expected of other functions",
            _calls(others, name=""),
            _calls(others, name="g"),
            True,
        ),
    )
    rows = []
    for case, want, made, targeted in cases:
        limit = OTHER_SECONDS if "other functions" in case else PARALLEL_SECONDS
        score = match_json(made, want, metric="tool_calls").score  # (warm: imports, caches)
        mine: list[float] = []
        floors: list[float] = []
        for k in range(runs):
            pair = (
                lambda: match_json(made, want, metric="tool_calls"),
                lambda: _parallel_floor(want, made),
            )
            if k % 2:
                floors.append(_timed(pair[1]))
                mine.append(_timed(pair[0]))
            else:
                mine.append(_timed(pair[0]))
                floors.append(_timed(pair[1]))
        ratios = sorted(m / f for m, f in zip(mine, floors))
        spent = sorted(mine)
        median = statistics.median(mine)
        note = (
            f"CPU s min {spent[0]:.2f} median {median:.2f} max {spent[-1]:.2f}; ratio min "
            f"{ratios[0]:.1f}x median {statistics.median(ratios):.1f}x max {ratios[-1]:.1f}x; "
            f"score {score:.3f}"
        )
        rows.append(
            make_row(
                SECTION,
                f"match_json tool_calls, {case}",
                median,
                "floor: fields visited in order",
                statistics.median(floors),
                statistics.median(ratios),
                f"< {limit:.0f} s CPU" if targeted else "-",
                ("PASS" if median < limit else "MISS") if targeted else "INFO",
                runs,
                note,
            )
        )
    return rows
