"""The review of an update run (``--jsonmatch-update=KIND,review``): what the updates would
write, per case and per field, with the old value, the new value and why it changes, shown
in the terminal and in a Markdown file for a pull request, and kept in a pending-updates file
(JSON) that ``jsonmatch accept`` (review_accept.py) writes from. No case file is written here.

The review lives under the test root, in ``.jsonmatch/``: ``update-review.json`` (the edits,
each case file's SHA-256 digest as the run read it, so that an accept refuses a file changed
since) and ``update-review.md``. A review run always writes both, an empty review included,
so that no older review outlives the run that replaced it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.core.errors import CaseFileError
from .update_fields import ABSENT, Hold, Rows, Selection, Step, answer_rows, changes, path_of
from .updates import CaseUpdate, UpdateMode, apply_updates

if TYPE_CHECKING:
    from ..cases.case_files import GoldenCase
    from ..cases.conversation_updates import TurnsUpdate
    from ..engine.results.field_results import MatchResult

FOLDER = ".jsonmatch"  # under the test root, beside nothing of the user's
REVIEW_JSON = "update-review.json"
REVIEW_MD = "update-review.md"
FORMAT = 1
# -- why it changes ------------------------------------------------------------------------


def case_update(
    case: GoldenCase,
    value: object,
    display: str,
    root: Path,
    results: Sequence[tuple[MatchResult, float]],
    mode: UpdateMode | None,
    hold: Hold | None = None,
    turns: TurnsUpdate | None = None,
) -> CaseUpdate | None:
    """The update that gives ``case`` what the metric counted wrong of the output ``value``
    (``display``: its file as messages show it; ``root``: the test root it must lie in), or
    None when it counted nothing wrong that an update could write: each field the metric
    counted right in the run whose output it takes (``results[0]``) keeps its expected
    value as written (Selection). What ``hold`` (an xfail) covers is not written; a review
    lists it, marked, with the rest. A case without an expected value takes ``value`` whole,
    or, held by any xfail, nothing. In a review run the update carries what the review
    shows: the old expected value, why the case changes, and why each field does. A
    conversation's update (``turns``, cases/conversation_updates.py) writes its turns'
    answers into its ``conversation:`` instead, from their rows at their places there."""
    from ..cases.case_files import NO_EXPECTED

    update = CaseUpdate(
        path=str(case.path),
        display=display,
        case_id=case.id,
        line=case.line,
        value=value,
        default_id=case.default_id,
        sha256=case.file_sha256,
        root=str(root),
    )
    review = mode is not None and mode.review
    old = case.expected
    rows = None
    if turns is not None:
        from ..cases.conversation_updates import KEY, held_as_scored

        update = replace(update, key=KEY, value=turns.new)
        if hold is not None and hold.covers is not None:  # (it names the rows as scored)
            hold = Hold(hold.why, held_as_scored(hold.covers, turns.scored_path))
        old, value, rows = turns.old, turns.new, Rows(turns.rows)
    if old is NO_EXPECTED:
        held = ("$",) if hold is not None else ()
        update = replace(update, xfail="" if hold is None else hold.why, held=held)
        update = replace(update, writes=not held)
        if review:
            return replace(update, old=None, had_expected=False, why="no expected yet")
        return update
    args = (update, old, value, results, mode, hold, rows)
    try:
        return _update_of(*args)
    except RecursionError:  # (rare: measured only then)
        from ..engine.core.depth import call_with_depth, nesting
        from ..engine.reading.intake import MAX_DEPTH

        depth = max(nesting(old, MAX_DEPTH), nesting(value, MAX_DEPTH))
        return call_with_depth(depth, _update_of, *args)


def _update_of(
    update: CaseUpdate,
    old: object,
    value: object,
    results: Sequence[tuple[MatchResult, float]],
    mode: UpdateMode | None,
    hold: Hold | None,
    given: Rows | None = None,
) -> CaseUpdate | None:
    rows = given or Rows(answer_rows(results[0][0]) if results else ())
    review = mode is not None and mode.review
    chosen = Selection(rows, hold, take_held=review)
    new = chosen.of(old, value)
    note = hold.why if chosen.held and hold is not None else ""
    if not review or mode is None:
        if not chosen.held and not chosen.writes:
            return None
        held = tuple(path_of(at) for at in chosen.held)
        return replace(update, value=new, xfail=note, held=held, writes=chosen.writes)
    shown = changes(old, new)
    if not shown:
        return None
    return replace(
        update,
        value=new,
        old=old,
        why=_case_why(results, mode),
        field_whys={path_of(at): _field_why(at, was, now, rows) for at, was, now in shown},
        xfail=note,
        held=tuple(path_of(at) for at, _, _ in shown if _within(at, chosen.held)),
        writes=chosen.writes,
    )


def _within(at: tuple[Step, ...], held: Sequence[tuple[Step, ...]]) -> bool:
    """Whether a field of the review at ``at`` holds, or lies in, a part an xfail held."""
    return any(at[: len(part)] == part or part[: len(at)] == at for part in held)


def _case_why(results: Sequence[tuple[MatchResult, float]], mode: UpdateMode) -> str:
    if not results:  # (a case with an expected value is always scored)
        return "not scored"
    result, threshold = results[0]
    score = round(result.score, 4)
    if mode.kind == "all":
        return f"scored {score} < 1.0"
    if len(results) > 1:
        return f"failed the repeat rule over {len(results)} runs"
    if result.score < threshold:
        return f"scored {score} < threshold {round(threshold, 4)}"
    if result.floor_failures:
        return f"a field below its floor (scored {score})"
    if result.batch_errors:
        return f"a field the judge could not score (scored {score})"
    return f"the answer breaks its schema (scored {score})"


def _field_why(at: tuple[Step, ...], old: object, new: object, rows: Rows) -> str:
    path = path_of(at) if at else ""
    own = rows.by_path.get(path, [])
    if own:
        said = f"field scored {round(own[0].score, 4)}: {own[0].status}"
        return said + (f", {own[0].reason}" if own[0].reason else "")
    holding = [
        row
        for k in range(len(at) - 1, -1, -1)
        for row in rows.by_path.get(path_of(at[:k]) if k else "", ())
    ]
    if holding:  # a field compared whole holds this one: its row says why
        row = holding[0]
        said = f"{row.display_path} scored {round(row.score, 4)}: {row.status}"
        return said + (f", {row.reason}" if row.reason else "")
    inside = [r for r in rows.under(path) if r.path != path]
    below = [f for f in inside if f.score < 1.0]
    if below:
        lowest = round(min(f.score for f in below), 4)
        return f"{len(below)} of {len(inside)} fields in it scored below 1.0 (lowest {lowest})"
    if old is ABSENT:
        return "not in the expected value: the output adds it"
    if new is ABSENT:
        return "not in the output"
    return "its fields scored 1.0: written otherwise" if inside else "not scored"


# -- the review file -------------------------------------------------------------------------


def review_document(
    updates: Sequence[CaseUpdate], mode: UpdateMode, root: Path
) -> dict[str, object]:
    """The pending-updates file's content: per case file (its path from the root, the
    digest of its bytes as the run read them), per case, per field, old, new and why."""
    files: dict[str, dict[str, object]] = {}
    for update in sorted(updates, key=lambda u: (u.path, u.line)):
        entry = files.setdefault(
            update.path,
            {"path": _relative(update.path, root), "sha256": update.sha256, "cases": []},
        )
        entry["cases"].append(_case_entry(update))  # type: ignore[attr-defined]
    return {
        "jsonmatch": "update-review",
        "format": FORMAT,
        "update": _setting(mode),
        "files": list(files.values()),
    }


def _relative(path: str, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:  # (a case file outside the root: an accept refuses it)
        return Path(path).as_posix()


def _setting(mode: UpdateMode) -> str:
    return f"{mode.kind},review"


def _case_entry(update: CaseUpdate) -> dict[str, object]:
    """A case's entry; one an xfail holds says so (``xfail``: what the mark says), and so
    does each field it holds (``xfail: true``): ``jsonmatch accept --all`` leaves those."""
    old = update.old if update.had_expected else ABSENT
    held = set(update.held)
    return {
        "id": update.case_id,
        **({"key": update.key} if update.key != "expected" else {}),
        "line": update.line,
        "default_id": update.default_id,
        "why": update.why,
        **({"xfail": update.xfail} if held else {}),
        "had_expected": update.had_expected,
        **({"old": update.old} if update.had_expected else {}),
        "new": update.value,
        "fields": [
            {
                "path": path_of(at),
                "at": list(at),
                **({} if was is ABSENT else {"old": was}),
                **({} if now is ABSENT else {"new": now}),
                "why": update.field_whys.get(path_of(at), update.why),
                **({"xfail": True} if path_of(at) in held else {}),
            }
            for at, was, now in changes(old, update.value)
        ],
    }


def finish_updates(
    updates: Sequence[CaseUpdate], mode: UpdateMode, root: Path
) -> tuple[list[str], list[str]]:
    """The end of an update run: every update written (or, reviewed, the review written and
    no case file). Returns what the summary says and the errors, each naming its file."""
    if mode.review:
        return write_review(updates, mode, root)
    from ..reporting.render.text import update_lines

    done, errors = apply_updates([update for update in updates if update.writes])
    lines = update_lines(done) + held_lines([update for update in updates if update.held])
    return lines, [f"could not update {error}" for error in errors]


def held_lines(held: Sequence[CaseUpdate]) -> list[str]:
    """What an update run left unwritten for an xfail: each case, what its mark says, and
    the fields left (a case's whole value: ``$``)."""
    if not held:
        return []
    from ..reporting.render.tables import escape_controls, guarded

    count = len(held)
    return guarded(
        [
            f"left {count} xfail case{'' if count == 1 else 's'} as written (an update never "
            f"writes what an xfail expects to fail; to write one, review it with ,review and "
            f"name it: jsonmatch accept --case ID):",
            *(
                escape_controls(
                    f"  {u.display}:{u.line} {u.case_id}: {u.xfail}: {', '.join(u.held)}"
                )
                for u in sorted(held, key=lambda u: (u.display, u.line))
            ),
        ]
    )


def write_review(
    updates: Sequence[CaseUpdate], mode: UpdateMode, root: Path
) -> tuple[list[str], list[str]]:
    """Write the review of ``updates`` (JSON and Markdown, each atomically) under ``root``;
    no case file is touched. Returns the summary's lines and the errors (naming the file)."""
    from .review_text import terminal_lines

    document = review_document(updates, mode, root)
    try:
        json_path = save_review(document, root)
    except (CaseFileError, OSError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return terminal_lines(document, None), [f"could not write the update review: {why}"]
    where = json_path.relative_to(root)
    return terminal_lines(document, (where, where.with_name(REVIEW_MD))), []


def review_folder(root: Path, refused: str = "the update review is not written") -> Path:
    """The review's folder, which must lie inside the test root (a symlink out of it is
    refused, with ``refused`` saying what is not done: the plugin reads and writes the
    review only inside the root)."""
    from ..engine.reading.user_files import resolved

    folder = root / FOLDER
    try:
        real = resolved(folder)
        inside = real.is_relative_to(resolved(root))
    except OSError as exc:  # (a symbolic link's loop)
        raise CaseFileError(f"{FOLDER} cannot be resolved ({exc}): {refused}") from None
    if not inside:
        raise CaseFileError(f"{FOLDER} resolves to {real}, outside the test root {root}: {refused}")
    return folder


def review_files_owned(folder: Path) -> None:
    """Each of the review's two files is a regular file or not there yet: a symbolic link,
    a folder or a FIFO in the place of either is refused before either is written (the
    plugin writes its own files only as regular files, never through a link)."""
    from ..engine.reading.user_files import not_owned

    for name in (REVIEW_JSON, REVIEW_MD):
        there = not_owned(folder / name)
        if there is not None:
            raise CaseFileError(
                f"{FOLDER}/{name} is {there}, not a regular file: refused (the plugin writes "
                f"its own files only as regular files); remove it and make the review again"
            )


def save_review(document: Mapping[str, object], root: Path) -> Path:
    """Write the review's two files (the Markdown made from the JSON), each atomically;
    the JSON file's path. A review larger than ``jsonmatch accept`` reads (MAX_FILE_BYTES)
    is not written, and an older one there is removed: none outlives the run that
    replaced it."""
    from ..engine.reading.user_files import MAX_FILE_BYTES
    from ..reporting.run_model.atomic import write_atomic
    from .review_text import review_markdown

    folder = review_folder(root)
    review_files_owned(folder)
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    json_path, md_path = folder / REVIEW_JSON, folder / REVIEW_MD
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        for path in (json_path, md_path):
            path.unlink(missing_ok=True)
        raise CaseFileError(
            f"the update review would be larger than {MAX_FILE_BYTES // 2**20} MB, the most "
            f"jsonmatch accept reads: not written; review fewer cases at once (pytest -k)"
        )
    folder.mkdir(exist_ok=True)
    markdown = review_markdown(document)
    write_atomic(json_path, lambda fh: fh.write(text), owned="the update review")
    write_atomic(md_path, lambda fh: fh.write(markdown), owned="the update review")
    return json_path
