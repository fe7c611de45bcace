"""The ``jsonmatch`` command's start-up, whole process, as a user runs it (startup section).

Each command row times a fresh ``python -m pytest_jsonmatch ...`` against ``python -c pass``,
the two run one after the other (ABBA) in each of ``runs`` pairs: the row gives the command's
median wall time, min and max, and the median of the paired differences.

The processes run as on a user's machine: with compiled modules (``__pycache__``) written
once by an untimed warm-up run and then read, so ``PYTHONDONTWRITEBYTECODE`` (which makes
every import compile its module from source, and doubles the start-up) is removed from their
environment.

The dataset rows time ``jsonmatch score`` on the invoices (benchmarks/invoices.py) the same
way, a whole process with its default ``-j auto``: start-up, reading both JSONL files,
scoring (ordered, and with Hungarian alignment), writing its output. These are issue 78's
cells for the command. The baseline is struct-extract-eval's ``evaluate()`` in this process
on the same records in memory (no start-up, no reading; its schema made beforehand, not
timed), as the references section times it; a row is INFO, without times, when
struct-extract-eval is not installed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import invoices
import references

from pytest_jsonmatch.cli.parallel import AUTO_MIN_BYTES, usable_cpus

T = TypeVar("T")  # a timing: wall seconds, or (wall, CPU)

SECTION = "startup"
# --help, compare of two small files, score of one record: issue 78 holds them under 0.1 s
COMMAND_TARGET_S = 0.10
DATASET_TARGET = 1 / 3  # score of the invoices: 3x faster than evaluate(), start-up included
# which checkout's command is timed (another one's figures, for a before/after comparison)
ROOT = Path(os.environ.get("JSONMATCH_BENCH_ROOT") or Path(__file__).resolve().parents[1])


def user_env() -> dict[str, str]:
    """This environment as a user's: compiled modules read and written, the checkout first."""
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one process, start to exit (its output
    discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600
    )
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: a score below the threshold, as the files give
        raise RuntimeError(f"{' '.join(argv[1:])} failed: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def _wall(argv: list[str], env: dict[str, str]) -> float:
    return _run(argv, env)[0]


def paired(mine: Callable[[], T], base: Callable[[], T], runs: int) -> tuple[list[T], list[T]]:
    """``runs`` timings of each, ABBA: the first of each pair alternates."""
    a: list[T] = []
    b: list[T] = []
    for k in range(runs):
        if k % 2 == 0:
            a.append(mine())
            b.append(base())
        else:
            b.append(base())
            a.append(mine())
    return a, b


def _write_small_files(folder: Path) -> dict[str, list[str]]:
    """The commands timed, each as its arguments, over small files in ``folder``."""
    actual, expected = folder / "actual.json", folder / "expected.json"
    actual.write_text('{"name": "ACME", "total": 12.5, "items": [{"sku": "A1", "qty": 2}]}')
    expected.write_text('{"name": "ACME Corp", "total": 12.5, "items": [{"sku": "A1", "qty": 2}]}')
    gold, pred = invoices.write_jsonl(folder, 1)
    return {
        "jsonmatch --help": ["--help"],
        "jsonmatch compare of two small files": ["compare", str(actual), str(expected)],
        "jsonmatch score of one record": ["score", str(gold), str(pred)],
    }


def command_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """Each command against ``python -c pass``. The row's time and verdict are the command's
    CPU time (user + system): on a machine shared with other work the wall clock mostly
    measures the neighbours; on a quiet one the two agree within a few milliseconds, and
    the wall times are in the note."""
    runs = args.command_runs
    env = user_env()
    rows = []
    with tempfile.TemporaryDirectory(prefix="jm-bench-cli-") as tmp:
        for case, argv in _write_small_files(Path(tmp)).items():
            command = [sys.executable, "-m", "pytest_jsonmatch", *argv]
            _run(command, env)  # compiles the modules it imports, once
            mine, base = paired(
                lambda: _run(command, env), lambda: _run([sys.executable, "-c", "pass"], env), runs
            )
            rows.append(_command_row(make_row, case, mine, base, runs))
    return rows


def _spread_ms(values: list[float]) -> str:
    return (
        f"{min(values) * 1e3:.1f} / {statistics.median(values) * 1e3:.1f} / "
        f"{max(values) * 1e3:.1f} ms"
    )


def _command_row(
    make_row: Callable[..., Any],
    case: str,
    mine: list[tuple[float, float]],
    base: list[tuple[float, float]],
    runs: int,
) -> Any:
    cpu, base_cpu = [c for _, c in mine], [c for _, c in base]
    wall, base_wall = [w for w, _ in mine], [w for w, _ in base]
    median = statistics.median(cpu)
    own = statistics.median(m - b for m, b in zip(cpu, base_cpu))
    return make_row(
        SECTION,
        f"{case} (whole process, CPU time)",
        median,
        "python -c pass",
        statistics.median(base_cpu),
        statistics.median(m / b for m, b in zip(cpu, base_cpu)),
        f"<= {COMMAND_TARGET_S * 1e3:.0f} ms",
        "PASS" if median <= COMMAND_TARGET_S else "MISS",
        runs,
        f"CPU min/median/max {_spread_ms(cpu)} (python -c pass {_spread_ms(base_cpu)}; the "
        f"command's own {own * 1e3:.1f} ms, median of the paired differences); wall "
        f"{_spread_ms(wall)} (python -c pass {_spread_ms(base_wall)})",
    )


def dataset_rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """``jsonmatch score`` of the invoices as a user runs it (a fresh process, ``-j auto``:
    as many workers as this machine has CPUs, forked), against struct-extract-eval's
    ``evaluate()`` in this process; ordered and Hungarian text runs are held to the target
    (issue 78: "start-up included"), the JSON report is INFO. Each note gives our CPU time
    too (the command and its workers), beside the wall time the ratio is of."""
    n, runs = args.startup_records, args.startup_dataset_runs
    cases = {  # case: (options, alignment, held to the target)
        f"jsonmatch score --format text, {n:,} invoices (whole process)": (
            ["-o", os.devnull],
            None,
            True,
        ),
        f"jsonmatch score --format text --option align=hungarian, {n:,} invoices (whole process)": (
            ["--option", "align=hungarian", "-o", os.devnull],
            "hungarian",
            True,
        ),
        f"jsonmatch score --format json -o FILE, {n:,} invoices (whole process)": (
            ["--format", "json"],
            None,
            False,
        ),
    }
    labels = {
        None: references._label(references.EXTRACT_EVAL, "evaluate() in process"),
        "hungarian": references._label(references.EXTRACT_EVAL, "evaluate(), hungarian"),
    }
    if not references._installed(references.EXTRACT_EVAL[0]):
        note = references.not_installed_note(references.EXTRACT_EVAL[0])
        return [
            make_row(SECTION, case, None, labels[align], None, None, "-", "INFO", 0, note)
            for case, (_, align, _) in cases.items()
        ]
    import struct_extract_eval

    gold, pred = invoices.records(n)
    ordered = references._extract_eval_schema(gold)
    schemas = {None: ordered, "hungarian": references._hungarian(ordered)}

    def theirs(align: str | None) -> float:
        schema = schemas[align]
        return references._timed(lambda: struct_extract_eval.evaluate(gold, pred, schema=schema))

    env = user_env()
    rows = []
    with tempfile.TemporaryDirectory(prefix="jm-bench-cli-data-") as tmp:
        gold_path, pred_path = invoices.write_jsonl(Path(tmp), n)
        out = str(Path(tmp) / "score.json")
        # the workers -j auto starts in a fresh process on Linux (one thread: forked)
        size = gold_path.stat().st_size + pred_path.stat().st_size
        jobs = usable_cpus() if size >= AUTO_MIN_BYTES else 1
        for case, (extra, align, judged) in cases.items():
            if extra[0] == "--format":
                extra = [*extra, "-o", out]
            command = [
                sys.executable,
                "-m",
                "pytest_jsonmatch",
                "score",
                str(gold_path),
                str(pred_path),
                *extra,
            ]
            _run(command, env)
            theirs(align)  # both warmed up
            timed, refs = paired(lambda: _run(command, env), lambda: theirs(align), runs)
            mine = [wall for wall, _ in timed]
            cpu = statistics.median(c for _, c in timed)
            ratios = sorted(m / r for m, r in zip(mine, refs))
            ratio = statistics.median(ratios)
            rows.append(
                make_row(
                    SECTION,
                    case,
                    statistics.median(mine),
                    labels[align],
                    statistics.median(refs),
                    ratio,
                    f"<= {DATASET_TARGET:.2f}x" if judged else "-",
                    ("PASS" if ratio <= DATASET_TARGET else "MISS") if judged else "INFO",
                    runs,
                    f"{1 / ratio:.2f}x faster than the reference (paired ratios {ratios[0]:.3f} / "
                    f"{ratio:.3f} / {ratios[-1]:.3f} min/median/max); ours a fresh process "
                    f"with -j auto ({jobs} job{'s' if jobs > 1 else ''} here): start-up, both files read, "
                    + ("the text report to /dev/null" if judged else "the JSON report to a file")
                    + f"; its CPU time (its workers' with it) {cpu:.2f} s, "
                    f"{cpu / statistics.median(refs):.2f}x the reference's wall time"
                    "; the reference's records in memory, its schema made beforehand",
                )
            )
        json.loads(Path(out).read_text())  # the JSON run wrote a whole report
    return rows


def bench(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """Every row of the command's start-up; ``make_row`` is run.py's Row."""
    return command_rows(args, make_row) + dataset_rows(args, make_row)
