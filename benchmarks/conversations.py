"""The conversations section: recorded conversations replayed (issue 97: "replaying 100
recorded conversations of 10 turns scores in under 2 s on this machine").

The suite. ``--conversations`` conversation cases (100) of ``--conversation-turns`` user
turns (10), seeded: each turn asks the user something back (``{asks_for: ...}``), reports
(an answer of one to four fields, two of them nested), or acts (one to three calls of nine
tools, each with its arguments, made in one assistant message or one after another, each
call's result, then an answer); turns that act write the conversation's state (refunds,
bookings, an address, transfers...), held by ``expected_state``. One conversation in four
departs from its case somewhere (an argument, an answer field, a field left out), so some
fields fail, and so do those cases (``threshold: 1.0``); one turn in ten expects nothing.
The agent (``agent.py``, plain Python, no model) plays its conversation from a plan the
benchmark wrote, returning each turn in a drawn form (its new messages with the state, a
list of messages, text). Ten case files of ten cases, their ``run_options`` ``superset`` or
``unordered``.

The baseline: 100 plain cases of the same fields, replayed through the same target and
recordings (``input: {plan: ..., plain: true}``): each one's output is the conversation's
rows as one JSON object (each turn's answer, each call's name and arguments, the state),
its expected side the case's expectations written the same way, so that both sides score
the same number of fields, the same ones failing, and the same cases fail.

Both suites are recorded once (``--jsonmatch-record=once``, not timed), then

- the session: ``python -m pytest --jsonmatch-record=none`` over each suite (a child
  process, as a user runs it), ``--conversation-runs`` times each (7), ABBA: a row of wall
  time (the issue's target, under 2 s; pytest's own figure, from collection to summary,
  in the note) and one of CPU time (user + system of the child), each the median, with
  the ratio conversations / plain as the median of the paired ratios and its min and max;
  after each pair, a session over a folder without cases (what any session costs before
  its first case), in the notes;
- the scoring alone, in this process: a ``ConversationScorer`` built once per case (as a
  session builds it), then ``.scored`` on each recorded conversation, against
  ``match_json`` on each plain pair; CPU time, ABBA, ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import suite
import yaml

SECTION = "conversations"
TARGET_S = 2.0  # the issue's: the whole replay under 2 s
FILES = 10  # case files per suite (each holding a tenth of the cases)
BASELINE = "the same, {n} plain cases of the same fields"

AGENT = '''\
"""A deterministic agent: each conversation's turns, as the benchmark planned them."""

import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "plan.json")) as f:
    PLAN = json.load(f)


def agent(case_input):
    plan = PLAN[case_input["plan"]]
    if case_input.get("plain"):
        return plan["plain"]
    turn = plan["turns"][case_input["turn"]]
    form = turn["form"]
    if form == "text":
        return turn["messages"][0]["content"]
    if form == "list":
        return turn["messages"]
    # the conversation so far at the head of its messages, as many agents return it
    return {"messages": case_input["messages"] + turn["messages"], "state": turn["state"]}
'''

# each tool: its arguments (a name and how to draw a value) and the state list it writes
# (None: it only reads)
_CITIES = ("Oslo", "Rome", "Lima", "Kyoto", "Austin", "Porto", "Accra", "Hanoi")
_WORDS = ("late", "damaged", "wrong size", "changed plans", "duplicate", "never arrived")


def _order(r: random.Random) -> str:
    return f"A{r.randint(1000, 9999)}"


TOOLS: dict[str, tuple[dict[str, Callable[[random.Random], Any]], str | None]] = {
    "lookup_order": ({"order_id": _order}, None),
    "refund": (
        {
            "order": _order,
            "amount": lambda r: round(r.uniform(5, 400), 2),
            "reason": lambda r: r.choice(_WORDS),
        },
        "refunds",
    ),
    "update_address": (
        {
            "order_id": _order,
            "street": lambda r: f"{r.randint(1, 200)} {r.choice(('Elm', 'Oak', 'Main'))} St",
            "city": lambda r: r.choice(_CITIES),
            "zip": lambda r: f"{r.randint(10000, 99999)}",
        },
        "addresses",
    ),
    "search_flights": (
        {
            "origin": lambda r: r.choice(_CITIES),
            "destination": lambda r: r.choice(_CITIES),
            "date": lambda r: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
            "passengers": lambda r: r.randint(1, 4),
        },
        None,
    ),
    "book_flight": (
        {
            "flight": lambda r: f"{r.choice(('SK', 'AZ', 'LA'))}{r.randint(100, 999)}",
            "date": lambda r: f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
            "seat": lambda r: f"{r.randint(1, 40)}{r.choice('ABCDEF')}",
        },
        "bookings",
    ),
    "cancel_booking": (
        {"booking_id": lambda r: f"PNR{r.randint(100, 999)}", "reason": lambda r: r.choice(_WORDS)},
        "cancellations",
    ),
    "get_weather": (
        {"city": lambda r: r.choice(_CITIES), "unit": lambda r: r.choice(("C", "F"))},
        None,
    ),
    "transfer": (
        {
            "source": lambda r: f"ACC{r.randint(10, 99)}",
            "target": lambda r: f"ACC{r.randint(10, 99)}",
            "amount": lambda r: r.randint(1, 5000),
            "currency": lambda r: r.choice(("EUR", "USD", "NOK")),
        },
        "transfers",
    ),
    "send_email": (
        {
            "to": lambda r: f"user{r.randint(1, 99)}@example.com",
            "subject": lambda r: r.choice(_WORDS),
        },
        "outbox",
    ),
}
_ASKS = ("order_id", "date", "city", "amount", "confirmation", "booking_id")


def _answer(r: random.Random, kind: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """An answer of two to four fields, one of them nested where there is room."""
    if kind == "ask":
        out: dict[str, Any] = {"asks_for": r.choice(_ASKS)}
        if r.random() < 0.5:
            out["reason"] = r.choice(("missing", "ambiguous", "needs confirmation"))
        return out
    out = {"status": r.choice(("done", "pending", "refunded", "booked", "sent"))}
    if calls:
        out["tool"] = calls[-1]["name"]
    if r.random() < 0.6:
        out["total"] = round(r.uniform(1, 900), 2)
    if r.random() < 0.5:
        out["detail"] = {"city": r.choice(_CITIES), "count": r.randint(0, 9)}
    return out


def _mutated(r: random.Random, value: Any) -> Any:
    """A different value of the same JSON type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + r.randint(1, 9)
    if isinstance(value, float):
        return round(value * 1.5 + 1, 2)
    return f"{value}x"


def _leaves(obj: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """(container, key) of each leaf of a small answer or arguments object."""
    out = []
    for k, v in obj.items():
        if isinstance(v, dict):
            out += _leaves(v)
        else:
            out.append((obj, k))
    return out


def _message_text(r: random.Random, answer: dict[str, Any]) -> str:
    text = json.dumps(answer)
    roll = r.random()
    if roll < 0.2:
        return f"Here is what I found:\n```json\n{text}\n```"
    if roll < 0.3:
        return f"Done. {text}"
    return text


def plan_conversation(index: int, turns: int, seed: int) -> dict[str, Any]:
    """One conversation: the case (its turns' user messages and expectations, its expected
    state), the agent's plan (each turn's messages, state and form), and the plain pair of
    the same fields."""
    r = random.Random(f"{seed}:{index}")
    departs = index % 4 == 3  # one conversation in four: 1-3 fields depart from the case
    departures = set(r.sample(range(turns), min(turns, r.randint(1, 3)))) if departs else set()
    state: dict[str, Any] = {}  # the agent's
    truth_state: dict[str, Any] = {}  # the case's
    case_turns: list[dict[str, Any]] = []
    plan_turns: list[dict[str, Any]] = []
    plain_actual: list[dict[str, Any]] = []
    plain_expected: list[dict[str, Any]] = []
    call_id = 0
    for k in range(turns):
        kind = r.choices(("ask", "report", "act"), (1, 1, 2))[0]
        calls = []
        if kind == "act":
            for name in r.sample(sorted(TOOLS), r.randint(1, 3)):
                spec, _ = TOOLS[name]
                calls.append({"name": name, "arguments": {a: f(r) for a, f in spec.items()}})
        answer = _answer(r, kind, calls)
        # what the agent does: the case's calls and answer, or one field departing
        did_calls, did_answer = copy.deepcopy(calls), copy.deepcopy(answer)
        if k in departures:
            where = r.choice(("argument", "answer", "omitted") if calls else ("answer", "omitted"))
            if where == "argument":
                args = r.choice(did_calls)["arguments"]
                key = r.choice(sorted(args))
                args[key] = _mutated(r, args[key])
            else:
                holder, key = r.choice(_leaves(did_answer))
                if where == "answer":
                    holder[key] = _mutated(r, holder[key])
                elif len(_leaves(did_answer)) > 1:
                    del holder[key]
                else:
                    holder[key] = _mutated(r, holder[key])
        for sink, made in ((truth_state, calls), (state, did_calls)):
            for call in made:
                written = TOOLS[call["name"]][1]
                if written:
                    sink.setdefault(written, []).append(dict(call["arguments"]))
        # the agent's messages: calls in one message or one after another, each result
        messages: list[dict[str, Any]] = []
        parallel = r.random() < 0.4
        groups = [did_calls] if parallel else [[c] for c in did_calls]
        for group in groups if did_calls else []:
            ids = []
            for _ in group:
                call_id += 1
                ids.append(f"call_{call_id}")
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": i,
                            "type": "function",
                            "function": {
                                "name": c["name"],
                                "arguments": json.dumps(c["arguments"]),
                            },
                        }
                        for i, c in zip(ids, group)
                    ],
                }
            )
            for i, c in zip(ids, group):
                result = {"ok": True, "tool": c["name"], "ref": r.randint(1, 10**6)}
                messages.append({"role": "tool", "tool_call_id": i, "content": json.dumps(result)})
        messages.append({"role": "assistant", "content": _message_text(r, did_answer)})
        form = "text" if not did_calls and r.random() < 0.5 else r.choice(("run", "run", "list"))
        if form == "list" and did_calls and any(TOOLS[c["name"]][1] for c in did_calls):
            form = "run"  # (the state it writes comes back with the run)
        plan_turns.append({"messages": messages, "state": copy.deepcopy(state), "form": form})
        # the case's turn: one in ten expects nothing; a turn that acts may leave its answer
        # out (its steps only); the user's message names the turn
        turn: dict[str, Any] = {"user": f"Turn {k}: {r.choice(_WORDS)}, please help ({index})"}
        expects = r.random() >= 0.1
        if expects:
            if calls:
                turn["expected_run"] = calls
            if not calls or r.random() < 0.8:
                turn["expected"] = answer
        case_turns.append(turn)
        # the plain pair: the same fields (a turn that expects nothing has none)
        if expects:
            plain_actual.append(_plain_turn(did_answer, did_calls, turn))
            plain_expected.append(_plain_turn(answer, calls, turn))
    case = {"id": f"c{index:03d}", "conversation": case_turns, "expected_state": truth_state}
    return {
        "case": case,
        "plan": {"turns": plan_turns},
        "plain": (
            {"turns": plain_actual, "state": state},
            {"turns": plain_expected, "state": truth_state},
        ),
    }


def _plain_turn(answer: dict[str, Any], calls: list[dict[str, Any]], turn: dict[str, Any]) -> Any:
    """A turn's rows as one JSON object: the answer's fields (where the turn expects them),
    each call's name and arguments (where it expects steps)."""
    out: dict[str, Any] = {}
    if "expected" in turn:
        out["answer"] = answer
    if "expected_run" in turn:
        out["calls"] = [{"call": c["name"], **c["arguments"]} for c in calls]
    return out


def write_suites(root: Path, n: int, turns: int, seed: int = 97) -> list[dict[str, Any]]:
    """``root`` with ``agent.py``, ``plan.json``, ``pytest.ini``, ``conversations/`` (the
    conversation cases) and ``plain/`` (the plain cases); the plans, in order."""
    plans = [plan_conversation(i, turns, seed) for i in range(n)]
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    (root / "agent.py").write_text(AGENT)
    plan_json = {p["case"]["id"]: {**p["plan"], "plain": p["plain"][0]} for p in plans}
    (root / "plan.json").write_text(json.dumps(plan_json))
    per_file = -(-n // FILES)
    for side in ("conversations", "plain", "empty"):
        (root / side).mkdir(exist_ok=True)
    for f in range(0, n, per_file):
        chunk = plans[f : f + per_file]
        mode = "unordered" if (f // per_file) % 3 == 2 else "superset"
        conv = {"threshold": 1.0, "run_options": {"mode": mode}, "cases": []}
        plain: dict[str, Any] = {"threshold": 1.0, "cases": []}
        for p in chunk:
            case = p["case"]
            conv["cases"].append({"id": case["id"], "input": {"plan": case["id"]}, **case})
            plain["cases"].append(
                {
                    "id": case["id"],
                    "input": {"plan": case["id"], "plain": True},
                    "expected": p["plain"][1],
                }
            )
            p["run_options"] = {"mode": mode}
        for side, doc in (("conversations", conv), ("plain", plain)):
            text = yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False)
            (root / side / f"cases_{f // per_file:02d}.jsonmatch.yaml").write_text(text)
    return plans


_OUTCOME = re.compile(r"(\d+) (passed|failed|errors?)")
_DURATION = re.compile(r" in ([\d.]+)s")
NO_TESTS = 5  # pytest's exit status when it collected nothing (the empty session)


def _session(root: Path, side: str, record: str, quick: bool) -> tuple[float, float, dict, float]:
    """Wall time and CPU time of one ``pytest`` session over ``side``'s cases (a child
    process; ``side``: folders, separated by spaces), its outcome (``{"passed": n,
    "failed": m}``; empty for ``empty``, a folder without cases) and pytest's own duration
    (from collection to its summary)."""
    extra = [*(suite.QUICK_ARGS if quick else []), f"--jsonmatch-record={record}", *side.split()]
    cmd = [sys.executable, "-m", "pytest", *suite.BASE_ARGS, *extra]
    wall, cpu, rc, tail = suite._timed(cmd, root, suite._env())
    outcome = {what.rstrip("s"): int(count) for count, what in _OUTCOME.findall(tail)}
    ok = rc == NO_TESTS and not outcome if side == "empty" else rc in (0, 1) and outcome
    if not ok or "error" in outcome:
        raise RuntimeError(f"pytest over {side} ({record}) failed, rc={rc}:\n{tail}")
    found = _DURATION.findall(tail)
    return wall, cpu, outcome, float(found[-1]) if found else float("nan")


def _recorded(root: Path, side: str, case_id: str) -> Any:
    """The output recorded for ``case_id`` of ``side``'s suite."""
    found = list((root / side).glob(f"__recordings__/*/{case_id}.json"))
    if len(found) != 1:
        raise RuntimeError(f"{side}: {len(found)} recordings of {case_id}")
    return json.loads(found[0].read_text())["output"]


def _cpu(fn: Callable[[], Any]) -> float:
    gc.collect()
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _abba(
    mine: Callable[[], Any], base: Callable[[], Any], runs: int
) -> tuple[list[float], list[float]]:
    """(mine, base) per run, in CPU time, the baseline first in even runs."""
    m: list[float] = []
    b: list[float] = []
    for k in range(runs):
        if k % 2 == 0:
            b.append(_cpu(base))
            m.append(_cpu(mine))
        else:
            m.append(_cpu(mine))
            b.append(_cpu(base))
    return m, b


def _ratios(mine: list[float], base: list[float]) -> tuple[float, str]:
    ratios = sorted(x / y for x, y in zip(mine, base))
    ratio = statistics.median(ratios)
    return ratio, f"ratio min {ratios[0]:.2f}x median {ratio:.2f}x max {ratios[-1]:.2f}x"


def _spread(values: list[float]) -> str:
    return "/".join(f"{v:.3g}" for v in (min(values), statistics.median(values), max(values)))


def scoring_rows(
    root: Path, plans: list[dict[str, Any]], runs: int, make_row: Callable[..., Any]
) -> list[Any]:
    """The scoring alone, in this process: the recorded conversations scored by their
    cases' scorers (built once per case, outside the timing), against ``match_json`` on
    the plain pairs of the same fields."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.engine.agents.conversation_scoring import (
        ConversationScorer,
        expectations,
    )

    def build() -> list[ConversationScorer]:
        return [
            ConversationScorer(
                expectations(p["case"]["conversation"]),
                p["case"]["expected_state"],
                "field_f1",
                p["run_options"],
                {},
            )
            for p in plans
        ]

    scorers = build()
    ids = [p["case"]["id"] for p in plans]
    conversations = [_recorded(root, "conversations", i) for i in ids]
    pairs = [(_recorded(root, "plain", i), p["plain"][1]) for i, p in zip(ids, plans)]

    def mine() -> list[Any]:
        return [s.scored(c) for s, c in zip(scorers, conversations)]

    def base() -> list[Any]:
        return [match_json(a, e, metric="field_f1") for a, e in pairs]

    ours, theirs = mine(), base()  # (also the warm-up)
    rows_ours = sum(len(r.fields) for r in ours)
    rows_theirs = sum(len(r.fields) for r in theirs)
    fail_ours = sum(r.score < 1.0 for r in ours)
    fail_theirs = sum(r.score < 1.0 for r in theirs)
    if rows_ours != rows_theirs or fail_ours != fail_theirs:
        raise RuntimeError(
            f"the baseline is not the same work: {rows_ours} rows and {fail_ours} cases "
            f"below 1 against {rows_theirs} and {fail_theirs}"
        )
    build_t = statistics.median(_cpu(build) for _ in range(max(1, min(runs, 3))))
    m, b = _abba(mine, base, runs)
    ratio, spread = _ratios(m, b)
    n = len(plans)
    turns = len(plans[0]["case"]["conversation"])
    t = statistics.median(m)
    return [
        make_row(
            SECTION,
            f"scoring alone, {n} recorded conversations of {turns} turns "
            "(ConversationScorer.scored, in process, CPU)",
            t,
            f"match_json field_f1, {n} plain pairs of the same fields",
            statistics.median(b),
            ratio,
            f"< {TARGET_S:g} s",
            "PASS" if t < TARGET_S else "MISS",
            runs,
            f"{spread}; times (s) {_spread(m)}; {rows_ours} rows ({rows_ours / n:.0f} a "
            f"conversation), {fail_ours} conversations below 1, the same in the baseline; "
            f"{t / n * 1e3:.2f} ms a conversation; building the {n} scorers {build_t:.3f} s",
        )
    ]


def session_rows(
    root: Path, n: int, turns: int, runs: int, quick: bool, make_row: Callable[..., Any]
) -> list[Any]:
    """Each suite replayed by a ``pytest`` session of its own, ABBA; after each pair, a
    session over a folder without cases (what any session costs before its first case)."""
    sides = ("conversations", "plain")
    if not quick:  # warm the page cache and .pyc files for both
        for side in (*sides, "empty"):
            _session(root, side, "none", quick)
    conv: list[tuple[float, float, dict, float]] = []
    plain: list[tuple[float, float, dict, float]] = []
    empty: list[tuple[float, float, dict, float]] = []
    for k in range(runs):
        order = [("conversations", conv), ("plain", plain)]
        for side, acc in order if k % 2 == 0 else order[::-1]:
            acc.append(_session(root, side, "none", quick))
        empty.append(_session(root, "empty", "none", quick))
    if any(c[2] != p[2] for c, p in zip(conv, plain)) or any(c[2] != conv[0][2] for c in conv):
        raise RuntimeError(
            f"the sessions disagree: {[c[2] for c in conv]}, {[p[2] for p in plain]}"
        )
    outcome = ", ".join(f"{v} {k}" for k, v in sorted(conv[0][2].items(), reverse=True))
    rows = []
    for i, clock in ((0, "wall"), (1, "CPU")):
        m, b = [c[i] for c in conv], [p[i] for p in plain]
        ratio, spread = _ratios(m, b)
        t = statistics.median(m)
        judged = clock == "wall"
        more = statistics.median(x - y for x, y in zip(m, b)) / n
        start = [e[i] for e in empty]
        note = (
            f"{spread}; times (s) {_spread(m)} against {_spread(b)}; "
            f"{more * 1e3:+.2f} ms a conversation (paired); a session without cases "
            f"{_spread(start)} s"
        )
        if judged:
            mine_says = statistics.median(c[3] for c in conv)
            base_says = statistics.median(p[3] for p in plain)
            note += (
                f"; pytest's own figure (collection to summary) {mine_says:.2f} s against "
                f"{base_says:.2f} s"
            )
        rows.append(
            make_row(
                SECTION,
                f"{n} recorded conversations of {turns} turns, pytest --jsonmatch-record=none, "
                f"{clock} time",
                t,
                BASELINE.format(n=n),
                statistics.median(b),
                ratio,
                f"< {TARGET_S:g} s" if judged else "-",
                ("PASS" if t < TARGET_S else "MISS") if judged else "INFO",
                runs,
                f"{note}; {outcome} in both",
            )
        )
    return rows


def bench(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """The section's rows: the two session rows, then the scoring alone."""
    n, turns = args.conversations, args.conversation_turns
    with tempfile.TemporaryDirectory(prefix="jm-bench-conversations-") as tmp:
        root = Path(tmp)
        plans = write_suites(root, n, turns)
        wall, _, outcome, _ = _session(root, "conversations plain", "once", args.quick)
        recorded = len(list(root.glob("*/__recordings__/*/*.json")))
        if recorded != 2 * n:
            raise RuntimeError(f"{recorded} recordings made of {2 * n} ({outcome})")
        rows = session_rows(root, n, turns, args.conversation_runs, args.quick, make_row)
        rows += scoring_rows(root, plans, args.runs, make_row)
    return rows
