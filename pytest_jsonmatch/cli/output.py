"""Where the command line's output goes and how it looks: a report rendered as text, JSON,
HTML or Markdown, to standard output or (atomically) to a file; text coloured on a
terminal, plain otherwise and whenever ``NO_COLOR`` is set."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import IO

from ..reporting.atomic import write_atomic
from ..reporting.shapes import CaseDict, Report
from ..reporting.spool import ComparisonSpool, Spool, dump_report
from .input_error import InputError

FORMATS = ("text", "json", "html", "markdown")


def use_color(choice: str, stream: IO[str]) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR", "") != "":
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def width(stream: IO[str]) -> int:
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        return max(40, shutil.get_terminal_size((100, 24)).columns)
    return 100


def render(
    report: Report, fmt: str, *, verbose: int = 0, color: bool = False, columns: int = 100
) -> str:
    """The report in ``fmt`` (a report held in memory; see :func:`emit` for spooled ones)."""
    if fmt == "json":
        from ..reporting.report import report_text

        return report_text(report)
    if fmt == "html":
        from ..reporting.html import render_html

        return render_html(report)
    if fmt == "markdown":
        from ..reporting.markdown import render_markdown

        return render_markdown(report, full=verbose > 0)
    from ..reporting.text import render_text

    return render_text(report, columns, verbose, color)


def emit(
    report: Report,
    fmt: str,
    out: str | None,
    *,
    verbose: int = 0,
    color_choice: str = "auto",
    spools: tuple[Spool[CaseDict], ComparisonSpool | None] | None = None,
) -> None:
    """Render ``report`` to ``out`` (a path, or standard output for None or ``-``). With
    ``spools`` (cases, comparisons) the JSON is streamed from them."""
    to_stdout = out in (None, "-")
    stream = sys.stdout
    color = to_stdout and fmt == "text" and use_color(color_choice, stream)
    columns = width(stream) if to_stdout else 100
    if fmt == "json" and spools is not None:
        head = _head(report)
        if to_stdout:
            dump_report(stream, head, *spools)
            stream.flush()
            return
        _write(out, lambda fh: dump_report(fh, head, *spools))
        return
    if fmt == "html":  # written as the cases are read (a spooled run is never held)
        from ..reporting.html import write_html

        if to_stdout:
            write_html(stream, report)
            stream.flush()
        else:
            _write(out, lambda fh: write_html(fh, report))
        return
    text = render(report, fmt, verbose=verbose, color=color, columns=columns)
    if to_stdout:
        stream.write(text)
        stream.flush()
    else:
        _write(out, lambda fh: fh.write(text))


def _head(report: Report) -> dict[str, object]:
    """The report but its cases and comparisons."""
    return {k: v for k, v in report.items() if k not in ("cases", "comparisons")}


def _write(path: str | None, write: Callable[[IO[str]], object]) -> None:
    assert path is not None
    try:
        write_atomic(path, write)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None
