"""What an error may say, made safe to keep: credentials masked and length bounded.

A target's exception often quotes its request: a URL with ``?key=...``, an ``Authorization:
Bearer ...`` header, an API key in a message. The one-line reason of every error a run
records (one_line) goes into the JSON, HTML and Markdown reports, the step summary,
JUnit and the annotations, which outlive the run and are read by more people than the key's
owner; and a 5 MB message would make each of them 5 MB. So it is masked (each
credential-like value becomes ``***``, what names it kept, so the reader still sees what kind
of thing was there) and cut to ``MAX_REASON`` characters. The terminal shows the full text
only when asked (``-vv`` or ``--tb=long``: pytest's own traceback).
"""

from __future__ import annotations

import functools
import os
import re

from .errors import ConfigError, printable

MAX_REASON = 1000  # characters of a reason kept in every output


# The credential shapes masked wherever they stand: (what every match holds, the pattern,
# what a match becomes). The first part is groups of strings; a match holds one string of
# each group in its text lower-cased (the pattern's own literal words, or its ``=``). A text
# that lacks one is not searched for that shape, and the pattern is not compiled until a
# text holds them all (GATED): a command line of file names compiles none of the ten. Only
# ASCII text is read so: beyond it, ``re``'s case folding matches ``ſ`` for ``s`` and
# ``ı`` for ``i``, so every pattern runs (tests/engine/core/test_masking.py holds the
# two ways to the same text). The groups are read once, before any shape is masked: a
# replacement keeps what named the value and writes ``***`` for it (``gh_***`` and
# ``xox-***`` shorten the prefix), so every group's string in a masked text stood in the
# text before it was masked, and reading the groups first skips no match.
_SHAPES: tuple[tuple[tuple[tuple[str, ...], ...], str, str], ...] = (
    # a URL's user and password: scheme://user:password@host
    ((("://",), ("@",)), r"(?<=://)[^\s/?#'\"<>]*@", "***@"),
    # Authorization: Bearer <token> / Basic <credentials>
    ((("bearer", "basic"),), r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}", r"\1\2***"),
    # URL query parameters that carry a credential: ?key=..., &api_key=..., &token=...
    (
        (("=",), ("?", "&", ";"), ("key", "token", "auth", "secret", "passw", "sig")),
        r"(?i)([?&;](?:api[_-]?key|key|token|access[_-]?token|auth|secret|password|"
        r"passwd|sig|signature|client[_-]?secret)=)[^&#\s'\"<>]+",
        r"\1***",
    ),
    # a header or a field named for a credential: "x-api-key: ...", "api_key='...'"
    (
        ((":", "="), ("key", "authorization", "secret", "password", "token")),
        r"(?i)\b((?:x-)?api[_-]?key|authorization|client[_-]?secret|password|"
        r"access[_-]?token)([\"']?\s*[:=]\s*[\"']?)(?!\*\*\*|bearer\b|basic\b)[^\s\"',;}&]{4,}",
        r"\1\2***",
    ),
    # key shapes that are credentials wherever they stand
    ((("sk-",),), r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}", "sk-***"),  # OpenAI, Anthropic
    ((("akia",),), r"\bAKIA[0-9A-Z]{16}\b", "AKIA***"),  # AWS access key id
    ((("aiza",),), r"\bAIza[0-9A-Za-z_-]{35}", "AIza***"),  # Google API key
    (
        (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),),
        r"\bgh[pousr]_[A-Za-z0-9]{36,}",
        "gh_***",
    ),  # GitHub
    ((("xox",),), r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "xox-***"),  # Slack token
    (
        (("eyj",),),
        r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # a JWT
        "***",
    ),
)
GATED = True  # a shape searched only in a text that holds its strings (off: every text)


@functools.cache
def _pattern(source: str) -> re.Pattern[str]:
    """A shape's pattern, compiled when a text first needs it searched."""
    return re.compile(source)


def _userinfo() -> re.Pattern[str]:
    """What stands between a URL's ``://`` and the last ``@`` of its host part (which ends at
    ``/``, ``?``, ``#``, white space or a quote): its user and password."""
    return _pattern(_SHAPES[0][1])


def without_userinfo(text: str) -> str:
    """``text`` with every URL's user and password written ``***@``
    (``http://***@host/v1``): how an endpoint is shown, while the request itself is made
    to the URL as given."""
    return _userinfo().sub("***@", text) if "@" in text else text


def mask_userinfo(url: str) -> None:
    """Mask the user and password of ``url`` wherever they stand, from now on in this
    process (a server or a library that quotes them apart from the URL puts them in no
    report), as given and percent-decoded."""
    from urllib.parse import unquote, urlsplit

    try:
        parts = urlsplit(url)
        found = (parts.username, parts.password)
    except ValueError:
        return
    for value in found:
        if value:
            mask_value(value)
            mask_value(unquote(value))


# Seconds one declared pattern may take over one text: the ini file is part of the
# repository a pull request may change, and a pattern that backtracks catastrophically must
# not hang the run. Past it the whole text is withheld: masking may not leak what it missed.
MASK_SECONDS = 0.1
WITHHELD = "*** (withheld: a jsonmatch_mask pattern took too long on it)"


class MaskPattern:
    """A ``jsonmatch_mask`` line compiled by the ``regex`` package (Python's ``re`` syntax),
    whose :meth:`sub` runs under a time budget."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        import regex

        self.pattern = pattern
        self._compiled = regex.compile(pattern, flags=regex.VERSION0)

    def sub(self, replacement: str, text: str) -> str:
        """``text`` with every match replaced; :data:`WITHHELD` past the budget."""
        replaced = self.bounded_sub(replacement, text)
        return WITHHELD if replaced is None else replaced

    def bounded_sub(self, replacement: str, text: str) -> str | None:
        """``text`` with every match replaced; None past :data:`MASK_SECONDS`."""
        try:
            return str(self._compiled.sub(replacement, text, timeout=MASK_SECONDS))
        except TimeoutError:
            return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MaskPattern) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __reduce__(self) -> tuple[type[MaskPattern], tuple[str]]:
        return MaskPattern, (self.pattern,)

    def __repr__(self) -> str:
        return f"MaskPattern({self.pattern!r})"


_DECLARED: list[MaskPattern] = []  # the user's own (jsonmatch_mask), whole matches masked


def mask_patterns(lines: list[str], what: str = "jsonmatch_mask") -> tuple[MaskPattern, ...]:
    """The user's own patterns, one regular expression a line (blank lines skipped);
    ConfigError naming ``what`` for one that is not a regular expression."""
    import regex

    compiled = []
    for line in (line.strip() for line in lines):
        if not line:
            continue
        try:
            compiled.append(MaskPattern(line))
        except (regex.error, ValueError, OverflowError, RecursionError) as exc:
            raise ConfigError(f"{what}: {line!r} is not a regular expression: {exc}") from None
    return tuple(compiled)


def declare(patterns: tuple[MaskPattern, ...]) -> None:
    """Mask whatever ``patterns`` match too, from now on in this process (the plugin declares
    the ``jsonmatch_mask`` lines when the session starts)."""
    _DECLARED[:] = patterns


# Values masked wherever they stand, whatever their shape: the judge's key, once read from
# the variable its key_env names. A shorter one is not: masking every "abc" of every
# message would make them unreadable, and so short a value is no credential.
MIN_KNOWN = 8
_KNOWN: set[str] = set()


def mask_value(value: str | None) -> None:
    """Mask ``value`` itself, from now on in this process, in whatever :func:`masked`
    reads (nothing for None or a value shorter than ``MIN_KNOWN`` characters)."""
    if value and len(value) >= MIN_KNOWN:
        _KNOWN.add(value)


def mask_variable(name: str) -> str | None:
    """The environment variable ``name``'s value (None: not set), masked from now on."""
    value = os.environ.get(name) if name else None
    mask_value(value)
    return value


def masked(text: str) -> str:
    """``text`` with every credential-like value replaced by ``***`` (docs/errors.md lists
    what is masked), every value :func:`mask_value` was given, and whatever a declared
    pattern matches."""
    for value in sorted(_KNOWN, key=len, reverse=True):  # a key within a longer one
        text = text.replace(value, "***")
    lowered = text.lower() if GATED and text.isascii() else None
    for groups, source, replacement in _SHAPES:
        if lowered is None or all(any(s in lowered for s in group) for group in groups):
            text = _pattern(source).sub(replacement, text)
    for declared in _DECLARED:
        text = declared.sub("***", text)
    return text


def safe_reason(text: str) -> str:
    """A target's error as every output keeps it: masked, and cut to ``MAX_REASON``
    characters. Only the start is read (a credential there is whole within ``_SLACK``
    characters past the cut), so a 5 MB message costs what a short one does."""
    window = masked(text[: MAX_REASON + _SLACK])
    if len(text) <= MAX_REASON + _SLACK and len(window) <= MAX_REASON:
        return window
    return f"{window[:MAX_REASON]}... (cut: {len(text):,} characters in all)"


_SLACK = 512


def one_line(exc: BaseException) -> str:
    """An exception as the one-line reason a comparison could not be scored: its message
    (with its type, unless it is one of this project's errors), credentials masked and cut to
    a bounded length (it goes into every report), or a note when reading the
    message raises."""
    try:
        text = safe_reason(printable(" ".join(str(exc).split()), keep=""))
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises
        text = "(its message could not be read)"
    return (
        text
        if type(exc).__module__.startswith("pytest_jsonmatch")
        else f"{type(exc).__name__}: {text}"
        if text
        else type(exc).__name__
    )
