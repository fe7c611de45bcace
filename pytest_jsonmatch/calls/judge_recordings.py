"""The judge's verdicts recorded and replayed as target outputs are (``jsonmatch_record``):
one file, ``__recordings__/judgments.json`` under the test root, holding each judge's
verdicts under its fingerprint (the model, the prompt's text, the reply's token limit) with
the field path and both values. A conversation's rubric (engine/judge/rubric.py) is the
same judge asked another question: its verdicts are kept beside, under the fingerprint of
that question, each with the judge's reason.

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

import errno
import json
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TypedDict, cast

from ..engine.core.errors import CaseFileError, ConfigError, value_kind
from ..engine.core.masking import safe_reason
from ..engine.core.values import JsonValue
from ..engine.judge import Item, JudgeSettings, Memory, rubric_fingerprint
from ..engine.reading.user_files import not_owned, read_regular_text
from ..reporting.run_model.atomic import exclusive_lock, write_atomic
from .recordings import (
    FOLDER,
    RecordMode,
    escape_surrogates,
    inside_root,
    relative,
)

NAME = "judgments.json"
VERSION = 1
MAX_JUDGMENTS_BYTES = 64 * 2**20  # the file's bound when read (docs/errors.md, Security)


class _VerdictCases(TypedDict, total=False):
    cases: list[str]  # the test ids that used the verdict (none recorded: not known)
    reason: str  # the judge's words, where its question asked for them (a rubric's)


class RecordedVerdict(_VerdictCases):
    """One recorded verdict: the field path, both values, 1 (a match) or 0; ``reason``,
    the judge's words, where its question asked for them (a rubric's)."""

    field: str
    expected: JsonValue
    actual: JsonValue
    verdict: int


class RecordedJudge(TypedDict, total=False):
    """One judge's verdicts, under its fingerprint."""

    model: str
    prompt_file: str | None
    max_tokens: int | None
    asks: str  # "rubric": the judge's verdicts of conversations' rubrics (absent: the pairs')
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

    def __init__(
        self,
        root: Path,
        mode: RecordMode,
        judge: JudgeSettings,
        prune: bool,
        unset: tuple[str, ...] = (),
    ) -> None:
        """``unset``: the judge's variables a replay-only judge goes without (its messages
        say to set them to record)."""
        self.root, self.mode, self.judge, self.prune = root, mode, judge, prune
        self.unset = unset
        self.path = inside_root(judgments_path(root), root, "the judgments' recording")
        self.fingerprint = judge.fingerprint
        # the same judge asked a conversation's rubric: its verdicts are this judge's too
        self.rubric = rubric_fingerprint(judge)
        self.mine = (self.fingerprint, self.rubric)
        self.others: dict[str, str] = {}  # item key -> the other judge's model it was asked of
        self.other_count = 0
        self.wrote = 0

    def load(self, memory: Memory) -> None:
        """Put this judge's recorded verdicts in ``memory`` (not under ``all``); under
        ``none``, make an unknown item the case's error."""
        if self.mode == "off":
            return
        data = self._read()
        for fingerprint, judge in data.get("judges", {}).items():
            prefix = fingerprint + "\x00"
            for entry in judge.get("verdicts", []):
                key = Item(entry["field"], entry["expected"], entry["actual"]).key
                if fingerprint in self.mine:
                    if self.mode != "all":
                        memory.verdicts[prefix + key] = float(entry["verdict"])
                        if entry.get("reason"):
                            memory.reasons[prefix + key] = entry["reason"]
                else:
                    self.others.setdefault(key, str(judge.get("model", "?")))
                    self.other_count += 1
        if self.mode == "none":
            memory.closed = self._not_recorded

    def _not_recorded(self, items: list[Item]) -> JudgmentNotRecorded:
        item = items[0]
        shown = relative(self.path, self.root)
        # each text cut as a report cuts a reason: a 5 MB value is no 5 MB message
        texts = (item.path, json.dumps(item.expected), json.dumps(item.actual))
        path, expected, actual = (safe_reason(text) for text in texts)
        what = f"field {path}: {expected} against {actual}"
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
        how = "--jsonmatch-record=once"
        if self.unset:  # a replay-only judge: it has no model or endpoint to ask
            how += f", {' and '.join(self.unset)} set"
        return JudgmentNotRecorded(
            f"{why}; record it with {how} (record=none never asks the judge)"
        )

    def save(self, memory: Memory) -> None:
        """Add this run's verdicts to the file (merged with what is there now) with the cases
        that used each, and drop other judges' under ``prune``. A file this changes nothing
        in is left as it is. When the file cannot be read or written now, a CaseFileError
        names it and says how many verdicts asked in this run were not recorded."""
        if self.mode in ("off", "none"):
            return
        used = memory.new | memory.cases.keys()
        keys: dict[str, dict[str, str]] = {}
        for fingerprint in self.mine:
            prefix = fingerprint + "\x00"
            mine = {k[len(prefix) :]: k for k in used if k.startswith(prefix)}
            if mine:
                keys[fingerprint] = mine
        asked = sum(k in memory.new for held in keys.values() for k in held.values())
        if not (keys or (self.prune and self.other_count)):
            return
        try:
            self._merge_and_write(memory, keys)
        except CaseFileError as exc:
            raise CaseFileError(
                f"{exc}; the {asked} judgment(s) asked in this run were not recorded"
            ) from None
        self.wrote = asked

    def _merge_and_write(self, memory: Memory, keys: dict[str, dict[str, str]]) -> None:
        """Under the folder's lock: read the file as it is now, add ``keys`` (by the
        fingerprint they are kept under: item key -> memory key) and write it back when that
        changed it."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CaseFileError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        with exclusive_lock(self.path.parent):
            data = self._read()
            before = _dumps(data)
            judges = data.setdefault("judges", {})
            if self.prune:
                for fingerprint in [f for f in judges if f not in self.mine]:
                    del judges[fingerprint]
            for fingerprint, held in keys.items():
                judges[fingerprint] = self._merged(judges.get(fingerprint, {}), held, memory)
                if fingerprint == self.rubric:
                    judges[fingerprint]["prompt_file"] = None
                    judges[fingerprint]["asks"] = "rubric"
            data["version"] = VERSION
            text = _dumps(data)
            if text != before:
                _write(self.path, text)

    def _merged(
        self, recorded: RecordedJudge, keys: dict[str, str], memory: Memory
    ) -> RecordedJudge:
        """One judge's recorded verdicts with ``keys`` (item key -> memory key) added: those
        asked now replacing what was there, each with the cases that used it."""
        entries = {
            Item(e["field"], e["expected"], e["actual"]).key: e
            for e in recorded.get("verdicts", [])
        }
        for short, key in keys.items():
            entry = entries.get(short)
            if key in memory.new or entry is None:  # asked now, or pruned meanwhile
                # (the values are JSON text, where a NUL is always escaped: the field
                # path, which may hold one, is what precedes the last two)
                path, expected, actual = short.rsplit("\x00", 2)
                asked: RecordedVerdict = {
                    "field": path,
                    "expected": json.loads(expected),
                    "actual": json.loads(actual),
                    "verdict": int(memory.verdicts[key]),
                }
                if key in memory.reasons:
                    asked["reason"] = memory.reasons[key]
                if entry and "cases" in entry:
                    asked["cases"] = entry["cases"]
                entry = entries[short] = asked
            cases = set(entry.get("cases", ())) | memory.cases.get(key, set())
            if cases:
                entry["cases"] = sorted(cases)
        return {
            "model": self.judge.model,
            "prompt_file": self.judge.prompt_file or None,
            "max_tokens": self.judge.max_tokens,
            "verdicts": [entries[k] for k in sorted(entries)],
        }

    def _read(self) -> Recording:
        return self.read_file(self.path)

    @staticmethod
    def read_file(path: Path) -> Recording:
        """The recorded verdicts, checked; ``{}`` when there are none yet. Anything but a
        regular file of its own at ``path`` (a symbolic link, a FIFO, a folder) is refused
        without being opened; the file is read without blocking and at most 64 MB of it."""
        there = not_owned(path)
        if there is not None:
            raise CaseFileError(
                f"the judgments' recording {path} is {there}, not a regular file: the plugin "
                f"reads and writes it only as a regular file; remove it, then record with "
                f"--jsonmatch-record=once"
            )
        if not os.path.lexists(path):
            return {}
        text = read_regular_text(
            path,
            "the judgments' recording",
            CaseFileError,
            limit=MAX_JUDGMENTS_BYTES,
            follow_links=False,
        )
        try:
            return _checked(json.loads(text))
        except RecursionError:
            why = "it nests too deeply to read"
        except (ValueError, KeyError, TypeError) as exc:
            why = str(exc)
        raise CaseFileError(
            f"the judgments' recording {path} cannot be read ({why}); delete it or "
            f"re-record with --jsonmatch-record=all"
        )


def recorded_judge(probe: JudgeSettings, root: Path, what: str, model_env: str) -> JudgeSettings:
    """The replay-only judge ``probe`` is (its prompt and token limit; its model unknown,
    the variable ``model_env`` names being unset): the one judge whose verdicts the root's
    recording holds under that prompt and limit. None recorded: ``probe`` as it is, under
    which every judged field is the case's error (a run that judges nothing needs none);
    judges of several models: a ConfigError, as which is meant cannot be told."""
    import dataclasses

    path = inside_root(judgments_path(root), root, "the judgments' recording")
    models = sorted(
        {
            str(judge.get("model"))
            for fingerprint, judge in JudgmentFile.read_file(path).get("judges", {}).items()
            if isinstance(judge.get("model"), str)
            and _of_model(probe, str(judge["model"]), fingerprint)
        }
    )
    if len(models) > 1:
        raise ConfigError(
            f"{what}: model_env names the environment variable {model_env}, which is not set, "
            f"and {relative(path, root)} holds verdicts of this prompt by the models "
            f"{', '.join(map(repr, models))}: set {model_env} to the one to replay, or drop "
            f"the others' verdicts with --jsonmatch-record='once prune'"
        )
    return dataclasses.replace(probe, model=models[0]) if models else probe


def _of_model(probe: JudgeSettings, model: str, fingerprint: str) -> bool:
    """Whether ``fingerprint`` is that of ``probe`` with ``model``, asked the pairs' question
    or a rubric's."""
    import dataclasses

    judge = dataclasses.replace(probe, model=model)
    return fingerprint in (judge.fingerprint, rubric_fingerprint(judge))


def _checked(data: object) -> Recording:
    """``data`` when it has the shape of a judgments file, as far as it is read; else
    ValueError saying where it does not."""
    if not isinstance(data, dict) or not isinstance(data.get("judges"), dict):
        raise ValueError("no 'judges' mapping at its top")
    for fingerprint, judge in data["judges"].items():
        if not isinstance(judge, dict) or not isinstance(judge.get("verdicts"), list):
            raise ValueError(f"judge {fingerprint!r} has no 'verdicts' list")
        for entry in judge["verdicts"]:
            _check_verdict(entry)
    return cast(Recording, data)


def _check_verdict(entry: object) -> None:
    if not isinstance(entry, dict) or not isinstance(entry.get("field"), str):
        raise ValueError(f"a verdict with no field path: {value_kind(entry)}")
    field = entry["field"]
    if entry.get("verdict") not in (0, 1):
        raise ValueError(f"a verdict of {value_kind(entry.get('verdict'))} at {field!r}")
    if "expected" not in entry or "actual" not in entry:
        raise ValueError(f"the verdict at {field!r} has no expected or actual value")
    if not isinstance(entry.get("reason", ""), str):
        raise ValueError(f"the reason of the verdict at {field!r} is not text")
    cases = entry.get("cases", [])
    if not (isinstance(cases, list) and all(isinstance(c, str) for c in cases)):
        raise ValueError(f"the cases of the verdict at {field!r}")


def _dumps(data: Recording) -> str:
    """The file's text: sorted, non-ASCII kept, and a lone surrogate (a JSON escape UTF-8
    cannot hold) kept as its escape, so that any file this module read can be written."""
    return escape_surrogates(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False))


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
    if not os.path.lexists(path) or not_owned(path) is not None:
        return 0  # nothing recorded, or nothing the plugin reads (refused where it is read)
    files, ids = set(cases_by_file), set[str]()
    for file, keys in cases_by_file.items():
        shown = file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)
        ids.update(
            f"{shown}::{k}" if isinstance(k, str) else f"{shown}::{k[0]}[{k[1]}]" for k in keys
        )

    def gone(case: str) -> bool:
        file = root / case.partition("::")[0]
        return (file in files and case not in ids) or _cannot_be_there(file)

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
            _write(path, text)
    return unused


def _cannot_be_there(file: Path) -> bool:
    """Whether no file is at ``file``: missing, or a path no file can have (too long, a NUL
    in it). One that cannot be looked at for another reason (a folder not searchable) is
    not known to be gone."""
    try:
        os.stat(file)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return True
    except OSError as exc:
        return exc.errno == errno.ENAMETOOLONG
    return False


def _write(path: Path, text: str) -> None:
    """Write the file atomically as the plugin's own: a link, a FIFO or a folder in its
    place is refused, never written through; a failure is a CaseFileError naming it."""
    try:
        write_atomic(path, lambda fh: fh.write(text + "\n"), owned="the judgments' recording")
    except OSError as exc:
        raise CaseFileError(f"cannot write {path}: {exc.strerror or exc}") from None


def unused_note(count: int, removed: bool) -> str:
    """The terminal summary's line of the unused verdicts."""
    shown = f"{FOLDER}/{NAME}"
    if removed:
        return f"removed {count} unused recorded judgment(s) from {shown}"
    return (
        f"{count} recorded judgment(s) in {shown} no collected case uses (deleted or renamed "
        f"cases); remove them with --jsonmatch-record='once prune'"
    )
