"""Accepting an update review (``jsonmatch accept``): writing exactly the edits a reviewer
names, every one, whole cases or single fields, with the byte-preserving edit of today's
updates (updates.py, yaml_edit.py), into the case files the review was made of.

The review file is read only where a review run writes it,
``ROOT/.jsonmatch/update-review.json``: the test root is the folder that holds ``.jsonmatch``,
never a path the file names, so a review named elsewhere (``review.json``), a ``.jsonmatch``
that resolves out of the root, or a review file or page that is a link, a folder or a FIFO
is refused before anything is read or written. The file is read as every file the project
reads is (a regular file of at most MAX_FILE_BYTES, checked before it is read), and its
shape checked whole: each case file it lists is a ``.yaml`` path under the root (an
absolute one, one with ``..`` in either spelling, a drive, or a file listed twice is
refused), each case once, with an id a case file can give, its fields exactly where its old
and new values differ (the page shows the fields; an accept writes the values). Before
anything is written, each case file accepted into must resolve inside the root, be a
regular file whose bytes are those the review digested, and hold the case with the review's
old value (none when it had none), so that what the review shows is what changes. What is
accepted leaves the review; what is left stays for a later accept (its files' digests those
of the bytes just written), and a review with nothing left is removed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.core.depth import call_with_depth
from ..engine.core.errors import CaseFileError, ConfigError, did_you_mean, printable
from ..engine.core.values import json_equal
from ..engine.reading.user_files import read_regular
from .review_file import NOTHING, case_changes, read_review, review_root
from .update_fields import ABSENT, partial, path_of
from .update_review import FOLDER, REVIEW_JSON, REVIEW_MD, save_review
from .updates import CaseUpdate, apply_updates

_LISTED = 20  # names a refusal lists of what the review holds; the rest counted


@dataclass
class _Chosen:
    """What is accepted of one case: all of it, or the fields named (their paths)."""

    file: dict[str, object]
    case: dict[str, object]
    whole: bool = False
    paths: set[str] = field(default_factory=set)


def accept(
    review: Path, *, every: bool, cases: Sequence[str], fields: Sequence[str], shown: str
) -> list[str]:
    """Write what is accepted of the review at ``review`` (``shown``: the path as messages
    show it): ``every`` edit, or the ``cases`` and ``fields`` (``ID:PATH``) named. Returns
    what was written and what is left, as lines to print."""
    shown = printable(shown, keep="")
    root = review_root(review, shown)
    document, depth = read_review(root / FOLDER / REVIEW_JSON, shown)
    # (the review's values nest as deeply as the door lets a case's: room to walk them)
    return call_with_depth(depth, _accepted, document, root, every, cases, fields, shown)


def _accepted(
    document: dict[str, object],
    root: Path,
    every: bool,
    cases: Sequence[str],
    fields: Sequence[str],
    shown: str,
) -> list[str]:
    chosen = _choose(document, every, cases, fields, shown)
    updates = [_update(one, root) for one in chosen]
    _as_reviewed(chosen, updates, root, shown)
    written: dict[str, str] = {}
    done, errors = apply_updates(updates, since=f"the review {shown} was made", written=written)
    said = [_what(one) for one in chosen]  # (before _left takes them out of the review)
    _left(document, chosen, written, root)
    if errors:
        raise CaseFileError("; ".join(errors) + (f" (written: {', '.join(done)})" if done else ""))
    return _said(said, document, shown, every)


# -- what is accepted --------------------------------------------------------------------------


def _choose(
    document: Mapping[str, object],
    every: bool,
    cases: Sequence[str],
    fields: Sequence[str],
    shown: str,
) -> list[_Chosen]:
    """The cases accepted, in the review's order; a name that matches nothing (or a case
    id two files share) is a ConfigError listing what the review holds. ``every`` takes
    each case but the fields an xfail holds (marked ``xfail``): those are written only
    when named, the case or the field."""
    entries = [
        _Chosen(file, case, whole=every)
        for file in document["files"]  # type: ignore[attr-defined]
        for case in file["cases"]
    ]
    for one in entries:
        held = held_paths(one.case)
        if every and held:
            one.whole, one.paths = False, set(_paths(one)) - held
    for name in cases:
        matched = [one for one in entries if name in _names(one)]
        _one_match(name, matched, lambda: [_names(one)[0] for one in entries], shown)
        matched[0].whole = True
    for name in fields:
        hits = [
            (one, path)
            for one in entries
            for case_name in _names(one)
            if name.startswith(case_name + ":")
            and (path := name[len(case_name) + 1 :]) in _paths(one)
        ]
        _one_match(
            name,
            [one for one, _ in hits],
            lambda: [f"{_names(one)[0]}:{path}" for one in entries for path in _paths(one)],
            shown,
            "field",
        )
        hits[0][0].paths.add(hits[0][1])
    return [one for one in entries if one.whole or one.paths]


def _one_match(
    name: str,
    matched: list[_Chosen],
    names: Callable[[], list[str]],
    shown: str,
    what: str = "case",
) -> None:
    """``matched`` is one case; else a ConfigError listing what the review holds (``names``,
    listed only then: a field's are recomputed from each case's values)."""
    if not matched:
        known = names()
        listed = ", ".join(map(repr, known[:_LISTED])) or "nothing"
        more = f" and {len(known) - _LISTED:,} more" if len(known) > _LISTED else ""
        raise ConfigError(
            f"--{what} {name!r}: no such {what} in the update review {shown}"
            f"{did_you_mean(name, known)}; it holds: {listed}{more}"
        )
    if len({id(one) for one in matched}) > 1:
        raise ConfigError(
            f"--{what} {name!r}: cases of {len(matched)} files match it in the update review "
            f"{shown}; name one as FILE::ID ({', '.join(repr(_names(m)[1]) for m in matched)})"
        )


def _names(one: _Chosen) -> tuple[str, str]:
    """A case's names on the command line: its id, and ``FILE::ID``."""
    return str(one.case["id"]), f"{one.file['path']}::{one.case['id']}"


def _paths(one: _Chosen) -> list[str]:
    return [path_of(at) for at, _, _ in case_changes(one.case)]


def held_paths(case: Mapping[str, object]) -> set[str]:
    """The paths of a case's fields an xfail holds (the review marks them ``xfail: true``)."""
    fields = case.get("fields")
    return {
        str(f.get("path"))
        for f in (fields if isinstance(fields, list) else ())
        if isinstance(f, dict) and f.get("xfail") is True
    }


# -- writing -----------------------------------------------------------------------------------


def _update(one: _Chosen, root: Path) -> CaseUpdate:
    """The case update that writes what is accepted of ``one``."""
    case = one.case
    taken = [c for c in case_changes(case) if path_of(c[0]) in one.paths]
    whole = one.whole or len(taken) == len(case_changes(case))
    return CaseUpdate(
        path=str(root / str(one.file["path"])),
        display=str(one.file["path"]),
        case_id=str(case["id"]),
        line=int(str(case["line"])),
        value=case["new"] if whole else partial(case.get("old"), case["new"], taken),
        default_id=str(case["default_id"]),
        sha256=str(one.file["sha256"]),
        root=str(root),
        key=str(case.get("key", "expected")),  # (review_file.py checked it)
    )


def _as_reviewed(
    chosen: Sequence[_Chosen], updates: Sequence[CaseUpdate], root: Path, shown: str
) -> None:
    """Every case file accepted into, checked before any is written: it resolves inside the
    root (a symlinked file or folder may not lead out), it is a regular file (a FIFO or a
    folder is refused without being read; its size bounded as every file the project reads),
    no two of the review's files are one, its bytes are those the review digested, and it
    holds each case accepted with the review's old value: the values a field accept keeps
    are written as the review says they were, and a whole case changes only the fields the
    review shows."""
    from ..engine.reading.safe_yaml import decode_text, parse_yaml
    from ..engine.reading.user_files import resolved

    read: dict[str, object] = {}  # a case file's path -> its value
    named: dict[Path, str] = {}  # a real path -> the case file the review names there
    for one, update in zip(chosen, updates, strict=True):
        if update.path not in read:
            try:
                real = resolved(Path(update.path))
            except OSError as exc:  # (a symlink loop)
                raise CaseFileError(
                    f"{update.display}: cannot resolve it ({exc}): {NOTHING}"
                ) from None
            if not real.is_relative_to(root):
                raise CaseFileError(
                    f"{update.display}: resolves to {real}, outside the test root {root} (a "
                    f"symlinked file or folder?): {NOTHING}; the plugin writes only inside the "
                    f"root"
                )
            if real in named:
                raise CaseFileError(
                    f"{update.display}: the update review {shown} names this case file twice "
                    f"(as {named[real]!r} too): {NOTHING}; make the review again"
                )
            named[real] = update.display
            raw = read_regular(update.path, "the case file", CaseFileError, shown=update.display)
            if hashlib.sha256(raw).hexdigest() != update.sha256:
                raise CaseFileError(
                    f"{update.display}: changed since the update review {shown} was made: "
                    f"{NOTHING}; make the review again (pytest --jsonmatch-update=...,review)"
                )
            read[update.path] = parse_yaml(decode_text(raw, update.display), update.display)[0]
        _old_value_is_the_files(one, update, read[update.path])


def _old_value_is_the_files(one: _Chosen, update: CaseUpdate, data: object) -> None:
    """The case's expected value in its file (``data``) is the review's old value, or the
    case has none where the review says it had none."""
    cases = data.get("cases") if isinstance(data, dict) else None
    found = (
        [c for c in cases if isinstance(c, dict) and str(c.get("id")) == update.case_id]
        if isinstance(cases, list)
        else [data]
    )
    key = update.key  # (its expected value, or a conversation's turns)
    expected = found[0].get(key, ABSENT) if found and isinstance(found[0], dict) else ABSENT
    old = one.case.get("old", ABSENT)
    if not found:
        problem = "it holds no such case"
    elif expected is ABSENT:  # (an agent's case without one is reviewed with the old None)
        problem = "" if old is ABSENT or old is None else "the file's case has no expected value"
    else:
        problem = (
            ""
            if old is not ABSENT and json_equal(expected, old)
            else "the review's old value is not the file's"
        )
    if problem:
        raise CaseFileError(
            f"{update.display}: case {update.case_id!r}: {problem} (was the review edited?): "
            f"{NOTHING}; make the review again"
        )


def _left(
    document: dict[str, object], chosen: list[_Chosen], written: dict[str, str], root: Path
) -> None:
    """The review without what was written (a case's fields accepted: its old value now
    holds them), saved again; removed when nothing is left."""
    for one in chosen:
        path = str(root / str(one.file["path"]))
        if path not in written:
            continue
        one.file["sha256"] = written[path]
        cases = one.file["cases"]
        assert isinstance(cases, list)
        taken = [c for c in case_changes(one.case) if path_of(c[0]) in one.paths]
        if one.whole or len(taken) == len(case_changes(one.case)):
            cases.remove(one.case)
            continue
        one.case["old"] = partial(one.case.get("old"), one.case["new"], taken)
        fields = one.case.get("fields")
        one.case["fields"] = (
            [f for f in fields if isinstance(f, dict) and f.get("path") not in one.paths]
            if isinstance(fields, list)
            else []
        )
        if not held_paths(one.case):  # the fields an xfail held are written: no mark left
            one.case.pop("xfail", None)
    files = document["files"]
    assert isinstance(files, list)
    files[:] = [file for file in files if file["cases"]]
    folder = root / ".jsonmatch"
    if files:
        save_review(document, root)
    else:
        for name in (REVIEW_JSON, REVIEW_MD):
            (folder / name).unlink(missing_ok=True)


def _what(one: _Chosen) -> tuple[str, int]:
    """What is accepted of a case, as said: its line, and how many fields."""
    count = len(case_changes(one.case)) if one.whole else len(one.paths)
    what = "every field" if one.whole else ", ".join(sorted(one.paths))
    return f"  {one.file['path']}:{one.case['line']} {one.case['id']}: {what}", count


def _said(
    said: list[tuple[str, int]], document: Mapping[str, object], shown: str, every: bool
) -> list[str]:
    from ..reporting.render.tables import escape_controls

    files = document["files"]
    left = sum(len(file["cases"]) for file in files) if isinstance(files, list) else 0
    tail = (
        f"the review {shown} holds {left} more case{'' if left == 1 else 's'}"
        if left
        else f"nothing is left to review: {shown} and its Markdown removed"
    )
    cases, fields = len(said), sum(count for _, count in said)
    head = f"accepted {fields} field{'' if fields == 1 else 's'} of {cases} case{'' if cases == 1 else 's'}:"
    held = [
        f"  {file['path']}:{case['line']} {case['id']}: {case.get('xfail') or 'xfail'}: "
        f"{', '.join(sorted(paths))}"
        for file in (files if isinstance(files, list) else ())
        for case in file["cases"]
        if (paths := held_paths(case))
    ]
    if every and held:
        tail += (
            f"; --all left {len(held)} xfail case{'' if len(held) == 1 else 's'} (an update "
            f"never writes what an xfail expects to fail; name one to write it: --case ID or "
            f"--field ID:PATH):"
        )
    lines = [head, *(line for line, _ in said), tail, *(held if every else ())]
    return [escape_controls(line) for line in lines]
