"""An update review's file, read and checked whole before ``jsonmatch accept`` acts on it
(review_accept.py): where it may be (``ROOT/.jsonmatch/update-review.json``, the folder
holding ``.jsonmatch`` the test root), how it is read (a regular file of at most
MAX_FILE_BYTES, checked before it is read, at any depth the door takes), and what it may
hold (case files as ``.yaml`` paths under the root, each once; each case once, with an id a
case file can give; its fields exactly where its old and new values differ; its xfail marks,
when it has them, as a review run writes them; no value a case file cannot hold)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath

from ..cases.node_ids import fits_test_id
from ..engine.core.depth import call_with_depth
from ..engine.core.errors import CaseFileError, ParseError
from ..engine.core.errors import shown as shown_value
from ..engine.core.values import json_equal
from ..engine.reading.deep_json import read_whole
from ..engine.reading.user_files import read_regular_text, resolved
from .update_fields import ABSENT, Change, changes, path_of
from .update_review import FOLDER, REVIEW_JSON, review_files_owned, review_folder
from .updates import UPDATE_KINDS, UPDATED_KEYS

_DIGEST = re.compile(r"[0-9a-f]{64}")
_SETTINGS = tuple(f"{kind},review" for kind in UPDATE_KINDS)  # the ``update`` a review names
NOTHING = "nothing accepted"
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # JSON text's escape of a surrogate


def review_root(review: Path, shown: str) -> Path:
    """The test root of the review at ``review``: the folder that holds its ``.jsonmatch``,
    where a review run writes it. A review anywhere else, a ``.jsonmatch`` that resolves out
    of that folder, or a review file or page that is no regular file, is a CaseFileError
    naming the path; nothing is read or written."""
    if "\0" in str(review):
        raise CaseFileError(f"{shown}: no file can have this path (it holds a NUL byte)")
    where = review.absolute()
    if where.name != REVIEW_JSON or where.parent.name != FOLDER:
        raise CaseFileError(
            f"{shown}: an update review is read only where a review run writes it, "
            f"ROOT/{FOLDER}/{REVIEW_JSON} (the test root is the folder that holds {FOLDER}): "
            f"{NOTHING}"
        )
    try:
        root = resolved(where.parent.parent)
    except OSError as exc:  # (a symbolic link's loop)
        raise CaseFileError(f"{shown}: cannot resolve its test root ({exc}): {NOTHING}") from None
    review_files_owned(review_folder(root, NOTHING))
    return root


def read_review(path: Path, shown: str) -> tuple[dict[str, object], int]:
    """The review file, checked, and how deeply it nests: a CaseFileError naming it when it
    is missing, no regular file, larger than the project reads, or not a review this
    version writes."""
    if not os.path.lexists(path):
        raise CaseFileError(
            f"{shown}: no update review there; make one with "
            f"pytest --jsonmatch-update=fix,review (or create, all)"
        )
    text = read_regular_text(
        path, "the update review", CaseFileError, shown=shown, follow_links=False
    )
    try:
        document: object = read_whole(text, shown)
    except ParseError as exc:  # nested past the door's depth, naming where
        raise CaseFileError(str(exc)) from None
    except ValueError as exc:
        raise CaseFileError(f"{shown}: cannot read the update review ({exc})") from None
    depth, problem = _scan(document, surrogates="\\u" in text and bool(_SURROGATE.search(text)))
    problem = problem or call_with_depth(depth, _problem, document)
    if problem:
        raise CaseFileError(f"{shown}: not an update review jsonmatch can read ({problem})")
    assert isinstance(document, dict)
    return document, depth


def _scan(value: object, surrogates: bool) -> tuple[int, str]:
    """How many levels of mappings and lists ``value`` (JSON text's: no part of it shared)
    nests (0: a scalar), and what in it no case file can be given ('' when nothing): a
    number JSON text reads as an infinity (``1e400``); with ``surrogates``, a lone
    surrogate, which UTF-8 cannot encode. A review run writes neither (the door refuses
    the first; the review file, UTF-8, cannot hold the second). A level at a time, without
    recursion."""
    level: list[dict[str, object] | list[object]] = (
        [value] if isinstance(value, (dict, list)) else []
    )
    depth, problem = 0, ""
    while level:
        depth += 1
        inner: list[dict[str, object] | list[object]] = []
        for node in level:
            children: Iterable[object] = node.values() if isinstance(node, dict) else node
            if surrogates and isinstance(node, dict):
                children = [*node, *children]
            for child in children:
                if isinstance(child, (dict, list)):
                    inner.append(child)
                elif isinstance(child, float) and not math.isfinite(child):
                    problem = problem or "a number too large for a float, read as an infinity"
                elif surrogates and isinstance(child, str) and not _encodes(child):
                    problem = problem or (
                        f"a lone surrogate in {shown_value(child)}, which no UTF-8 file can hold"
                    )
        level = inner
    return depth, problem


def _problem(document: object) -> str:
    """What is wrong with a review's shape ('' when nothing is)."""
    if not isinstance(document, dict) or document.get("jsonmatch") != "update-review":
        return "no 'jsonmatch: update-review' key"
    if document.get("format") != 1:
        return f"format {shown_value(document.get('format'))}, not 1"
    if document.get("update") not in _SETTINGS:
        return (
            f"'update' is {shown_value(document.get('update'))}, not one of {', '.join(_SETTINGS)}"
        )
    files = document.get("files")
    if not isinstance(files, list):
        return "'files' is not a list"
    seen: set[str] = set()
    for file in files:
        if not isinstance(file, dict) or not isinstance(file.get("path"), str):
            return "a file without a path"
        name = file["path"]
        problem = _path_problem(name)
        if problem:
            return f"the case file {shown_value(name, 200)} {problem}"
        if PurePosixPath(name).as_posix() in seen:
            return f"the case file {shown_value(name, 200)} is listed twice"
        seen.add(PurePosixPath(name).as_posix())
        if not _DIGEST.fullmatch(str(file.get("sha256"))):
            return f"the case file {shown_value(name, 200)} has no SHA-256 digest"
        cases = file.get("cases")
        if not isinstance(cases, list) or not all(_a_case(case) for case in cases):
            return (
                f"a case of {shown_value(name, 200)} without id, line, default_id or new, "
                f"or with a key other than {' or '.join(UPDATED_KEYS)}"
            )
        twice = _twice(case["id"] for case in cases)
        if twice is not None:
            return f"the case {shown_value(twice)} of {shown_value(name, 200)} is listed twice"
        wrong = next((case["id"] for case in cases if not _fields_shown(case)), None)
        if wrong is not None:
            return (
                f"the fields of case {shown_value(wrong)} of {shown_value(name, 200)} are not "
                f"where its old and new values differ"
            )
        wrong = next((case["id"] for case in cases if not _xfail_marked(case)), None)
        if wrong is not None:
            return (
                f"the xfail of case {shown_value(wrong)} of {shown_value(name, 200)} is not "
                f"what a review run writes (the mark's words on the case, xfail: true on "
                f"each field it holds)"
            )
    return ""


def _xfail_marked(case: Mapping[str, object]) -> bool:
    """Whether a case's xfail marks are as a review run writes them: none (a review of an
    earlier version, or of a case no xfail holds), or the mark's words (text) on the case
    and ``xfail: true`` on each field it holds. ``jsonmatch accept --all`` leaves the
    fields marked."""
    fields = [f for f in case["fields"] if isinstance(f, dict)]  # type: ignore[attr-defined]
    flags = [f["xfail"] for f in fields if "xfail" in f]
    if "xfail" not in case:
        return not flags
    return isinstance(case["xfail"], str) and all(f is True for f in flags)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _fields_shown(case: Mapping[str, object]) -> bool:
    """Whether the fields a case lists (what its page shows) are exactly where its old and
    new values differ, each with those values: an accept writes the values, never the list."""
    listed = case.get("fields")
    if not isinstance(listed, list) or not all(isinstance(f, dict) for f in listed):
        return False
    shown = {str(f.get("path")): (f.get("old", ABSENT), f.get("new", ABSENT)) for f in listed}
    changed = {path_of(at): (was, now) for at, was, now in case_changes(case)}
    return (
        len(listed) == len(shown)
        and shown.keys() == changed.keys()
        and all(
            _same(shown[path][0], was) and _same(shown[path][1], now)
            for path, (was, now) in changed.items()
        )
    )


def _same(one: object, other: object) -> bool:
    return one is other if one is ABSENT or other is ABSENT else json_equal(one, other)


def _twice(ids: Iterable[str]) -> str | None:
    """The first id given twice (None: each once)."""
    seen: set[str] = set()
    for one in ids:
        if one in seen:
            return one
        seen.add(one)
    return None


def _path_problem(name: str) -> str:
    """Why ``name`` is no case file's path from the test root ('' when it is one): read as
    a POSIX path and as a Windows one, it must stay under the root, and name a .yaml file."""
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    if (
        "\0" in name
        or not posix.parts
        or posix.is_absolute()
        or windows.anchor
        or ".." in posix.parts
        or ".." in windows.parts
    ):
        return "is not a path under the test root"
    from ..cases.case_files import DEFAULTS_NAMES  # (here: the command reads no case file's rules)

    if not posix.name.endswith((".yaml", ".yml")) or posix.name in DEFAULTS_NAMES:
        return "is not a case file (a .yaml file of cases)"
    return ""


def _a_case(case: object) -> bool:
    return (
        isinstance(case, dict)
        and isinstance(case.get("id"), str)
        and bool(case["id"].strip())
        and fits_test_id(case["id"])
        and isinstance(case.get("default_id"), str)
        and isinstance(case.get("line"), int)
        and not isinstance(case.get("line"), bool)
        and "new" in case
        and case.get("key", "expected") in UPDATED_KEYS  # (what an accept may write)
    )


def case_changes(case: Mapping[str, object]) -> list[Change]:
    """A case's field changes, recomputed from its old and new values (not read from the
    file's field list, so that they cannot disagree with the values written)."""
    return changes(case.get("old", ABSENT), case["new"])
