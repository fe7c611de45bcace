"""Accepting an update review (``jsonmatch accept``): writing exactly the edits a reviewer
names, every one, whole cases or single fields, with the byte-preserving edit of today's
updates (updates.py, yaml_edit.py), into the case files the review was made of.

The review file is read where a review run wrote it, ``ROOT/.jsonmatch/update-review.json``:
the test root is the folder that holds ``.jsonmatch``, not a path the file names, and each
case file it lists is a path under that root (an absolute one, or one with ``..``, is
refused), so a review file from elsewhere cannot aim a write outside the root. A case file
whose bytes are not those the review digested is refused before anything is written. What
is accepted leaves the review; what is left stays for a later accept (its files' digests
those of the bytes just written), and a review with nothing left is removed.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..engine.core.errors import CaseFileError, ConfigError, did_you_mean
from ..engine.core.values import json_equal
from .update_review import ABSENT, REVIEW_JSON, REVIEW_MD, Change, changes, path_of, save_review
from .updates import CaseUpdate, apply_updates

_DIGEST = re.compile(r"[0-9a-f]{64}")


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
    document = read_review(review, shown)
    root = review.absolute().parent.parent
    chosen = _choose(document, every, cases, fields, shown)
    updates = [_update(one, root) for one in chosen]
    _unchanged_since_review(updates, shown)
    for one, update in zip(chosen, updates, strict=True):
        if update.value is not one.case["new"]:  # (a part of a case: its old value is kept)
            _old_value_is_the_files(one, update)
    written: dict[str, str] = {}
    done, errors = apply_updates(updates, since=f"the review {shown} was made", written=written)
    said = [_what(one) for one in chosen]  # (before _left takes them out of the review)
    _left(document, chosen, written, root)
    if errors:
        raise CaseFileError("; ".join(errors) + (f" (written: {', '.join(done)})" if done else ""))
    return _said(said, document, shown)


# -- reading the review ------------------------------------------------------------------------


def read_review(path: Path, shown: str) -> dict[str, object]:
    """The review file, checked: a CaseFileError naming it when it is missing or not a
    review this version writes."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CaseFileError(
            f"{shown}: no update review there; make one with "
            f"pytest --jsonmatch-update=fix,review (or create, all)"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CaseFileError(f"{shown}: cannot read the update review ({exc})") from None
    problem = _problem(document)
    if problem:
        raise CaseFileError(f"{shown}: not an update review jsonmatch can read ({problem})")
    assert isinstance(document, dict)
    return document


def _problem(document: object) -> str:
    """What is wrong with a review's shape ('' when nothing is)."""
    if not isinstance(document, dict) or document.get("jsonmatch") != "update-review":
        return "no 'jsonmatch: update-review' key"
    if document.get("format") != 1:
        return f"format {document.get('format')!r}, not 1"
    files = document.get("files")
    if not isinstance(files, list):
        return "'files' is not a list"
    for file in files:
        if not isinstance(file, dict) or not isinstance(file.get("path"), str):
            return "a file without a path"
        where = PurePosixPath(file["path"])
        if where.is_absolute() or ".." in where.parts or not where.parts:
            return f"the case file {file['path']!r} is not a path under the test root"
        if not _DIGEST.fullmatch(str(file.get("sha256"))):
            return f"the case file {file['path']!r} has no SHA-256 digest"
        cases = file.get("cases")
        if not isinstance(cases, list) or not all(_a_case(case) for case in cases):
            return f"a case of {file['path']!r} without id, line, default_id or new"
    return ""


def _a_case(case: object) -> bool:
    return (
        isinstance(case, dict)
        and isinstance(case.get("id"), str)
        and isinstance(case.get("default_id"), str)
        and isinstance(case.get("line"), int)
        and "new" in case
    )


# -- what is accepted --------------------------------------------------------------------------


def _choose(
    document: Mapping[str, object],
    every: bool,
    cases: Sequence[str],
    fields: Sequence[str],
    shown: str,
) -> list[_Chosen]:
    """The cases accepted, in the review's order; a name that matches nothing (or a case
    id two files share) is a ConfigError listing what the review holds."""
    entries = [
        _Chosen(file, case, whole=every)
        for file in document["files"]  # type: ignore[attr-defined]
        for case in file["cases"]
    ]
    for name in cases:
        matched = [one for one in entries if name in _names(one)]
        _one_match(name, matched, [n for one in entries for n in _names(one)[:1]], shown)
        matched[0].whole = True
    for name in fields:
        hits = [
            (one, path)
            for one in entries
            for case_name in _names(one)
            if name.startswith(case_name + ":")
            and (path := name[len(case_name) + 1 :]) in _paths(one)
        ]
        known = [f"{_names(one)[0]}:{path}" for one in entries for path in _paths(one)]
        _one_match(name, [one for one, _ in hits], known, shown, "field")
        hits[0][0].paths.add(hits[0][1])
    return [one for one in entries if one.whole or one.paths]


def _one_match(
    name: str, matched: list[_Chosen], known: list[str], shown: str, what: str = "case"
) -> None:
    if not matched:
        raise ConfigError(
            f"--{what} {name!r}: no such {what} in the update review {shown}"
            f"{did_you_mean(name, known)}; it holds: {', '.join(map(repr, known)) or 'nothing'}"
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
    return [path_of(at) for at, _, _ in _changes(one.case)]


def _changes(case: Mapping[str, object]) -> list[Change]:
    """A case's field changes, recomputed from its old and new values (not read from the
    file's field list, so that they cannot disagree with the values written)."""
    return changes(case.get("old", ABSENT), case["new"])


# -- writing -----------------------------------------------------------------------------------


def _update(one: _Chosen, root: Path) -> CaseUpdate:
    """The case update that writes what is accepted of ``one``."""
    case = one.case
    taken = [c for c in _changes(case) if path_of(c[0]) in one.paths]
    whole = one.whole or len(taken) == len(_changes(case))
    return CaseUpdate(
        path=str(root / str(one.file["path"])),
        display=str(one.file["path"]),
        case_id=str(case["id"]),
        line=int(str(case["line"])),
        value=case["new"] if whole else _partial(case.get("old"), case["new"], taken),
        default_id=str(case["default_id"]),
        sha256=str(one.file["sha256"]),
        root=str(root),
    )


def _partial(old: object, new: object, taken: list[Change]) -> object:
    """``old`` with the ``taken`` changes made (a key added where it stands in ``new``)."""
    value = copy.deepcopy(old)
    for at, _, now in taken:
        parent, model = value, new
        for step in at[:-1]:
            parent, model = parent[step], model[step]  # type: ignore[index]
        last = at[-1]
        if now is ABSENT:
            del parent[last]  # type: ignore[attr-defined]
        elif isinstance(parent, dict) and last not in parent and isinstance(model, dict):
            keys = list(model)
            before = [k for k in keys[: keys.index(last)] if k in parent]
            items = list(parent.items())
            at_index = 1 + [k for k, _ in items].index(before[-1]) if before else 0
            items.insert(at_index, (last, now))
            parent.clear()
            parent.update(items)
        else:
            parent[last] = now  # type: ignore[index]
    return value


def _unchanged_since_review(updates: list[CaseUpdate], shown: str) -> None:
    """Every case file still the bytes the review digested, checked before any is written."""
    for update in updates:
        try:
            digest = hashlib.sha256(Path(update.path).read_bytes()).hexdigest()
        except OSError as exc:
            raise CaseFileError(
                f"{update.display}: cannot read it ({exc.strerror or exc})"
            ) from None
        if digest != update.sha256:
            raise CaseFileError(
                f"{update.display}: changed since the update review {shown} was made: "
                f"nothing accepted; make the review again (pytest --jsonmatch-update=...,review)"
            )


def _old_value_is_the_files(one: _Chosen, update: CaseUpdate) -> None:
    """The case's expected value in its file is the review's old value: the values a field
    accept keeps are written as the review says they were."""
    from ..engine.reading.safe_yaml import parse_yaml, read_text

    data, _ = parse_yaml(read_text(Path(update.path), update.display), update.display)
    cases = data.get("cases") if isinstance(data, dict) else None
    found = (
        [c for c in cases if isinstance(c, dict) and str(c.get("id")) == update.case_id]
        if isinstance(cases, list)
        else [data]
    )
    expected = found[0].get("expected", ABSENT) if found and isinstance(found[0], dict) else ABSENT
    old = one.case.get("old", ABSENT)
    if expected is ABSENT or old is ABSENT or not json_equal(expected, old):
        raise CaseFileError(
            f"{update.display}: case {update.case_id!r}: the review's old value is not the "
            f"file's (was the review edited?): nothing accepted; make the review again"
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
        taken = [c for c in _changes(one.case) if path_of(c[0]) in one.paths]
        if one.whole or len(taken) == len(_changes(one.case)):
            cases.remove(one.case)
            continue
        one.case["old"] = _partial(one.case.get("old"), one.case["new"], taken)
        fields = one.case.get("fields")
        one.case["fields"] = (
            [f for f in fields if isinstance(f, dict) and f.get("path") not in one.paths]
            if isinstance(fields, list)
            else []
        )
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
    count = len(_changes(one.case)) if one.whole else len(one.paths)
    what = "every field" if one.whole else ", ".join(sorted(one.paths))
    return f"  {one.file['path']}:{one.case['line']} {one.case['id']}: {what}", count


def _said(said: list[tuple[str, int]], document: Mapping[str, object], shown: str) -> list[str]:
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
    return [escape_controls(line) for line in [head, *(line for line, _ in said), tail]]
