"""The pytest layer: adapts the golden-case stages and the engine to pytest, and is the
``jsonmatch`` entry point.

Takes pytest's options and ini settings (declared from session/setting_table.py), the golden
cases of cases/, the outputs and live calls of calls/, and the session's pytest-free plumbing
of session/ (the channel, outcomes, ``assert_json_match``, the run's provenance); gives test
items, assertion failures, the comparisons of each test gathered (from xdist's workers too)
and the session's report and gates. May import the engine, reporting, cases/, calls/,
telemetry/ and session/; nothing imports it. The hooks pytest calls live in hooks.py and are
exported here, because pytest loads the entry point ``pytest_jsonmatch.plugin`` as the
plugin object.

Its first statement takes the package off pytest's assertion-rewriting list (plain_imports.py),
before the hooks' modules, and every module a session imports after them, are imported.
"""

from .plain_imports import import_plainly

import_plainly()

from .hooks import (  # noqa: E402 (after the package is off pytest's rewriting list)
    json_match,
    pytest_addhooks,
    pytest_addoption,
    pytest_collect_file,
    pytest_configure,
    pytest_terminal_summary,
    pytest_unconfigure,
)

__all__ = [
    "json_match",
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_configure",
    "pytest_terminal_summary",
    "pytest_unconfigure",
]
