"""Reading JSON: strictly for expected values, leniently for what a model returned.

Lenient parsing runs in time linear in the text: every candidate ``{`` is matched to its
closing brace in one pass, and a failed parse attempt tells where it failed, so the
candidates nested around that point are known to fail too and are never retried.

A text cut off inside its JSON value (an answer stopped by max_tokens) is found before any
complete object inside that value can be taken for the answer (truncation.py): it is a
TruncatedError, or, when asked, the value closed.

When nothing parses, a code fence holding broken JSON (a missing comma) is what the model
meant to give: the error names its JSON error, line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final

from ..core.cut_off import Truncation
from ..core.errors import ConfigError, ParseError, shown
from ..core.paths import index_segment, key_segment
from ..core.slotted import Slotted
from ..core.values import JsonObject, JsonValue
from .deep_json import LENIENT_JSON as LENIENT_JSON
from .deep_json import _reject_constant, read_value, read_whole
from .truncation import closing, first_cut

_FENCE = "```"


def _no_duplicates(pairs: list[tuple[str, JsonValue]]) -> JsonObject:
    """An object's pairs as a dict, or ValueError naming its first key given twice. The
    dict is made in C and its size tells whether a key repeated (a loop over the pairs in
    Python took half of a dataset's gold decoding); only then are the pairs looked at."""
    out: JsonObject = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen.add(key)
    raise AssertionError("unreachable: a dict smaller than its pairs repeats a key")


# JSON as the standard has it: NaN and Infinity refused; STRICT_JSON also refuses a key
# given twice (gold must say one thing); LENIENT_JSON (deep_json.py) keeps the last (model
# output), and what a model returned is read through deep_json, alike from any call stack
STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)


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


def _decode_strict(text: str, what: str) -> JsonValue:
    try:
        value: JsonValue = STRICT_JSON.decode(text.strip())
        return value
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}) "
            f"(text starts {_preview(text)})"
        ) from None
    except ValueError as exc:  # NaN / Infinity / duplicate key
        raise ParseError(
            f"{what} is not valid JSON: {exc} (text starts {_preview(text)})"
        ) from None
    except RecursionError:
        raise ParseError(
            f"{what} nests too deeply to read (text starts {_preview(text)})"
        ) from None


def parse_expected(value: object, *, allow_array: bool = False, what: str = "expected") -> object:
    """Strict: a mapping, or a string/bytes holding exactly one JSON object (or array when
    the metric allows one)."""
    if type(value) is dict or isinstance(value, Mapping):
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


_TRUNCATED = ("error", "close")


def check_truncated(truncated: object) -> None:
    """ConfigError unless ``truncated`` is one of the ways to read a cut answer."""
    if not isinstance(truncated, str) or truncated not in _TRUNCATED:
        raise ConfigError(
            f"option truncated must be 'error' or 'close', not {shown(truncated)} "
            f"('close' scores an answer cut off inside its JSON value closed, for "
            f"partial credit)"
        )


def parse_actual(
    value: object, *, allow_array: bool = False, what: str = "actual", truncated: str = "error"
) -> object:
    """Lenient for text: the whole text, then the first fenced block, then the first balanced
    ``{...}`` span that parses to an object. Mappings (and arrays, where allowed) pass as they
    are. Text cut off inside its JSON value (docs/metrics.md, section 2) is never read as a
    value inside it: a TruncatedError, or with ``truncated="close"`` the value closed
    (``close_truncated``)."""
    return parse_actual_checked(value, allow_array=allow_array, what=what, truncated=truncated)[0]


def parse_actual_checked(
    value: object, *, allow_array: bool = False, what: str = "actual", truncated: str = "error"
) -> tuple[object, Truncation | None]:
    """``parse_actual``, and whether the text was cut off: (value, None) for a complete
    answer; under ``truncated="close"``, (the value closed, where it was cut) for a cut one."""
    check_truncated(truncated)
    if type(value) is dict or isinstance(value, Mapping):
        return value, None
    if isinstance(value, (list, tuple)) and allow_array:
        return value, None
    if not isinstance(value, (str, bytes, bytearray)):
        wanted = "a mapping, an array or text" if allow_array else "a mapping or text"
        raise ParseError(f"{what} must be {wanted}, not {type(value).__name__}")
    text = _as_text(value, what)
    found = _lenient(text, allow_array, what)
    if isinstance(found, ParseError):  # only a value nested past the door's depth was found
        raise found
    if isinstance(found, _FencedCut):  # the answer ends where its fence's body ends
        fenced = found
        found, text = fenced.cut, fenced.text
    if isinstance(found, Truncation):
        if truncated == "error":
            raise found.error(text, what)
        return _closed(text, found, allow_array, what)
    if found is _NOTHING:
        raise ParseError(_nothing_found(text, what))
    return found, None


def _closed(
    text: str, cut: Truncation, allow_array: bool, what: str
) -> tuple[JsonValue, Truncation]:
    """The value ``text`` was cut off in, closed and read (truncated="close"), and ``cut``
    naming the array elements that were being written."""
    closed = closing(text[cut.start :])
    try:
        value = read_whole(closed.text, what)
    except ParseError:  # nested past the door's depth once closed
        raise
    except ValueError as exc:  # an integer too long to read
        raise ParseError(f"{what} was cut off and cannot be read once closed: {exc}") from None
    if isinstance(value, dict) or (allow_array and isinstance(value, list)):
        steps = closed.open_containers - 1 + closed.open_leaf
        chain = _open_chain(value, steps)
        leaf = chain[-1] if closed.open_leaf and len(chain) == steps + 1 else None
        return value, cut.replace(
            elements=_open_elements(value, steps),
            open_paths=tuple(chain[: closed.open_containers]),
            cut_leaf=leaf,
        )
    raise cut.error(text, what)  # an array where an object is needed: nothing to score


def _open_elements(value: JsonValue, steps: int) -> tuple[str, ...]:
    """The instance paths of the array elements along the path the model was writing: from
    the closed root, ``steps`` times its last child (each open value is its parent's last)."""
    path, elements = "", []
    for _ in range(steps):
        if isinstance(value, list) and value:
            path = index_segment(path, len(value) - 1)
            elements.append(path)
            value = value[-1]
        elif isinstance(value, dict) and value:
            key = next(reversed(value))  # a duplicate key keeps its first place: the path stops
            path, value = key_segment(path, key), value[key]
        else:
            break
    return tuple(elements)


def _open_chain(value: JsonValue, steps: int) -> list[str]:
    """The instance paths from the closed root (``""``) down ``steps`` times its last child:
    each value that was open at the cut, then the leaf cut partway, if any."""
    path, chain = "", [""]
    for _ in range(steps):
        if isinstance(value, list) and value:
            path, value = index_segment(path, len(value) - 1), value[-1]
        elif isinstance(value, dict) and value:
            key = next(reversed(value))
            path, value = key_segment(path, key), value[key]
        else:
            break
        chain.append(path)
    return chain


def _nothing_found(text: str, what: str) -> str:
    """Why no object was found in ``text``: the JSON error of its first fenced object when it
    has one (what the model meant to give), else only that none was found."""
    broken = _fenced_error(text) if "{" in text else None
    if broken is None:
        return f"no JSON object found in {what}: {_preview(text)}"
    return (
        f"no JSON object found in {what}: its code fence holds broken JSON: {broken} "
        f"(text starts {_preview(text)})"
    )


_NOTHING: Final = object()  # no value found (the functions below give it or a value)


class _Door:
    """What the search for an answer passed over for nesting past the door's depth: the
    door's error of the first such value (deep_json.py reads it alike from any call
    stack), the verdict when nothing else is found. ``what``: the side it names."""

    __slots__ = ("too_deep", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self.too_deep: ParseError | None = None

    def passed_over(self, error: ParseError) -> None:
        if self.too_deep is None:
            self.too_deep = error


def _try_whole(text: str, allow_array: bool, door: _Door) -> object:
    """The object (or array, where allowed) the whole text is, else _NOTHING."""
    if text[:1] == "[" and not allow_array:
        return _NOTHING  # (an array is not the answer here: the search looks inside it)
    try:
        parsed = read_whole(text, door.what)
    except ParseError as error:  # JSON nested past the door's depth
        door.passed_over(error)
        return _NOTHING
    except ValueError:
        return _NOTHING
    if isinstance(parsed, dict) or (allow_array and isinstance(parsed, list)):
        return parsed
    return _NOTHING


def _lenient(text: str, allow_array: bool, what: str) -> object:
    """The value the text gives (docs/metrics.md, section 2), _NOTHING, the Truncation of
    a text cut off inside its value, or, where only values nested past the door's depth
    were found, the door's ParseError for the first."""
    door = _Door(what)
    found = _search(text, allow_array, door)
    if found is _NOTHING and door.too_deep is not None:
        return door.too_deep
    return found


def _search(text: str, allow_array: bool, door: _Door) -> object:
    """The value the text gives, _NOTHING, or the Truncation of a text cut off."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        parsed = _try_whole(stripped, allow_array, door)
        if parsed is not _NOTHING:
            return parsed
    first = min((at for at in (text.find("{"), text.find("[")) if at != -1), default=-1)
    if first == -1:
        return _NOTHING  # no object and no array anywhere: spare the searches
    parsed, open_fence = _first_fenced(text, door)
    if parsed is not _NOTHING:
        return parsed
    fenced = _cut_in_closed_fence(text, door) if open_fence is None and _FENCE in text else None
    if fenced is not None:
        return fenced
    # a fence left open around a value cut off: that value, whatever prose came before
    if (
        open_fence is not None
        and first_cut(text, open_fence, open_fence + 1, (open_fence,)) is not None
    ):
        return Truncation.of(text, open_fence)
    found, at = _first_balanced(text, door) if "{" in text else (_NOTHING, len(text))
    # a value cut off that opens before the first complete object is the answer, cut
    cut = first_cut(text, first, at, (len(text) - len(text.lstrip()),))
    return Truncation.of(text, cut) if cut is not None else found


class _FencedCut(Slotted):
    """A value cut off inside a code fence that was closed after it: the cut, and the text
    up to the end of the fence's body (where the answer, read as JSON, ends)."""

    __slots__ = ("cut", "text")

    def __init__(
        self,
        cut: Truncation,
        text: str,
    ) -> None:
        self.cut, self.text = cut, text


def _cut_in_closed_fence(text: str, door: _Door) -> _FencedCut | None:
    """The value the first closed fence opening with ``{`` holds, when it is cut off inside
    it (a model stopped mid-value, the fence closed by whatever wrapped its output): read up
    to the end of the body, it is an answer cut off, not prose holding an inner object.
    None when a complete object follows the fence (the answer the model gave instead)."""
    bounds = _fenced_body(text)
    if bounds is None or bounds[1] >= len(text):
        return None
    body = text[bounds[0] : bounds[1]]
    at = bounds[0] + len(body) - len(body.lstrip())
    inner = text[: bounds[0] + len(body.rstrip())]
    if first_cut(inner, at, at + 1, (at,)) is None:
        return None
    after = text[bounds[1] + len(_FENCE) :]
    if "{" in after and _first_balanced(after, door)[0] is not _NOTHING:
        return None
    return _FencedCut(Truncation.of(inner, at), inner)


# A fenced body that could hold one object and nothing else: "{", anything, "}", and
# whitespace around as str.strip() takes it (\s is the same set). Matched within the body's
# bounds, so it never reads past the closing fence.
_WHOLE_OBJECT = re.compile(r"\s*\{.*\}\s*\Z", re.S)


def _first_fenced(text: str, door: _Door) -> tuple[object, int | None]:
    """The object the first closed code fence holds (_NOTHING when none holds one), and
    where the value of a fence the text ends inside begins (the offset of the first ``{``
    or ``[`` of its body), or None."""
    find, whole_object = text.find, _WHOLE_OBJECT.match
    start = find(_FENCE)
    while start != -1:
        body_start = find("\n", start + 3)
        if body_start == -1:
            return _NOTHING, None
        end = find(_FENCE, body_start)
        if end == -1:  # never closed
            opens = _OPENS_VALUE.match(text, body_start + 1)
            return _NOTHING, (opens.end() - 1 if opens else None)
        if whole_object(text, body_start + 1, end):  # else no object fills the body
            parsed = _try_whole(text[body_start + 1 : end].strip(), False, door)
            if parsed is not _NOTHING:
                return parsed, None
        start = find(_FENCE, end + 3)
    return _NOTHING, None


_OPENS_OBJECT = re.compile(r"\s*\{")  # \s: the whitespace str.strip() takes
_OPENS_VALUE = re.compile(r"\s*[{\[]")


def _fenced_body(text: str) -> tuple[int, int] | None:
    """Where the body of the first code fence that opens with ``{`` lies, as (start, end):
    up to its closing fence, or to the end of the text when it has none (an answer cut
    short). None when no fence holds one. One pass over the text."""
    find = text.find
    start = find(_FENCE)
    while start != -1:
        body_start = find("\n", start + 3)
        if body_start == -1:
            return None
        end = find(_FENCE, body_start)
        stop = len(text) if end == -1 else end
        if _OPENS_OBJECT.match(text, body_start + 1, stop):
            return body_start + 1, stop
        if end == -1:
            return None
        start = find(_FENCE, end + 3)
    return None


def _fenced_error(text: str) -> str | None:
    """The JSON error of the first fenced object (``Expecting ',' delimiter (line 3,
    column 5)``, the line and column counted in ``text``), or None when there is none or it
    fails otherwise (too deep to read)."""
    bounds = _fenced_body(text)
    if bounds is None:
        return None
    body = text[bounds[0] : bounds[1]]
    lead = len(body) - len(body.lstrip())
    try:
        read_whole(body.strip(), "a fence's body")
    except json.JSONDecodeError as exc:
        at = bounds[0] + lead + exc.pos
        line = text.count("\n", 0, at) + 1
        column = at - text.rfind("\n", 0, at)
        return f"{exc.msg} (line {line}, column {column})"
    except ParseError:  # nested past the door's depth: no JSON error to name
        return None
    except ValueError as exc:  # NaN / Infinity
        return str(exc)
    return None


# A JSON object opens with "{}" or with "{", a key, a colon and the first character of a
# value; any other "{" cannot start one, so the search skips it at C speed.
_OBJECT_START = re.compile(
    r'\{[ \t\r\n]*(?:\}|"(?:[^"\\\n]|\\.)*"[ \t\r\n]*:[ \t\r\n]*[-0-9"\[{tfn])'
)
_OPEN, _CLOSE = ord("{"), ord("}")
_SMALL_REGION = 64


def _attempt(text: str, start: int, stop: int, door: _Door) -> tuple[JsonValue, int]:
    """Parse an object at ``start`` that ends before ``stop``: (object, -1) on success,
    (None, error position) on failure, (None, -2) when it nests past the door's depth
    (its error kept by ``door``). Read through deep_json: each attempt ends alike from any
    call stack, so the search takes the same steps from anywhere.

    The decoder reads a growing window rather than the whole remaining text, because a
    decode error counts the lines before its position: on a 10 MB text, failing far from
    the window's start must not cost a scan of everything before it.
    """
    width = 512
    while True:
        end = min(start + width, stop)
        chunk = text[start:end]
        try:
            parsed, _ = read_value(chunk, 0, door.what)
            return parsed, -1
        except json.JSONDecodeError as exc:
            if end < stop and (exc.pos >= len(chunk) - 8 or exc.msg.startswith("Unterminated")):
                width *= 4  # the window cut the object short: read further
                continue
            return None, start + max(exc.pos, 1)
        except ParseError as error:  # past the door's depth before it broke
            door.passed_over(error)
            return None, -2
        except ValueError:  # NaN / Infinity
            return None, start + 1


class _Depths:
    """Brace depth after every character, computed once per text with numpy, ignoring
    strings: it only steers which candidates are worth a parse, never what counts as parsed."""

    def __init__(self, text: str) -> None:
        import numpy as np

        self.np = np
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        self.codes = codes
        step = (codes == _OPEN).view(np.int8) - (codes == _CLOSE).view(np.int8)
        self.depth = np.cumsum(step, dtype=np.int32)

    def closed_opens(self, lo: int, hi: int) -> list[int]:
        """Braces in [lo, hi) whose object closes before ``hi``, in order."""
        np = self.np
        if hi - lo < 2:
            return []
        seg = self.depth[lo:hi]
        after_min = np.minimum.accumulate(seg[::-1])[::-1]
        opens = np.flatnonzero(self.codes[lo : hi - 1] == _OPEN)
        if opens.size == 0:
            return []
        # an open brace at i leaves depth d; its object closes when depth drops below d
        closes = after_min[opens + 1] < seg[opens]
        return (opens[closes] + lo).tolist()  # type: ignore[no-any-return]

    def close_of(self, start: int) -> int:
        """Where the object opened at ``start`` closes, or len(text) if it never does."""
        np = self.np
        level = self.depth[start]
        below = np.flatnonzero(self.depth[start + 1 :] < level)
        return int(below[0]) + start + 1 if below.size else len(self.depth)


_DIRECT_TRIES = 256


def _first_balanced(text: str, door: _Door) -> tuple[object, int]:
    """The first ``{`` from which a JSON object parses: (the object, its offset), or
    (_NOTHING, len(text)).

    Ordinary text is tried candidate by candidate. Past a few hundred failed candidates the
    text is adversarial, and the search switches to the candidates whose braces close at
    all (found for the whole text at once with numpy). After a failed attempt, the text up
    to the failure point is a valid JSON prefix: of the candidates inside it only those
    whose object closes before that point can succeed, so the rest are never retried and
    the scan resumes at the failure point. Each character is passed over a bounded number
    of times.
    """
    n = len(text)
    pos = 0
    for _ in range(_DIRECT_TRIES):
        m = _OBJECT_START.search(text, pos)
        if m is None:
            return _NOTHING, n
        start = m.start()
        parsed, fail = _attempt(text, start, n, door)
        if parsed is not None:
            return parsed, start
        if fail != -2 and fail - start < _SMALL_REGION:
            pos = start + 1
            continue
        depths = _Depths(text)
        found, pos = _after_failure(text, depths, start, fail, door)
        if found[0] is not _NOTHING:
            return found
    depths = _Depths(text)
    for start in depths.closed_opens(pos, n):
        if start < pos or _OBJECT_START.match(text, start) is None:
            continue
        parsed, fail = _attempt(text, start, n, door)
        if parsed is not None:
            return parsed, start
        found, pos = _after_failure(text, depths, start, fail, door)
        if found[0] is not _NOTHING:
            return found
    return _NOTHING, n


def _after_failure(
    text: str, depths: _Depths, start: int, fail: int, door: _Door
) -> tuple[tuple[object, int], int]:
    """Search the candidates nested before a failure point; return ((found, where), resume
    at)."""
    stop = depths.close_of(start) if fail == -2 else fail
    if stop - start >= _SMALL_REGION:
        found = _search_region(text, depths, start + 1, stop, door)
        if found[0] is not _NOTHING:
            return found, stop
    return (_NOTHING, len(text)), max(stop, start + 1)


def _search_region(text: str, depths: _Depths, lo: int, hi: int, door: _Door) -> tuple[object, int]:
    skip_until = -1
    for candidate in depths.closed_opens(lo, hi):
        if candidate < skip_until or _OBJECT_START.match(text, candidate) is None:
            continue
        parsed, fail = _attempt(text, candidate, hi, door)
        if parsed is not None:
            return parsed, candidate
        if fail == -2:  # past the door's depth: nothing nested in it is tried either
            skip_until = depths.close_of(candidate)
    return _NOTHING, len(text)
