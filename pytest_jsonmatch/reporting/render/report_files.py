"""The files a run's report is written to: one per report format the plugin offers as a file
(formats.py: JSON, HTML, Markdown, chosen by suffix) and GitHub's step summary, each written
atomically (the step summary is appended to, as GitHub expects). A file that cannot be
written is an error line, never an exception: the others are still written."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ...engine.core.errors import ConfigError
from ...engine.core.gc_pause import collector_paused
from ...engine.core.slotted import Slotted
from . import formats

if TYPE_CHECKING:
    from ..run_model.report_types import Report
    from .formats import ReportFormat


class ReportFiles(Slotted):
    """Where a run writes its reports: a path per format's name (formats.py; a format not
    named is not written), and GitHub's step summary (None: not written). (Slotted, not a
    dataclass: every golden session makes one.)"""

    __slots__ = ("paths", "step_summary")

    def __init__(
        self,
        *,
        paths: Mapping[str, str] | None = None,  # None: none
        step_summary: str | None = None,  # $GITHUB_STEP_SUMMARY, appended to
    ) -> None:
        self.paths: Mapping[str, str] = {} if paths is None else paths
        self.step_summary = step_summary

    @classmethod
    def parse(
        cls, paths: Sequence[str], what: str, here: Path, step_summary: str | None = None
    ) -> ReportFiles:
        """Each path's suffix says which report it is (``.json``, ``.html``, ``.md``: the
        suffixes of formats.py), each format at most once; paths are taken from ``here``."""
        found: dict[str, str] = {}
        for path in paths:
            fmt = formats.by_suffix(Path(path).suffix.lower())
            if fmt is None:
                raise ConfigError(
                    f"{what}: {path!r}: the file's suffix says which report to "
                    f"write: {formats.suffix_list()}"
                )
            if fmt.name in found:
                raise ConfigError(
                    f"{what}: two {fmt.name} reports ({found[fmt.name]!r} and {path!r})"
                )
            found[fmt.name] = path
        return cls(
            paths={
                name: os.fspath(here / found[name]) for name in formats.FORMATS if name in found
            },
            step_summary=step_summary,
        )

    def path(self, name: str) -> str | None:
        """The file the format ``name`` is written to (None: not written)."""
        return self.paths.get(name)

    def files(self) -> list[tuple[ReportFormat, str]]:
        """Each file asked for with its format, in the table's order."""
        return [
            (fmt, self.paths[name]) for name, fmt in formats.FORMATS.items() if name in self.paths
        ]

    def _written(self) -> list[ReportFormat]:
        written = [fmt for fmt, _ in self.files()]
        if self.step_summary:
            written.append(formats.FORMATS[formats.STEP_SUMMARY])
        return written

    @property
    def whole(self) -> bool:
        """Whether a file written needs the run's whole report (every case and comparison),
        as its format says."""
        return any(fmt.whole for fmt in self._written())

    @property
    def written_empty(self) -> bool:
        """Whether a session that compared nothing writes a file all the same."""
        return any(fmt.written_empty for fmt, _ in self.files())

    def write(self, report: Report) -> list[str]:
        """Write every file asked for; return what could not be written, one line each. The
        cyclic collector is paused meanwhile (as ``report.conclude`` pauses it): each file is
        written from many short-lived objects, none of them cyclic garbage."""
        with collector_paused():
            return self._write(report)

    def _write(self, report: Report) -> list[str]:
        from ..run_model.atomic import write_atomic
        from .formats import Look

        errors = []
        for fmt, path in self.files():
            try:
                write_atomic(path, _writer(fmt, report))
            except (OSError, TypeError, ValueError) as exc:
                errors.append(fmt.failure.format(path=path, exc=exc))
        if self.step_summary:
            summary = formats.FORMATS[formats.STEP_SUMMARY]
            try:
                with open(self.step_summary, "a", encoding="utf-8") as fh:
                    summary.write(fh, report, Look())
            except OSError as exc:
                errors.append(summary.failure.format(path=self.step_summary, exc=exc))
        return errors


def _writer(fmt: ReportFormat, report: Report) -> Callable[[IO[str]], None]:
    """What writes ``report`` in ``fmt`` to an open file."""
    from .formats import Look

    return lambda fh: fmt.write(fh, report, Look())
