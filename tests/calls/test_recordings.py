"""What a recording may hold, written and read to the same limit (issue 72, item 1).

``write_recording`` refuses an output whose recording would be larger than
MAX_RECORDING_BYTES, naming the case, the size and the limit; ``read_recording`` refuses a
file larger than the same limit. So nothing is written that cannot be read back, and nothing
that could be read is refused: at the limit both succeed, one byte past it both refuse. The
real limit is 256 MiB (tests/calls/test_large_recordings.py records 70 MB); the boundary is
shown here at a small one, the same constant on both sides.
"""

from __future__ import annotations

import pytest

from pytest_jsonmatch.calls import recordings
from pytest_jsonmatch.engine.core.errors import CaseFileError
from pytest_jsonmatch.engine.reading.user_files import MAX_FILE_BYTES

LIMIT = 4096


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(recordings, "MAX_RECORDING_BYTES", LIMIT)
    return LIMIT


def _write(path, output: object) -> bool:
    return recordings.write_recording(path, "big", "go", output, 0)


def _size_of(tmp_path, output: object) -> int:
    """The size of the recording of ``output``, written without a limit in the way."""
    probe = tmp_path / "probe.json"
    _write(probe, output)
    size = probe.stat().st_size
    probe.unlink()
    return size


def test_a_recording_may_hold_what_any_file_the_plugin_reads_may():
    assert recordings.MAX_RECORDING_BYTES == MAX_FILE_BYTES == 256 * 2**20


def test_at_the_limit_a_recording_is_written_and_read_back_one_byte_past_it_neither(
    tmp_path, small_limit
):
    # the output's text grows one byte a character: find the length that fills the limit
    base = _size_of(tmp_path, {"a": ""})
    fits = {"a": "x" * (small_limit - base)}
    path = tmp_path / "big.json"
    assert _write(path, fits) and path.stat().st_size == small_limit
    assert recordings.read_recording(path).output == fits

    past = {"a": "x" * (small_limit - base + 1)}
    path.unlink()
    with pytest.raises(recordings.NotRecorded) as refused:
        _write(path, past)
    assert str(refused.value) == (
        f"cannot record the output of case 'big': its recording would be "
        f"{small_limit + 1:,} bytes, more than the 4,096 (0.00390625 MiB) a recording may hold; "
        f"make the target's output smaller, or run without recording (--jsonmatch-record=off)"
    )
    assert not path.exists()  # nothing written, no temporary file left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == []

    # the same bytes put there by hand: refused when read, by the same limit
    path.write_text('{"output": ' + '"' + "x" * small_limit + '"}')
    with pytest.raises(CaseFileError, match="is larger than 4,096 bytes"):
        recordings.read_recording(path)


def test_text_with_lone_surrogates_is_counted_as_written(tmp_path, small_limit):
    # each lone surrogate is written as its 6-character escape: counted as such, at the limit
    base = _size_of(tmp_path, {"a": ""})
    room = small_limit - base
    fits = {"a": "\ud800" * (room // 6) + "x" * (room % 6)}
    path = tmp_path / "s.json"
    assert _write(path, fits) and path.stat().st_size == small_limit
    assert recordings.read_recording(path).output == fits
    with pytest.raises(recordings.NotRecorded):
        _write(tmp_path / "t.json", {"a": fits["a"] + "x"})
