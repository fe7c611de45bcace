"""The files a run's report is written to: the JSON report, the HTML page, the Markdown
summary and GitHub's step summary, each written atomically (the step summary is appended to,
as GitHub expects). A file that cannot be written is an error line, never an exception: the
others are still written."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.core.collector import collector_paused
from ..engine.core.errors import ConfigError

if TYPE_CHECKING:
    from .shapes import Report


_KINDS = {".json": "json", ".html": "html", ".htm": "html", ".md": "markdown"}


@dataclass(frozen=True, kw_only=True)
class ReportFiles:
    """Where a run writes its reports (None: not written)."""

    json: str | None = None
    html: str | None = None
    markdown: str | None = None  # written whole
    step_summary: str | None = None  # $GITHUB_STEP_SUMMARY, appended to

    @classmethod
    def parse(
        cls, paths: Sequence[str], what: str, here: Path, step_summary: str | None = None
    ) -> ReportFiles:
        """Each path's suffix says which report it is (``.json``, ``.html``, ``.md``), each
        kind at most once; paths are taken from ``here``."""
        found: dict[str, str] = {}
        for path in paths:
            kind = _KINDS.get(Path(path).suffix.lower())
            if kind is None:
                raise ConfigError(
                    f"{what}: {path!r}: the file's suffix says which report to "
                    f"write: .json, .html or .md"
                )
            if kind in found:
                raise ConfigError(f"{what}: two {kind} reports ({found[kind]!r} and {path!r})")
            found[kind] = path
        full = {kind: os.fspath(here / path) for kind, path in found.items()}
        return cls(
            json=full.get("json"),
            html=full.get("html"),
            markdown=full.get("markdown"),
            step_summary=step_summary,
        )

    def write(self, report: Report) -> list[str]:
        """Write every file asked for; return what could not be written, one line each. The
        cyclic collector is paused meanwhile (as ``report.conclude`` pauses it): each file is
        written from many short-lived objects, none of them cyclic garbage."""
        with collector_paused():
            return self._write(report)

    def _write(self, report: Report) -> list[str]:
        from .atomic import write_atomic
        from .report import write_report  # here: a session that writes no report never loads it

        errors = []
        if self.json:
            try:
                write_report(self.json, report)
            except (OSError, TypeError, ValueError) as exc:
                errors.append(f"could not write the report {self.json}: {exc}")
        if self.html:
            try:
                from .html import write_html

                write_atomic(self.html, lambda fh: write_html(fh, report))
            except OSError as exc:
                errors.append(f"could not write the HTML report {self.html}: {exc}")
        if self.markdown or self.step_summary:
            from .markdown import render_markdown

            markdown = render_markdown(report)
            try:
                if self.markdown:
                    write_atomic(self.markdown, lambda fh: fh.write(markdown))
                if self.step_summary:
                    with open(self.step_summary, "a", encoding="utf-8") as fh:
                        fh.write(markdown)
            except OSError as exc:
                errors.append(f"could not write the Markdown summary: {exc}")
        return errors
