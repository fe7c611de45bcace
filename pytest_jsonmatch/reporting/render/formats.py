"""Every report format, in one table: its name, the file suffixes that choose it, how it is
written, what of a run it reads, and which outlets offer it. The plugin's report files
(report_files.py), the command line's ``--format`` (cli/output.py) and ``compare-runs
--format`` read this table and nothing else: a format added here reaches each outlet it
names, its help texts and choices included.

The outlets, the places a format is offered in (``offered_by``):

- ``REPORT_FILES``: a file of the plugin's ``jsonmatch_report``, chosen by its suffix;
- ``FORMAT``: ``--format`` of ``jsonmatch score``, ``compare``, ``report``, ``diff``, ``merge``;
- ``RUNS``: ``--format`` of ``jsonmatch compare-runs`` (the format's ``write_runs``).

Each writer imports its renderer when it is called, so that importing this module (the plugin
does, at start-up, for its help text) loads no renderer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Literal

from ...engine.core.slotted import HashedSlotted, Slotted

if TYPE_CHECKING:
    from ..run_model.report_types import CaseDict, Report, RunsComparison
    from ..run_model.spool import ComparisonSpool, Spool

Outlet = Literal["report_files", "format", "compare_runs"]
REPORT_FILES: Outlet = "report_files"
FORMAT: Outlet = "format"
RUNS: Outlet = "compare_runs"
OUTLETS: tuple[Outlet, ...] = (REPORT_FILES, FORMAT, RUNS)


class Look(Slotted):
    """How a rendering looks: ``verbose`` (-v count), ``color``, ``columns`` (the width of
    text); ``spools``: a spooled run's (cases, comparisons), written as they are read."""

    __slots__ = ("verbose", "color", "columns", "spools")

    def __init__(
        self,
        verbose: int = 0,
        color: bool = False,
        columns: int = 100,
        spools: tuple[Spool[CaseDict], ComparisonSpool | None] | None = None,
    ) -> None:
        self.verbose, self.color, self.columns, self.spools = verbose, color, columns, spools


Writer = Callable[[IO[str], "Report", Look], None]
RunsWriter = Callable[[IO[str], "RunsComparison", Look], None]


class ReportFormat(HashedSlotted):
    """One format. ``suffixes``: the report-file suffixes that choose it (the first is the one
    messages name). ``all_cases``: it shows every case of a run (a run's report must list
    them all: a partial one would silently show fewer); ``comparisons``: it shows every
    comparison too. ``written_empty``: a session that compared nothing writes the file all the
    same. ``failure``: the line a file that cannot be written gives (``{path}``, ``{exc}``).
    ``describe``: the format in the plugin's help, after its suffix."""

    __slots__ = (
        "name",
        "write",
        "offered_by",
        "suffixes",
        "all_cases",
        "comparisons",
        "written_empty",
        "failure",
        "describe",
        "write_runs",
    )

    name: str
    write: Writer
    offered_by: frozenset[Outlet]
    suffixes: tuple[str, ...]
    all_cases: bool
    comparisons: bool
    written_empty: bool
    failure: str
    describe: str
    write_runs: RunsWriter | None

    def __init__(
        self,
        *,
        name: str,
        write: Writer,
        offered_by: frozenset[Outlet],
        suffixes: tuple[str, ...] = (),
        all_cases: bool = True,
        comparisons: bool = True,
        written_empty: bool = False,
        failure: str = "",
        describe: str = "",
        write_runs: RunsWriter | None = None,
    ) -> None:
        self.name, self.write, self.offered_by, self.suffixes = name, write, offered_by, suffixes
        self.all_cases, self.comparisons, self.written_empty = all_cases, comparisons, written_empty
        self.failure, self.describe, self.write_runs = failure, describe, write_runs

    @property
    def whole(self) -> bool:
        """Whether a session's report must list every case and comparison for it."""
        return self.all_cases or self.comparisons


# -- the writers: each loads its renderer when called ---------------------------------------


def _text(fh: IO[str], report: Report, look: Look) -> None:
    from .text import render_text

    fh.write(render_text(report, look.columns, look.verbose, look.color))


def _json(fh: IO[str], report: Report, look: Look) -> None:
    from ..run_model.spool import dump_report

    head = {k: v for k, v in report.items() if k not in ("cases", "comparisons")}
    if look.spools is not None:
        dump_report(fh, head, *look.spools)
    else:
        dump_report(fh, head, report["cases"], report["comparisons"])


def _html(fh: IO[str], report: Report, look: Look) -> None:
    from .html import write_html  # written as the cases are read (a spooled run is never held)

    write_html(fh, report)


def _markdown(fh: IO[str], report: Report, look: Look) -> None:
    from .markdown import render_markdown

    fh.write(render_markdown(report, full=look.verbose > 0))


def _runs_text(fh: IO[str], data: RunsComparison, look: Look) -> None:
    from .text import render_runs_text

    fh.write(render_runs_text(data, look.columns, look.verbose))


def _runs_html(fh: IO[str], data: RunsComparison, look: Look) -> None:
    from .html import render_runs_html

    fh.write(render_runs_html(data))


def _runs_markdown(fh: IO[str], data: RunsComparison, look: Look) -> None:
    from .markdown import render_runs_markdown

    fh.write(render_runs_markdown(data, full=look.verbose > 0))


FORMATS: dict[str, ReportFormat] = {}


def register(fmt: ReportFormat) -> None:
    """Add ``fmt`` to the table (a test may add one and remove it: :func:`unregister`)."""
    if fmt.name in FORMATS:
        raise ValueError(f"report format {fmt.name!r} is registered already")
    if (REPORT_FILES in fmt.offered_by) != bool(fmt.suffixes):
        raise ValueError(f"report format {fmt.name!r}: a report file is chosen by its suffix")
    if (RUNS in fmt.offered_by) != (fmt.write_runs is not None):
        raise ValueError(f"report format {fmt.name!r}: compare-runs needs write_runs")
    taken = {s for f in FORMATS.values() for s in f.suffixes}
    if taken & set(fmt.suffixes):
        raise ValueError(f"report format {fmt.name!r}: a suffix of another format")
    FORMATS[fmt.name] = fmt


def unregister(name: str) -> None:
    del FORMATS[name]


# The order is the order of choices in --help and of the files a session writes.
register(
    ReportFormat(
        name="text",
        write=_text,
        offered_by=frozenset({FORMAT, RUNS}),
        all_cases=False,
        comparisons=False,
        write_runs=_runs_text,
    )
)
register(
    ReportFormat(
        name="json",
        write=_json,
        offered_by=frozenset({REPORT_FILES, FORMAT}),
        suffixes=(".json",),
        written_empty=True,
        failure="could not write the report {path}: {exc}",
        describe="every comparison and aggregate",
    )
)
register(
    ReportFormat(
        name="html",
        write=_html,
        offered_by=frozenset({REPORT_FILES, FORMAT, RUNS}),
        suffixes=(".html", ".htm"),
        written_empty=True,
        failure="could not write the HTML report {path}: {exc}",
        describe="one self-contained page",
        write_runs=_runs_html,
    )
)
register(
    ReportFormat(
        name="markdown",
        write=_markdown,
        offered_by=frozenset({REPORT_FILES, FORMAT, RUNS}),
        suffixes=(".md",),
        comparisons=False,
        failure="could not write the Markdown summary: {exc}",
        describe="a Markdown summary",
        write_runs=_runs_markdown,
    )
)
STEP_SUMMARY = "markdown"  # the format GitHub's step summary is appended in


def offered(outlet: Outlet) -> tuple[str, ...]:
    """The names of the formats ``outlet`` offers, in the table's order."""
    return tuple(name for name, fmt in FORMATS.items() if outlet in fmt.offered_by)


def by_suffix(suffix: str) -> ReportFormat | None:
    """The report-file format a (lower-case) suffix chooses, if any."""
    for fmt in FORMATS.values():
        if REPORT_FILES in fmt.offered_by and suffix in fmt.suffixes:
            return fmt
    return None


def suffix_list(conjunction: str = "or") -> str:
    """The report files' suffixes, one per format: ``.json, .html or .md``."""
    first = [FORMATS[name].suffixes[0] for name in offered(REPORT_FILES)]
    return _joined(first, conjunction)


def files_help() -> str:
    """The report files as the plugin's help lists them: ``.json (every comparison and
    aggregate), .html (one self-contained page), .md (a Markdown summary)``."""
    return ", ".join(
        f"{FORMATS[name].suffixes[0]} ({FORMATS[name].describe})" for name in offered(REPORT_FILES)
    )


def _joined(words: Sequence[str], conjunction: str) -> str:
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"
