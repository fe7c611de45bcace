"""The session's calibration of its judge (the ``jsonmatch_judge`` keys ``labels=`` and
``calibration=``, calls/judge_calls.py): measured in the run or read from its file, once, in
the controller (never in an xdist worker), and summed up for ``run.provenance.calibration``,
which the gates of reporting/verdicts/calibration_gates.py hold the run to.

Which wins: with ``labels=PATH`` the judge is measured in the run against those labels (its
verdicts recorded and replayed as the run's judgments are, under ``jsonmatch_record``), and
the gates hold that measure; a ``calibration=PATH`` given beside it is where the measure is
written. With ``calibration=PATH`` alone, the stored file is read: one that is not there
fails the judge_* gates, saying so; one that cannot be read is a ConfigError naming it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..calibration.calibration_file import Calibration, Estimate
    from ..calls.fingerprints import RecordSettings
    from ..calls.judge_calls import JudgeCalls, JudgeSetup
    from ..reporting.run_model.report_types import (
        CalibrationFigureDict,
        CalibrationSummaryDict,
    )

IN_THE_RUN = "in the run"
STORED = "stored"


def _figure(estimate: Estimate) -> CalibrationFigureDict:
    return {"value": estimate.value, "low": estimate.low, "high": estimate.high}


def calibration_summary(cal: Calibration, file: str, made: str) -> CalibrationSummaryDict:
    """What a report records of a calibration (``file``: where it is kept, from the root
    dir, empty where nowhere; ``made``: stored or in the run)."""
    overall = cal.overall
    return {
        "file": file,
        "made": made,
        "judge": {
            "model": cal.judge.model,
            "fingerprint": cal.judge.fingerprint,
            "max_tokens": cal.judge.max_tokens,
        },
        "labels_path": cal.labels_path,
        "labels_digest": cal.labels_digest,
        "labels": cal.labels,
        "same": cal.same,
        "different": cal.different,
        "min_labels": cal.min_labels,
        "too_small": cal.too_small(),
        "agreement": _figure(overall.agreement),
        "kappa": _figure(overall.kappa),
        "ac1": _figure(overall.ac1),
        "false_accept_rate": _figure(overall.false_accept_rate),
        "position": _figure(cal.position.share) if cal.position is not None else None,
        "requests": cal.requests,
    }


class JudgedSettings(Protocol):
    """What :func:`session_calibration` reads of the session's settings (plugin's Settings)."""

    @property
    def given_judge(self) -> JudgeSetup | None: ...
    @property
    def rootpath(self) -> Path: ...
    @property
    def given_record(self) -> RecordSettings | None: ...
    @property
    def golden(self) -> tuple[Path, ...]: ...  # jsonmatch_golden's folders (their judge_labels)


def session_calibration(
    settings: JudgedSettings, calls: JudgeCalls | None = None
) -> CalibrationSummaryDict | None:
    """The session's calibration of its judge, summed up (None: no calibration key given).
    ``calls``: the session's judge runner, which a measure made in the run asks through (its
    verdicts remembered and recorded with the run's judgments). A stored file that cannot
    be read is a ConfigError naming it."""
    setup, root = settings.given_judge, settings.rootpath
    given = setup.calibration if setup is not None else None
    if setup is None or given is None:
        return None
    from ..calls.recordings import inside_root

    for key, name in (("labels", given.labels), ("calibration", given.stored)):
        if name:  # an ini from a pull request reads and writes only inside the root
            inside_root(root / name, root, f"jsonmatch_judge's {key}= file")
    if given.labels:
        cal = _measure(settings, setup, calls)
        if given.stored:
            from ..calibration.calibration_file import write_calibration

            write_calibration(root / given.stored, cal)
        made = calibration_summary(cal, given.stored, IN_THE_RUN)
        made["labels_path"] = given.labels  # as the setting gives it, from the root dir
        return made
    path = root / given.stored
    if not path.exists():
        return {
            "file": given.stored,
            "made": STORED,
            "missing": f"no calibration file {given.stored!r} (`jsonmatch calibrate` writes it)",
        }
    from ..calibration.calibration_file import read_calibration

    cal = read_calibration(path, root)  # its labels_path and case_folders held inside the root
    summary = calibration_summary(cal, given.stored, STORED)
    stale = _labels_changed(cal, root)
    if stale:
        summary["stale"] = stale
    return summary


def _labels_changed(cal: Calibration, root: Path) -> str:
    """Why a stored calibration no longer measures its labels (its digest now differs from
    the one recorded: labels added, removed or relabelled since, in the labels file or in
    the ``judge_labels`` of the case folders it joined), or empty: they are as measured, or
    the file is no longer there to compare (moved: the calibration still names it)."""
    import hashlib

    from ..calibration.case_labels import case_labels, joined_digest
    from ..calibration.labels import MAX_LABELS_BYTES
    from ..engine.core.errors import ConfigError
    from ..engine.reading.user_files import read_regular

    labels = Path(cal.labels_path)
    labels = labels if labels.is_absolute() else root / labels
    if not labels.is_file():
        return ""
    raw = read_regular(labels, "labels file", ConfigError, MAX_LABELS_BYTES)
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    if cal.case_folders:
        digest = joined_digest(digest, case_labels([root / f for f in cal.case_folders], root))
    if digest == cal.labels_digest:
        return ""
    if cal.case_folders:
        folders = ", ".join(map(repr, cal.case_folders))
        return (
            f"its labels file {cal.labels_path!r} or the judge_labels of {folders} changed "
            f"since it was made"
        )
    return f"its labels file {cal.labels_path!r} changed since it was made"


def _measure(settings: JudgedSettings, setup: JudgeSetup, calls: JudgeCalls | None) -> Calibration:
    """The judge measured against ``setup``'s labels now, joined by the ``judge_labels`` of
    the cases in the session's golden folders (calibration/case_labels.py), with the bias
    checks it names (calibration/judge_asking.py does the asking), through the session's
    runner (its retries and rate), its verdicts recorded and replayed under the session's
    record mode (none: asked each run)."""
    from dataclasses import replace

    from ..calibration.case_labels import case_labels, joined
    from ..calibration.judge_asking import Checks, calibrate
    from ..calibration.labels import read_labels

    given = setup.calibration
    assert given is not None
    root = settings.rootpath
    record = settings.given_record.mode if settings.given_record is not None else "off"
    labels = read_labels(root / given.labels)
    cases = case_labels(settings.golden, root) if settings.golden else []
    cal = calibrate(
        joined(labels, cases),
        setup.judge,
        Checks(swap=given.swap, repeat=given.repeat, pad=given.pad),
        record,
        through=calls.through if calls is not None else None,
    )
    if not cases:
        return cal
    return replace(cal, case_folders=tuple(_from_root(f, root) for f in settings.golden))


def _from_root(folder: Path, root: Path) -> str:
    """A golden folder as a calibration keeps it: from the root dir where it lies inside."""
    return folder.relative_to(root).as_posix() if folder.is_relative_to(root) else str(folder)
