"""pytest-jsonmatch benchmarks: one command, every figure against a baseline from the same run.

    python benchmarks/run.py                 # everything, full sizes (a few minutes)
    python benchmarks/run.py --quick         # tiny sizes, seconds (what the smoke test runs)
    python benchmarks/run.py --only pairing  # one section (repeatable)
    python benchmarks/run.py --json out.json # also write the rows as JSON

Sections: metrics, pairing, suite, startup, parse, peers, worst, dataset, references, otel, tools,
judge, report, agents, conversations, traces. Each row
is a median of several runs, its baseline measured in the same run (interleaved with it where
that is cheap), the ratio (row time / baseline time), and the target with PASS/MISS. The exit
status is 0 whatever the targets say (1 only when a section itself breaks), so a slow machine
does not look like a broken benchmark.

The peers section's baseline is DeepDiff(expected, actual, ignore_order=True), the tool a
user would otherwise pick for an order-agnostic comparison, so in its rows a ratio below 1x
means pytest-jsonmatch is faster. It needs the bench extra: pip install -e ".[bench]".

The references section (benchmarks/references.py) times pytest-jsonmatch against the three
implementations it reproduces (UiPath's JsonSimilarityEvaluator, structeval,
struct-extract-eval), one pair at a time and on a dataset, in the same process; the ratio is
again ours / theirs. They are not dependencies: a row is measured only when its reference is
installed beside the project, and is an INFO row saying so otherwise.

The agents section (benchmarks/agents.py) times the trajectory metric against agentevals'
trajectory match on the same pairs, and BFCL's multi-turn verdict against BFCL's own
multi_turn_checker on its entries (the whole verdict, each side executing the calls, and the
scoring after execution alone, on the same executed instances); ratio ours / theirs. Again
a reference not installed (agentevals, bfcl-eval) gives INFO rows.

The conversations section (benchmarks/conversations.py) replays 100 recorded conversation
cases of 10 turns each: the whole pytest session (wall and CPU time) against the same
session over 100 plain cases of the same fields, and the scoring alone in process
(ConversationScorer.scored against match_json on the plain pairs); the target is the
issue's, under 2 s.

The traces section (benchmarks/traces.py) reads and scores OTLP JSON trace files as the
Collector's file exporter writes them: one run selected by its session out of 100,000
spans, and one run of 100,000 spans; read_trace then RunScorer.scored against json.loads
of every line of the same file; the target is issue 98's, under 2 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import agents
import command_startup
import conversations
import corpus
import invoices
import judge_bench
import references
import report_bench
import tool_calls
import traces
import worst
from floor import floor_compare

SECTIONS = (
    "metrics",
    "pairing",
    "suite",
    "startup",
    "parse",
    "peers",
    "worst",
    "dataset",
    "references",
    "otel",
    "tools",
    "judge",
    "report",
    "agents",
    "conversations",
    "traces",
)
METRICS = ("field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1")


@dataclass
class Row:
    section: str
    case: str
    time_s: float | None
    baseline: str
    baseline_s: float | None
    ratio: float | None
    target: str
    status: str  # PASS, MISS or INFO
    runs: int
    note: str = ""


def _spread(mine: list[float], base: list[float]) -> str:
    """min-max of the paired ratios mine[k] / base[k]."""
    ratios = [m / b for m, b in zip(mine, base)]
    return f"{min(ratios):.2f}-{max(ratios):.2f}x"


def _timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def _fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.2f}x" if r >= 0.1 else f"{r:.2g}x"  # two digits that are not zeros


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


# -- 1. per-pair metric time vs the floor ---------------------------------------------------


def bench_metrics(args: argparse.Namespace) -> list[Row]:
    from pytest_jsonmatch import match_json

    pairs = corpus.corpus(args.pairs)
    flat = corpus.flat8(args.pairs)
    leaves = [corpus.count_leaves(e) for _, e in pairs]
    runs = args.runs

    def per_pair(fn: Callable[[Any, Any], Any], ps: list) -> float:
        def go() -> None:
            for a, e in ps:
                fn(a, e)

        return _timed(go) / len(ps)

    fns: dict[str, Callable[[Any, Any], Any]] = {"floor": floor_compare}
    for m in METRICS:
        fns[m] = (lambda m: lambda a, e: match_json(a, e, metric=m))(m)
    for fn in fns.values():  # warm up: imports, caches
        for a, e in pairs[:20]:
            fn(a, e)
    # Paired samples: every metric timing is taken next to a floor timing of the same pairs
    # (before it in one run, after it in the next), and the ratio is the median of those
    # per-run ratios. This machine's speed can shift by 1.5x for seconds at a time (shared
    # cores); a ratio of two adjacent timings is far steadier than a ratio of two
    # separately taken medians.
    floor_t: dict[str, list[float]] = {}
    metric_t: dict[tuple[str, str], list[float]] = {}
    ratios: dict[tuple[str, str], list[float]] = {}

    def paired(fn: Callable[[Any, Any], Any], ps: list, k: int) -> tuple[float, float]:
        """(floor, fn) per pair, in ABBA order: neither timing of a pair always goes first."""
        if k % 2 == 0:
            base = per_pair(floor_compare, ps)
            return base, per_pair(fn, ps)
        t = per_pair(fn, ps)
        return per_pair(floor_compare, ps), t

    for k in range(runs):
        for kind, ps in (("corpus", pairs), ("flat8", flat)):
            for m in METRICS:
                base, t = paired(fns[m], ps, k)
                floor_t.setdefault(kind, []).append(base)
                metric_t.setdefault((m, kind), []).append(t)
                ratios.setdefault((m, kind), []).append(t / base)
    rows = []
    desc = f"{len(pairs)} pairs, {min(leaves)}-{max(leaves)} leaves"
    for kind, label in (("corpus", desc), ("flat8", f"{len(flat)} flat 8-field pairs")):
        base = statistics.median(floor_t[kind])
        rows.append(
            Row(
                "metrics",
                f"floor walk, {label}",
                base,
                "-",
                None,
                None,
                "-",
                "INFO",
                len(floor_t[kind]),
                "per pair",
            )
        )
        for m in METRICS:
            t = statistics.median(metric_t[(m, kind)])
            ratio = statistics.median(ratios[(m, kind)])
            if kind == "corpus":
                # structural_f1's bar is what the compiled kernel made it (docs/performance.md)
                limit = KERNEL_RATIO if m == "structural_f1" else 4.0
                target, status = f"<= {limit:g}x floor", _verdict(ratio <= limit)
            else:
                target, status = "-", "INFO"
            rows.append(
                Row(
                    "metrics",
                    f"{m} ({kind})",
                    t,
                    "floor walk",
                    base,
                    ratio,
                    target,
                    status,
                    runs,
                    "per pair",
                )
            )
    rows.append(_hungarian_row(pairs, fns["field_f1"], per_pair, runs))
    return rows


KERNEL_RATIO = 3.31  # structural_f1 / floor with the compiled pair kernel, before its removal


def _hungarian_row(
    pairs: list,
    ordered: Callable[[Any, Any], Any],
    per_pair: Callable[[Callable[[Any, Any], Any], list], float],
    runs: int,
) -> Row:
    """field_f1 with align="hungarian" against ordered field_f1 on the corpus, ABBA-paired."""
    from pytest_jsonmatch import match_json

    def hungarian(a: Any, e: Any) -> Any:
        return match_json(a, e, metric="field_f1", align="hungarian")

    for a, e in pairs[:20]:
        hungarian(a, e)
    times: list[float] = []
    bases: list[float] = []
    for k in range(runs):
        if k % 2 == 0:
            base = per_pair(ordered, pairs)
            t = per_pair(hungarian, pairs)
        else:
            t = per_pair(hungarian, pairs)
            base = per_pair(ordered, pairs)
        times.append(t)
        bases.append(base)
    ratio = statistics.median(t / b for t, b in zip(times, bases))
    return Row(
        "metrics",
        "field_f1 align=hungarian (corpus)",
        statistics.median(times),
        "field_f1 ordered",
        statistics.median(bases),
        ratio,
        "<= 1.5x ordered",
        _verdict(ratio <= 1.5),
        runs,
        "per pair",
    )


# -- 2. pairing shuffled objects vs one bare assignment ------------------------------------


def bench_pairing(args: argparse.Namespace) -> list[Row]:
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    from pytest_jsonmatch import match_json

    rows = []
    for n in args.pairing_sizes:
        runs = args.pairing_runs if n <= 1000 else 1
        matrix = np.random.default_rng(n).random((n, n))
        for variant, make in (
            ("shuffled", corpus.shuffled_objects),
            ("shuffled+damaged", corpus.damaged_shuffle),
        ):
            actual, expected = make(n)
            base_s: list[float] = []
            samples: dict[str, list[float]] = {"structural_f1": [], "field_f1": []}
            f1s: dict[str, float] = {}
            for _ in range(runs):
                base_s.append(_timed(lambda: linear_sum_assignment(matrix)))
                for m, kw in (("structural_f1", {}), ("field_f1", {"align": "hungarian"})):
                    out: list = []
                    samples[m].append(
                        _timed(lambda: out.append(match_json(actual, expected, metric=m, **kw)))
                    )
                    f1s[m] = out[0].f1
            base = statistics.median(base_s)
            for m, ts in samples.items():
                t = statistics.median(ts)
                ratio = statistics.median(x / b for x, b in zip(ts, base_s))  # paired runs
                case = f"{m}{' align=hungarian' if m == 'field_f1' else ''}, {n} {variant} objects"
                exact = f1s[m] == 1.0
                note = f"F1={f1s[m]!r}" if variant == "shuffled" else f"F1={f1s[m]:.4f}"
                if variant != "shuffled":  # no target: shows the cost without exact copies
                    target, status = "-", "INFO"
                elif n == 1000:
                    target = "<= 10x LSA, F1 == 1.0"
                    status = _verdict(ratio <= 10.0 and exact)
                elif n >= 3000:
                    target, status = "finishes, F1 == 1.0", _verdict(exact)
                else:  # the targets are set at 1,000 and 3,000 objects
                    target, status = "F1 == 1.0", _verdict(exact)
                rows.append(
                    Row(
                        "pairing",
                        case,
                        t,
                        f"linear_sum_assignment {n}x{n} random",
                        base,
                        ratio,
                        target,
                        status,
                        runs,
                        note,
                    )
                )
    return rows


# -- 3. the YAML suite through the plugin vs a minimal collector ---------------------------


def bench_suite(args: argparse.Namespace) -> list[Row]:
    import suite

    n = args.suite_files
    runs = args.suite_runs
    with tempfile.TemporaryDirectory(prefix="jm-bench-suite-") as tmp:
        root = suite.write_suite(Path(tmp), n)
        if not args.quick:  # warm the page cache and .pyc files for both
            suite.run_suite(root, "minimal")
            suite.run_suite(root, "plugin")
        # per run (CPU time, wall time); the row is CPU time (user + system of the pytest
        # process), as the start-up row: on a shared machine the wall clock measures the
        # neighbours too. The wall-clock ratio goes in the notes.
        t_plugin: list[tuple[float, float]] = []
        t_min: list[tuple[float, float]] = []
        for k in range(runs):
            order = [("plugin", t_plugin), ("minimal", t_min)]
            for variant, acc in order if k % 2 == 0 else order[::-1]:  # ABBA: no side always first
                wall, cpu, rc, tail = suite.run_suite(root, variant, args.quick)
                if rc != 0 or f"{n} passed" not in tail:
                    raise RuntimeError(f"suite run ({variant}) failed, rc={rc}:\n{tail}")
                acc.append((cpu, wall))
        # peak resident memory of one session each (the bound: within 1.25x of
        # the minimal collector's)
        peaks = {}
        for variant in ("plugin", "minimal"):
            peak, rc, tail = suite.suite_peak(root, variant, args.quick)
            if rc != 0 or f"{n} passed" not in tail:
                raise RuntimeError(f"suite run ({variant}) failed, rc={rc}:\n{tail}")
            peaks[variant] = peak
    cpu_plugin, cpu_min = [c for c, _ in t_plugin], [c for c, _ in t_min]
    t, base = statistics.median(cpu_plugin), statistics.median(cpu_min)
    ratio = statistics.median(p / m for p, m in zip(cpu_plugin, cpu_min))  # paired runs
    wall = statistics.median(p[1] / m[1] for p, m in zip(t_plugin, t_min))
    return [
        Row(
            "suite",
            f"{n} one-case YAML files, pytest + jsonmatch (CPU time)",
            t,
            "minimal collector (CSafeLoader, ==)",
            base,
            ratio,
            "<= 1.15x",
            _verdict(ratio <= 1.15),
            runs,
            f"per case {t / n * 1e3:.2f} ms vs "
            f"{base / n * 1e3:.2f} ms of CPU; ratios {_spread(cpu_plugin, cpu_min)}; "
            f"wall-clock ratio {wall:.2f}x ({_spread([w for _, w in t_plugin], [w for _, w in t_min])})",
        ),
        Row(
            "suite",
            f"{n} one-case YAML files, pytest + jsonmatch (peak memory size)",
            None,  # (a memory row: its figures are in the note)
            "minimal collector (CSafeLoader, ==)",
            None,
            peaks["plugin"] / peaks["minimal"],
            "<= 1.25x",
            _verdict(peaks["plugin"] <= 1.25 * peaks["minimal"]),
            1,
            f"peak RSS {peaks['plugin'] / 2**20:.1f} MB vs {peaks['minimal'] / 2**20:.1f} MB",
        ),
        _concurrent_calls_row(args),
    ]


_SLOW_TARGET = """
import time

def pytest_jsonmatch_target(case, config):
    time.sleep({seconds})
    return {{"n": case.input}}
"""


def _concurrent_calls_row(args: argparse.Namespace) -> Row:
    """40 input: cases whose target takes 0.2 s, at --jsonmatch-calls=concurrency=8 against 1, in
    one run (quick: 8 cases of 0.02 s)."""
    import subprocess

    import suite

    cases, seconds = (8, 0.02) if args.quick else (40, 0.2)
    with tempfile.TemporaryDirectory(prefix="jm-bench-calls-") as tmp:
        root = Path(tmp)
        (root / "conftest.py").write_text(_SLOW_TARGET.format(seconds=seconds))
        (root / "pytest.ini").write_text("[pytest]\n")
        (root / "c.jsonmatch.yaml").write_text(
            "cases:\n"
            + "".join(
                f"  - id: c{i}\n    expected: {{n: {i}}}\n    input: {i}\n" for i in range(cases)
            )
        )

        def run(n: int) -> float:
            t0 = time.perf_counter()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    *(suite.QUICK_ARGS if args.quick else []),
                    "-p",
                    "no:xdist",
                    f"--jsonmatch-calls=concurrency={n}",
                ],
                cwd=root,
                env=suite._env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0 or f"{cases} passed" not in done.stdout:
                raise RuntimeError(
                    f"concurrency {n} run failed, rc={done.returncode}:\n"
                    f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
                )
            return time.perf_counter() - t0

        t8, t1 = run(8), run(1)
    ratio = t8 / t1
    return Row(
        "suite",
        f"{cases} input: cases of a {seconds:g} s target, concurrency 8",
        t8,
        "the same at concurrency 1",
        t1,
        ratio,
        "<= 0.33x",
        _verdict(ratio <= 1 / 3),
        1,
        f"calls alone: {cases * seconds:.1f} s serial, {cases * seconds / 8:.1f} s at 8",
    )


# -- 4. start-up with the plugin installed but unused --------------------------------------


def bench_startup(args: argparse.Namespace) -> list[Row]:
    """The plugin's cost to a session that never uses it, in CPU time (user + system of the
    pytest process: on a shared machine the wall clock mostly measures the neighbours),
    ABBA-paired; the wall-clock difference goes in the notes."""
    import suite

    runs = args.startup_runs
    with tempfile.TemporaryDirectory(prefix="jm-bench-plain-") as tmp:
        root = suite.write_plain_project(Path(tmp))
        if not args.quick:  # compiles both variants' bytecode first
            suite.run_startup(root, True)
            suite.run_startup(root, False)
        on: list[tuple[float, float]] = []
        off: list[tuple[float, float]] = []
        for k in range(runs):
            order = [(True, on), (False, off)]
            for with_plugin, acc in order if k % 2 == 0 else order[::-1]:  # ABBA, as above
                wall, cpu, rc, tail = suite.run_startup(root, with_plugin, args.quick)
                if rc != 0 or f"{suite.PLAIN_TESTS} passed" not in tail:
                    raise RuntimeError(f"start-up run failed, rc={rc}:\n{tail}")
                acc.append((cpu, wall))
    cpu_on, cpu_off = [c for c, _ in on], [c for c, _ in off]
    overhead = statistics.median(a - b for a, b in zip(cpu_on, cpu_off))  # paired sessions
    spread = sorted(a - b for a, b in zip(cpu_on, cpu_off))
    wall = statistics.median(a[1] - b[1] for a, b in zip(on, off))
    return [
        Row(
            "startup",
            f"pytest -q, {suite.PLAIN_TESTS} tests not using the plugin, "
            "plugin installed (CPU time)",
            statistics.median(cpu_on),
            "same with -p no:jsonmatch",
            statistics.median(cpu_off),
            statistics.median(a / b for a, b in zip(cpu_on, cpu_off)),
            "overhead <= 30 ms",
            _verdict(overhead <= 0.030),
            runs,
            f"CPU overhead {overhead * 1e3:+.1f} ms (paired differences "
            f"{spread[0] * 1e3:+.1f} / {spread[len(spread) // 2] * 1e3:+.1f} / "
            f"{spread[-1] * 1e3:+.1f} ms min/median/max); wall {wall * 1e3:+.1f} ms",
        )
    ] + command_startup.bench(args, Row)  # the jsonmatch command's own start-up


# -- 5. lenient parsing of adversarial text -----------------------------------------------


def adversarial_texts(size: int, seed: int = 11) -> dict[str, str]:
    rng = random.Random(seed)
    soup = "".join(rng.choices('{{{}}[]":,ab1 \n\\', k=size))
    # no ':' and no whitespace, and every "{}" filled: no span anywhere parses to an object
    dead = "".join(rng.choices('{{{}}[]",ab1\\', k=size)).replace("{}", "{1}")[:size]
    nested = '{"a": ' * (size // 6)
    return {
        "'{' x N": "{" * size,
        "unterminated nesting '{\"a\": ' x N": nested,
        "brace soup": soup,
        "brace soup, no object anywhere": dead,
        "soup in an unclosed ``` fence": "```json\n" + soup[: size - 8],
        "unclosed string then braces": '{"a": "' + "{" * (size - 7),
        "many small balanced non-JSON {x}": ("{x} " * (size // 4)),
    }


def bench_parse(args: argparse.Namespace) -> list[Row]:
    from pytest_jsonmatch import ParseError
    from pytest_jsonmatch.engine.reading.parse import parse_actual

    size = int(args.parse_mb * 1_000_000)
    runs = args.parse_runs
    valid = json.dumps({"items": [{"k": "v" * 40, "n": i} for i in range(size // 60)]})
    base = statistics.median(_timed(lambda: json.loads(valid)) for _ in range(runs))
    rows = []
    for name, text in adversarial_texts(size).items():
        outcome: list[str] = []

        def go() -> None:
            try:
                parse_actual(text)
                outcome.append("parsed")
            except ParseError:
                outcome.append("ParseError")

        t = statistics.median(_timed(go) for _ in range(runs))
        rows.append(
            Row(
                "parse",
                f"{args.parse_mb:g} MB {name}",
                t,
                f"json.loads, {len(valid) / 1e6:.0f} MB valid",
                base,
                t / base,
                "< 1 s",
                _verdict(t < 1.0),
                runs,
                outcome[0],
            )
        )
    return rows


# -- 6. peers: DeepDiff with ignore_order=True, the order-agnostic alternative ---------------


class _Capped(BaseException):
    """Raised by the alarm in a run past the cap (not an Exception, so that no ``except
    Exception`` inside the timed library can swallow it)."""


def _timed_capped(fn: Callable[[], Any], cap: float) -> float | None:
    """As :func:`_timed`, or None when ``fn`` ran past ``cap`` seconds and was stopped there.
    A cap of 0 means none; so does a platform without SIGALRM."""
    if not hasattr(signal, "setitimer"):
        return _timed(fn)

    def stop(signum: int, frame: Any) -> None:
        raise _Capped

    def go() -> None:
        signal.setitimer(signal.ITIMER_REAL, cap)
        try:
            fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    old = signal.signal(signal.SIGALRM, stop)
    try:
        return _timed(go)
    except _Capped:
        return None
    finally:
        signal.signal(signal.SIGALRM, old)


def _diff_summary(diff: Any) -> str:
    if not diff:
        return "DeepDiff: no difference"
    return "DeepDiff: " + ", ".join(f"{len(v)} {kind}" for kind, v in diff.items())


def bench_peers(args: argparse.Namespace) -> list[Row]:
    try:
        import deepdiff
    except ImportError:
        return [
            Row(
                "peers",
                "DeepDiff ignore_order=True",
                None,
                "-",
                None,
                None,
                "-",
                "INFO",
                0,
                'deepdiff not installed: pip install -e ".[bench]"',
            )
        ]
    from pytest_jsonmatch import match_json

    peer = f"DeepDiff {deepdiff.__version__} ignore_order=True"
    tools: dict[str, Callable[[Any, Any], Any]] = {
        "structural_f1": lambda a, e: match_json(a, e, metric="structural_f1"),
        "field_f1 align=hungarian": lambda a, e: match_json(
            a, e, metric="field_f1", align="hungarian"
        ),
        peer: lambda a, e: deepdiff.DeepDiff(e, a, ignore_order=True),
    }
    ours = [name for name in tools if name != peer]
    names = list(tools)

    def identical(name: str, result: Any) -> bool:
        return not result if name == peer else result.f1 == 1.0

    def ratio(ts: list[float], bs: list[float]) -> float:
        return statistics.median(t / b for t, b in zip(ts, bs))  # paired runs

    # The metric corpus: every pair compared by each tool in turn, the order reversed every
    # other run (ABBA), each timing kept next to the others of its run.
    pairs = corpus.corpus(args.pairs)
    for fn in tools.values():  # warm up: imports, caches
        for a, e in pairs[:20]:
            fn(a, e)
    samples: dict[str, list[float]] = {name: [] for name in names}
    same: dict[str, int] = {}
    for k in range(args.runs):
        for name in names if k % 2 == 0 else names[::-1]:
            fn = tools[name]
            verdicts: list[bool] = []
            samples[name].append(
                _timed(lambda: verdicts.extend(identical(name, fn(a, e)) for a, e in pairs))
                / len(pairs)
            )
            same[name] = sum(verdicts)
    agree = len(set(same.values())) == 1
    rows = []
    for name in ours:
        note = (
            f"per pair; identical pairs: {same[name]} by both"
            if agree
            else f"per pair; identical pairs: {same[name]} by F1 == 1.0, {same[peer]} by DeepDiff"
        )
        rows.append(
            Row(
                "peers",
                f"{name}, {len(pairs)} corpus pairs",
                statistics.median(samples[name]),
                peer,
                statistics.median(samples[peer]),
                ratio(samples[name], samples[peer]),
                "-",
                "INFO",
                args.runs,
                note,
            )
        )

    # Shuffled lists of objects: one comparison of {"items": [n objects]} per timing. DeepDiff's
    # runs of one case stop at the cap, and no new run starts once they add up to the cap.
    cap = args.peer_cap
    for n in args.peer_sizes:
        for variant, make in (
            ("shuffled", corpus.shuffled_objects),
            ("shuffled+damaged", corpus.damaged_shuffle),
        ):
            actual, expected = make(n)
            samples = {name: [] for name in names}
            last: dict[str, Any] = {}
            capped = False
            for k in range(args.pairing_runs):
                for name in names if k % 2 == 0 else names[::-1]:
                    fn, out = tools[name], []

                    def run() -> None:
                        out.append(fn(actual, expected))

                    t = _timed_capped(run, cap) if name == peer else _timed(run)
                    if t is None:
                        capped = True
                        break
                    samples[name].append(t)
                    last[name] = out[0]
                if capped or (cap and sum(samples[peer]) > cap):
                    break
            base = statistics.median(samples[peer]) if samples[peer] else None
            if capped:
                peer_note = f"DeepDiff stopped at the {cap:g} s cap"
            else:
                peer_note = _diff_summary(last[peer])
            for name in ours:
                t = statistics.median(samples[name])
                f1 = last[name].f1
                note = f"F1={f1!r}" if variant == "shuffled" else f"F1={f1:.4f}"
                note += f"; {peer_note}"
                if base is None:
                    note += f", so the ratio is below {t / cap:.4f}x"
                rows.append(
                    Row(
                        "peers",
                        f"{name}, {n} {variant} objects",
                        t,
                        peer,
                        base,
                        None if base is None else ratio(samples[name], samples[peer]),
                        "-",
                        "INFO",
                        len(samples[name]),
                        note,
                    )
                )
    return rows


# -- 7. worst cases: large arrays, long strings, deep nesting, each in its own process ------


def _worst_families(args: argparse.Namespace) -> list[tuple[str, str, dict[str, Any], list[int]]]:
    """(case, metric, options, sizes) of every family of worst cases."""
    out = []
    for case in ("objects", "strings"):
        for metric, options in worst.PAIRING.items():
            out.append((case, metric, options, args.worst_sizes))
    for metric, options in worst.PAIRING.items():  # the dense method's cost, at one size
        out.append(("repeated objects", metric, options, args.worst_sizes[-1:]))
    out.append(("near string", "json_similarity", {}, args.worst_strings))
    out.append(("unrelated string", "json_similarity", {}, args.worst_strings[:1]))
    for case in ("deep objects", "deep arrays"):
        # (a quick run, a smoke test of the script, tries two metrics, not all five)
        for metric in worst.METRICS if not args.quick else ("json_similarity", "structural_f1"):
            out.append((case, metric, {}, args.worst_depths))
        out.append((case, "field_f1", {"align": "hungarian"}, args.worst_depths))
    for metric, options in worst.PAIRING.items():
        out.append(("deep array pairs", metric, options, args.worst_depths))
    # every level's candidate pair scores 0 (issue 99: quadratic in depth before)
    out.append(("deep differing arrays", "field_f1", {"align": "hungarian"}, args.worst_depths))
    return out


def _worst_target(case: str, size: int) -> tuple[str, Callable[[float, int], bool]] | None:
    """The issue's target for a case at a size, as (text, check(time_s, peak_bytes))."""
    mb = 1024 * 1024
    if case == "objects" and size == 10_000:
        return "< 5 s, < 1 GB", lambda t, peak: t < 5 and peak < 1024 * mb
    if case == "strings" and size == 10_000:
        return "< 1 s, < 512 MB", lambda t, peak: t < 1 and peak < 512 * mb
    if case == "near string" and size == 100_000:
        return "< 50 ms", lambda t, peak: t < 0.05
    if case == "near string" and size == 1_000_000:
        return "< 2 s", lambda t, peak: t < 2
    return None


def bench_worst(args: argparse.Namespace) -> list[Row]:
    timeout = 60.0 if args.quick else 600.0
    run_case = worst.run_case
    if args.quick:  # each case forked from this process, its imports made here once (worst.py)
        worst.warm_up()
        run_case = worst.run_case_forked
    rows = []
    for case, metric, options, sizes in _worst_families(args):
        name = metric + (" align=hungarian" if options else "")
        unit = (
            "deep"
            if case.startswith("deep")
            else ("chars" if case.endswith(" string") else "elements")
        )
        times, scores, family = [], [], []
        for size in sizes:
            found = run_case(case, size, metric, options, timeout)
            label = f"{name}, {case}, {size:,} {unit}"
            if "error" in found:
                rows.append(
                    Row("worst", label, None, "-", None, None, "-", "MISS", 1, found["error"])
                )
                continue
            t, peak = found["time_s"], found["peak_bytes"]
            times.append(t)
            scores.append(found["score"])
            family.append(size)
            target = _worst_target(case, size)
            status = "INFO" if target is None else _verdict(target[1](t, peak))
            rows.append(
                Row(
                    "worst",
                    label,
                    t,
                    "-",
                    None,
                    None,
                    target[0] if target else "-",
                    status,
                    1,
                    f"peak {peak / 2**20:.0f} MB; score {found['score']:.6f}",
                )
            )
        exponent = worst.growth(family, times)
        if exponent is not None and rows:
            rows[-1].note += f"; growth exponent {exponent:.2f} over {family[0]:,}-{family[-1]:,}"
        if case in ("deep objects", "deep arrays") and len(set(scores)) > 1:  # one answer
            rows[-1].status, rows[-1].target = "MISS", "same score at every depth"
            rows[-1].note += f"; scores differ: {scores}"
    return rows


# -- 7. jsonmatch score: memory as the dataset grows, -j 2 against -j 1 ---------------------


_SCORE_RUN = """
import resource, sys, time
from pytest_jsonmatch.cli import main
t0 = time.perf_counter()
c0 = time.process_time()
status = main(sys.argv[1:])
took = time.perf_counter() - t0
cpu = time.process_time() - c0
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
print("BENCH", status, took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, cpu,
      workers.ru_utime + workers.ru_stime)
"""


def _write_dataset(folder: Path, n: int, seed: int = 3) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gold, pred = folder / f"gold-{n}.jsonl", folder / f"pred-{n}.jsonl"
    with gold.open("w") as g, pred.open("w") as p:
        for i in range(n):
            record = {
                "id": i,
                "vendor": rng.choice(["ACME Corp", "Initech", "Globex"]),
                "total": round(rng.uniform(1, 500), 2),
                "currency": "EUR",
                "items": [
                    {"sku": f"S{rng.randint(1, 99)}", "qty": rng.randint(1, 5)} for _ in range(3)
                ],
            }
            g.write(json.dumps(record) + "\n")
            if rng.random() < 0.3:
                record["total"] = round(record["total"] + 1, 2)
            answer = json.dumps(record)
            p.write(json.dumps(f"Here it is:\n```json\n{answer}\n```") + "\n")
    return gold, pred


def _score_process(code: str, args: list[str]) -> tuple[float, int]:
    """(seconds scoring, peak RSS in kB) of one command-line run in a fresh process."""
    took, peak, _, _ = _score_process_cpu(code, args)
    return took, peak


def _score_process_cpu(code: str, args: list[str]) -> tuple[float, int, float, float]:
    """(seconds scoring, peak RSS in kB, the command's own CPU seconds, its workers' CPU
    seconds) of one command-line run in a fresh process (compiled modules kept, as on a
    user's machine)."""
    import subprocess

    root = str(Path(__file__).resolve().parents[1])
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=3600
    )
    line = next((row for row in done.stdout.splitlines() if row.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"jsonmatch score failed: {done.stderr[-500:]}")
    _, status, took, peak, cpu, workers = line.split()
    return float(took), int(peak), float(cpu), float(workers)


# -j N against -j 1: the issue's targets (N workers this many times -j 1's time, at most)
JOBS_TARGETS = {2: 0.59, 16: 0.10}


def _jobs_row(args: argparse.Namespace, folder: Path) -> Row:
    """``jsonmatch score -j N`` against ``-j 1`` on the invoices (text output to a file), each
    run a fresh process, ABBA-paired; the outputs compared byte for byte. The serial
    fraction s is read from each pair by Amdahl's law (t_N = t_1 (s + (1 - s) / N)), and
    measured as the command's own share of the CPU time of the -j N run (reading, pairing,
    merging, rendering, and handing chunks to the workers)."""
    n, jobs = args.dataset_sizes[0], args.dataset_jobs
    gold, pred = invoices.write_jsonl(folder, n)
    outs = {j: folder / f"jobs-{j}.txt" for j in (1, jobs)}
    times: dict[int, list[float]] = {1: [], jobs: []}
    own_share = []
    for k in range(args.dataset_runs):
        for j in (1, jobs) if k % 2 == 0 else (jobs, 1):
            took, _, cpu, workers = _score_process_cpu(
                _SCORE_RUN, ["score", str(gold), str(pred), "-j", str(j), "-o", str(outs[j])]
            )
            times[j].append(took)
            if j > 1:
                own_share.append(cpu / (cpu + workers))
    same = outs[1].read_bytes() == outs[jobs].read_bytes()
    ratios = [b / a for a, b in zip(times[1], times[jobs])]
    ratio = statistics.median(ratios)
    serial = [(jobs * r - 1) / (jobs - 1) for r in ratios]
    target = JOBS_TARGETS.get(jobs)
    return Row(
        "dataset",
        f"jsonmatch score {n:,} invoice records -j {jobs}",
        statistics.median(times[jobs]),
        "-j 1, same records",
        statistics.median(times[1]),
        ratio,
        f"<= {target:.2f}x" if target else "-",
        _verdict(ratio <= target and same) if target else "INFO",
        args.dataset_runs,
        f"{os.cpu_count()} CPUs; output {'identical' if same else 'DIFFERS'}; ratios "
        f"{_spread(times[jobs], times[1])}; serial fraction by Amdahl "
        f"{min(serial):.2f}/{statistics.median(serial):.2f}/{max(serial):.2f}, the "
        f"command's own share of the CPU {min(own_share):.3f}/"
        f"{statistics.median(own_share):.3f}/{max(own_share):.3f} (min/median/max)",
    )


def bench_dataset(args: argparse.Namespace) -> list[Row]:
    small, large = args.dataset_sizes
    rows = []
    with tempfile.TemporaryDirectory(prefix="jm-bench-data-") as tmp:
        folder = Path(tmp)
        files = {n: _write_dataset(folder, n) for n in (small, large)}
        peaks, times = {}, {}
        for n in (small, large):
            gold, pred = files[n]
            times[n], peaks[n] = _score_process(
                _SCORE_RUN, ["score", str(gold), str(pred), "--report", str(folder / "r.json")]
            )
        growth = peaks[large] / peaks[small]
        for n in (small, large):
            rows.append(
                Row(
                    "dataset",
                    f"jsonmatch score {n:,} records -j 1 --report",
                    times[n],
                    "-",
                    None,
                    None,
                    "-",
                    "INFO",
                    1,
                    f"peak RSS {peaks[n] / 1024:.1f} MB; {n / times[n]:,.0f} records/s",
                )
            )
        rows.append(
            Row(
                "dataset",
                f"peak RSS growth {small:,} -> {large:,} records",
                times[large],
                f"peak at {small:,}",
                None,
                growth,
                "<= 1.10x",
                _verdict(growth <= 1.10),
                1,
                f"{peaks[small] / 1024:.1f} MB -> {peaks[large] / 1024:.1f} MB",
            )
        )
        rows.append(_jobs_row(args, folder))
        rows.append(_json_output_row(folder, small, args.dataset_runs))
        rows.append(_conformance_row(args, folder))
    return rows


def _conformance_row(args: argparse.Namespace, folder: Path) -> Row:
    """``jsonmatch score --schema`` on the invoices, each answer checked against the schema,
    against the same run with the check off (``--option conformance=false``): in this
    process, runs in ABBA order, the ratio the median of the paired runs' ratios. Times are
    this process's CPU time (one job: all the work is here), which other processes on a
    shared machine disturb far less than wall time."""
    import io
    from contextlib import redirect_stdout

    from pytest_jsonmatch.cli import main

    n = args.dataset_sizes[0]
    gold, pred = invoices.write_jsonl(folder, n)
    schema = folder / "invoice.schema.json"
    schema.write_text(json.dumps(invoices.SCHEMA))
    argv = ["score", str(gold), str(pred), "--schema", str(schema), "-f", "json"]
    off = ["--option", "conformance=false"]
    with redirect_stdout(io.StringIO()) as out:
        main(argv)  # warm: imports, the schema read and compiled
    valid = json.loads(out.getvalue())["metrics"]["field_f1"]["conformance"]["valid"]

    def run(extra: list[str]) -> float:
        gc.collect()
        with redirect_stdout(io.StringIO()):
            t0 = time.process_time()
            main(argv + extra)
            return time.process_time() - t0

    on_t: list[float] = []
    off_t: list[float] = []
    for k in range(args.dataset_runs):
        pairs = [(on_t, []), (off_t, off)]
        for times, extra in pairs if k % 2 == 0 else pairs[::-1]:
            times.append(run(extra))
    ratios = [a / b for a, b in zip(on_t, off_t)]
    ratio = statistics.median(ratios)
    # the check alone, on the parsed predictions: what the paired runs' noise may hide
    from pytest_jsonmatch.engine.schemas.conformance import validator_for

    check = validator_for(invoices.SCHEMA).check
    answers = invoices.records(n)[1]
    alone = []
    for _ in range(3):
        t0 = time.process_time()
        for answer in answers:
            check(answer)
        alone.append(time.process_time() - t0)
    return Row(
        "dataset",
        f"jsonmatch score {n:,} invoices --schema, conformance checked (CPU)",
        statistics.median(on_t),
        "--option conformance=false",
        statistics.median(off_t),
        ratio,
        "<= 1.10x",
        _verdict(ratio <= 1.10),
        args.dataset_runs,
        f"ratios min {min(ratios):.3f} median {ratio:.3f} max {max(ratios):.3f}; the "
        f"check alone {min(alone) / n * 1e6:.0f} us an answer, "
        f"{min(alone) / statistics.median(off_t):.1%} of the run without it; "
        f"{valid:,} of {n:,} answers valid",
    )


def _json_output_row(folder: Path, n: int, runs: int) -> Row:
    """``jsonmatch score --format json -o FILE`` against the text output, on the invoices
    (benchmarks/invoices.py), in this process, ABBA-paired: the JSON report of n cases may
    cost at most a fifth of the scoring (ratio <= 1.20x)."""
    import invoices

    from pytest_jsonmatch.cli import main

    gold, pred = invoices.write_jsonl(folder, n)
    text = ["score", str(gold), str(pred), "-o", os.devnull]
    as_json = ["score", str(gold), str(pred), "--format", "json", "-o", str(folder / "s.json")]
    main(text)  # warm-up: imports, caches
    t_text: list[float] = []
    t_json: list[float] = []
    cpu: dict[int, list[float]] = {id(t_text): [], id(t_json): []}
    for k in range(max(runs, 3)):
        order = [(text, t_text), (as_json, t_json)]
        for argv, acc in order if k % 2 == 0 else order[::-1]:
            c0 = time.process_time()
            acc.append(_timed(lambda argv=argv: main(argv)))
            cpu[id(acc)].append(time.process_time() - c0)
    ratio = statistics.median(j / t for j, t in zip(t_json, t_text))
    cpu_ratios = [j / t for j, t in zip(cpu[id(t_json)], cpu[id(t_text)])]
    return Row(
        "dataset",
        f"jsonmatch score --format json -o FILE, {n:,} invoices",
        statistics.median(t_json),
        "text output, same records",
        statistics.median(t_text),
        ratio,
        "<= 1.20x",
        _verdict(ratio <= 1.20),
        len(t_json),
        f"ratios {_spread(t_json, t_text)}; in-process, ABBA; in CPU time "
        f"{min(cpu_ratios):.2f}/{statistics.median(cpu_ratios):.2f}/"
        f"{max(cpu_ratios):.2f} (min/median/max)",
    )


# -- 9. the implementations pytest-jsonmatch reproduces, timed in the same process ---------


def bench_references(args: argparse.Namespace) -> list[Row]:
    """The rows are made in benchmarks/references.py, which is given this script's Row."""
    return references.bench(args, Row)


def bench_tools(args: argparse.Namespace) -> list[Row]:
    """The rows are made in benchmarks/tool_calls.py (BFCL's checker against rules=bfcl)."""
    return tool_calls.bench(args, Row)


# -- 10. the OpenTelemetry export: a suite with jsonmatch_otel on against off ---------------


def bench_otel(args: argparse.Namespace) -> list[Row]:
    """``--otel-cases`` input: cases (1,000) run with the export on, to a local OTLP/HTTP
    receiver, and off, ``--otel-runs`` times each, ABBA. Each pair of runs gives a ratio of
    wall times and one of CPU times (the exporter's threads included; steadier on a shared
    machine); a row's ratio is their median, min and max beside it. The judged rows: a target
    that answers at once, in process (the export's worst case); beside them (full runs),
    ``fields`` and a target calling a local HTTP model through httpx. Needs the otel extra."""
    import otel_suite

    from pytest_jsonmatch.telemetry.otel_settings import installed

    n, runs = args.otel_cases, args.otel_runs
    if not installed():
        return [
            Row(
                "otel",
                f"{n} input: cases, jsonmatch_otel",
                None,
                "-",
                None,
                None,
                "<= 1.10x",
                "INFO",
                0,
                'not installed: pip install -e ".[otel]"',
            )
        ]
    receiver = otel_suite.Receiver()  # the collector, and the HTTP model
    variants = [("", "cases", True)] + (
        [] if args.quick else [("", "fields", False), (receiver.url, "cases", False)]
    )
    rows = []
    try:
        for model, mode, judged in variants:
            with tempfile.TemporaryDirectory(prefix="jm-bench-otel-") as tmp:
                root = Path(tmp)
                otel_suite.write_suite(root, n, model)
                if not args.quick:  # warm the page cache and .pyc files for both
                    otel_suite.run(root, n, mode, receiver, False)
                    otel_suite.run(root, n, "off", receiver, False)
                on: list[tuple[float, float]] = []
                off: list[tuple[float, float]] = []
                for k in range(runs):
                    order = [(mode, on), ("off", off)]
                    for variant, acc in order if k % 2 == 0 else order[::-1]:  # ABBA
                        acc.append(otel_suite.run(root, n, variant, receiver, args.quick))
            target = "httpx to a local model" if model else "in process"
            for i, clock in ((0, "wall"), (1, "CPU")):
                ratios = sorted(a[i] / b[i] for a, b in zip(on, off))  # paired runs
                ratio = statistics.median(ratios)
                t, base = statistics.median(a[i] for a in on), statistics.median(b[i] for b in off)
                rows.append(
                    Row(
                        "otel",
                        f"{n} input: cases ({target}), --jsonmatch-otel={mode}, {clock} time",
                        t,
                        "the same, otel off",
                        base,
                        ratio,
                        "<= 1.10x" if judged else "-",
                        _verdict(ratio <= 1.10) if judged else "INFO",
                        runs,
                        f"ratio min {ratios[0]:.3f} median {ratio:.3f} max {ratios[-1]:.3f}; "
                        f"{(t - base) / n * 1e3:+.2f} ms per case",
                    )
                )
    finally:
        receiver.close()
    return rows


# -- driver --------------------------------------------------------------------------------


def bench_judge(args: argparse.Namespace) -> list[Row]:
    """The built-in judge (judge_bench.py): judged golden cases at judge concurrency 8
    against the serial judge, ``--judge-runs`` paired runs (ABBA); and extract-eval's batch
    rules against ours, when struct_extract_eval is installed."""
    rows = judge_bench.overlap_rows(Row, args.quick, args.judge_runs)
    return rows + judge_bench.differential_rows(Row, args.quick)


BENCHES: dict[str, Callable[[argparse.Namespace], list[Row]]] = {
    "metrics": bench_metrics,
    "pairing": bench_pairing,
    "suite": bench_suite,
    "startup": bench_startup,
    "parse": bench_parse,
    "peers": bench_peers,
    "worst": bench_worst,
    "dataset": bench_dataset,
    "references": bench_references,
    "otel": bench_otel,
    "tools": bench_tools,
    "judge": bench_judge,
    "report": lambda args: report_bench.bench(args, Row),
    "agents": lambda args: agents.bench(args, Row),
    "conversations": lambda args: conversations.bench(args, Row),
    "traces": lambda args: traces.bench(args, Row),
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes (seconds); the worst "
        "cases forked from this process, not each in a fresh interpreter; pytest "
        "sessions without hypothesis's plugin",
    )
    p.add_argument("--only", action="append", choices=SECTIONS, help="run only this section")
    p.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    p.add_argument(
        "--runs", type=int, help="runs per metric row and per peer corpus row (default 11)"
    )
    p.add_argument("--pairs", type=int, help="pairs in the metric corpus (default 1000)")
    p.add_argument(
        "--pairing-sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        help="object counts to pair (default 1000,3000)",
    )
    p.add_argument(
        "--pairing-runs",
        type=int,
        help="runs per shuffled-objects row up to 1000 objects, in pairing and peers (default 5)",
    )
    p.add_argument("--suite-files", type=int, help="case files in the suite (default 10000)")
    p.add_argument("--suite-runs", type=int, help="pytest runs of each variant (default 3)")
    p.add_argument("--startup-runs", type=int, help="sessions of each variant (default 25)")
    p.add_argument(
        "--command-runs", type=int, help="paired runs of each jsonmatch start-up row (default 11)"
    )
    p.add_argument(
        "--startup-records",
        type=int,
        help="invoices in the whole-process jsonmatch score rows (default 10000)",
    )
    p.add_argument(
        "--startup-dataset-runs",
        type=int,
        help="paired runs of each whole-process jsonmatch score row (default 5)",
    )
    p.add_argument("--parse-mb", type=float, help="adversarial text size in MB (default 10)")
    p.add_argument("--parse-runs", type=int, help="runs per parse row (default 3)")
    p.add_argument(
        "--peer-sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        metavar="N,N,...",
        help="shuffled object counts compared with DeepDiff (default 10,100,1000)",
    )
    p.add_argument(
        "--peer-cap",
        type=float,
        default=60,
        metavar="SECONDS",
        help="stop a DeepDiff run after this long, and start no more runs of a case "
        "once its runs add up to it; 0: no cap (default 60)",
    )
    p.add_argument(
        "--worst-sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        metavar="N,N,...",
        help="array sizes of the worst cases (default 1000,3000,10000)",
    )
    p.add_argument(
        "--worst-strings",
        type=lambda s: [int(x) for x in s.split(",")],
        metavar="N,N,...",
        help="long string lengths (default 100000,1000000)",
    )
    p.add_argument(
        "--worst-depths",
        type=lambda s: [int(x) for x in s.split(",")],
        metavar="N,N,...",
        help="nesting depths (default 10,100,900)",
    )
    p.add_argument(
        "--dataset-sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        metavar="SMALL,LARGE",
        help="records scored by jsonmatch score (default 10000,100000)",
    )
    p.add_argument("--dataset-runs", type=int, help="runs of -j 1 and -j N (default 3)")
    p.add_argument(
        "--dataset-jobs",
        type=int,
        default=2,
        metavar="N",
        help="workers of the -j N row, against -j 1 (default 2; the issue's 16-core "
        "row: --dataset-jobs 16 --dataset-sizes 50000,100000)",
    )
    p.add_argument(
        "--ref-pairs",
        type=int,
        help="corpus pairs scored one at a time against the references (default: --pairs)",
    )
    p.add_argument(
        "--ref-records",
        type=int,
        help="invoice records scored against struct-extract-eval (default 10000)",
    )
    p.add_argument(
        "--ref-runs",
        type=int,
        help="runs of each reference dataset row (default 3; the rows of single pairs take --runs)",
    )
    p.add_argument(
        "--otel-cases", type=int, help="input: cases of the otel section's suite (default 1000)"
    )
    p.add_argument("--otel-runs", type=int, help="runs with the export on and off (default 9)")
    p.add_argument(
        "--judge-runs", type=int, help="paired runs of the judge's overlap row (default 5)"
    )
    p.add_argument("--conversations", type=int, help="conversation cases replayed (default 100)")
    p.add_argument(
        "--conversation-turns", type=int, help="user turns of each conversation (default 10)"
    )
    p.add_argument(
        "--conversation-runs",
        type=int,
        help="paired pytest sessions of the conversations section (default 7)",
    )
    p.add_argument(
        "--trace-spans", type=int, help="spans of each trace file of the traces section (100000)"
    )
    args = p.parse_args(argv)
    full = dict(
        trace_spans=100_000,
        conversations=100,
        conversation_turns=10,
        conversation_runs=7,
        judge_runs=5,
        otel_cases=1000,
        otel_runs=9,
        runs=11,
        pairs=1000,
        pairing_sizes=[1000, 3000],
        pairing_runs=5,
        suite_files=10_000,
        suite_runs=3,
        startup_runs=25,
        parse_mb=10,
        parse_runs=3,
        peer_sizes=[10, 100, 1000],
        worst_sizes=[1000, 3000, 10_000],
        worst_strings=[100_000, 1_000_000],
        worst_depths=[10, 100, 900],
        dataset_sizes=[10_000, 100_000],
        dataset_runs=3,
        ref_records=10_000,
        ref_runs=3,
        command_runs=11,
        startup_records=10_000,
        startup_dataset_runs=5,
    )
    quick = dict(
        trace_spans=2_000,
        conversations=10,
        conversation_turns=4,
        conversation_runs=1,
        judge_runs=1,
        otel_cases=20,
        otel_runs=1,
        runs=3,
        pairs=50,
        pairing_sizes=[100, 200],
        pairing_runs=3,
        suite_files=20,
        suite_runs=1,
        startup_runs=1,
        parse_mb=0.1,
        parse_runs=2,
        peer_sizes=[10, 30],
        worst_sizes=[100, 300],
        worst_strings=[1000, 10_000],
        worst_depths=[10, 50],
        dataset_sizes=[200, 2000],
        dataset_runs=1,
        ref_pairs=20,
        ref_records=200,
        ref_runs=1,
        command_runs=1,
        startup_records=200,
        startup_dataset_runs=1,
    )
    for k, v in (quick if args.quick else full).items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.ref_pairs is None:
        args.ref_pairs = args.pairs
    return args


def print_table(rows: list[Row], out=sys.stdout) -> None:
    head = ("section", "case", "time", "baseline", "base time", "ratio", "target", "result")
    body = [
        (
            r.section,
            r.case,
            _fmt_time(r.time_s),
            r.baseline,
            _fmt_time(r.baseline_s),
            _fmt_ratio(r.ratio),
            r.target,
            r.status + (f" ({r.note})" if r.note else ""),
        )
        for r in rows
    ]
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    print(line(head), file=out)
    print(line(["-" * w for w in widths]), file=out)
    for b in body:
        print(line(b), file=out)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sections = args.only or list(SECTIONS)
    rows: list[Row] = []
    broken = []
    print(
        f"pytest-jsonmatch benchmarks ({'quick' if args.quick else 'full'}), python "
        f"{sys.version.split()[0]}, {os.cpu_count()} CPUs",
        flush=True,
    )
    for name in sections:
        t0 = time.perf_counter()
        try:
            new = BENCHES[name](args)
        except Exception as exc:  # noqa: BLE001 (a broken section is reported, the others run)
            broken.append(name)
            new = [
                Row(
                    name,
                    "ERROR",
                    None,
                    "-",
                    None,
                    None,
                    "-",
                    "MISS",
                    0,
                    f"{type(exc).__name__}: {str(exc)[:300]}",
                )
            ]
        rows += new
        print(f"  [{name}: {time.perf_counter() - t0:.1f} s]", file=sys.stderr, flush=True)
    print()
    print_table(rows)
    legends = []
    if any(r.section == "peers" and r.ratio is not None for r in rows):
        legends.append(
            "peers: ratio = pytest-jsonmatch time / DeepDiff time (below 1x: "
            "pytest-jsonmatch is faster)"
        )
    if any(r.section == "references" and r.ratio is not None for r in rows):
        legends.append(
            "references: ratio = pytest-jsonmatch time / the reference's time "
            "(below 1x: pytest-jsonmatch is faster)"
        )
    if legends:
        print("\n" + "\n".join(legends))
    misses = [r for r in rows if r.status == "MISS"]
    print(f"\n{sum(r.status == 'PASS' for r in rows)} targets met, {len(misses)} missed")
    if args.json:
        meta = {
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "quick": args.quick,
            "sections": sections,
        }
        Path(args.json).write_text(
            json.dumps({"meta": meta, "rows": [asdict(r) for r in rows]}, indent=2)
        )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
