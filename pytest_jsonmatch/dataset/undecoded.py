"""A record's JSON text, cut from its file but not yet decoded.

With ``jsonmatch score -j N`` the reading process only cuts lines: decoding a record costs
about as much as scoring it, so it is done where the record is scored, in a worker. A
record decodes there to what the reader would have made of it, and a line that is not JSON
fails there with the reader's message; the run reports the first such error in reading
order, so the outcome is the same for any N.
"""

from __future__ import annotations

import json
from typing import Any

from ..engine.core.errors import JsonMatchError
from ..engine.core.slotted import Slotted
from ..engine.reading.parse import LENIENT_JSON, STRICT_JSON


class RecordError(JsonMatchError):
    """A record that is not JSON: the message starts with where it is (file and line)."""


class Undecoded(Slotted):
    """One line of a JSONL file: its text, where it is (``gold.jsonl line 3``), and whether
    it is decoded strictly (gold: no duplicate keys) or leniently (a prediction)."""

    __slots__ = ("text", "where", "strict")

    def __init__(
        self,
        text: str,
        where: str,
        strict: bool,
    ) -> None:
        self.text, self.where, self.strict = text, where, strict


def decode_line(line: str, where: str, strict: bool) -> Any:
    """The JSON value a JSONL line holds (RecordError naming ``where`` otherwise)."""
    text = line.strip()
    try:
        value, end = (STRICT_JSON if strict else LENIENT_JSON).raw_decode(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{where}: not valid JSON: {exc.msg} (column {exc.colno}); a JSONL "
            f"file holds one JSON value per line"
        ) from None
    except ValueError as exc:  # NaN, Infinity, a duplicate key
        raise RecordError(f"{where}: not valid JSON: {exc}") from None
    except RecursionError:
        raise RecordError(f"{where}: nests too deeply to read") from None
    if end != len(text):
        raise RecordError(
            f"{where}: more than one JSON value on the line (column {end + 1}); a "
            f"JSONL file holds one JSON value per line"
        )
    return value


def decoded(value: Any) -> Any:
    """``value`` itself, or the value an :class:`Undecoded` line holds."""
    if isinstance(value, Undecoded):
        return decode_line(value.text, value.where, value.strict)
    return value
