"""Reading JSON: strictly for expected values, leniently for what a model returned.

Lenient parsing runs in time linear in the text: every candidate ``{`` is matched to its
closing brace in one pass, and a failed parse attempt tells where it failed, so the
candidates nested around that point are known to fail too and are never retried.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .errors import ParseError

_FENCE = "```"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


_STRICT = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
_LENIENT = json.JSONDecoder(parse_constant=_reject_constant)


def _preview(text: str, limit: int = 80) -> str:
    head = text[:limit]
    return repr(head) + ("..." if len(text) > limit else "")


def _as_text(raw: str | bytes | bytearray, what: str) -> str:
    if isinstance(raw, (bytes, bytearray)):
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(
                f"{what} is not valid UTF-8: byte {exc.start} is 0x{raw[exc.start]:02x}"
            ) from None
    return raw


def _decode_strict(text: str, what: str) -> Any:
    try:
        return _STRICT.decode(text.strip())
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno} "
            f"(text starts {_preview(text)})"
        ) from None
    except ValueError as exc:  # NaN / Infinity / duplicate key
        raise ParseError(f"{what} is not valid JSON: {exc} (text starts {_preview(text)})") from None
    except RecursionError:
        raise ParseError(f"{what} nests too deeply to read (text starts {_preview(text)})") from None


def parse_expected(value: Any, *, allow_array: bool = False, what: str = "expected") -> Any:
    """Strict: a mapping, or a string/bytes holding exactly one JSON object (or array when
    the metric allows one)."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, (list, tuple)) and allow_array:
        return value
    if isinstance(value, (str, bytes, bytearray)):
        parsed = _decode_strict(_as_text(value, what), what)
        if isinstance(parsed, dict) or (allow_array and isinstance(parsed, list)):
            return parsed
        found = type(parsed).__name__ if not isinstance(parsed, list) else "an array"
        raise ParseError(f"{what} must hold a JSON object, found {found}: {_preview(str(value))}")
    wanted = "a mapping or array" if allow_array else "a mapping"
    raise ParseError(f"{what} must be {wanted} or a JSON string, not {type(value).__name__}")


def parse_actual(value: Any, *, allow_array: bool = False, what: str = "actual") -> Any:
    """Lenient for text: the whole text, then the first fenced block, then the first balanced
    ``{...}`` span that parses to an object. Mappings (and arrays, where allowed) pass as they are."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, (list, tuple)) and allow_array:
        return value
    if not isinstance(value, (str, bytes, bytearray)):
        wanted = "a mapping, an array or text" if allow_array else "a mapping or text"
        raise ParseError(f"{what} must be {wanted}, not {type(value).__name__}")
    text = _as_text(value, what)
    found = _lenient(text, allow_array)
    if found is _NOTHING:
        raise ParseError(f"no JSON object found in {what}: {_preview(text)}")
    return found


_NOTHING: Any = object()


def _try_whole(text: str, allow_array: bool) -> Any:
    try:
        parsed = _LENIENT.decode(text)
    except (ValueError, RecursionError):
        return _NOTHING
    if isinstance(parsed, dict) or (allow_array and isinstance(parsed, list)):
        return parsed
    return _NOTHING


def _lenient(text: str, allow_array: bool) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        parsed = _try_whole(stripped, allow_array)
        if parsed is not _NOTHING:
            return parsed
    parsed = _first_fenced(text)
    if parsed is not _NOTHING:
        return parsed
    return _first_balanced(text)


def _first_fenced(text: str) -> Any:
    start = text.find(_FENCE)
    while start != -1:
        body_start = text.find("\n", start + 3)
        if body_start == -1:
            return _NOTHING
        end = text.find(_FENCE, body_start)
        if end == -1:
            return _NOTHING
        body = text[body_start + 1 : end].strip()
        if body.startswith("{"):
            parsed = _try_whole(body, allow_array=False)
            if parsed is not _NOTHING:
                return parsed
        start = text.find(_FENCE, end + 3)
    return _NOTHING


def _matching_braces(text: str) -> list[tuple[int, int]]:
    """Every balanced ``{...}`` span as (start, end) in order of start. Inside braces, JSON
    strings are skipped so their braces do not count; outside, quotes are prose."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    find = text.find
    n = len(text)
    i = find("{")
    while 0 <= i < n:
        ch = text[i]
        if ch == "{":
            stack.append(i)
        elif ch == "}":
            if stack:
                spans.append((stack.pop(), i))
        elif ch == '"' and stack:
            j = i + 1
            while True:
                q = find('"', j)
                if q == -1:
                    i = n
                    break
                k = q - 1
                while text[k] == "\\":
                    k -= 1
                if (q - 1 - k) % 2 == 0:  # an even run of backslashes: the quote is real
                    i = q
                    break
                j = q + 1
        m = (_INSIDE if stack else _OUTSIDE).search(text, i + 1)
        i = m.start() if m else n
    spans.sort()
    return spans


# Regex searches stop at the first hit, so each step costs only the distance it moves.
_INSIDE = re.compile(r'[{}"]')
_OUTSIDE = re.compile(r"\{")


def _first_balanced(text: str) -> Any:
    blocked_until = -1  # candidates starting before this and enclosing the last error fail too
    blocked_from = -1
    for start, end in _matching_braces(text):
        if start < blocked_until and end >= blocked_from:
            continue
        try:
            parsed, stop = _LENIENT.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            blocked_until, blocked_from = exc.pos, exc.pos
            continue
        except ValueError:
            continue
        except RecursionError:
            blocked_until, blocked_from = end, start
            continue
        if isinstance(parsed, dict):
            return parsed
    return _NOTHING
