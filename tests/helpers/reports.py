"""Reports read back in tests as the project's reader holds them: the file's comparisons'
field rows made into fields (reporting/run_model/field_rows.py), after the whole report is checked
against its schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_jsonmatch.reporting.run_model.validation import check_report


def held(text: str) -> Any:
    """A report's JSON text (a file's, or a command's output) as the reader holds it."""
    return check_report(json.loads(text), "the report")


def read(path: str | Path) -> Any:
    """The report file at ``path`` as the reader holds it."""
    return held(Path(path).read_text(encoding="utf-8"))
