"""What a session's report records of how its run was made (reporting/provenance.py says what
each key means): the settings that decide its scores and verdict, the golden case files it
scored, each target's recording fingerprint and the judge's fingerprint."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..reporting.provenance import golden_record, settings_record, target_record

if TYPE_CHECKING:
    from ..calls.case_outputs import Outputs
    from ..calls.judge_calls import JudgeSetup
    from ..calls.targets import TargetSpec
    from ..cases.repeats import RepeatSettings
    from ..reporting.gates import GateSettings
    from ..reporting.records import Comparison
    from ..reporting.shapes import JSONValue, ProvenanceDict, RunInfo
    from ..reporting.versus import VersusSettings
    from .channel import Defaults

GOLDEN_SUFFIXES = (".yaml", ".yml")


class RecordedSettings(Protocol):
    """What :func:`run_record` reads of the session's settings (the plugin's Settings)."""

    @property
    def gates(self) -> GateSettings: ...
    @property
    def versus(self) -> VersusSettings: ...
    @property
    def repeat(self) -> RepeatSettings: ...
    @property
    def given_judge(self) -> JudgeSetup | None: ...
    @property
    def targets(self) -> tuple[TargetSpec, ...]: ...
    @property
    def baseline(self) -> str | None: ...
    @property
    def defaults(self) -> Defaults: ...
    @property
    def rootpath(self) -> Path: ...


def run_record(
    settings: RecordedSettings, outputs: Outputs | None, comparisons: Sequence[Comparison]
) -> RunInfo:
    """``run.settings`` and ``run.provenance`` of a session's report: ``outputs`` (None: no
    golden run) gives each target's fingerprint, ``comparisons`` the golden case files."""
    root = settings.rootpath
    repeat = settings.repeat
    defaults = settings.defaults
    baseline = settings.baseline or ""
    if baseline:  # from the root dir, where jsonmatch merge looks for it (its own directory)
        path = Path(baseline)
        baseline = path.relative_to(root).as_posix() if path.is_relative_to(root) else baseline
    recorded = settings_record(
        gates=settings.gates,
        versus=settings.versus,
        targets=[t.name for t in settings.targets],
        baseline=baseline,
        repeat=f"{repeat.count or ''} {repeat.rule}".strip(),
        defaults={
            "metric": defaults.metric,
            "threshold": defaults.threshold,
            "options": defaults.options,
            "invalid_fails": defaults.invalid_fails,
        },
    )
    provenance: ProvenanceDict = golden_record(golden_files(root, comparisons))
    if outputs is not None:
        targets = provenance["targets"] = {}
        for name in outputs.calls:
            try:  # taken at the start where recordings are held to it; here otherwise
                made = outputs.made_under(name)
            except Exception:  # noqa: BLE001 - a fingerprint that fails is none recorded
                continue
            if made is not None:
                targets[name] = target_record(made.code, made.files, _json(made.declared))
    if settings.given_judge is not None:
        provenance["judge"] = settings.given_judge.judge.fingerprint
    return {"settings": recorded, "provenance": provenance}


def golden_files(root: Path, comparisons: Sequence[Comparison]) -> dict[str, str]:
    """The SHA-256 of each golden case file (from ``root``) the ``comparisons`` were made of;
    one gone since (an update run may remove nothing, but a user may) is left out."""
    out: dict[str, str] = {}
    for name in sorted({c.file for c in comparisons if c.file.endswith(GOLDEN_SUFFIXES)}):
        path = root / name
        try:  # a regular file only: a pipe in a case file's place would block
            if path.is_file():
                out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            continue
    return out


def _json(value: object) -> JSONValue:
    """A declared fingerprint as JSON (take_fingerprint checked that it is)."""
    loaded: JSONValue = json.loads(json.dumps(value, default=str))
    return loaded
