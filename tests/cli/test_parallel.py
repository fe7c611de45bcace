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
        assert list(spools[0].table_lines()) == list(spools[1].table_lines())
        assert len(whole.heads) == 3 and len(list(spools[0].table_lines())) >= 1
        assert list(spools[0]) == list(spools[1])
    assert whole.count == sum(p.count for p in pieces) == len(pairs)
    assert whole.case_lines == sum(p.case_lines for p in pieces) == len(pairs)
    assert whole.cases.count("\n") == whole.comparisons.count("\n") == len(pairs)
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
