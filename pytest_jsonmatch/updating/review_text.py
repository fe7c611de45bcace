"""The update review as text (update_review.py writes it): the terminal's lines, and the
Markdown page for a pull request, per case file, per case, a table of each field's old
value, new value and why it changes. What the data says is escaped: control characters as
escapes in the terminal; in the Markdown every value and name is escaped for a table cell
(reporting/render/markdown.py's ``escape``: no markup, no link, no control character)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..reporting.render.markdown import escape
from ..reporting.render.tables import escape_controls

_SHOWN = 40  # field lines the terminal lists; the Markdown file lists every one
_CELL = 120  # a value's width in a Markdown cell; the JSON file holds it whole


def review_markdown(document: Mapping[str, object]) -> str:
    """The review's page: a heading, what would change, how to accept, then the cases."""
    files, cases, fields = case_count(document)
    lines = [
        "## jsonmatch update review",
        "",
        f"`--jsonmatch-update={escape(document.get('update'))}`: {cases} case"
        f"{'' if cases == 1 else 's'} in {files} file{'' if files == 1 else 's'} would "
        f"change ({fields} field{'' if fields == 1 else 's'}); none of it is written yet.",
        "",
    ]
    if not cases:
        return "\n".join([*lines[:2], "No case would change.", ""])
    lines += [
        "Write them with `jsonmatch accept --all`, a case with `jsonmatch accept --case ID`, "
        "a field with `jsonmatch accept --field ID:PATH`.",
    ]
    current = None
    for file, case in update_cases(document):
        if file is not current:
            current = file
            lines += ["", f"### {escape(file.get('path'))}"]
        lines += [
            "",
            f"#### {escape(case.get('id'))} (line {escape(case.get('line'))}): "
            f"{escape(case.get('why'))}",
            "",
            *([escape(held_note(case)), ""] if "xfail" in case else []),
            "| field | old | new | why |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {escape(field.get('path'))} | {escape(short(field, 'old', _CELL))} | "
            f"{escape(short(field, 'new', _CELL))} | {escape(field_why(field))} |"
            for field in case_fields(case)
        ]
    return "\n".join(lines) + "\n"


# -- the terminal ------------------------------------------------------------------------------


def case_count(document: Mapping[str, object]) -> tuple[int, int, int]:
    """How many files, cases and fields a review holds."""
    files = _files(document)
    cases = [case for file in files for case in _cases(file)]
    return len(files), len(cases), sum(len(case_fields(case)) for case in cases)


def terminal_lines(document: Mapping[str, object], where: tuple[Path, Path] | None) -> list[str]:
    """What the summary says of a review: the count, each case with why, each field's old
    and new value and why (the first _SHOWN fields), and where the review is."""
    files, cases, fields = case_count(document)
    lines = [
        f"update review ({document.get('update')}): {_plural(cases, 'case')} in "
        f"{_plural(files, 'file')} would change, {_plural(fields, 'field')}; no case file "
        f"was written"
    ]
    shown = 0
    for file, case in update_cases(document):
        held = f" [{held_note(case)}]" if "xfail" in case else ""
        lines.append(f"  {file['path']}:{case['line']} {case['id']}: {case['why']}{held}")
        for one in case_fields(case):
            shown += 1
            if shown <= _SHOWN:
                lines.append(
                    f"    {one['path']}: {short(one, 'old')} -> {short(one, 'new')} "
                    f"({field_why(one)})"
                )
    if shown > _SHOWN:
        lines.append(f"  ... {shown - _SHOWN} more fields in the review")
    if where is not None:
        lines.append(
            f"review written to {where[0]} and {where[1]}; write it with "
            f"jsonmatch accept --all (or --case ID, --field ID:PATH)"
        )
    return [escape_controls(line) for line in lines]


def held_note(case: Mapping[str, object]) -> str:
    """What the review says of a case an xfail holds: the mark, and what accept does."""
    fields = case_fields(case)
    every = all(field.get("xfail") is True for field in fields)
    what = "leaves it" if every else "leaves its fields marked xfail"
    return (
        f"{case.get('xfail') or 'xfail'}: jsonmatch accept --all {what}; "
        f"--case {case.get('id')} writes it"
    )


def field_why(field: Mapping[str, object]) -> str:
    """Why a field changes, ``xfail`` first when an xfail holds it."""
    return f"xfail; {field.get('why')}" if field.get("xfail") is True else str(field.get("why"))


def short(field: Mapping[str, object], side: str, width: int = 60) -> str:
    """A field's ``side`` value as compact JSON, cut to ``width`` (``(none)``: absent)."""
    if side not in field:
        return "(none)"
    text = json.dumps(field[side], ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= width else text[: width - 3] + "..."


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _files(document: Mapping[str, object]) -> list[Mapping[str, object]]:
    files = document.get("files")
    return [f for f in files if isinstance(f, Mapping)] if isinstance(files, list) else []


def _cases(file: Mapping[str, object]) -> list[Mapping[str, object]]:
    cases = file.get("cases")
    return [c for c in cases if isinstance(c, Mapping)] if isinstance(cases, list) else []


def case_fields(case: Mapping[str, object]) -> list[Mapping[str, object]]:
    fields = case.get("fields")
    return [f for f in fields if isinstance(f, Mapping)] if isinstance(fields, list) else []


def update_cases(
    document: Mapping[str, object],
) -> Iterator[tuple[Mapping[str, object], Mapping[str, object]]]:
    for file in _files(document):
        for case in _cases(file):
            yield file, case
