"""What a session says of its golden suite at its end (cases/typos.py): the paths folders'
and files' settings name that none of their cases has (xdist's workers hand theirs to the
controller, which collects nothing), and golden folders pytest does not collect."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..cases.typos import SharedPaths
    from .settings import Settings


class GoldenChecks:
    """Registered once (``register``): with the session where golden folders are set or
    xdist runs, else with the first case file collected."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        from ..cases.typos import SharedPaths, uncollected_folders

        self.config, self.settings, self.shared = config, settings, SharedPaths()
        default = config.args_source is not config.ArgsSource.ARGS and settings.golden
        testpaths, here = (
            config.args_source is config.ArgsSource.TESTPATHS,
            config.invocation_params.dir,
        )
        self.lines = (
            uncollected_folders(settings.golden, config.args, testpaths, here) if default else []
        )

    @staticmethod
    def register(config: pytest.Config, settings: Settings) -> None:
        if not config.pluginmanager.has_plugin("jsonmatch-golden-checks"):
            config.pluginmanager.register(GoldenChecks(config, settings), "jsonmatch-golden-checks")

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: object) -> None:
        self.shared.merge(getattr(node, "workeroutput", {}).get("jsonmatch_shared_paths"))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        items = sys.modules.get("pytest_jsonmatch.plugin.golden_items")  # (loaded with a case)
        golden = self.config.stash.get(items.GOLDEN_SESSION, None) if items is not None else None
        mine: SharedPaths = golden.shared_paths if golden is not None else self.shared
        output = getattr(self.config, "workeroutput", None)
        if output is not None:  # an xdist worker: the controller judges
            output["jsonmatch_shared_paths"] = mine.data()
            return
        mine.merge(self.shared.data() if mine is not self.shared else [])
        typos = mine.typos()
        self.lines += [f"{typo} ({self._verdict})" for typo in typos]
        if typos and self.settings.gates.strict and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @property
    def _verdict(self) -> str:
        gates = self.settings.gates
        return "fails the run" if gates.strict else f"warning; {gates.names.strict} fails the run"

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        from ..engine.core.errors import safe_writer

        for line in self.lines if not hasattr(self.config, "workerinput") else ():
            safe_writer(terminalreporter.write_line)(line, yellow=True)
