"""The benchmark script runs end to end on tiny sizes (the benchmarks themselves are not tests)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"
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
NO_DEEPDIFF = 'deepdiff not installed: pip install -e ".[bench]"'
NOT_INSTALLED = (
    "{} not installed: a reference implementation, installed beside the project to measure this row"
)
# the rows of the references section at the quick sizes, and the package each one needs
REFERENCE_ROWS = {
    "json_similarity, 20 corpus pairs": "uipath",
    "structural_f1, 20 corpus pairs": "structeval",
    "field_f1, 20 corpus pairs": "struct_extract_eval",
    "field_f1 align=hungarian, 20 corpus pairs": "struct_extract_eval",
    "json_similarity, 20 varied small pairs, each its own shape, scored once": "uipath",
    "structural_f1, 20 varied small pairs, each its own shape, scored once": "structeval",
    "field_f1, 20 varied small pairs, each its own shape, scored once": "struct_extract_eval",
    "field_f1 align=hungarian, 20 varied small pairs, each its own shape, scored once": (
        "struct_extract_eval"
    ),
    "jsonmatch score -j 1 (in process), 200 invoices": "struct_extract_eval",
    "jsonmatch score -j 1 --format json -o FILE (in process), 200 invoices": "struct_extract_eval",
    "jsonmatch score -j 1 --option align=hungarian (in process), 200 invoices": "struct_extract_eval",
    "jsonmatch score -j 1 --format json -o FILE --option align=hungarian (in process), 200 invoices": "struct_extract_eval",
    "evaluate_records field_f1, 200 invoices": "struct_extract_eval",
    "evaluate_records field_f1 align=hungarian, 200 invoices": "struct_extract_eval",
}


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(RUN), *args], capture_output=True, text=True, timeout=300, env=env
    )  # a hang guard: the quick run takes 5-20 s


# The sections in three runs of about the same length, so that xdist's workers share them.
GROUPS = (
    ("metrics", "pairing", "suite", "startup", "parse"),
    ("peers", "worst", "dataset", "references", "otel"),
    ("tools", "judge", "report", "agents"),
    ("conversations", "traces"),
)


def test_the_groups_hold_every_section_once() -> None:
    assert sorted(s for group in GROUPS for s in group) == sorted(SECTIONS)


@pytest.mark.whole_reference
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g[0])
def test_benchmark_script_runs_quick(tmp_path: Path, group: tuple[str, ...]) -> None:
    out = tmp_path / "bench.json"
    proc = _run(["--quick", "--json", str(out), *(f"--only={s}" for s in group)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    table = proc.stdout
    for section in group:
        assert any(line.startswith(section) for line in table.splitlines()), (section, table)
    if "metrics" in group:
        for metric in (
            "field_match",
            "field_match_normalized",
            "json_similarity",
            "structural_f1",
            "field_f1",
        ):
            assert f"{metric} (corpus)" in table
    assert "ERROR" not in table
    assert "kernel" not in table
    data = json.loads(out.read_text())
    assert "pair_kernel" not in data["meta"]
    rows = data["rows"]
    assert {r["section"] for r in rows} == set(group)
    measured = [
        r
        for r in rows
        if r["note"] != NO_DEEPDIFF and not r["note"].endswith(NOT_INSTALLED.format(""))
    ]
    # a size row measures bytes (its ratio against the old layout), every other row a time
    unmeasured = [
        (r["section"], r["case"], r["note"])
        for r in measured
        if (r["ratio"] is None or r["ratio"] <= 0)
        if "size" in r["case"]
    ] + [
        (r["section"], r["case"], r["note"])
        for r in measured
        if "size" not in r["case"]
        if r["time_s"] is None or r["time_s"] <= 0
    ]
    assert not unmeasured, unmeasured
    # a pure shuffle pairs exactly, whatever the size
    assert all(
        r["note"] == "F1=1.0"
        for r in rows
        if r["section"] == "pairing" and "damaged" not in r["case"]
    )
    if "worst" in group:
        _check_worst_rows([r for r in rows if r["section"] == "worst"])
        _check_reference_rows([r for r in rows if r["section"] == "references"])
        _check_otel_rows([r for r in rows if r["section"] == "otel"])
        _check_peer_rows(rows, table)
    if "agents" in group:
        _check_agent_rows([r for r in rows if r["section"] == "agents"])
    if "conversations" in group:
        _check_conversation_rows([r for r in rows if r["section"] == "conversations"])
    if "traces" in group:
        _check_trace_rows([r for r in rows if r["section"] == "traces"])
    if "dataset" in group:
        jobs = [r["target"] for r in rows if r["case"].endswith(" records -j 2")]
        assert jobs == ["<= 0.59x"]


AGENT_ROWS = {  # the agents section's rows at the quick sizes, and the reference each one needs
    **{
        f"trajectory mode={mode}, 40 pairs (OpenAI chat)": "agentevals"
        for mode in ("strict", "unordered", "subset", "superset")
    },
    "trajectory, 4 modes mixed, 40 pairs (mixed shapes)": "agentevals",
    **{
        f"bfcl_multi_turn_verdict, {what}, executing": "bfcl_eval"
        for what in ("base", "miss_func", "miss_param", "long_context", "4 categories")
    },
    "bfcl_multi_turn_verdict, 4 categories, executing, fields read": "bfcl_eval",
    "multi-turn scoring after execution, 4 categories, every turn": "bfcl_eval",
    "multi-turn scoring after execution, 4 categories, BFCL's turns": "bfcl_eval",
}


def _check_agent_rows(rows: list[dict], hidden: bool = False) -> None:
    """Every row of the agents section, in order: measured (both times, a ratio against its
    target, the spread of the ratios, every verdict agreeing) where its reference is
    installed, an INFO row naming the package otherwise (or when ``hidden``)."""
    assert [r["case"] for r in rows] == list(AGENT_ROWS), rows
    for row in rows:
        package = AGENT_ROWS[row["case"]]
        if hidden or not _installed(package):
            name = package.replace("_", "-")
            assert (row["status"], row["time_s"], row["ratio"], row["note"]) == (
                "INFO",
                None,
                None,
                NOT_INSTALLED.format(name),
            ), row
        else:
            assert row["time_s"] > 0 and row["baseline_s"] > 0 and row["ratio"] > 0, row
            assert row["runs"] == 3 and row["note"].startswith("ratio min "), row
            assert "DIFFER" not in row["note"], row
            if row["case"].endswith(("BFCL's turns", "fields read")):  # (shown beside others)
                assert (row["status"], row["target"]) == ("INFO", "-"), row
            else:
                assert row["status"] in ("PASS", "MISS"), row
                assert row["target"] == ("<=2.00x" if package == "agentevals" else "<=1.00x")


CONVERSATION_ROWS = (  # the conversations section's rows at the quick sizes (10 of 4 turns)
    "10 recorded conversations of 4 turns, pytest --jsonmatch-record=none, wall time",
    "10 recorded conversations of 4 turns, pytest --jsonmatch-record=none, CPU time",
    "scoring alone, 10 recorded conversations of 4 turns (ConversationScorer.scored, in "
    "process, CPU)",
)


def _check_conversation_rows(rows: list[dict]) -> None:
    """The conversations section: both sessions replayed (wall time, judged against the
    issue's 2 s; CPU time, shown), then the scoring alone; each row measured against its
    baseline of the same fields, with the spread of its ratios and the outcome both sides
    share (the same cases failing)."""
    assert [r["case"] for r in rows] == list(CONVERSATION_ROWS), rows
    for row in rows:
        assert row["time_s"] > 0 and row["baseline_s"] > 0 and row["ratio"] > 0, row
        assert row["note"].startswith("ratio min "), row
    wall, cpu, scoring = rows
    for row in (wall, scoring):
        assert (row["target"], row["status"] in ("PASS", "MISS")) == ("< 2 s", True), row
    assert (cpu["target"], cpu["status"]) == ("-", "INFO"), cpu
    assert wall["baseline"] == cpu["baseline"] == "the same, 10 plain cases of the same fields"
    for row in (wall, cpu):
        assert row["runs"] == 1 and "a session without cases" in row["note"], row
        assert row["note"].endswith(" failed in both"), row  # (some fields depart: c003, c007)
    assert "pytest's own figure" in wall["note"], wall
    assert "the same in the baseline" in scoring["note"], scoring


def _check_trace_rows(rows: list[dict]) -> None:
    """The traces section at the quick size (2,000 spans): one run selected out of a file of
    many and scored, one run of the whole file read and scored; each against json.loads of
    the same file, judged against the issue's 2 s, the run's score and rows in the note."""
    assert [r["case"] for r in rows] == [
        "2,000 spans, one run selected and scored",
        "one run of 2,000 spans read and scored",
    ], rows
    for row in rows:
        assert row["time_s"] > 0 and row["baseline_s"] > 0 and row["ratio"] > 0, row
        assert row["baseline"].startswith("json.loads of each line of the same file"), row
        assert (row["target"], row["status"]) == ("< 2 s", "PASS"), row
        assert row["note"].startswith("ratio min "), row
    assert "selected by session.id, scored 1.00 over 15 rows" in rows[0]["note"], rows[0]
    assert "scored 1.00 against 10 of its calls" in rows[1]["note"], rows[1]


def test_benchmark_agents_without_references(tmp_path: Path) -> None:
    # agentevals and bfcl_eval modules that cannot be imported, ahead of any installed ones
    for package in ("agentevals", "bfcl_eval"):
        (tmp_path / f"{package}.py").write_text("raise ImportError('hidden by the smoke test')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(tmp_path), env.get("PYTHONPATH"))))
    out = tmp_path / "bench.json"
    proc = _run(["--quick", "--only", "agents", "--json", str(out)], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _check_agent_rows(json.loads(out.read_text())["rows"], hidden=True)


def _check_peer_rows(rows: list[dict[str, Any]], table: str) -> None:
    peers = [r for r in rows if r["section"] == "peers"]
    assert all(r["status"] == "INFO" for r in peers)
    if len(peers) == 1:  # deepdiff is not installed here: the one documented row
        assert peers[0]["note"] == NO_DEEPDIFF, peers
        return
    # measured: both tools on the corpus and on every quick size, against DeepDiff's own time
    assert sorted(r["case"] for r in peers) == sorted(
        f"{m}, {what}"
        for m in ("structural_f1", "field_f1 align=hungarian")
        for what in (
            "50 corpus pairs",
            "10 shuffled objects",
            "10 shuffled+damaged objects",
            "30 shuffled objects",
            "30 shuffled+damaged objects",
        )
    )
    assert all(
        r["baseline"].startswith("DeepDiff ") and r["baseline_s"] > 0 and r["ratio"] > 0
        for r in peers
    )
    # both tools call a pure shuffle identical
    assert all(
        r["note"] == "F1=1.0; DeepDiff: no difference"
        for r in peers
        if r["case"].endswith(" shuffled objects")
    )
    assert "below 1x: pytest-jsonmatch is faster" in table


def test_benchmark_peers_without_deepdiff(tmp_path: Path) -> None:
    # a deepdiff module that cannot be imported, ahead of any installed one
    (tmp_path / "deepdiff.py").write_text("raise ImportError('hidden by the smoke test')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(tmp_path), env.get("PYTHONPATH"))))
    out = tmp_path / "bench.json"
    proc = _run(["--quick", "--only", "peers", "--json", str(out)], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [(r["section"], r["status"], r["note"]) for r in rows] == [
        ("peers", "INFO", NO_DEEPDIFF)
    ], rows
    assert 'pip install -e ".[bench]"' in proc.stdout


def _installed(package: str) -> bool:
    """Whether a reference is installed in the interpreter the benchmark runs in (this one)."""
    return importlib.util.find_spec(package) is not None


def _check_reference_rows(rows: list[dict], hidden: bool = False) -> None:
    """Every row of the references section, in order: an INFO row naming the package when
    its reference is not installed (or ``hidden``), else a measured one (both times, a ratio,
    PASS or MISS (INFO for the command's rows in process), the spread of its ratios)."""
    assert [r["case"] for r in rows] == list(REFERENCE_ROWS), rows
    for row in rows:
        package = REFERENCE_ROWS[row["case"]]
        if hidden or not _installed(package):
            assert (row["status"], row["time_s"], row["ratio"], row["note"]) == (
                "INFO",
                None,
                None,
                NOT_INSTALLED.format(package),
            ), row
        else:
            assert row["time_s"] > 0 and row["baseline_s"] > 0 and row["ratio"] > 0, row
            # (the command's in-process rows, -j 1, are INFO: its cell is the startup section's)
            held = "(in process)" not in row["case"]
            statuses = ("PASS", "MISS") if held else ("INFO",)
            assert row["status"] in statuses and row["runs"] >= 1, row
            assert "ratios " in row["note"] and "score" in row["note"], row


def test_benchmark_references_not_installed(tmp_path: Path) -> None:
    # each reference a module that cannot be imported, ahead of any installed one
    for package in set(REFERENCE_ROWS.values()):
        (tmp_path / f"{package}.py").write_text("raise ImportError('hidden by the smoke test')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(tmp_path), env.get("PYTHONPATH"))))
    out = tmp_path / "bench.json"
    proc = _run(["--quick", "--only", "references", "--json", str(out)], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _check_reference_rows(json.loads(out.read_text())["rows"], hidden=True)


def _check_otel_rows(rows: list[dict]) -> None:
    """The export on against off (quick: 20 cases, one pair of runs, the cases mode only):
    a wall-time row and a CPU-time row, each with the spread of its ratios; one INFO row
    naming the extra where it is not installed."""
    from pytest_jsonmatch.telemetry.otel_settings import installed

    if not installed():
        assert [(r["status"], r["note"]) for r in rows] == [
            ("INFO", 'not installed: pip install -e ".[otel]"')
        ], rows
        return
    assert [r["case"] for r in rows] == [
        f"20 input: cases (in process), --jsonmatch-otel=cases, {clock} time"
        for clock in ("wall", "CPU")
    ]
    for row in rows:
        assert row["time_s"] > 0 and row["baseline_s"] > 0 and row["ratio"] > 0, row
        assert row["status"] in ("PASS", "MISS") and row["target"] == "<= 1.10x", row
        assert row["note"].startswith("ratio min "), row


def _check_worst_rows(rows: list[dict]) -> None:
    """The worst cases: every family at the quick sizes, each row timed in its own process
    (forked, in a quick run) with its peak memory, a growth exponent per family, one answer
    at every depth."""
    cases = {r["case"] for r in rows}
    for metric in ("structural_f1", "field_f1 align=hungarian"):
        for size in (100, 300):
            assert f"{metric}, objects, {size} elements" in cases
            assert f"{metric}, strings, {size} elements" in cases
        for depth in (10, 50):
            assert f"{metric}, deep array pairs, {depth} deep" in cases
    for size in ("1,000", "10,000"):
        assert f"json_similarity, near string, {size} chars" in cases
    assert "json_similarity, unrelated string, 1,000 chars" in cases
    # a quick run tries two metrics at depth (and field_f1's Hungarian), not all five
    for metric in ("json_similarity", "structural_f1", "field_f1 align=hungarian"):
        for shape in ("deep objects", "deep arrays"):
            for depth in (10, 50):
                assert f"{metric}, {shape}, {depth} deep" in cases
    for depth in (10, 50):
        assert f"field_f1 align=hungarian, deep differing arrays, {depth} deep" in cases
    assert not any(c.startswith("field_match, deep") for c in cases), cases
    assert all(r["time_s"] > 0 and r["note"].startswith("peak ") for r in rows), rows
    # arrays, long strings, deep objects and arrays, array pairs, differing arrays
    families = 4 + 2 + 2 * 3 + 2 + 1
    assert sum("growth exponent" in r["note"] for r in rows) == families - 1  # one size: none
    assert not any("scores differ" in r["note"] for r in rows)


def test_a_worst_case_forked_answers_as_in_a_fresh_process() -> None:
    # a quick run forks each worst case from the benchmark's process; a full run starts a
    # fresh interpreter for each (benchmarks/worst.py): the same answer either way, an error
    # included
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import worst; "
        "cases = [('deep objects', 10, 'json_similarity', {}, 60.0), "
        "('deep objects', 10, 'no_such_metric', {}, 60.0)]; "
        "print(json.dumps([[worst.run_case(*c), worst.run_case_forked(*c)] for c in cases]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(RUN.parent)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (fresh, forked), (fresh_error, forked_error) = json.loads(proc.stdout)
    for found in (fresh, forked):
        assert found["time_s"] > 0 and found["peak_bytes"] > 0, found
    assert fresh["score"] == forked["score"] == 0.5, (fresh, forked)  # one leaf of two differs
    assert fresh_error == forked_error, (fresh_error, forked_error)
    assert fresh_error["error"].endswith(
        "unknown metric 'no_such_metric'; known metrics: field_f1, "
        "field_match, field_match_normalized, json_similarity, "
        "structural_f1, tool_calls, trajectory"
    ), fresh_error
