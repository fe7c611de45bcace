"""The ``jsonmatch`` command: its arguments, its subcommands, and its one rule for errors.

Exit status: 0 passed, 1 below the threshold or a gate failed, 2 a usage or input error,
shown as one line (``jsonmatch: error: ...``) naming the file, line or record and JSON path;
never a traceback. structeval's command lines work with the command name changed:
``jsonmatch --test ACTUAL --gt EXPECTED --report text`` is ``jsonmatch compare``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Iterator, Sequence

from ..engine.core.errors import JsonMatchError
from . import compare, compare_runs, merge, saved, score
from .input_error import InputError

COMMANDS = ("compare", "score", "report", "diff", "compare-runs", "merge")
STRUCTEVAL_FLAGS = ("--test", "--gt", "--report", "--config")


class _Parser(argparse.ArgumentParser):
    """argparse with the command's exit status 2 and one-line messages."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{self.prog}: {message} (see {self.prog} --help)")


def parser() -> argparse.ArgumentParser:
    from ..version import __version__

    top = _Parser(
        prog="jsonmatch",
        description="Score structured JSON output (a language "
        "model's, usually) against expected JSON, field by field: one pair, a whole "
        "dataset, or a saved report.",
        epilog="Exit status: 0 passed, 1 below the threshold or a gate failed, 2 a "
        "usage or input error. Every command has --help.",
    )
    top.add_argument("--version", action="version", version=f"jsonmatch {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    compare.add_parser(commands)
    score.add_parser(commands)
    saved.add_parsers(commands)
    compare_runs.add_parser(commands)
    merge.add_parser(commands)
    return top


def _structeval_spelling(argv: list[str]) -> bool:
    """structeval's command line (no subcommand, ``--test``/``--gt`` flags)."""
    first = next((a for a in argv if not a.startswith("-") or a == "-"), None)
    if first in COMMANDS:
        return False
    return any(a.split("=", 1)[0] in ("--test", "--gt") for a in argv)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    given = list(args_list)  # as the user wrote it, for the report's run info
    try:
        structeval = _structeval_spelling(args_list)
        if structeval:
            args_list = ["compare", *args_list]
        top = parser()
        if not args_list:
            top.print_help(sys.stderr)
            return 2
        args = top.parse_args(args_list)
        if args.command is None:
            top.print_help(sys.stderr)
            return 2
        if structeval:
            args.structeval = True
        args.argv = given
        with _fewer_collections():
            return int(args.run(args))
    except InputError as exc:
        _error(str(exc))
    except JsonMatchError as exc:
        _error(str(exc))
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:
        # the reader went away (| head): nothing more to say, and nothing to say it to
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 2
    except RecursionError:
        _error("a value nests too deeply to handle")
    except MemoryError:
        _error("out of memory")
    except Exception as exc:
        if os.environ.get("JSONMATCH_DEBUG"):
            raise
        _error(f"internal error ({type(exc).__name__}: {exc}); JSONMATCH_DEBUG=1 shows where")
    return 2


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector run about 30 times less often while a command runs. A
    dataset's run makes millions of short-lived containers (parsed records, field results,
    report entries), all freed by their reference counts; at Python's default (a pass
    every 700 new containers) the collector's passes found nothing to free and took about
    a seventh of ``jsonmatch score``'s time. The default comes back afterwards (``main``
    may be called inside another program)."""
    saved = gc.get_threshold()
    gc.set_threshold(20_000, 50, 100)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def _error(message: str) -> None:
    text = " ".join(message.split())
    if not text.startswith("jsonmatch"):
        text = "jsonmatch: error: " + text
    print(text, file=sys.stderr)
