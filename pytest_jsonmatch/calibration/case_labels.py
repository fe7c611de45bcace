"""A golden case's own fields labelled by a person (the case key ``judge_labels``), joined to
a labels file's items: :func:`case_labels`, :func:`joined`.

A team reviewing a failing judged field writes the verdict into the case itself::

    id: order-12
    input: {order: 12}
    expected: {summary: two boxes, ships Monday, items: [{note: fragile}]}
    judge_labels: {summary: same, "items[0].note": different}

Each labelled field is one pair: the case's expected value at the path (the reference) and
the output the case is scored on at the same path (the produced value): its ``actual``, its
``actual_file``, or, for an ``input`` case, its recording (``__recordings__``, run 1: the
output the person reviewed; a live output would be another text than the one labelled).
The pairs are read from the case files and their recordings, not from a run's live
outputs, so that a label always pairs with the text the person saw.

The labels' digest then covers both: the labels file's digest and the case labels' items
(id, field, reference, produced, verdict, in the order of their ids) hashed together, so
that a relabelled case, or a re-recorded output under a label, makes a stored calibration
out of date as a changed labels file does. Without case labels it is the file's digest.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import cast

from ..cases.case_files import CaseFiles, GoldenCase
from ..cases.judge_labels import absent, quoted, value_at
from ..engine.core.errors import CaseFileError, ConfigError, JsonMatchError
from ..engine.core.values import JsonValue
from ..engine.judge.prompt import field_path
from ..engine.reading.user_files import read_regular
from .labels import Label, Labels, not_json

KEY = b"judge_labels"  # a case file without these bytes labels nothing: not parsed


def case_labels(folders: Sequence[Path], root: Path) -> list[Label]:
    """The labels of every case under ``folders`` (golden folders: each ``.yaml`` file in
    them is a case file, and a ``*.jsonmatch.yaml`` file anywhere) that gives
    ``judge_labels``, in the order of their ids. ``root``: the test root, which case files'
    paths, ``actual_file`` and recordings are held inside. A case file that cannot be read,
    or a label whose output has no such field, is a CaseFileError naming the file, the case
    and the field."""
    for folder in folders:
        if not folder.is_dir():
            raise CaseFileError(f"judge labels: no folder of golden cases {str(folder)!r}")
    folders = [Path(os.path.abspath(folder)) for folder in folders]  # (relative: from here)
    files = CaseFiles(root=root, golden_dirs=tuple(folders))
    out: list[Label] = []
    for path in _case_files(folders, files):
        if KEY not in read_regular(path, "case file", CaseFileError, shown=files.display(path)):
            continue
        for case in files.load(path):
            out.extend(_labels_of(case, files.display(path), root))
    return sorted(out, key=lambda label: label.id)


def _case_files(folders: Sequence[Path], files: CaseFiles) -> Iterator[Path]:
    """The case files under ``folders``, each once, in a stable order (a recordings folder
    and symbolic links to folders are not entered, as pytest does not)."""
    seen: set[Path] = set()
    for folder in folders:
        for top, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__recordings__")
            for name in sorted(names):
                path = Path(top) / name
                if files.is_case_file(path) and path not in seen:
                    seen.add(path)
                    yield path


def _labels_of(case: GoldenCase, shown: str, root: Path) -> list[Label]:
    """``case``'s labelled fields as labels (none: it labels nothing)."""
    if not case.judge_labels:
        return []
    where = f"{shown}:{case.line}: case {case.id!r}: judge_labels"
    produced = _produced(case, where, root)
    out = []
    for path, same in case.judge_labels.items():
        value = value_at(produced, path)
        if absent(value):
            raise CaseFileError(
                f"{where} {quoted(path)}: the case's output has no such field (a missing "
                f"field is never the judge's to decide)"
            )
        reference = cast(JsonValue, value_at(case.expected, path))
        for side, held in (("expected value", reference), ("output", value)):
            number = not_json(held)
            if number:
                raise CaseFileError(f"{where} {quoted(path)}: the case's {side} {number}")
        ident = f"{shown}::{case.id}::{path}"
        out.append(Label(ident, field_path(path), reference, cast(JsonValue, value), same))
    return out


def _produced(case: GoldenCase, where: str, root: Path) -> object:
    """The output ``case`` is scored on, read as its comparison reads it (text leniently):
    its ``actual``, its ``actual_file``, or its recording (run 1, the unnamed target's)."""
    from ..engine.reading.parse import parse_actual

    output: object = case.actual
    if case.source == "actual_file":
        from ..engine.reading.user_files import read_regular_text

        assert case.actual_file is not None
        output = read_regular_text(case.actual_file, "actual_file", CaseFileError)
    elif case.source == "input":
        output = _recorded(case, where, root)
    try:
        return parse_actual(output, allow_array=True, truncated="close")
    except JsonMatchError as exc:
        raise CaseFileError(f"{where}: the case's output cannot be read ({exc})") from None


def _recorded(case: GoldenCase, where: str, root: Path) -> object:
    """The recorded output of an ``input`` case's first run: the one the person reviewed."""
    from ..calls.recordings import inside_root, read_recording, recording_path

    for runs in (1, 2):  # ``<id>.json``, or ``<id>@1.json`` for a repeated case
        path = inside_root(recording_path(case.path, case.id, 1, runs), root)
        recording = read_recording(path)
        if recording is not None:
            return recording.output
    raise CaseFileError(
        f"{where}: no recorded output to label (an input case's labels pair with its "
        f"recording: record it with --jsonmatch-record=once)"
    )


def joined(labels: Labels, cases: Sequence[Label]) -> Labels:
    """``labels`` with ``cases`` (:func:`case_labels`) after its items, under the digest of
    both (:func:`joined_digest`). An id given twice across the two (a labels file's item
    that takes a case label's id) is a ConfigError naming it: each label is counted once,
    and one with two verdicts is no label."""
    seen = {label.id: n for n, label in enumerate(labels.items, 1)}
    for label in cases:
        n = seen.get(label.id)
        if n is not None:
            raise ConfigError(
                f"labels file {str(labels.path)!r}: item {n} has the id {quoted(label.id)} "
                f"of a field labelled in its case (judge_labels): each item's id is its own"
                if n
                else f"judge labels: two labelled fields of the cases have the id "
                f"{quoted(label.id)} (a case id or a path holding '::'): each item's id "
                f"is its own"
            )
        seen[label.id] = 0
    return replace(
        labels, digest=joined_digest(labels.digest, cases), items=(*labels.items, *cases)
    )


def joined_digest(file_digest: str, cases: Sequence[Label]) -> str:
    """The digest of a labels file (``file_digest``) and case labels together; the file's
    own where there are none."""
    if not cases:
        return file_digest
    items = [
        [c.id, c.field, c.reference, c.produced, c.human_same]
        for c in sorted(cases, key=lambda c: c.id)
    ]
    text = json.dumps(
        {"labels": file_digest, "cases": items},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
