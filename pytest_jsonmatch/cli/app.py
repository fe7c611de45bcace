"""The ``jsonmatch`` command: its arguments, its subcommands, and its one rule for errors.

Exit status: 0 passed, 1 below the threshold or a gate failed, 2 a usage or input error,
shown as one line (``jsonmatch: error: ...``) naming the file, line or record and JSON path;
never a traceback. structeval's command lines work with the command name changed:
``jsonmatch --test ACTUAL --gt EXPECTED --report text`` is ``jsonmatch compare``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..engine.core.errors import JsonMatchError
from ..engine.core.gc_pause import fewer_collections
from ..engine.core.slotted import Slotted
from .input_error import InputError


class Command(Slotted):
    """One command: the module that defines its parser (``add_parser``, or ``add_parsers``
    for a module of several commands) and runs it, and its line in the top help."""

    __slots__ = ("module", "help")

    def __init__(self, module: str, help: str) -> None:
        self.module = module
        self.help = help


# The commands, listed once: the parser, the top help and the lazy imports are read from
# here. Only the module of the command being run is imported, so that ``jsonmatch compare``
# loads neither the dataset machinery of ``score`` nor the report readers of ``diff``
# (tests/cli/test_command_imports.py holds these help lines to the modules' own).
COMMANDS = {
    "compare": Command(".compare", "score one pair of JSON documents"),
    "score": Command(".score", "score a dataset of gold and predicted records"),
    "report": Command(".saved_reports", "render a saved JSON report"),
    "diff": Command(".saved_reports", "compare two saved reports case by case"),
    "compare-runs": Command(".compare_runs", "compare two or more saved reports side by side"),
    "merge": Command(
        ".merge", "join the reports of a split suite's shards and judge the whole run"
    ),
    "calibrate": Command(".calibrate", "measure the LLM judge against a person's labels"),
    "accept": Command(".accept", "write the edits of an update review that a reviewer accepts"),
}
STRUCTEVAL_FLAGS = ("--test", "--gt", "--report", "--config")


class _Parser(argparse.ArgumentParser):
    """argparse with the command's exit status 2 and one-line messages, its help laid out by
    :class:`_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{self.prog}: {message} (see {self.prog} --help)")


class _Formatter(argparse.HelpFormatter):
    """argparse's own help layout, its width found without importing ``shutil``: argparse
    makes a formatter for every argument a parser is given, and the first one imports
    shutil (and with it the zlib, bz2 and lzma modules) to ask the terminal's width, which
    only help text uses."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **more: Any,  # (what later versions of argparse add)
    ) -> None:
        width = _help_width() if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width, **more)


def _help_width() -> int:
    """The width argparse gives help when none is set: the terminal's columns less 2, the
    columns read as ``shutil.get_terminal_size()`` reads them (``COLUMNS``, else standard
    output's terminal, else 80). tests/cli/test_help.py holds the two to the same text."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With ``command`` (a key of COMMANDS), only that command's
    module is imported and only its sub-parsers are built: the command line names it, so
    no other can be parsed, and its help and usage errors are its own. With ``""``, every
    command is listed by name and help line alone (enough for ``jsonmatch --help`` and for
    a usage error that names no command). Without it, every command is built in full."""
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
    built: set[str] = set()
    running = COMMANDS[command].module if command in COMMANDS else None
    for name, spec in COMMANDS.items():
        if name in built:
            continue
        if command is None or spec.module == running:
            _add_parsers(spec.module, commands)
            built.update(n for n, c in COMMANDS.items() if c.module == spec.module)
        elif running is None:
            commands.add_parser(name, help=spec.help)
    return top


def _add_parsers(module: str, commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The sub-parsers one command module defines (``saved_reports`` defines two: report,
    diff)."""
    loaded = importlib.import_module(module, __package__)
    add = getattr(loaded, "add_parsers", None) or loaded.add_parser
    add(commands)


def _command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names: its first word that does not start with ``-``, when that
    is one of COMMANDS (the top-level options before it are flags that take no value)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def _structeval_spelling(argv: list[str]) -> bool:
    """structeval's command line (no subcommand, ``--test``/``--gt`` flags)."""
    first = next((a for a in argv if not a.startswith("-") or a == "-"), None)
    if first in COMMANDS:
        return False
    return any(a.split("=", 1)[0] in ("--test", "--gt") for a in argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names (None: this process's own command line, as the
    ``jsonmatch`` program and ``python -m pytest_jsonmatch`` run it) and give its exit
    status; an error is one line on standard error, never a traceback."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    given = list(args_list)  # as the user wrote it, for the report's run info
    try:
        with fewer_collections():  # (its imports too: see __main__.run)
            status = _run(args_list, given, the_process=argv is None)
        if argv is None:  # what the command made lives until the process exits as well
            _loaded_for_good()
        return status
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


def _run(args_list: list[str], given: list[str], the_process: bool = False) -> int:
    """The command ``args_list`` names, run (``given``: as the user wrote it; with
    ``the_process``, the command is what this process is for: see _loaded_for_good)."""
    structeval = _structeval_spelling(args_list)
    if structeval:
        args_list = ["compare", *args_list]
    top = parser(_command_of(args_list) or "")  # ("": none built in full)
    if the_process:
        _loaded_for_good()
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
    return int(args.run(args))


def _loaded_for_good() -> None:
    """What the process holds once the command's modules are imported (their classes,
    functions and tables: tens of thousands of objects) put out of the cyclic collector's
    reach (``gc.freeze``): it lives until the process exits, so a collection that walks it
    finds nothing to free. Walked, it cost a command of one record about a tenth of its
    instructions (the collections at exit, mostly: 33 M of ``jsonmatch score``'s 598 M;
    docs/performance.md). Only when the command is the process (``main()`` without an
    argument list): inside another program it would keep that program's objects from the
    collector for good."""
    gc.freeze()


def _error(message: str) -> None:
    text = " ".join(message.split())
    if not text.startswith("jsonmatch"):
        text = "jsonmatch: error: " + text
    print(text, file=sys.stderr)
