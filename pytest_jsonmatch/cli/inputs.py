"""Reading what the command line is given: one JSON document (a path or ``-``), a JSON or
YAML settings file, ``KEY=VALUE`` options. Every failure is an InputError naming the file."""

from __future__ import annotations

import json
import sys

from ..engine.core.errors import JsonMatchError
from ..engine.core.values import JsonValue
from ..engine.reading.parse import LENIENT_JSON, STRICT_JSON
from ..engine.reading.user_files import read_regular
from .input_error import InputError

MAX_INPUT_BYTES = 512 * 1024 * 1024  # one document (a pair side, a settings file)
STDIN = "-"


def path_shown(path: str) -> str:
    """A path as messages name it (standard input as ``<stdin>``)."""
    return "<stdin>" if path == STDIN else path


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file, or of standard input for ``-`` (a FIFO or a device
    given by name is refused: it could block or never end)."""
    if path == STDIN:
        if sys.stdin is None:
            raise InputError("<stdin>: there is no standard input to read")
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    else:
        data = read_regular(path, "file", InputError, MAX_INPUT_BYTES)
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{path_shown(path)}: larger than {MAX_INPUT_BYTES // 2**20} MB")
    return data


def read_text(path: str) -> str:
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path_shown(path)}: not UTF-8 text (byte {exc.start})") from None


def decode_json(text: str, where: str, strict: bool = True) -> JsonValue:
    """One JSON value from ``text``, or InputError naming ``where`` and the line."""
    decoder = STRICT_JSON if strict else LENIENT_JSON
    try:
        value, end = decoder.raw_decode(text, len(text) - len(text.lstrip()))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{where} line {exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno})"
        ) from None
    except ValueError as exc:
        raise InputError(f"{where}: not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: nests too deeply to read") from None
    if text[end:].strip():
        line = text.count("\n", 0, end) + 1
        raise InputError(f"{where} line {line}: more than one JSON value")
    decoded: JsonValue = value  # (json's decoder makes only JSON values)
    return decoded


def read_settings(path: str, what: str) -> JsonValue:
    """A JSON or YAML file (``.yaml``/``.yml``: YAML; otherwise JSON, or YAML when it is not
    JSON)."""
    return read_settings_as(path, what)[0]


def read_settings_as(path: str, what: str) -> tuple[JsonValue, str]:
    """:func:`read_settings`, and which it was read as: ``"json"`` or ``"yaml"``."""
    if path.lower().endswith((".yaml", ".yml")):
        return _read_yaml(path, what), "yaml"
    text = read_text(path)
    try:
        return decode_json(text, path_shown(path)), "json"
    except InputError:
        if text.lstrip().startswith(("{", "[")):
            raise
        return _read_yaml(path, what), "yaml"


def _read_yaml(path: str, what: str) -> JsonValue:
    from ..engine.reading.safe_yaml import read_yaml

    if path == STDIN:
        raise InputError(f"the {what} cannot be read from standard input as YAML; give a file")
    read_bytes(path)  # a regular file of bounded size
    from pathlib import Path  # (here, not at the top: compare and score of JSON import none)

    try:
        value, _ = read_yaml(Path(path), path)
    except JsonMatchError as exc:
        raise InputError(str(exc)) from None
    loaded: JsonValue = value  # (only JSON values: keys are strings, a timestamp its text)
    return loaded


def parse_option(text: str) -> tuple[str, JsonValue]:
    """``KEY=VALUE``: VALUE read as JSON when it is JSON (``0.5``, ``["id"]``, ``true``),
    else kept as a string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise InputError(f"--option wants KEY=VALUE, not {text!r}")
    value: JsonValue
    try:
        value = STRICT_JSON.decode(raw)
    except ValueError:
        value = raw
    return key, value
