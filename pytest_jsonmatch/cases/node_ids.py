"""What of a case file becomes part of a pytest test id: the file's path from the test root and
each case's id. pytest prints a test id as it is (its progress lines, a failure's header, the
short summary), where the plugin cannot escape it, so neither may hold what would break
docs/errors.md's "Security" rule there: a control or format character (a line break, an
escape sequence, a bidirectional override) or the start of a CI workflow command (``::``,
``##[``). A case id that does is refused at its line (case_files.py); a case file whose path
does is collected under its path escaped (:func:`escaped_path`) and its collection fails
(:func:`check_path`), before it is read: pytest never prints the path as it is.
"""

from __future__ import annotations

import re

from ..engine.core.errors import CaseFileError, printable

_BREAK = "\u200b"  # as engine/core/errors.py's workflow_safe breaks a command's start


def fits_test_id(text: str) -> bool:
    """Whether ``text`` may stand in a test id pytest prints as it is: one printable line
    without ``::`` (pytest's own separator, and a workflow command's start) or ``##[``."""
    return text.isprintable() and "::" not in text and "##[" not in text


def escaped_path(shown: str) -> str | None:
    """The name a case file at ``shown`` (its path from the test root) is collected under:
    None when the path fits a test id, else the path with its control and format characters
    written as escapes (``\\n``, ``\\x1b``, ``\\u202e``) and a zero-width space inside each
    ``::`` and ``##[``, which fits one."""
    if fits_test_id(shown):
        return None
    return re.sub(":(?=:)", ":" + _BREAK, printable(shown, keep="")).replace(
        "##[", "#" + _BREAK + "#["
    )


def check_path(shown: str) -> None:
    """Refuse a case file whose path from the test root (``shown``) does not fit a test id: a
    CaseFileError naming it escaped."""
    name = escaped_path(shown)
    if name is not None:
        raise CaseFileError(
            f"{name}:1: the case file's path is not one printable line free of '::' and '##[' "
            "(pytest prints a test id as it is, and a CI log could read it as a command); "
            "rename the file"
        )
