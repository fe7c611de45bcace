"""The pytest layer: adapts the engine to pytest, and is the ``jsonmatch`` entry point.

Takes pytest's options and ini settings, the golden cases of cases/ and the tests' calls;
gives test items, assertion failures, recorded comparisons and the session's report and
gates. May import the engine, reporting and cases; nothing below imports it.
The hooks pytest calls live in hooks.py and are exported here, because pytest loads the
entry point ``pytest_jsonmatch.plugin`` as the plugin object.
"""

from .hooks import (
    json_match,
    pytest_addhooks,
    pytest_addoption,
    pytest_collect_file,
    pytest_configure,
    pytest_unconfigure,
)

__all__ = [
    "json_match",
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_configure",
    "pytest_unconfigure",
]
