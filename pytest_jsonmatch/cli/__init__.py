"""The command line: ``jsonmatch`` (also ``python -m pytest_jsonmatch``).

Takes files (answers, expected values, JSONL datasets, saved reports) and flags; gives
scores, reports and an exit status. May import the engine, dataset and reporting; never
pytest or the plugin.
"""

from .app import main

__all__ = ["main"]
