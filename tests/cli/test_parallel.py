"""How ``jsonmatch score -j N`` hands its chunks to workers (cli/parallel.py, dataset/chunk_work.py);
that the output is the same for any N is tests/cli/test_jobs_parity.py."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from pytest_jsonmatch.cli.parallel import chunks, start_method
from pytest_jsonmatch.dataset import NO_PREDICTION, Pair, ScoreSettings
from pytest_jsonmatch.dataset.chunk_work import (
    SCORED_TOGETHER,
    Keeps,
    call_in_worker,
    packed,
    score_part,
    sketch_part,
    unpacked,
)
from pytest_jsonmatch.dataset.undecoded import RecordError, Undecoded
from pytest_jsonmatch.reporting.run_model.spool import ComparisonSpool


def test_chunks_keep_the_pairs_read_before_a_reading_error():
    def reading():
        yield from range(5)
        raise ValueError("line 6")

    got = []
    with pytest.raises(ValueError, match="line 6"):
        for chunk in chunks(reading(), 2):  # type: ignore[arg-type]
            got.append(chunk)
    assert got == [[0, 1], [2, 3], [4]]  # the last, shorter chunk before the error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_workers_fork_from_a_process_with_one_thread_and_spawn_otherwise():
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "from pytest_jsonmatch.cli.parallel import start_method; print(start_method())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert fresh.stdout.strip() == "fork"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert start_method() == "spawn"  # fork would copy locks the other thread may hold
    finally:
        stop.set()
        other.join()


def _pairs() -> list[Pair]:
    return [
        Pair(
            str(i),
            Undecoded(f'{{"a": {i}, "b": "x"}}', f"g line {i + 1}", True),
            Undecoded(f'{{"a": {i % 3}, "b": "x"}}', f"p line {i + 1}", False),
            f"g line {i + 1}",
            "g",
            i + 1,
        )
        for i in range(2 * SCORED_TOGETHER + 5)
    ]


def test_a_packed_chunk_keeps_its_pairs_and_missing_predictions():
    pairs = _pairs()[:3]
    pairs[1] = pairs[1]._replace(actual=NO_PREDICTION, missing="no prediction has id 1")
    assert unpacked(packed(pairs)) == pairs  # NO_PREDICTION survives pickling


def test_a_worker_chunk_scores_as_its_pieces_do():
    settings = ScoreSettings("structural_f1", 1.0, {})
    pairs = _pairs()
    whole = score_part(packed(pairs), settings, Keeps(comparisons=True, case_scores=True))
    pieces = [
        score_part(
            pairs[i : i + SCORED_TOGETHER], settings, Keeps(comparisons=True, case_scores=True)
        )
        for i in range(0, len(pairs), SCORED_TOGETHER)
    ]
    assert whole.cases == "".join(p.cases for p in pieces)
    # each group scored together has its own table, whichever chunk it travels in: the
    # spooled lines (each table's index the report's) and tables are the same
    spools = []
    for parts in ([whole], pieces):
        spool = ComparisonSpool()
        for part in parts:
            spool.append_part(part.comparisons, part.count, part.heads)
        spools.append(spool)
    with spools[0], spools[1]:
        assert list(spools[0].lines()) == list(spools[1].lines())
        assert spools[0].tables() == spools[1].tables()
        assert len(whole.heads) == 3 and len(spools[0].tables()) >= 1
        assert list(spools[0]) == list(spools[1])
    assert whole.count == sum(p.count for p in pieces) == len(pairs)
    assert whole.case_lines == sum(p.case_lines for p in pieces) == len(pairs)
    assert whole.cases.count("\n") == len(pairs)
    # each of the three tables' lines, bare (its index the spool's to write): 64 + 64 + 5
    assert [len(lines) for lines in whole.comparisons] == [64, 64, 5]
    assert all(not line.startswith("{") for lines in whole.comparisons for line in lines)
    assert list(whole.case_scores) == [str(i) for i in range(len(pairs))]
    # "a" matches for i % 3 == i, i.e. i in (0, 1, 2): 3 of 133 cases score 1.0
    assert whole.cases.count('"status": "passed"') == 3


def test_a_line_that_is_not_json_fails_where_it_is_decoded_naming_its_line():
    pairs = _pairs()
    pairs[70] = pairs[70]._replace(actual=Undecoded('{"a": ', "p line 71", False))
    with pytest.raises(RecordError, match=r"^p line 71: not valid JSON: Expecting value"):
        score_part(packed(pairs), ScoreSettings("structural_f1", 1.0, {}), Keeps())
    with pytest.raises(RecordError, match=r"^p line 71: not valid JSON"):
        sketch_part(packed(pairs), "field_f1", {})


def test_a_worker_unpickles_the_run_settings_once():
    import pickle

    settings = ScoreSettings("structural_f1", 1.0, {})
    shared = pickle.dumps((settings, False, False))
    seen = []

    def handle(chunk, s, *rest):
        seen.append(s)
        return len(chunk)

    assert call_in_worker(handle, [1, 2], shared) == 2
    assert call_in_worker(handle, [3], shared) == 1
    assert seen[0] is seen[1] and seen[0] == settings  # the same object for every chunk


def _score_args(*argv: str):
    from pytest_jsonmatch.cli.app import parser

    return parser("score").parse_args(["score", *argv])


def _sized(path, size: int) -> str:
    with open(path, "wb") as out:
        out.truncate(size)  # (only the size is read: auto decides before reading)
    return str(path)


def test_jobs_auto_is_the_default_and_takes_a_worker_a_cpu_for_large_inputs(tmp_path, monkeypatch):
    from pytest_jsonmatch.cli.parallel import AUTO_MIN_BYTES, AUTO_SPAWNED_MIN_BYTES, usable_cpus
    from pytest_jsonmatch.cli.score import _jobs_of

    # (forked workers from a process with one thread; this one, an xdist worker, may run
    # others, and then workers are spawned: the larger threshold holds)
    least = AUTO_MIN_BYTES if start_method() == "fork" else AUTO_SPAWNED_MIN_BYTES
    half = least // 2
    big = _sized(tmp_path / "gold.jsonl", half), _sized(tmp_path / "pred.jsonl", half)
    small = _sized(tmp_path / "g.jsonl", half), _sized(tmp_path / "p.jsonl", half - 1)
    cpus = usable_cpus()
    assert cpus >= 1
    # the two inputs together: exactly the threshold starts a worker a CPU, a byte less not
    assert _jobs_of(_score_args(*big)) == (cpus if cpus > 1 else 1)
    assert _jobs_of(_score_args(*big, "-j", "auto")) == _jobs_of(_score_args(*big))
    assert _jobs_of(_score_args(*small)) == 1
    # asked for: as given, whatever the size
    assert _jobs_of(_score_args(*small, "-j", "3")) == 3
    assert _jobs_of(_score_args(*big, "--jobs", "1")) == 1
    # a judge or a plugin keeps to one job unless asked; so does a folder (size unknown)
    assert _jobs_of(_score_args(*big, "--judge", "model=m endpoint=http://127.0.0.1:9")) == 1
    assert _jobs_of(_score_args(*big, "--plugins", "no_such_module")) == 1
    (tmp_path / "folder").mkdir()
    assert _jobs_of(_score_args(big[0], str(tmp_path / "folder"))) == 1
    assert _jobs_of(_score_args(str(tmp_path / "missing.jsonl"), big[1])) == 1
    # standard input, even beside a file named "-" (what is read is the input, not the file)
    monkeypatch.chdir(tmp_path)
    _sized(tmp_path / "-", 2 * least)
    assert _jobs_of(_score_args("-", big[1])) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_jobs_auto_asks_more_of_inputs_whose_workers_would_be_spawned(tmp_path):
    import threading

    from pytest_jsonmatch.cli.parallel import AUTO_MIN_BYTES, AUTO_SPAWNED_MIN_BYTES, usable_cpus
    from pytest_jsonmatch.cli.score import _jobs_of

    files = _sized(tmp_path / "g.jsonl", AUTO_MIN_BYTES), _sized(tmp_path / "p.jsonl", 0)
    larger = _sized(tmp_path / "G.jsonl", AUTO_SPAWNED_MIN_BYTES), files[1]
    release = threading.Event()
    other = threading.Thread(target=release.wait)  # a second thread: workers would spawn
    other.start()
    try:
        assert start_method() == "spawn"
        assert _jobs_of(_score_args(*files)) == 1
        assert _jobs_of(_score_args(*larger)) == (usable_cpus() if usable_cpus() > 1 else 1)
    finally:
        release.set()
        other.join()


@pytest.mark.skipif(
    not hasattr(__import__("os"), "sched_getaffinity"), reason="no CPU affinity on this system"
)
def test_usable_cpus_follow_the_process_affinity():
    import os

    from pytest_jsonmatch.cli.parallel import usable_cpus

    allowed = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(allowed)})
        assert usable_cpus() == 1  # a CI job pinned to one CPU gets one job
    finally:
        os.sched_setaffinity(0, allowed)
    assert usable_cpus() == len(allowed)
