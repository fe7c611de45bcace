"""What the command line loads before it scores: ``--plugins MODULE`` (a project's
comparators, transforms, metrics and embedders, registered as its pytest plugin registers
them) and ``--judge SETTING`` (the judge of the ``semantic`` comparator, in the text form of
the plugin's ``jsonmatch_judge``), so that one schema file serves pytest and the command.

A plugin module registers its extensions when imported (``register_comparator(...)`` at
module level), or defines ``pytest_jsonmatch_register(registry)``, the hook the pytest
plugin calls, which is called here with the registry. Worker processes (``-j``) forked
from this process load them as it does, on the same way from the same arguments (they are
forked before: cli/score.py); a spawned worker starts with a fresh registry and loads the
same again (:func:`worker_setup`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ..engine.core.errors import JsonMatchError
from .input_error import InputError

# the call keys of the plugin's setting: the command has no runner to give them to
# (``timeout`` is the judge's own too, the deadline of one attempt: the command takes it)
_RUNNER_KEYS = ("concurrency", "retries", "rate", "retry_timeouts", "retry_budget")


def add_extension_arguments(parser: argparse._ActionsContainer) -> None:
    parser.add_argument(
        "--plugins",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (from the working directory too): its comparators, "
        "transforms and metrics, registered when imported or by its "
        "pytest_jsonmatch_register(registry) function; repeatable",
    )
    parser.add_argument(
        "--judge",
        metavar="SETTING",
        help="the LLM judge of the 'semantic' comparator, as the plugin's jsonmatch_judge: "
        "'model=NAME endpoint=URL key_env=VARIABLE prompt=FILE batch=N price_in=X price_out=X'",
    )


def worker_setup(args: argparse.Namespace) -> tuple[list[str], str | None] | None:
    """What a spawned worker must load as this process did (:func:`load_in_worker`'s
    arguments), or None where the command loads nothing."""
    plugins = list(getattr(args, "plugins", None) or [])
    judge = getattr(args, "judge", None)
    return (plugins, judge) if plugins or judge else None


def load_in_worker(plugins: list[str], judge: str | None) -> None:
    """A spawned worker's start: the ``--plugins`` and ``--judge`` the command loaded (they
    were checked there; the worker runs in the command's working directory)."""
    load_extensions(argparse.Namespace(plugins=plugins, judge=judge))


def load_extensions(args: argparse.Namespace) -> None:
    """Import each ``--plugins`` module and configure ``--judge``; a mistake is an
    InputError naming the option."""
    from ..engine.metrics import REGISTRY  # (here: the command parses its arguments first)

    for name in getattr(args, "plugins", None) or []:
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise InputError(f"--plugins {name}: cannot import it: {exc}") from None
        hook = getattr(module, "pytest_jsonmatch_register", None)
        try:
            if callable(hook):
                hook(registry=REGISTRY)
        except JsonMatchError as exc:
            raise InputError(f"--plugins {name}: {exc}") from None
    text = getattr(args, "judge", None)
    if text:
        words = text.split()
        runner = sorted({w.partition("=")[0] for w in words} & set(_RUNNER_KEYS))
        if runner:
            raise InputError(
                f"--judge: {', '.join(runner)} are for the pytest plugin's runner; the "
                f"jsonmatch command sends one request at a time per worker process (-j N)"
            )
        from pathlib import Path

        from ..engine.judge import judge_settings_from_text

        try:
            REGISTRY.configure_judge(judge_settings_from_text(text, "--judge", Path.cwd()))
        except JsonMatchError as exc:
            raise InputError(str(exc)) from None
