"""BFCL's reading of Java and JavaScript argument values, which models write as source text.

The Berkeley Function Calling Leaderboard's AST checker takes every Java and JavaScript
argument as a string and converts it by the declared type with regular expressions
(``"5L"`` is the long 5, ``"new int[]{1, 2}"`` the array [1, 2]); text that does not fit
stays text. These functions do the same conversion, rule for rule, so that ``rules: bfcl``
gives the leaderboard's verdict: where its conversion is lax (a ``char`` never converts,
the elements of a JavaScript array split on every comma) this is lax the same way. Where it
raises (a ``Set``, an unknown type), :class:`Unconvertible` is raised.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from ..core.values import JsonObject, JsonValue

# Every pattern below is either matched at one position only or searched with a literal
# start, and has no nested repetition and no two adjacent quantified parts that can read the
# same character, so each attempt is linear and the attempts never rescan each other's text.
# BFCL's own patterns with lazy ``.*?`` before a delimiter (searched from every start) and
# ``\s*\{?\s*(.*?)\s*\}?\s*\}``-style tails backtrack polynomially or exponentially; they are
# read here by the scanners further down, which give the same match (the same groups) as
# Python's backtracking engine gives for BFCL's pattern, in linear time (up to a logarithm).
_WS = re.compile(r"\s*")
_WS_CHAR = re.compile(r"\s")


def _ws_end(text: str, i: int) -> int:
    """The end of the run of whitespace (as ``\\s`` reads it) that starts at ``i``."""
    found = _WS.match(text, i)
    return found.end() if found else i


def _ws_start(text: str, i: int) -> int:
    """The start of the run of whitespace that ends just before ``i``."""
    while i > 0 and _WS_CHAR.match(text, i - 1):
        i -= 1
    return i


class _Marks:
    """Where a literal occurs in a text (overlapping occurrences included), so that "the first
    occurrence at or after i" is a bisection rather than a scan."""

    __slots__ = ("at",)

    def __init__(self, text: str, literal: str) -> None:
        self.at = [m.start() for m in re.finditer(f"(?={re.escape(literal)})", text)]

    def first(self, i: int) -> int:
        """The first occurrence at or after ``i``; -1 where there is none."""
        k = bisect_left(self.at, i)
        return self.at[k] if k < len(self.at) else -1


class _Lines:
    """The text's line breaks: ``.`` (without DOTALL) reads no ``\\n``."""

    __slots__ = ("breaks",)

    def __init__(self, text: str) -> None:
        self.breaks = _Marks(text, "\n")

    def unbroken(self, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` holds no line break."""
        first = self.breaks.first(start)
        return first < 0 or first >= end


def _lazy_to(text: str, marks: _Marks, lines: _Lines, start: int, least: int) -> int:
    """Where ``.*?`` (``least`` = start) or ``.+?`` (``least`` = start + 1) started at
    ``start`` stops before the delimiter ``marks`` finds: the first delimiter at or after
    ``least`` with no line break before it; -1 where there is none."""
    found = marks.first(least)
    return found if found >= 0 and lines.unbroken(start, found) else -1


class Unconvertible(Exception):
    """BFCL's checker cannot convert a value of this declared type (it raises)."""


# the Python type each declared type converts to (BFCL's tables)
JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

# numbers, matched at the start only: one digit run each, nothing after it that is a digit
_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
_F_SUFFIX = re.compile(r"[fF]$")
_L_SUFFIX = re.compile(r"[lL]$")
# prefixes (each searched or matched, then the lazy part read by a scanner)
_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\(")
_ADDS = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{")
_ADD = re.compile(r"add\(")
_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{")
_MAP = re.compile(r"new\s+HashMap<")
_MAP_OPEN = re.compile(r">\s*\(\)\s*\{")
_MAP_EMPTY = re.compile(r">\s*\(\)")
_PUT = re.compile(r"put\(\"")
_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
_JS_NEW_2D = re.compile(r"new\s+Array\(\s*\[")
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")  # (matched at 0 only: linear)
_JS_OBJECT = re.compile(r"\{(.*?)\}")  # (matched at 0 only: linear)


def java_value(text: str, declared: str, item_type: str | None = None) -> JsonValue:
    """A Java argument's text converted by its declared type (``item_type``: an array's)."""
    if declared not in JAVA_TYPES:
        raise Unconvertible(f"unsupported Java type {declared!r}")
    if declared in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(_F_SUFFIX.sub("", text)) if _JAVA_FLOAT.match(text) else text
    if declared == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if declared == "long":
        return int(_L_SUFFIX.sub("", text)) if _JAVA_LONG.match(text) else text
    if declared == "boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "char":
        return text  # (BFCL's pattern for a quoted char matches no text)
    if declared == "ArrayList":
        return _java_list(text, item_type)
    if declared == "Array":
        return _java_array(text, item_type)
    if declared == "HashMap":
        return _java_map(text)
    if declared in ("String", "any"):
        return text
    raise Unconvertible(f"BFCL converts no Java {declared}")


def _java_element(text: str, item_type: str | None) -> JsonValue:
    if item_type in ("char", "String"):
        return text[1:-1]
    return java_value(text, item_type) if item_type else java_literal(text)


def _java_list(text: str, item_type: str | None) -> JsonValue:
    lines = _Lines(text)
    listed = _as_list(text, lines)
    if listed is not None:
        return [_java_element(part.strip(), item_type) for part in listed.split(",")]
    adds = _adds(text)
    if adds is not None:
        return [_java_element(add.strip(), item_type) for add in _add_arguments(adds)]
    if _EMPTY_LIST.search(text):
        return []
    return text


def _first_start(prefix: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Every match of ``prefix``, from each start in turn (what a search tries)."""
    found = prefix.search(text)
    while found:
        yield found
        found = prefix.search(text, found.start() + 1)


def _as_list(text: str, lines: _Lines) -> str | None:
    """``new\\s+ArrayList<\\w*>\\(Arrays\\.asList\\((.+?)\\)\\)`` searched: its group."""
    closes = _Marks(text, "))")
    for found in _first_start(_AS_LIST, text):
        start = found.end()
        end = _lazy_to(text, closes, lines, start, start + 1)
        if end >= 0:
            return text[start:end]
    return None


def _adds(text: str) -> str | None:
    """``new\\s+ArrayList<\\w*>\\(\\)\\s*\\{\\{\\s*(.+?)\\s*\\}\\}`` (DOTALL) searched: its group.

    After the whitespace that follows ``{{`` (ending at ``k``) the group is the shortest run
    of one character or more from ``k`` after which only whitespace comes before a ``}}``;
    where no ``}}`` follows ``k + 1``, the engine gives one whitespace character back and
    takes it as the group if ``}}`` stands at ``k``."""
    closes = _Marks(text, "}}")
    for found in _first_start(_ADDS, text):
        k = _ws_end(text, found.end())
        close = closes.first(k + 1)
        if close >= 0:
            return text[k : max(k + 1, _ws_start(text, close))]
        if k > found.end() and text.startswith("}}", k):
            return text[k - 1 : k]
    return None


def _add_arguments(text: str) -> list[str]:
    """``add\\((.+?)\\)`` found all: each group."""
    lines, closes = _Lines(text), _Marks(text, ")")
    out, pos = [], 0
    while (found := _ADD.search(text, pos)) is not None:
        start = found.end()
        end = _lazy_to(text, closes, lines, start, start + 1)
        if end >= 0:
            out.append(text[start:end])
            pos = end + 1
        else:
            pos = found.start() + 1
    return out


def _java_array(text: str, item_type: str | None) -> JsonValue:
    body = _array_body(text)
    if body is None:
        return text
    parts = [part.strip() for part in body.split(",") if part.strip()]
    if item_type:
        return [java_value(part, item_type) for part in parts]
    return [java_literal(part) for part in parts]


def _array_body(text: str) -> str | None:
    """``new\\s+\\w+\\[\\]\\s*\\{(.*?)\\}`` searched: its group."""
    lines, closes = _Lines(text), _Marks(text, "}")
    for found in _first_start(_ARRAY, text):
        end = _lazy_to(text, closes, lines, found.end(), found.end())
        if end >= 0:
            return text[found.end() : end]
    return None


def _java_map(text: str) -> JsonValue:
    puts = _puts(text)
    if puts is not None:
        entries: JsonObject = {}
        if puts.strip():
            for key, value in _put_arguments(puts):
                entries[key] = java_literal(value.strip())
        return entries
    if _empty_map(text):
        return {}
    return text


def _puts(text: str) -> str | None:
    """``new\\s+HashMap<.*?>\\s*\\(\\)\\s*\\{\\s*\\{?\\s*(.*?)\\s*\\}?\\s*\\}`` (DOTALL) searched:
    its group.

    Only the first ``new HashMap<`` counts, and in it the first ``>`` followed by
    ``() {``: the tail matches there if any ``}`` follows, and where none does, no later
    ``>`` or start has one either. The group starts after the whitespace, the optional
    second ``{`` and more whitespace, and ends where only whitespace comes before the first
    ``}`` after it."""
    head = _MAP.search(text)
    if head is None:
        return None
    opened = _first_map_open(text, head.end())
    if opened < 0:
        return None
    start = _ws_end(text, opened)
    if text.startswith("{", start):
        start += 1
    start = _ws_end(text, start)
    close = text.find("}", start)
    if close < 0:
        return None
    return text[start : max(start, _ws_start(text, close))]


def _first_map_open(text: str, start: int) -> int:
    """The end of the first ``>\\s*\\(\\)\\s*\\{`` at or after ``start``; -1 if none."""
    opens = _Marks(text, ">")
    at = opens.first(start)
    while at >= 0:
        opened = _MAP_OPEN.match(text, at)
        if opened:
            return opened.end()
        at = opens.first(at + 1)
    return -1


def _put_arguments(text: str) -> list[tuple[str, str]]:
    """``put\\(\\"(.*?)\\",\\s*(.*?)\\)`` found all: each pair of groups.

    A ``",`` at ``c`` ends the key where a ``)`` follows the whitespace after it on the same
    line (then the value runs to that ``)``); the key is the shortest run to such a ``",``
    within its line."""
    lines, closes = _Lines(text), _Marks(text, ")")
    ends: list[int] = []
    values: dict[int, tuple[str, int]] = {}
    for comma in _Marks(text, '",').at:
        start = _ws_end(text, comma + 2)
        close = _lazy_to(text, closes, lines, start, start)
        if close >= 0:
            ends.append(comma)
            values[comma] = (text[start:close], close + 1)
    out, pos = [], 0
    while (found := _PUT.search(text, pos)) is not None:
        start = found.end()
        k = bisect_left(ends, start)
        if k < len(ends) and lines.unbroken(start, ends[k]):
            value, pos = values[ends[k]]
            out.append((text[start : ends[k]], value))
        else:
            pos = found.start() + 1
    return out


def _empty_map(text: str) -> bool:
    """Whether ``new\\s+HashMap<.*?>\\s*\\(\\)`` is found: a ``>`` followed by ``()`` on the
    line of some ``new HashMap<``."""
    lines, opens = _Lines(text), _Marks(text, ">")
    closed = [at for at in opens.at if _MAP_EMPTY.match(text, at)]
    for found in _first_start(_MAP, text):
        k = bisect_left(closed, found.end())
        if k < len(closed) and lines.unbroken(found.end(), closed[k]):
            return True
    return False


def java_literal(text: str) -> JsonValue:
    """A Java literal of no declared type: a boolean, a quoted string, a long, a float, an
    integer or a number, else the text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(_F_SUFFIX.sub("", text))
    return _number_or_text(text)


def _number_or_text(text: str) -> JsonValue:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def js_value(text: str, declared: str, item_type: str | None = None) -> JsonValue:
    """A JavaScript argument's text converted by its declared type."""
    if declared not in JS_TYPES:
        raise Unconvertible(f"unsupported JavaScript type {declared!r}")
    if declared == "String":
        quoted = (text.startswith('"') and text.endswith('"')) or (
            text.startswith("'") and text.endswith("'")
        )
        return text[1:-1] if quoted else text
    if declared == "integer":
        return int(text) if _INT.match(text) else text
    if declared == "float":
        return float(text) if _JS_FLOAT.match(text) else text
    if declared == "Bigint":
        return int(text[:-1]) if _JS_BIGINT.match(text) else text
    if declared == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if declared == "dict":
        return _js_object(text.strip())
    if declared == "array":
        return _js_array(text.strip(), item_type)
    return text  # any


def _js_array(code: str, item_type: str | None) -> JsonValue:
    try:
        nested = _js_2d(code)
        if nested is not None:
            rows: list[JsonValue] = []
            for i, inner in enumerate(_bracketed(nested)):
                inner = inner.strip()
                if i == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([js_literal(part.strip()) for part in inner.split(",")])
            return rows
        flat = _JS_1D.match(code)
        if not flat:
            return code
        body = flat.group(1) if flat.group(1) is not None else flat.group(2)
        body = (body or "").strip()
        parts = body.split(",") if body else []
        if not item_type:
            return [js_literal(part.strip()) for part in parts]
        out = []
        for part in parts:
            part = part.strip()
            if part.startswith(("'", '"')):
                out.append(js_value(part, item_type, "String"))
            else:
                out.append(js_value(part, item_type))
        return out
    except Exception:  # noqa: BLE001 (BFCL keeps the text when its reading of an array fails)
        return code


def _js_2d(code: str) -> str | None:
    """What ``\\[\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\]`` or, failing it,
    ``\\bnew\\s+Array\\(\\s*\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*\\)`` matches at the start."""
    if code.startswith("[") and code.startswith("[", _ws_end(code, 1)):
        end = _Rows(code, "]").end(_ws_end(code, 1))
        if end >= 0:
            return code[:end]
    opened = _JS_NEW_2D.match(code)
    if opened:
        end = _Rows(code, ")").end(opened.end() - 1)
        if end >= 0:
            return code[:end]
    return None


class _Rows:
    """The backtracking engine's reading of ``\\[.*?\\]\\s*(,\\s*\\[.*?\\]\\s*)*`` then
    ``closer``, done once per ``]`` from the right.

    From a ``]`` at ``c`` and the whitespace after it, at ``p``: the closer ends the match
    (``p + 1``); a comma opens one more row, which ends at the first ``]`` on its line from
    which the rest matches (the lazy ``.*?``); anything else fails. Each ``]``'s outcome
    depends only on later ones, so a pass from the right settles them all, and "the first
    ``]`` at or after i that succeeds" is a bisection into that pass's table."""

    def __init__(self, code: str, closer: str) -> None:
        self.code, self.closer = code, closer
        self.lines = _Lines(code)
        self.rights = _Marks(code, "]").at
        # ends[k]: where the match ends after the k-th ']' (-1: fails); good[k]: the index of
        # the first ']' at k or after that succeeds (len(rights): none)
        self.ends = [-1] * len(self.rights)
        self.good = [len(self.rights)] * (len(self.rights) + 1)
        for k in range(len(self.rights) - 1, -1, -1):
            self.ends[k] = self._after(self.rights[k])
            self.good[k] = k if self.ends[k] >= 0 else self.good[k + 1]

    def _after(self, right: int) -> int:
        at = _ws_end(self.code, right + 1)
        if self.code.startswith(self.closer, at):
            return at + 1
        if not self.code.startswith(",", at):
            return -1
        opened = _ws_end(self.code, at + 1)
        return self.end(opened) if self.code.startswith("[", opened) else -1

    def end(self, opened: int) -> int:
        """Where the match ends for a row whose ``[`` is at ``opened``; -1 if it fails."""
        k = self.good[bisect_left(self.rights, opened + 1)]
        if k == len(self.rights) or not self.lines.unbroken(opened + 1, self.rights[k]):
            return -1
        return self.ends[k]


def _bracketed(text: str) -> list[str]:
    """``\\[(.*?)\\]`` found all: each group."""
    lines, closes = _Lines(text), _Marks(text, "]")
    out, pos = [], 0
    while (opened := text.find("[", pos)) >= 0:
        end = _lazy_to(text, closes, lines, opened + 1, opened + 1)
        if end >= 0:
            out.append(text[opened + 1 : end])
            pos = end + 1
        else:
            pos = opened + 1
    return out


def _js_object(code: str) -> JsonValue:
    if code == "{}":
        return {}
    found = _JS_OBJECT.match(code)
    if not found:
        return code
    try:
        entries: JsonObject = {}
        for key, value in _js_pairs(found.group(1)):
            key = key.strip().strip("'\"")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                entries[key] = _js_array(value.strip(), None)
            elif value.startswith("{") and value.endswith("}"):
                entries[key] = _js_object(value.strip())
            else:
                entries[key] = js_literal(value.strip("'\""))
        return entries
    except Exception:  # noqa: BLE001 (as above, for an object)
        return code


def _js_pairs(content: str) -> list[tuple[str, str]]:
    """``([^:]+):\\s*(.*?)(?:,\\s*(?=[^,]+:)|$)`` found all in an object's content (which
    holds no line break: it is what ``.*?`` read within a line).

    A key runs to the next colon. Its value is the shortest run after the colon and its
    whitespace up to a comma that a later key follows (a colon comes after the comma, and
    after the whitespace that follows it, before any other comma), else to the end. The
    engine's ``\\s*`` after that comma is greedy but gives back one character where the
    next key would otherwise start on its colon."""
    colons, commas = _Marks(content, ":"), _Marks(content, ",")
    size = len(content)

    def key_follows(at: int) -> bool:  # (?=[^,]+:) at `at`
        colon, comma = colons.first(at + 1), commas.first(at)
        return colon >= 0 and (comma < 0 or colon < comma)

    out, pos = [], 0
    while (colon := colons.first(pos)) >= 0:
        if colon == pos:  # ([^:]+) reads one character at least
            pos += 1
            continue
        key, start = content[pos:colon], _ws_end(content, colon + 1)
        value_end, pos = size, size  # ($): to the end
        comma = commas.first(start)
        while comma >= 0:
            after = _ws_end(content, comma + 1)
            resume = next((at for at in (after, after - 1) if at > comma and key_follows(at)), -1)
            if resume >= 0:
                value_end, pos = comma, resume
                break
            comma = commas.first(comma + 1)
        out.append((key, content[start:value_end]))
    return out


def js_literal(text: str) -> JsonValue:
    """A JavaScript literal of no declared type: a boolean, a quoted string, an integer or
    a number, else the text."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    return _number_or_text(text)
