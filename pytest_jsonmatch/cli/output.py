"""Where the command line's output goes and how it looks: a report rendered in one of the
formats of reporting/render/formats.py, to standard output or (atomically) to a file; text coloured on a terminal, plain otherwise and whenever
``NO_COLOR`` is set."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from ..reporting.render.formats import FORMAT, FORMATS, Look, offered
from .input_error import InputError

if TYPE_CHECKING:
    import argparse

    from ..reporting.run_model.report_types import CaseDict, Report
    from ..reporting.run_model.spool import ComparisonSpool, Spool


# The formats that show the run's git commit (the JSON report holds it, the HTML page names
# it); text and markdown have no place for it.
_SHOWING_COMMIT = frozenset({"json", "html"})


def repository_of(fmt: str, report_file: str | None = None) -> str | None:
    """The folder whose git commit the run records (the working directory), or None when
    nothing written shows it: then no ``git`` process is started for it (a few
    milliseconds of every command's run, for a value no one would see)."""
    return os.getcwd() if fmt in _SHOWING_COMMIT or report_file else None


def choices() -> tuple[str, ...]:
    """The formats ``--format`` offers (score, compare, report, diff, merge)."""
    return offered(FORMAT)


def add_look_arguments(parser: argparse._ActionsContainer) -> None:
    """``--color`` and ``--verbose``, as the commands that render a whole report take them
    (score, report, diff)."""
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour text output (auto: on a terminal, unless NO_COLOR is set)",
    )
    parser.add_argument("--verbose", "-v", action="count", default=0, help="longer tables")


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
        import shutil  # (only on a terminal: it loads the compression modules)

        return max(40, shutil.get_terminal_size((100, 24)).columns)
    return 100


def emit(
    report: Report,
    fmt: str,
    out: str | None,
    *,
    verbose: int = 0,
    color_choice: str = "auto",
    spools: tuple[Spool[CaseDict], ComparisonSpool | None] | None = None,
) -> None:
    """Render ``report`` in the format ``fmt`` (reporting/render/formats.py) to ``out`` (a path, or
    standard output for None or ``-``). With ``spools`` (cases, comparisons) a format that
    lists them reads them from the spools as it writes."""
    to_stdout = out in (None, "-")
    stream = sys.stdout
    color = to_stdout and use_color(color_choice, stream)  # (text is the one coloured)
    look = Look(verbose, color, width(stream) if to_stdout else 100, spools)
    write = FORMATS[fmt].write
    if to_stdout:
        write(stream, report, look)
        stream.flush()
    else:
        _write(out, lambda fh: write(fh, report, look))


def _write(path: str | None, write: Callable[[IO[str]], object]) -> None:
    assert path is not None
    from ..reporting.run_model.atomic import write_atomic  # (only output to a file)

    try:
        write_atomic(path, write)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None
