"""A text read as JSON tokens with NumPy, in time linear in its length whatever its nesting
(truncation.py asks it where a value the text ends inside can open).

A quote may open a string or close one, so the text is read twice over: each reading
(``Scan.reading(parity)``) takes the quotes with an even, or an odd, number of quotes before
them as the ones that open strings (prose before a value can hold a stray quote). In each
reading every token that cannot follow the one before it (in any container), every run of
characters outside strings that is no JSON number or literal, and every control character
or bad escape inside a string is a *violation*: a value cut off holds none, so only the
brackets after the last one can open it. Among those, the tokens whose container is known
are checked once more (a ``:`` in an array, a value after a key, a closer of the other
kind); the first bracket after every violation that no later token closes opens the value
the text ends inside. No recursion, and no Python loop over characters.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

import numpy as np

# token kinds
OBJ, ARR, END_OBJ, END_ARR, COMMA, COLON, STRING, SCALAR = range(8)
_KIND_OF = {
    ord("{"): OBJ,
    ord("["): ARR,
    ord("}"): END_OBJ,
    ord("]"): END_ARR,
    ord(","): COMMA,
    ord(":"): COLON,
    ord('"'): STRING,
}
_CLOSER = {OBJ: "}", ARR: "]"}
_ESCAPES = [ord(c) for c in '"\\/bfnrtu']
_E, _DOT, _MINUS, _PLUS = ord("e"), ord("."), ord("-"), ord("+")

# What may follow each kind of token in some container (an object or an array): the checks
# that need no knowledge of the container. A key is a STRING too, so STRING may be followed
# by ":" (a key) or by what follows a value.
_VALUE_STARTS = [OBJ, ARR, STRING, SCALAR]
_AFTER_VALUE = [COMMA, END_OBJ, END_ARR]
_FOLLOWS = np.zeros((8, 8), dtype=bool)
_FOLLOWS[OBJ, [STRING, END_OBJ]] = True
_FOLLOWS[ARR, [*_VALUE_STARTS, END_ARR]] = True
_FOLLOWS[COMMA, _VALUE_STARTS] = True
_FOLLOWS[COLON, _VALUE_STARTS] = True
_FOLLOWS[STRING, [COLON, *_AFTER_VALUE]] = True
for _k in (SCALAR, END_OBJ, END_ARR):
    _FOLLOWS[_k, _AFTER_VALUE] = True

# a number or literal written in full
_COMPLETE_SCALAR = re.compile(
    r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null"
)
_PARTIAL_ESCAPE = re.compile(r"(?:u[0-9a-fA-F]{0,3})?")  # what follows a "\" cut short
_HIGH_SURROGATE = re.compile(r"u[dD][89abAB][0-9a-fA-F]{2}")  # a pair's first half, after "\"


# Character classes, for code points below 128 (those above are OTHER)
OTHER, SPACE, PUNCT, QUOTE, BACKSLASH, DIGIT, CONTROL = range(7)
_CLASS = np.full(129, OTHER, dtype=np.uint8)
_CLASS[:0x20] = CONTROL
_CLASS[[ord(c) for c in " \t\n\r"]] = SPACE
_CLASS[[ord(c) for c in "{}[],:"]] = PUNCT
_CLASS[ord('"')], _CLASS[ord("\\")] = QUOTE, BACKSLASH
_CLASS[ord("0") : ord("9") + 1] = DIGIT
_KIND = np.full(129, SCALAR, dtype=np.int8)  # the kind of a token, by its first character
for _code, _k in _KIND_OF.items():
    _KIND[_code] = _k


class Closing(NamedTuple):
    """A cut value closed: its ``text``; how many arrays and objects were still open at the
    cut (``open_containers``: the closers added, the outermost one included); and whether the
    innermost one's last value was cut too (``open_leaf``: a string closed where it stopped,
    or a number the text ends in). Read from the closed value, each open one is the last
    child of the one before: the path the model was writing when it was cut."""

    text: str
    open_containers: int
    open_leaf: bool


class Scan:
    """What holds however the text's strings are read: its code points, where a quote stands
    unescaped and how many such quotes come before each character, its tokens (the tokens of
    either reading: punctuation, quotes, runs of other characters), and where something
    stands that JSON refuses, outside strings (a run that is no number or literal) or inside
    them (a control character, a bad escape)."""

    def __init__(self, text: str) -> None:
        self.codes = codes = np.frombuffer(
            text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32
        )
        self.size = size = len(codes)
        cls = _CLASS[np.minimum(codes, 128)]
        self.backslash = backslash = cls == BACKSLASH
        self.escaped = _escaped(backslash) if backslash.any() else np.zeros(size, dtype=bool)
        self.quote = quote = (cls == QUOTE) & ~self.escaped
        self.quotes_before = np.cumsum(quote, dtype=np.int32) - quote
        scalar = (cls != SPACE) & (cls != PUNCT) & ~quote  # an escaped quote too
        run_start = scalar.copy()
        run_start[1:] &= ~scalar[:-1]
        self.tokens = tokens = np.flatnonzero((cls == PUNCT) | quote | run_start)
        self.kinds = _KIND[np.minimum(codes[tokens], 128)]
        # offsets JSON refuses outside strings, and offsets it refuses inside them
        self.bad_outside = _bad_scalars(codes, cls, scalar, run_start, size)
        self.bad_inside = np.concatenate([np.flatnonzero(codes < 0x20), _bad_escapes(self)])

    def outside(self, at: np.ndarray, parity: int) -> np.ndarray:
        """Whether the offsets ``at`` stand outside strings (or open one) in the reading
        whose strings open at quotes with ``parity`` quotes before them."""
        outside: np.ndarray = (self.quotes_before[at] & 1) == parity
        return outside

    def reading(self, parity: int) -> _Reading:
        return _Reading(self, parity)


def _escaped(backslash: np.ndarray) -> np.ndarray:
    """Whether each character follows an odd run of backslashes (so a backslash escapes it)."""
    seen = np.cumsum(backslash, dtype=np.int32)
    at_last_other = np.maximum.accumulate(np.where(backslash, 0, seen))
    escaped = np.zeros(len(backslash), dtype=bool)
    escaped[1:] = ((seen - at_last_other)[:-1] & 1).astype(bool)
    return escaped


class _Reading:
    """The text as JSON tokens, its strings opened by the quotes that have ``parity`` quotes
    before them. ``pos`` and ``kind`` list the tokens; ``violation`` is the last offset where
    something stands that no JSON value may hold (-1 when there is none); the tokens from
    ``first`` on stand after it, and their nesting is known (``tail``)."""

    def __init__(self, scan: Scan, parity: int) -> None:
        self.scan = scan
        keep = scan.outside(scan.tokens, parity)
        if keep.all():  # no quote: the tokens as they are
            self.pos, self.kind = pos, kind = scan.tokens, scan.kinds
        else:
            self.pos, self.kind = pos, kind = scan.tokens[keep], scan.kinds[keep]
        bad = [
            scan.bad_outside[scan.outside(scan.bad_outside, parity)],
            scan.bad_inside[~scan.outside(scan.bad_inside, parity)],
            pos[1:][~_FOLLOWS[kind[:-1], kind[1:]]],
        ]  # a token that cannot follow the one before
        violation = max((int(b.max()) for b in bad if b.size), default=-1)
        # only the tokens after the last violation can hold a cut value: their containers
        first = int(np.searchsorted(pos, violation))
        self.tail = tail = _Structure(kind[first:])
        late = tail.out_of_place()
        if late.size:
            violation = max(violation, int(pos[first + late.max()]))
        self.violation, self.first = violation, first

    def first_cut(self, lone: Collection[int]) -> int | None:
        """The offset of the first bracket opening a value the text ends inside, or None."""
        pos = self.pos[self.first :]
        candidates = self.tail.unclosed[pos[self.tail.unclosed] >= self.violation]
        if not candidates.size:
            return None
        i = int(candidates[0])
        if i == len(pos) - 1 and int(pos[i]) not in lone:
            return None  # a bracket and nothing after it: only where a value must begin
        return int(pos[i])

    def closes_whole(self) -> bool:
        """Whether the text is one complete JSON value (and whitespace): the opening at 0,
        nothing JSON refuses after it, closed by the last token."""
        tail = self.tail
        return (
            self.first == 0
            and self.violation <= 0
            and len(self.pos) > 0
            and self.pos[0] == 0
            and tail.closes_at_last()
        )

    def closed(self, text: str) -> Closing:
        """``text``, which a value opened at offset 0 is cut off in, closed (close_truncated)."""
        pos, kind = self.pos, self.kind
        unclosed = self.tail.unclosed + self.first
        innermost = int(kind[unclosed[-1]])
        t, tail, leaf = len(pos) - 1, "", False
        end = len(text.rstrip(" \t\n\r"))

        def is_key(i: int) -> bool:
            return innermost == OBJ and kind[i] == STRING and kind[i - 1] in (OBJ, COMMA)

        # drop, from the end, what is not yet a value of its own
        k = kind[t]
        if k == STRING and not is_key(t):
            if self._open_string(int(pos[t])):  # a string value: closed where it stops
                end, tail, leaf = _without_partial_escape(text, self.scan), '"', True
        elif k == SCALAR and _COMPLETE_SCALAR.fullmatch(text, int(pos[t]), end):
            # a number or literal as written; a number the text ends in may have lost digits
            leaf = end == len(text) and text[end - 1].isdigit()
        elif k in (STRING, SCALAR, COLON, COMMA):
            if k == SCALAR:  # written partway
                end, t = int(pos[t]), t - 1
            if kind[t] == COLON:  # the key it was (or was to be) the value of
                t -= 1
            if kind[t] == STRING:  # that key
                end, t = int(pos[t]), t - 1
            if kind[t] == COMMA:  # and the comma before
                end = int(pos[t])
        closers = "".join(_CLOSER[int(k)] for k in kind[unclosed][::-1])
        kept = text[:end] if tail else text[:end].rstrip(" \t\n\r")  # a string keeps its spaces
        return Closing(kept + tail + closers, len(closers), leaf)

    def _open_string(self, at: int) -> bool:
        """Whether the string opened at ``at`` runs to the end of the text."""
        scan = self.scan
        total = scan.quotes_before[-1] + scan.quote[-1]
        return bool(total - scan.quotes_before[at] == 1)


class _Structure:
    """The nesting of a list of tokens (``kind``): the depth after each bracket (relative to
    the first token), the openers no later token closes (``unclosed``, token indexes), and
    the tokens out of place in their container (``out_of_place``)."""

    def __init__(self, kind: np.ndarray) -> None:
        self.kind = kind
        opens = (kind == OBJ) | (kind == ARR)
        self.brackets = brackets = np.flatnonzero(opens | (kind == END_OBJ) | (kind == END_ARR))
        self.is_open = is_open = opens[brackets]
        step = is_open.view(np.int8) * np.int8(2) - np.int8(1)  # +1 for an opener, -1 for a closer
        self.depth = depth = np.cumsum(step, dtype=np.int32)
        # an opener stays open when no later depth is lower than the depth after it
        lowest_from = np.minimum.accumulate(depth[::-1])[::-1]
        stays = is_open.copy()
        stays[:-1] &= lowest_from[1:] >= depth[:-1]
        self.unclosed = brackets[stays]

    def closes_at_last(self) -> bool:
        """Whether the first token opens a bracket that the last token closes, and no other
        bracket is outside it."""
        b, depth = self.brackets, self.depth
        return bool(
            b.size
            and b[0] == 0
            and b[-1] == len(self.kind) - 1
            and depth[-1] == 0
            and (depth[:-1] > 0).all()
        )

    def _containers(self, at: np.ndarray) -> np.ndarray:
        """The kind of the container of the tokens ``at`` (-1 when it opens before the first
        token); a closer's container is the one it closes.

        A token at depth d (after the brackets before it) stands in the opener that follows
        the last bracket before it leaving depth d - 1 (or in the first bracket, which starts
        from depth 0): found for all tokens at once, the brackets sorted by depth and then
        by order."""
        brackets, depth, n = self.brackets, self.depth, len(self.brackets)
        count = np.searchsorted(brackets, at)  # brackets before each token
        found = np.full(len(at), -1, dtype=np.int64)
        # right after an opener, the token stands in it; the others are looked up
        after_opener = (count > 0) & self.is_open[np.maximum(count - 1, 0)] if n else count < 0
        found[after_opener] = count[after_opener] - 1
        lookup = np.flatnonzero(~after_opener)
        if n and lookup.size:
            count = count[lookup]
            level = np.where(count > 0, depth[np.maximum(count - 1, 0)], 0)
            low = int(np.min(depth))
            shifted = depth - low
            keys = shifted.astype(np.uint16) if np.max(shifted) < 2**16 else shifted
            order = np.argsort(keys, kind="stable")
            # each bracket as depth * (n + 1) + index: sorted, and a key below every
            # bracket of the next depth
            sorted_keys = shifted[order].astype(np.int64) * (n + 1) + order
            want = (level - 1 - low).astype(np.int64) * (n + 1) + count
            k = np.searchsorted(sorted_keys, want) - 1  # the last one before, at depth d - 1
            hit = (k >= 0) & (want >= 0)
            hit[hit] &= sorted_keys[k[hit]] // (n + 1) == want[hit] // (n + 1)
            found[lookup[hit]] = order[k[hit]] + 1
            found[lookup[~hit & (level == 1)]] = 0  # none: the first bracket, from depth 0
        ok = (found >= 0) & (found < n)
        ok[ok] &= self.is_open[found[ok]]
        kinds = np.full(len(at), -1, dtype=np.int8)
        kinds[ok] = self.kind[brackets[found[ok]]]
        return kinds

    def out_of_place(self) -> np.ndarray:
        """Indexes of tokens out of place in their container: a closer of the other kind, a
        ``:`` that does not follow a key, a key followed by anything but ``:``, a comma in
        an object followed by anything but a key. (Each needs the container of a comma or a
        closer; what follows a "{" is in it. Where that container opens before the first
        token, nothing is said.)"""
        kind = self.kind
        closer = (kind == END_OBJ) | (kind == END_ARR)
        commas = np.flatnonzero(kind == COMMA)
        closers = np.flatnonzero(closer)
        containers = self._containers(np.concatenate([commas, closers]))
        comma_in = np.full(len(kind), -1, dtype=np.int8)  # the container of each comma
        comma_in[commas] = containers[: len(commas)]
        closes = containers[len(commas) :]
        bad = [
            closers[
                ((kind[closers] == END_OBJ) & (closes == ARR))
                | ((kind[closers] == END_ARR) & (closes == OBJ))
            ]
        ]
        # after a string: a ":" if it is a key, a "," or a closer if it is a value
        after_string = np.flatnonzero(kind[:-1] == STRING) + 1
        if after_string.size:
            two_back = np.where(after_string >= 2, kind[np.maximum(after_string - 2, 0)], -1)
            in_obj = np.where(after_string >= 2, comma_in[np.maximum(after_string - 2, 0)], -1)
            key = (two_back == OBJ) | ((two_back == COMMA) & (in_obj == OBJ))
            unknown = (two_back == -1) | ((two_back == COMMA) & (in_obj == -1))
            then = kind[after_string]
            wrong = np.where(
                then == COLON, ~key & ~unknown, key & ((then == COMMA) | closer[after_string])
            )
            bad.append(after_string[wrong])
        # after a comma in an object: a key
        after_comma = commas[commas + 1 < len(kind)] + 1
        bad.append(after_comma[(comma_in[after_comma - 1] == OBJ) & (kind[after_comma] != STRING)])
        return np.concatenate(bad)


def _without_partial_escape(text: str, scan: Scan) -> int:
    """Where an unterminated string's text ends once an escape cut short (``\\``, ``\\u12``)
    is dropped from it, and then the first half of a surrogate pair (``\\ud83d``) whose
    second half was cut off: kept, it would read as half a character the model never wrote."""
    end = scan.size
    for at in range(end - 1, max(end - 7, -1), -1):
        if scan.backslash[at] and not scan.escaped[at]:  # a "\" that begins an escape
            if _PARTIAL_ESCAPE.fullmatch(text, at + 1, end):
                end = at
            break
    start = end - 6
    if (
        start >= 0
        and scan.backslash[start]
        and not scan.escaped[start]
        and _HIGH_SURROGATE.fullmatch(text, start + 1, end)
    ):
        return start
    return end


def _bad_escapes(scan: Scan) -> np.ndarray:
    """Backslashes beginning an escape other than ``\\" \\\\ \\/ \\b \\f \\n \\r \\t
    \\uXXXX`` (one the text ends in is not refused)."""
    codes, size = scan.codes, scan.size
    escape = np.flatnonzero(scan.backslash & ~scan.escaped)
    if not escape.size:
        return escape
    after = escape + 1
    clipped = np.minimum(after, size - 1)
    ok = (after >= size) | np.isin(codes[clipped], _ESCAPES)
    unicode = (after < size) & (codes[clipped] == ord("u"))
    for k in range(2, 6):  # \u and four hex digits (or the end of the text)
        at = escape + k
        c = codes[np.minimum(at, size - 1)] | 0x20  # lower case for letters
        hexdigit = ((c >= ord("0")) & (c <= ord("9"))) | ((c >= ord("a")) & (c <= ord("f")))
        ok &= ~unicode | (at >= size) | hexdigit
    return escape[~ok]


def _bad_scalars(
    codes: np.ndarray, cls: np.ndarray, scalar: np.ndarray, run_start: np.ndarray, size: int
) -> np.ndarray:
    """Offsets in runs of characters outside strings (between whitespace, punctuation and
    quotes) that are not a JSON number, ``true``, ``false`` or ``null``. The run that ends
    the text may stop partway (``tr``, ``-``, ``1.``, ``1e+``)."""
    starts = np.flatnonzero(run_start)
    if not starts.size:
        return starts
    last = scalar.copy()
    last[:-1] &= ~scalar[1:]
    ends = np.flatnonzero(last) + 1
    length, first, at_end = ends - starts, codes[starts], ends == size
    literal = np.zeros(len(starts), dtype=bool)
    for word in ("true", "false", "null"):
        runs = np.flatnonzero(first == ord(word[0]))
        ok = (length[runs] == len(word)) | (at_end[runs] & (length[runs] < len(word)))
        for k in range(1, len(word)):
            at = np.minimum(starts[runs] + k, size - 1)
            ok &= (length[runs] <= k) | (codes[at] == ord(word[k]))
        literal[runs] = ok
    number = (first == _MINUS) | ((first >= ord("0")) & (first <= ord("9")))
    bad = [starts[~literal & ~number]]
    # the characters of numbers that are not digits, and each number's leading digit
    odd = np.flatnonzero(scalar & (cls != DIGIT))
    run = np.searchsorted(starts, odd, side="right") - 1
    keep = number[run]
    odd, run = odd[keep], run[keep]
    lead = starts[number] + (first[number] == _MINUS)
    leading_zero = lead[
        (lead + 1 < ends[number])
        & (codes[np.minimum(lead, size - 1)] == ord("0"))
        & (cls[np.minimum(lead + 1, size - 1)] == DIGIT)
    ]
    bad.append(leading_zero)
    if odd.size:
        bad.append(_bad_number_characters(codes, cls, odd, run, starts, ends, size))
    return np.concatenate(bad)


def _bad_number_characters(
    codes: np.ndarray,
    cls: np.ndarray,
    at: np.ndarray,
    run: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    size: int,
) -> np.ndarray:
    """Of the characters ``at`` (none a digit) of numbers (``run`` indexes ``starts`` and
    ``ends``), those that break ``-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?``; the
    number that ends the text may stop after any character."""
    c, start, end = codes[at], starts[run], ends[run]
    first, last = at == start, at + 1 == end
    before = np.where(first, 0, codes[np.maximum(at - 1, 0)])
    after = np.where(last, 0, codes[np.minimum(at + 1, size - 1)])
    digit_before = ~first & (cls[np.maximum(at - 1, 0)] == DIGIT)
    then_digit = (~last & (cls[np.minimum(at + 1, size - 1)] == DIGIT)) | (last & (end == size))

    def exponent(x: np.ndarray) -> np.ndarray:
        is_exponent: np.ndarray = (x | 0x20) == _E
        return is_exponent

    ok = (c == _MINUS) & (first | exponent(before)) & then_digit
    ok |= (c == _PLUS) & exponent(before) & then_digit
    ok |= (c == _DOT) & digit_before & then_digit
    ok |= exponent(c) & digit_before & (then_digit | (after == _MINUS) | (after == _PLUS))
    # one "." and one exponent at most, the "." first: counted from the number's start
    group_start = np.maximum.accumulate(
        np.where(np.diff(run, prepend=-1) != 0, np.arange(len(at)), 0)
    )
    for mark, other in ((c == _DOT, None), (exponent(c), c == _DOT)):
        seen = np.cumsum(mark)
        so_far = seen - (seen[group_start] - mark[group_start])
        ok &= ~(mark & (so_far > 1))
        if other is not None:  # a "." after the exponent
            ok &= ~(other & (so_far > 0))
    bad: np.ndarray = at[~ok]
    return bad
