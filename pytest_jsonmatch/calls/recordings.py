"""Recorded outputs of golden cases that give ``input``: what the target returned, kept next to
the case file so that a suite can run without calling the model.

A recording lives in ``__recordings__/<case file name>/<case id>.json`` beside the case file
(``<case id>@<k>.json`` for run k of a repeated case: ``@`` is always escaped in an id, so
no id and run can share a name) and holds the raw output (text or a mapping), the SHA-256 of
the input that produced it, when it was made, and what the call took (latency, attempts,
input and output tokens, cost). A recording whose input no longer matches
is stale. Recordings are written atomically, and only inside the test root: a path that
resolves elsewhere (a symlinked ``__recordings__`` folder) is refused, for reading too. A
recording holds at most :data:`MAX_RECORDING_BYTES`, what any file the plugin reads may
hold: an output whose recording would be larger is refused when it is recorded (the case's
error, naming its size and the limit), never written to fail when it is read back. An
output is recorded in its stable form (stable_form.py: tool-call ids ``call_1``, ``call_2``...,
the values the setting's ``scrub=`` names replaced), so that a re-record whose only changes
are volatile values leaves the file byte for byte.

The modes are vcrpy's: ``off`` calls the target every time; ``once`` replays a recording
when one exists and records when none does (or it is stale); ``none`` only replays (a missing
or stale recording is an error); ``all`` calls the target and overwrites the recordings.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from ..engine.core.errors import CaseFileError, JsonMatchError
from ..engine.core.slotted import Slotted
from ..engine.reading.user_files import MAX_FILE_BYTES

if TYPE_CHECKING:  # the settings' modes load with every session; replaying, when it replays
    from ..engine.reading.agent_messages import AgentKind
    from .call_figures import CallFigures
    from .stable_form import Scrub

RecordMode = Literal["off", "once", "none", "all"]
MODES: tuple[RecordMode, ...] = ("off", "once", "none", "all")
FOLDER = "__recordings__"
# the most a recording may hold, written and read: the bound of every file the plugin reads
# (a case file, an actual_file), so that an output the plugin can read is kept whole
MAX_RECORDING_BYTES = MAX_FILE_BYTES


class Recording(Slotted):
    """One recording as read. (Slotted, not a dataclass: its module loads with every
    session.)"""

    __slots__ = ("output", "input_sha256", "recorded_at", "call", "fingerprint", "target")

    output: object
    input_sha256: str
    recorded_at: str
    call: CallFigures | None  # the recorded call's latency, attempts, usage, if kept
    fingerprint: object  # what made it (fingerprints.py), as recorded
    target: str  # the named target it was recorded for (empty: the unnamed one)

    def __init__(
        self,
        *,
        output: object,
        input_sha256: str,
        recorded_at: str,
        call: CallFigures | None = None,
        fingerprint: object = None,
        target: str = "",
    ) -> None:
        self.output, self.input_sha256, self.recorded_at = output, input_sha256, recorded_at
        self.call, self.fingerprint, self.target = call, fingerprint, target


# A name this long (in bytes, of the escaped id) is shortened, stably, with a hash of the whole
# id: the name, a run suffix and the temporary file's prefix and suffix stay under the 255
# bytes most file systems allow.
MAX_NAME = 180
KEPT = 140


def recording_path(case_file: Path, case_id: str, repeat: int, runs: int, target: str = "") -> Path:
    """Where run ``repeat`` of a case is recorded; by a named ``target``, ``<id>[<target>]``
    (a bracket in an id is always escaped, and a target's name needs no escape, so no id
    and target can share a name). The case id becomes a safe file name (a ``/`` or ``..``
    in an id can never lead outside the folder), shortened with a hash when it is long."""
    name = quote(case_id, safe="-_.")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        kept = name[:KEPT]
        cut = kept.rfind("%", len(kept) - 2)  # an escape cut in half is dropped whole
        name = f"{kept[:cut] if cut >= 0 else kept}~{digest}"
    suffix = f"@{repeat}.json" if runs > 1 else ".json"
    by = f"[{target}]" if target else ""
    return case_file.parent / FOLDER / case_file.name / (name + by + suffix)


def inside_root(path: Path, root: Path, what: str = "the recording") -> Path:
    """``path`` when it resolves (symlinks followed) inside the test root, else
    CaseFileError naming both: the plugin reads and writes recordings only there. A symlink
    loop resolves to itself (opening it then fails, naming it); a NUL is no path."""
    if "\0" in os.fspath(path):
        raise CaseFileError(f"{what} {relative(path, root)!r} holds a NUL character: no path")
    # (os.path.realpath, not Path.resolve: the latter raises RuntimeError on a symlink loop)
    real, top = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    if not real.is_relative_to(top):
        raise CaseFileError(
            f"{what} {relative(path, root)} resolves to {real}, outside the test "
            f"root {top} (a symlink?): refused; the plugin reads and writes only "
            f"inside the root"
        )
    return path


def input_digest(value: object) -> str:
    """SHA-256 of the input as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class NotRegular(CaseFileError):
    """Something that is not a regular file of its own (a FIFO, a device, a directory, a
    symbolic link) stands where a recording belongs: refused under every record mode."""


class NotRecorded(CaseFileError):
    """An output the target gave that cannot be kept as a recording (larger than a
    recording may hold): the case's error, since the record mode asked for a recording."""


def read_recording(path: Path) -> Recording | None:
    """The recording at ``path``, or None when there is none."""
    from ..engine.reading.user_files import not_owned, read_regular_text

    there = not_owned(path)
    if there is not None:
        raise NotRegular(
            f"the recording {path} is {there}, not a regular file: the plugin reads and "
            f"writes recordings only as regular files; remove it, then record it with "
            f"--jsonmatch-record=once"
        )
    if not path.exists():
        return None
    from .call_figures import CallFigures

    try:
        text = read_regular_text(
            path, "the recording", CaseFileError, limit=MAX_RECORDING_BYTES, follow_links=False
        )
        from ..engine.reading.deep_json import read_whole

        data: Any = read_whole(text, "the recording")  # (at any depth the door takes)
        if not isinstance(data, dict):
            raise ValueError(f"not a recording (a JSON {type(data).__name__})")
        # text of several lines is kept as a list of its lines, readable in a diff
        output = "\n".join(data["output_lines"]) if "output_lines" in data else data["output"]
        return Recording(
            output=output,
            input_sha256=str(data["input_sha256"]),
            recorded_at=str(data["recorded_at"]),
            call=CallFigures.from_dict(data.get("call")),
            fingerprint=data.get("fingerprint"),
            target=str(data.get("target", "")),
        )
    except (JsonMatchError, ValueError, KeyError, TypeError, OSError) as exc:
        raise CaseFileError(
            f"the recording {path} cannot be read ({exc}); delete it or "
            f"re-record with --jsonmatch-record=all"
        ) from None


def write_recording(
    path: Path,
    case_id: str,
    input_value: object,
    output: object,
    repeat: int,
    call: dict[str, object] | None = None,
    fingerprint: dict[str, object] | None = None,
    existing: Recording | None = None,
    target: str = "",
) -> bool:
    """Record a target's output (atomically), with what its call took (``call``: latency,
    attempts, usage), replayed later as the recorded figures, and what made it
    (``fingerprint``). When ``existing`` holds the same output, input and fingerprint, the
    file is left as it is, byte for byte (a re-record is no diff): returns whether it wrote."""
    from ..reporting.run_model.atomic import write_atomic

    output = _held_to_the_door(output, case_id)
    digest = input_digest(input_value)
    if (
        existing is not None
        and existing.input_sha256 == digest
        and existing.target == target
        and existing.fingerprint == fingerprint
        and _same_json(existing.output, output)
    ):
        return False
    record: dict[str, object] = {
        "case_id": case_id,
        "repeat": repeat,
        "input_sha256": digest,
        "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if target:
        record["target"] = target
    if fingerprint is not None:
        record["fingerprint"] = fingerprint
    if isinstance(output, str) and "\n" in output:
        record["output_lines"] = output.split("\n")
    else:
        record["output"] = output
    if call is not None:
        record["call"] = call
    text = _recording_text(record, case_id)
    # newline="": the bytes written are the bytes counted (no "\r\n" on Windows)
    write_atomic(path, lambda fh: fh.write(text + "\n"), newline="", owned="the recording")
    return True


def recorded_form(output: object, case_id: str, scrub: Scrub, agent: AgentKind = None) -> object:
    """What a recording of ``output`` holds: the JSON it is read as, in its stable form
    (stable_form.py: tool-call ids renamed, the values ``scrub`` names replaced, in an
    ``agent``'s answer too), so that a re-record whose only changes are volatile values
    writes the same bytes."""
    from .stable_form import stable_form

    return stable_form(_held_to_the_door(output, case_id), scrub, agent)


def _held_to_the_door(output: object, case_id: str) -> object:
    """A value output as the JSON it is read as (text stays text), as scoring it live
    reads it: one the door refuses is not recorded."""
    if isinstance(output, str):
        return output
    from ..engine.reading.intake import read_json

    try:
        return read_json(output, "actual")[0]
    except JsonMatchError as exc:
        raise CaseFileError(f"cannot record the output of case {case_id!r}: {exc}") from None


def _recording_text(record: dict[str, object], case_id: str) -> str:
    """A recording's file text: indented JSON, lone surrogates escaped, refused past
    MAX_RECORDING_BYTES (the limit :func:`read_recording` reads to) now rather than when
    the next run cannot read it."""
    try:
        from ..engine.core.depth import deep_dumps

        text = deep_dumps(record, indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise CaseFileError(
            f"cannot record the output of case {case_id!r}: {exc} (a target "
            f"returns text or a JSON mapping)"
        ) from None
    text = escape_surrogates(text)
    size = len(text.encode("utf-8")) + 1
    if size > MAX_RECORDING_BYTES:
        raise NotRecorded(
            f"cannot record the output of case {case_id!r}: its recording would be "
            f"{size:,} bytes, more than the {MAX_RECORDING_BYTES:,} "
            f"({MAX_RECORDING_BYTES / 2**20:g} MiB) a recording may hold; make the "
            f"target's output smaller, or run without recording (--jsonmatch-record=off)"
        )
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON text with each lone surrogate (half a UTF-16 pair, which UTF-8 cannot hold)
    written as its JSON escape, which reads back as it was."""
    try:
        text.encode("utf-8")  # (in C: a tenth of the pattern's time over a long text)
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _same_json(a: object, b: object) -> bool:
    """Whether the two outputs would be written alike (``1`` and ``1.0`` would not, though
    equal as JSON): a file is left alone only when its text would not change."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False


def relative(path: Path, root: Path) -> str:
    try:
        return os.fspath(path.relative_to(root))
    except ValueError:
        return os.fspath(path)


def unused_recordings(
    cases_by_file: Mapping[Path, Collection[str | tuple[str, str]]],
) -> list[Path]:
    """The recordings beside the given case files that none of their cases uses (a case
    deleted or renamed, a target no longer declared), and those of case files that are gone,
    in the same folders. A case is its id, or (id, target) when a named target runs it."""
    unused: set[Path] = set()
    for case_file, ids in cases_by_file.items():
        used = set()
        for key in ids:
            case_id, target = (key, "") if isinstance(key, str) else key
            used.add(recording_path(case_file, case_id, 0, 1, target).stem)
        folder = case_file.parent / FOLDER / case_file.name
        # "@" is escaped in every id: what precedes one is the case's, "@k" its run
        unused.update(p for p in folder.glob("*.json") if p.stem.split("@")[0] not in used)
        unused.update(
            p
            for p in (case_file.parent / FOLDER).glob("*/*.json")
            if not (case_file.parent / p.parent.name).exists()
        )
    return sorted(unused)


def remove_recordings(paths: Sequence[Path]) -> None:
    """Delete ``paths``, and each folder that is left empty."""
    for path in paths:
        path.unlink(missing_ok=True)
    for folder in sorted(
        {p.parent for p in paths} | {p.parent.parent for p in paths},
        key=lambda f: len(f.parts),
        reverse=True,
    ):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
