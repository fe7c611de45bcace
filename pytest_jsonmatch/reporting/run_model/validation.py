"""Saved reports checked whole before anything reads them.

A report is a CI artifact: it may come from a fork's pull request, and it is read back as a
baseline (``--jsonmatch-baseline``, ``jsonmatch diff``) and rendered (``jsonmatch report``).
Everything in it is held to the shipped report schema (``report.schema.json``), and to the
rules a schema cannot say: case ids unique, one comparison per case and repeat. The schema
is compiled once into Python code by ``fastjsonschema``: a 20 MB report (10,000 cases) is
checked in about 1.5 s, where an interpreting validator took about 10 s. Every refusal is a :class:`ReportError` naming the file and
the JSON path (``$.comparisons[3].score``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import cache
from typing import TYPE_CHECKING, cast

from ...engine.core.errors import JsonMatchError, printable, shown
from ...engine.core.slotted import Slotted
from .field_rows import comparisons_of

if TYPE_CHECKING:
    from .report_types import ComparisonDict, JSONValue, Report

MESSAGE_LIMIT = 160  # characters of a schema error's own message
REPORT_VERSION = 4  # the version written, and the only one read back


class ReportError(JsonMatchError):
    """A saved report (a baseline, a report to render) that is not what the project writes."""


class _Compiled(Slotted):
    """A compiled schema's check, and the exception class it raises: the one of the same
    import of fastjsonschema (a module imported anew, as pytester's in-process runs do,
    makes a class a check compiled before would not raise)."""

    __slots__ = ("check", "error")

    def __init__(
        self,
        check: Callable[[object], object],
        error: type[Exception],
    ) -> None:
        self.check = check
        self.error = error


@cache
def _validator(definition: str | None = None) -> _Compiled:
    """The schema compiled: of the whole report, or of a list of one of its ``$defs``. The schema
    declares draft 2020-12; it uses only keywords that mean the same in draft 7, the newest
    draft the compiler reads, so it is compiled as draft 7."""
    from importlib import resources  # (its loaders: only where the schema is read)

    text = resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    schema = {**json.loads(text), "$schema": "http://json-schema.org/draft-07/schema#"}
    schema.pop("$id", None)
    if definition is not None:  # a list of one of the $defs
        schema = {
            "$schema": schema["$schema"],
            "$defs": schema["$defs"],
            "type": "array",
            "items": {"$ref": f"#/$defs/{definition}"},
        }
    import fastjsonschema  # loaded once a report is read back, not by every run that writes one

    return _Compiled(fastjsonschema.compile(schema), fastjsonschema.JsonSchemaValueException)


def json_path(parts: Iterable[str | int]) -> str:
    """``["comparisons", 3, "score"]`` as ``$.comparisons[3].score``."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{printable(str(part), keep='')}"
    return out


def _first_error(
    validator: _Compiled,
    data: object,
    where: str,
    prefix: Iterable[str | int] = (),
    error_type: type[ReportError] = ReportError,
) -> None:
    """``error_type`` for the first place ``data`` breaks the schema, naming its JSON path."""
    try:
        validator.check(data)
    except validator.error as exc:
        name = str(getattr(exc, "name", "") or "data")
        path = (
            json_path(prefix) + name[len("data") :]
            if name.startswith("data")
            else json_path(prefix)
        )
        message = str(getattr(exc, "message", "") or "does not fit the report schema")
        if message.startswith(name):
            message = message[len(name) :].strip()
        message = printable(" ".join(message.split()), keep="")
        if len(message) > MESSAGE_LIMIT:
            message = message[: MESSAGE_LIMIT - 3] + "..."
        raise error_type(f"{where}: {printable(path, keep='')}: {message}") from None


def check_report(data: object, where: str, error_type: type[ReportError] = ReportError) -> Report:
    """``data`` (a parsed report of the current version) against the schema and the rules
    around it, given back as the report it then is, its comparisons' fields made from their
    rows (field_rows.py: ``data`` is changed in place); else ``error_type`` naming
    ``where`` and the JSON path."""
    _first_error(_validator(), data, where, (), error_type)
    stored = cast("dict[str, object]", data)  # an object, as the schema says
    tables = stored.pop("field_heads")
    stored["comparisons"] = comparisons_of(
        cast("list[dict[str, JSONValue]]", stored["comparisons"]), tables, where, error_type
    )
    report = cast("Report", stored)  # the schema's shape, which shapes.Report spells
    _unique((case["case_id"] for case in report["cases"]), where, "cases", "case id", error_type)
    _unique_runs(report["comparisons"], where, error_type)
    return report


def check_comparisons(
    entries: object, tables: object, where: str, error_type: type[ReportError] = ReportError
) -> list[ComparisonDict]:
    """A baseline's ``comparisons`` (the only part a baseline is read for, with the
    ``field_heads`` ``tables`` their rows refer to), each against the schema's comparison,
    and one per case and repeat; given back as comparisons, their fields made from their
    rows (field_rows.py)."""
    _first_error(_validator("comparison"), entries, where, ("comparisons",), error_type)
    comparisons = comparisons_of(
        cast("list[dict[str, JSONValue]]", entries), tables, where, error_type
    )
    _unique_runs(comparisons, where, error_type)
    return comparisons


def _unique_runs(
    entries: Iterable[ComparisonDict], where: str, error_type: type[ReportError] = ReportError
) -> None:
    seen: set[tuple[str, int]] = set()
    for i, entry in enumerate(entries):
        key = (entry["case_id"], entry["repeat"])
        if key in seen:
            raise error_type(
                f"{where}: {json_path(['comparisons', i])}: case "
                f"{shown(key[0])} run {key[1]} is listed twice"
            )
        seen.add(key)


def _unique(
    ids: Iterable[str],
    where: str,
    listing: str,
    what: str,
    error_type: type[ReportError] = ReportError,
) -> None:
    seen: set[str] = set()
    for i, value in enumerate(ids):
        if value in seen:
            raise error_type(
                f"{where}: {json_path([listing, i])}: {what} {shown(value)} is listed twice"
            )
        seen.add(value)


def schema() -> dict[str, JSONValue]:
    """The JSON Schema of a version-4 report."""
    from importlib import resources  # (only where the schema is read)

    text = resources.files(__package__).joinpath("report.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, JSONValue] = json.loads(text)  # the shipped file: an object
    return loaded
