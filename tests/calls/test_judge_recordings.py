"""The judge's recording saved at the end of a session (calls/judge_recordings.py), when what
stands at ``__recordings__/judgments.json`` changed since it was read: a link or a FIFO put
there is refused, never written through and never opened, and the error names the file and
the verdicts of this run it could not keep. Real files, links and FIFOs."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_jsonmatch.calls.judge_recordings import JudgmentFile
from pytest_jsonmatch.engine.core.errors import CaseFileError
from pytest_jsonmatch.engine.judge import Item, JudgeSettings, Memory
from tests.helpers.timeout import within

JUDGE = JudgeSettings(model="j", endpoint="http://127.0.0.1:9/v1")  # never asked here


def _one_asked(file: JudgmentFile) -> Memory:
    """A session's memory after the judge was asked one item (what save() records)."""
    memory = Memory()
    file.load(memory)
    key = f"{file.fingerprint}\x00{Item('s', 'two boxes', '2 boxes').key}"
    memory.verdicts[key] = 1.0
    memory.new.add(key)
    memory.cases[key] = {"cases/m.jsonmatch.yaml::a"}
    return memory


def _link_to_another_file(path: Path) -> str:
    other = path.parent.parent / "other.json"
    other.write_text("{}\n")
    os.symlink(other, path)
    return "is a symbolic link"


def _fifo(path: Path) -> str:
    os.mkfifo(path)  # no reader: opening it for writing would block for good
    return "is a FIFO"


@pytest.mark.parametrize("make", [_link_to_another_file, _fifo])
def test_what_replaced_the_file_since_it_was_read_is_refused_when_saving(
    tmp_path: Path, make: Callable[[Path], str]
):
    file = JudgmentFile(tmp_path, "once", JUDGE, prune=False)
    memory = _one_asked(file)  # read while nothing was there
    path = tmp_path / "__recordings__" / "judgments.json"
    path.parent.mkdir()
    what = make(path)
    with within(60), pytest.raises(CaseFileError) as caught:
        file.save(memory)
    message = str(caught.value)
    assert str(path) in message and what in message
    assert "the 1 judgment(s) asked in this run were not recorded" in message
    if os.path.islink(path):
        assert (tmp_path / "other.json").read_text() == "{}\n"  # not written through


def test_a_field_path_holding_a_nul_is_recorded_whole(tmp_path: Path):
    # the item key joins the path and both values' JSON with NULs; JSON escapes a NUL in a
    # value, so only the path can hold one and it is what precedes the last two
    file = JudgmentFile(tmp_path, "once", JUDGE, prune=False)
    memory = Memory()
    file.load(memory)
    item = Item("a\x00b", "x", "y")
    key = f"{file.fingerprint}\x00{item.key}"
    memory.verdicts[key] = 0.0
    memory.new.add(key)
    file.save(memory)
    data = json.loads((tmp_path / "__recordings__" / "judgments.json").read_text())
    (judge,) = data["judges"].values()
    assert judge["verdicts"] == [{"field": "a\x00b", "expected": "x", "actual": "y", "verdict": 0}]
    replayed = Memory()
    JudgmentFile(tmp_path, "none", JUDGE, prune=False).load(replayed)
    assert replayed.verdicts == {key: 0.0}
