"""Recorded outputs of golden cases that give ``input``: what the target returned, kept next to
the case file so that a suite can run without calling the model.

A recording lives in ``__recordings__/<case file name>/<case id>.json`` beside the case file
(``<case id>@<k>.json`` for run k of a repeated case: ``@`` is always escaped in an id, so
no id and run can share a name) and holds the raw output (text or a mapping), the SHA-256 of
the input that produced it, when it was made, and what the call took (latency, attempts,
input and output tokens, cost). A recording whose input no longer matches
is stale. Recordings are written atomically, and only inside the test root: a path that
resolves elsewhere (a symlinked ``__recordings__`` folder) is refused, for reading too.

The modes are vcrpy's: ``off`` calls the target every time; ``once`` replays a recording
when one exists and records when none does (or it is stale); ``none`` only replays (a missing
or stale recording is an error); ``all`` calls the target and overwrites the recordings.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..engine.core.errors import CaseFileError
from ..reporting.atomic import write_atomic

MODES = ("off", "once", "none", "all")
FOLDER = "__recordings__"
MAX_RECORDING_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Recording:
    output: Any
    input_sha256: str
    recorded_at: str
    call: Any = None  # the recorded call's CallFigures (latency, attempts, usage), if kept


# A name this long (in bytes, of the escaped id) is shortened, stably, with a hash of the whole
# id: the name, a run suffix and the temporary file's prefix and suffix stay under the 255
# bytes most file systems allow.
MAX_NAME = 180
KEPT = 140


def recording_path(case_file: Path, case_id: str, repeat: int, runs: int) -> Path:
    """Where run ``repeat`` of a case is recorded. The case id becomes a safe file name (a
    ``/`` or ``..`` in an id can never lead outside the folder), shortened with a hash when
    it is long."""
    name = quote(case_id, safe="-_.")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        kept = name[:KEPT]
        cut = kept.rfind("%", len(kept) - 2)  # an escape cut in half is dropped whole
        name = f"{kept[:cut] if cut >= 0 else kept}~{digest}"
    suffix = f"@{repeat}.json" if runs > 1 else ".json"
    return case_file.parent / FOLDER / case_file.name / (name + suffix)


def inside_root(path: Path, root: Path, what: str = "the recording") -> Path:
    """``path`` when it resolves (symlinks followed) inside the test root, else
    CaseFileError naming both: the plugin reads and writes recordings only there."""
    real, top = path.resolve(), root.resolve()
    if not real.is_relative_to(top):
        raise CaseFileError(f"{what} {relative(path, root)} resolves to {real}, outside the test "
                            f"root {top} (a symlink?): refused; the plugin reads and writes only "
                            f"inside the root")
    return path


def input_digest(value: Any) -> str:
    """SHA-256 of the input as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_recording(path: Path) -> Recording | None:
    """The recording at ``path``, or None when there is none."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CaseFileError(f"cannot read the recording {path}: {exc.strerror}") from None
    if not path.is_file() or size > MAX_RECORDING_BYTES:
        raise CaseFileError(f"the recording {path} is not a regular file of at most "
                            f"{MAX_RECORDING_BYTES // 2**20} MB")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        from .runner import CallFigures

        return Recording(data["output"], str(data["input_sha256"]), str(data["recorded_at"]),
                         CallFigures.from_dict(data.get("call")))
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise CaseFileError(f"the recording {path} cannot be read ({exc}); delete it or "
                            f"re-record with --jsonmatch-record=all") from None


def write_recording(path: Path, case_id: str, input_value: Any, output: Any, repeat: int,
                    call: dict[str, Any] | None = None) -> None:
    """Record a target's output (atomically), with what its call took (``call``: latency,
    attempts, usage), replayed later as the recorded figures."""
    record = {"case_id": case_id, "repeat": repeat, "input_sha256": input_digest(input_value),
              "recorded_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "output": output}
    if call is not None:
        record["call"] = call
    try:
        text = json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise CaseFileError(f"cannot record the output of case {case_id!r}: {exc} (a target "
                            f"returns text or a JSON mapping)") from None
    write_atomic(path, lambda fh: fh.write(text + "\n"))


def relative(path: Path, root: Path) -> str:
    try:
        return os.fspath(path.relative_to(root))
    except ValueError:
        return os.fspath(path)
