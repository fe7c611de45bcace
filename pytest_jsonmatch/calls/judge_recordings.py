"""The judge's verdicts recorded and replayed as target outputs are (``jsonmatch_record``):
one file, ``__recordings__/judgments.json`` under the test root, holding each judge's
verdicts under its fingerprint (the model, the prompt's text, the reply's token limit) with
the field path and both values.

- ``once``: recorded verdicts are replayed (never asked again); those asked in this run
  are added when the session ends.
- ``none``: only replayed. An item no verdict of this judge is recorded for stops its
  case with an error that says whether it was never recorded or was recorded under another
  judge (the prompt or the model changed since): it is never sent.
- ``all``: every item is asked again, and this judge's verdicts replaced.
- ``off``: nothing is read or written.

The file is written atomically, merged under a lock with what other processes (xdist
workers) wrote meanwhile, sorted so that its diff shows exactly the verdicts that changed.
With ``prune``, verdicts of other judges (a prompt or a model since replaced) are removed.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TypedDict, cast

from ..engine.comparing.semantic import Item, JudgeSettings, Memory
from ..engine.core.errors import CaseFileError
from ..engine.core.values import JsonValue
from ..reporting.atomic import exclusive_lock, write_atomic
from .recordings import FOLDER, MAX_RECORDING_BYTES, RecordMode, inside_root, relative

NAME = "judgments.json"
VERSION = 1


class _VerdictCases(TypedDict, total=False):
    cases: list[str]  # the test ids that used the verdict (none recorded: not known)


class RecordedVerdict(_VerdictCases):
    """One recorded verdict: the field path, both values, 1 (a match) or 0."""

    field: str
    expected: JsonValue
    actual: JsonValue
    verdict: int


class RecordedJudge(TypedDict, total=False):
    """One judge's verdicts, under its fingerprint."""

    model: str
    prompt_file: str | None
    max_tokens: int | None
    verdicts: list[RecordedVerdict]


class Recording(TypedDict, total=False):
    """The file: each judge by its fingerprint, and the file's version."""

    judges: dict[str, RecordedJudge]
    version: int


class JudgmentNotRecorded(CaseFileError):
    """A replay-only run met an item no verdict of its judge is recorded for: the case
    stops here (the judge is never asked under ``record=none``)."""

    stops_comparison = True


def judgments_path(root: Path) -> Path:
    return root / FOLDER / NAME


class JudgmentFile:
    """The recorded verdicts of one session's judge (see the module docstring)."""

    def __init__(self, root: Path, mode: RecordMode, judge: JudgeSettings, prune: bool) -> None:
        self.root, self.mode, self.judge, self.prune = root, mode, judge, prune
        self.path = inside_root(judgments_path(root), root, "the judgments' recording")
        self.fingerprint = judge.fingerprint
        self.others: dict[str, str] = {}  # item key -> the other judge's model it was asked of
        self.other_count = 0
        self.wrote = 0

    def load(self, memory: Memory) -> None:
        """Put this judge's recorded verdicts in ``memory`` (not under ``all``); under
        ``none``, make an unknown item the case's error."""
        if self.mode == "off":
            return
        data = self._read()
        prefix = self.fingerprint + "\x00"
        for fingerprint, judge in data.get("judges", {}).items():
            for entry in judge.get("verdicts", []):
                key = Item(entry["field"], entry["expected"], entry["actual"]).key
                if fingerprint == self.fingerprint:
                    if self.mode != "all":
                        memory.verdicts[prefix + key] = float(entry["verdict"])
                else:
                    self.others.setdefault(key, str(judge.get("model", "?")))
                    self.other_count += 1
        if self.mode == "none":
            memory.closed = self._not_recorded

    def _not_recorded(self, items: list[Item]) -> JudgmentNotRecorded:
        item = items[0]
        shown = relative(self.path, self.root)
        what = f"field {item.path}: {json.dumps(item.expected)} against {json.dumps(item.actual)}"
        more = f" (and {len(items) - 1} more)" if len(items) > 1 else ""
        other = self.others.get(item.key)
        if other is not None:
            why = (
                f"the judgment of {what}{more} in {shown} is stale: it was recorded by another "
                f"judge (model {other!r}, or a prompt since changed), not by judge "
                f"{self.judge.model!r} as configured now ({self.fingerprint})"
            )
        else:
            why = f"no recorded judgment of {what}{more} in {shown}"
        return JudgmentNotRecorded(
            f"{why}; record it with --jsonmatch-record=once (record=none never asks the judge)"
        )

    def save(self, memory: Memory) -> None:
        """Add this run's verdicts to the file (merged with what is there now) with the cases
        that used each, and drop other judges' under ``prune``. A file this changes nothing
        in is left as it is."""
        if self.mode in ("off", "none"):
            return
        prefix = self.fingerprint + "\x00"
        used = memory.new | memory.cases.keys()
        keys = {k[len(prefix) :]: k for k in used if k.startswith(prefix)}
        if not (keys or (self.prune and self.other_count)):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(self.path.parent):
            data = self._read()
            before = _dumps(data)
            judges = data.setdefault("judges", {})
            if self.prune:
                for fingerprint in [f for f in judges if f != self.fingerprint]:
                    del judges[fingerprint]
            mine = judges.get(self.fingerprint, {})
            entries = {
                Item(e["field"], e["expected"], e["actual"]).key: e
                for e in mine.get("verdicts", [])
            }
            for short, key in keys.items():
                entry = entries.get(short)
                if key in memory.new or entry is None:  # asked now, or pruned meanwhile
                    path, expected, actual = short.split("\x00")
                    asked: RecordedVerdict = {
                        "field": path,
                        "expected": json.loads(expected),
                        "actual": json.loads(actual),
                        "verdict": int(memory.verdicts[key]),
                    }
                    if entry and "cases" in entry:
                        asked["cases"] = entry["cases"]
                    entry = entries[short] = asked
                cases = set(entry.get("cases", ())) | memory.cases.get(key, set())
                if cases:
                    entry["cases"] = sorted(cases)
            judges[self.fingerprint] = {
                "model": self.judge.model,
                "prompt_file": self.judge.prompt_file or None,
                "max_tokens": self.judge.max_tokens,
                "verdicts": [entries[k] for k in sorted(entries)],
            }
            data["version"] = VERSION
            text = _dumps(data)
            if text != before:
                write_atomic(self.path, lambda fh: fh.write(text + "\n"))
            self.wrote = sum(k in memory.new for k in keys.values())

    def _read(self) -> Recording:
        return self.read_file(self.path)

    @staticmethod
    def read_file(path: Path) -> Recording:
        """The recorded verdicts, checked; ``{}`` when there are none yet."""
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise CaseFileError(f"cannot read {path}: {exc.strerror}") from None
        if not path.is_file() or size > MAX_RECORDING_BYTES:
            raise CaseFileError(f"{path} is not a regular file of at most 64 MB")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            for judge in data["judges"].values():
                for e in judge["verdicts"]:
                    if e["verdict"] not in (0, 1) or not isinstance(e["field"], str):
                        raise ValueError(f"a verdict of {e['verdict']!r} at {e['field']!r}")
                    cases = e.get("cases", [])
                    if not (isinstance(cases, list) and all(isinstance(c, str) for c in cases)):
                        raise ValueError(f"the cases of the verdict at {e['field']!r}")
                    e["expected"], e["actual"]
        except (ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
            raise CaseFileError(
                f"the judgments' recording {path} cannot be read ({exc}); delete it or "
                f"re-record with --jsonmatch-record=all"
            ) from None
        # (its shape checked above, as far as it is read)
        return cast(Recording, data) if isinstance(data, dict) else {}


def _dumps(data: Recording) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)


def unused_judgments(
    root: Path, cases_by_file: Mapping[Path, Collection[str | tuple[str, str]]], remove: bool
) -> int:
    """How many recorded verdicts (of any judge) no collected case uses: every case recorded
    as using one (``cases``: test ids under ``root``, ``file::id`` or ``file::id[target]``)
    is gone, deleted or renamed in one of the collected case files, or its file is. With
    ``remove``, they are dropped, and gone cases struck from the verdicts kept. A verdict
    recorded with no case is never counted (which cases use it is not known); cases of files
    not collected in this run (a path given) are kept."""
    path = judgments_path(root)
    if not path.is_file():
        return 0
    files, ids = set(cases_by_file), set[str]()
    for file, keys in cases_by_file.items():
        shown = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
        ids.update(
            f"{shown}::{k}" if isinstance(k, str) else f"{shown}::{k[0]}[{k[1]}]" for k in keys
        )

    def gone(case: str) -> bool:
        file = root / case.partition("::")[0]
        return (file in files and case not in ids) or not file.exists()

    with exclusive_lock(path.parent):
        data = JudgmentFile.read_file(path)
        before, unused = _dumps(data), 0
        for judge in data.get("judges", {}).values():
            kept = []
            for entry in judge.get("verdicts", []):
                cases = entry.get("cases", [])
                left = [c for c in cases if not gone(c)]
                if cases and not left:
                    unused += 1
                    continue
                if cases:
                    entry["cases"] = left
                kept.append(entry)
            judge["verdicts"] = kept
        text = _dumps(data)
        if remove and text != before:
            write_atomic(path, lambda fh: fh.write(text + "\n"))
    return unused


def unused_note(count: int, removed: bool) -> str:
    """The terminal summary's line of the unused verdicts."""
    shown = f"{FOLDER}/{NAME}"
    if removed:
        return f"removed {count} unused recorded judgment(s) from {shown}"
    return (
        f"{count} recorded judgment(s) in {shown} no collected case uses (deleted or renamed "
        f"cases); remove them with --jsonmatch-record='once prune'"
    )
