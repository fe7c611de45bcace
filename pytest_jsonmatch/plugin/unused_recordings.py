"""Recordings (and the judge's verdicts) no collected case uses (a case deleted or renamed),
named at the end of the session, removed when ``jsonmatch_record`` says ``prune``.

Every collected golden case counts as using its recordings, deselected ones too (``-k``,
``-m``): a subset run never calls another case's recording unused. Under xdist the
controller learns the collected node ids from the workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..calls.judge_recordings import unused_judgments, unused_note
from ..calls.recordings import relative, remove_recordings, unused_recordings
from ..cases.case_files import CaseFiles


class UnusedRecordings:
    """The plugin object that gathers the collected cases and, at the end, the unused."""

    def __init__(self, cases: CaseFiles, prune: bool, targets: tuple[str, ...] = ()) -> None:
        self.cases, self.prune, self.targets = cases, prune, targets
        self.collected: dict[Path, set[str | tuple[str, str]]] = {}
        self.unused, self.verdicts = list[Path](), 0  # recordings and verdicts none uses

    def _note(self, nodeid: str) -> None:
        path, sep, name = nodeid.partition("::")
        file = self.cases.root / path
        if sep and self.cases.is_case_file(file):
            # a case a named target runs is ``id[target]``, recorded apart for its target
            case = next(
                ((name[: -len(t) - 2], t) for t in self.targets if name.endswith(f"[{t}]")), name
            )
            self.collected.setdefault(file, set()).add(case)

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self._note(item.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        for nodeid in ids:
            self._note(nodeid)

    def pytest_sessionfinish(self) -> None:
        self.unused = unused_recordings(self.collected)
        if self.prune:
            remove_recordings(self.unused)
        self.verdicts = unused_judgments(self.cases.root, self.collected, self.prune)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        from ..engine.core.errors import safe_writer  # (a file's name is anyone's text)

        write = safe_writer(terminalreporter.write_line)
        if self.verdicts:
            write(unused_note(self.verdicts, self.prune))
        if not self.unused:
            return
        shown = [relative(path, self.cases.root) for path in self.unused]
        if self.prune:
            write(f"removed {len(shown)} unused recording(s): " + ", ".join(shown))
            return
        write(
            f"{len(shown)} recording(s) no collected case uses (deleted or renamed cases): "
            + ", ".join(shown[:10])
            + (", ..." if len(shown) > 10 else "")
            + "; remove them with --jsonmatch-record='once prune'",
            yellow=True,
        )
