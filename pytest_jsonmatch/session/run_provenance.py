"""What a session's report records of how its run was made (reporting/verdicts/provenance.py says what
each key means): the settings that decide its scores and verdict, the golden case files it
scored, the folder settings and schema files they were scored with, each target's recording
fingerprint, the judge's fingerprint and setup, and the hosts an offline run could reach.

Files are hashed as they are read (:class:`ReadFiles` gathers the digests, under xdist from
each worker with its test reports), never again at the end: an update run rewrites case
files, and a file edited while the session ran is not what its scores were made from."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..engine.core.slotted import Slotted
from ..reporting.verdicts.provenance import (
    golden_provenance,
    judge_setup_provenance,
    settings_provenance,
    target_provenance,
)

if TYPE_CHECKING:
    from ..calls.case_outputs import Outputs
    from ..calls.fingerprints import RecordSettings
    from ..calls.judge_calls import JudgeSetup
    from ..calls.targets import TargetSpec
    from ..cases.case_files import CaseFiles
    from ..cases.repeats import RepeatSettings
    from ..reporting.run_model.comparisons import Comparison
    from ..reporting.run_model.report_types import (
        CalibrationSummaryDict,
        JSONValue,
        ProvenanceDict,
        RunInfo,
        RunSettingsDict,
        TargetFingerprintDict,
    )
    from ..reporting.verdicts.gates import GateSettings
    from ..reporting.verdicts.versus import VersusSettings
    from .channel import Defaults

GOLDEN_SUFFIXES = (".yaml", ".yml")
_LOADING = "pytest_jsonmatch.engine.schemas.loading"


# the kinds of file ReadFiles keeps: case files, folder settings files, schema files
KINDS = ("golden", "folder_settings", "schemas")


class ReadFiles(Slotted):
    """The files a session's scores were made from, each kind mapping an absolute path to
    the SHA-256 of its bytes as read. :meth:`take` gathers what is new since it last did and
    hands it back: what a worker sends with a test's report, for the controller to
    :meth:`add`. (Slotted, not a dataclass: every golden session makes one.)"""

    __slots__ = ("tick", "files", "calibration", "_taken")

    def __init__(self, *, tick: int = 0) -> None:
        self.tick = tick  # the schema loader's clock when schema files were last taken
        self.files: dict[str, dict[str, str]] = {k: {} for k in KINDS}
        # the judge's calibration the verdict rests on (session/judge_calibration.py): read
        # or measured once, in the controller
        self.calibration: CalibrationSummaryDict | None = None
        self._taken: dict[str, int] = {}  # entries of CaseFiles' maps taken

    def take(self, cases: CaseFiles | None) -> dict[str, dict[str, str]]:
        """The case files and folder settings files ``cases`` read, and the schema files
        read or used, since the last take (a file's entry is added, never re-read)."""
        new: dict[str, dict[str, str]] = {}
        if cases is not None:
            for kind, source in (("golden", cases.read), ("folder_settings", cases.settings_read)):
                taken = self._taken.get(kind, 0)
                if len(source) > taken:  # a dict keeps its order: the new entries come last
                    new[kind] = {str(p): d for p, d in islice(source.items(), taken, None)}
                    self._taken[kind] = len(source)
        loading = sys.modules.get(_LOADING)
        # another thread (a target's or the judge's, ahead of the tests) may be importing the
        # loader right now: until its functions are there it has read no file, and what it
        # reads meanwhile is taken next time
        clock = getattr(loading, "schema_clock", None)
        files_since = getattr(loading, "schema_files_since", None)
        if clock is not None and files_since is not None:
            now = int(clock())  # first: a file told meanwhile comes again
            schemas: dict[str, str] = files_since(self.tick)
            self.tick = now
            if schemas:
                new["schemas"] = schemas
        self.add(new)
        return new

    def add(self, sent: object) -> None:
        """What a worker sent (kept only as far as it is of the shape :meth:`take` hands back)."""
        if not isinstance(sent, Mapping):
            return
        for kind in KINDS:
            files = sent.get(kind)
            if isinstance(files, Mapping):
                self.files[kind].update(
                    (p, d) for p, d in files.items() if isinstance(p, str) and isinstance(d, str)
                )


class RecordedSettings(Protocol):
    """What :func:`run_provenance` reads of the session's settings (the plugin's Settings)."""

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
    @property
    def given_record(self) -> RecordSettings | None: ...


def run_provenance(
    settings: RecordedSettings,
    outputs: Outputs | None,
    comparisons: Sequence[Comparison],
    read: ReadFiles | None = None,
) -> RunInfo:
    """``run.settings`` and ``run.provenance`` of a session's report: ``outputs`` (None: no
    golden session) gives each target's fingerprint, ``comparisons`` the golden case files,
    ``read`` the digests of the files as they were read."""
    root = settings.rootpath
    recorded = _settings(settings)
    read = read if read is not None else ReadFiles()
    golden = golden_files(root, comparisons, read.files["golden"])
    provenance: ProvenanceDict = golden_provenance(golden)
    if golden:
        provenance["folder_settings"] = _applying(root, read.files["folder_settings"], golden)
    provenance["schemas"] = {_shown(root, p): d for p, d in sorted(read.files["schemas"].items())}
    if outputs is not None:
        provenance["targets"] = _targets(outputs)
    if settings.given_judge is not None:
        judge = settings.given_judge.judge
        provenance["judge"] = judge.fingerprint
        provenance["judge_setup"] = judge_setup_provenance(
            model=judge.model,
            endpoint=judge.endpoint,
            prompt_file=judge.prompt_file,
            prompt=judge.prompt,
            max_tokens=judge.max_tokens,
        )
    if read.calibration is not None:
        provenance["calibration"] = read.calibration
    record = settings.given_record
    if record is not None and record.blocks_network:  # the run touched no other host
        provenance["offline"] = {"allowed": list(record.allowed_hosts)}
    return {"settings": recorded, "provenance": provenance}


def _settings(settings: RecordedSettings) -> RunSettingsDict:
    """``run.settings``: what decides the run's scores and verdict."""
    repeat, defaults, root = settings.repeat, settings.defaults, settings.rootpath
    baseline = settings.baseline or ""
    if baseline:  # from the root dir, where jsonmatch merge looks for it (its own directory)
        path = Path(baseline)
        baseline = path.relative_to(root).as_posix() if path.is_relative_to(root) else baseline
    return settings_provenance(
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


def _targets(outputs: Outputs) -> dict[str, TargetFingerprintDict]:
    """Each target's fingerprint: taken at the start where recordings are held to it, here
    otherwise; one that fails to be taken is left out."""
    targets = {}
    for name in outputs.calls:
        try:
            made = outputs.made_under(name)
        except Exception:  # noqa: BLE001 - a fingerprint that fails is none recorded
            continue
        if made is not None:
            targets[name] = target_provenance(made.code, made.files, _json(made.declared))
    return targets


def _shown(root: Path, path: str) -> str:
    """An absolute path as a report names it: from ``root`` (as given, or with its links
    resolved, as a schema's path is) where it lies inside."""
    given = Path(path)
    for base in (root, root.resolve()):
        if given.is_relative_to(base):
            return given.relative_to(base).as_posix()
    return path


def _applying(
    root: Path, settings_files: Mapping[str, str], golden: Mapping[str, str]
) -> dict[str, str]:
    """The folder settings files (from ``root``) that set defaults for a scored case file:
    those in a folder holding one."""
    shown = {_shown(root, p): d for p, d in settings_files.items()}
    return {
        name: digest
        for name, digest in sorted(shown.items())
        if any(_below(name, case) for case in golden)
    }


def _below(settings_file: str, case_file: str) -> bool:
    folder = settings_file.rpartition("/")[0]
    return not folder or case_file.startswith(folder + "/")


def golden_files(
    root: Path, comparisons: Sequence[Comparison], as_read: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The SHA-256 of each golden case file (from ``root``) the ``comparisons`` were made of:
    of its bytes as read (``as_read``, absolute path -> SHA-256), else read now; one gone
    since (an update run may remove nothing, but a user may) is left out."""
    known = as_read or {}
    out: dict[str, str] = {}
    # a file read by this session is found by its text, as CaseFiles wrote it (a Path per
    # case file cost as much as the rest of the session's end); the Path, where it is not
    under = os.path.join(str(root), "")
    for name in sorted({c.file for c in comparisons if c.file.endswith(GOLDEN_SUFFIXES)}):
        digest = known.get(under + name.replace("/", os.sep))
        if digest is not None:
            out[name] = digest
            continue
        path = root / name
        if str(path) in known:
            out[name] = known[str(path)]
            continue
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
