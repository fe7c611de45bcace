"""The command line's own error: bad usage or bad input, shown as one line, exit status 2."""

from __future__ import annotations

from ..engine.core.errors import JsonMatchError


class InputError(JsonMatchError):
    """A file, a record or an argument the command cannot use. The message names where
    (file, line or record, JSON path) and what is wrong, in one line."""
