"""What an error may say, made safe to keep: credentials masked and length bounded.

A target's exception often quotes its request: a URL with ``?key=...``, an ``Authorization:
Bearer ...`` header, an API key in a message. The one-line reason of every error a run
records (errors.one_line) goes into the JSON, HTML and Markdown reports, the step summary,
JUnit and the annotations, which outlive the run and are read by more people than the key's
owner; and a 5 MB message would make each of them 5 MB. So it is masked (each
credential-like value becomes ``***``, what names it kept, so the reader still sees what kind
of thing was there) and cut to ``MAX_REASON`` characters. The terminal shows the full text
only when asked (``-vv`` or ``--tb=long``: pytest's own traceback).
"""

from __future__ import annotations

import re

MAX_REASON = 1000  # characters of a reason kept in every output

# (pattern, replacement): each keeps what names the value and masks the value itself
_SECRETS = [
    # Authorization: Bearer <token> / Basic <credentials>
    (re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}"), r"\1\2***"),
    # URL query parameters that carry a credential: ?key=..., &api_key=..., &token=...
    (re.compile(r"(?i)([?&;](?:api[_-]?key|key|token|access[_-]?token|auth|secret|password|"
                r"passwd|sig|signature|client[_-]?secret)=)[^&#\s'\"<>]+"), r"\1***"),
    # a header or a field named for a credential: "x-api-key: ...", "api_key='...'"
    (re.compile(r"(?i)\b((?:x-)?api[_-]?key|authorization|client[_-]?secret|password|"
                r"access[_-]?token)([\"']?\s*[:=]\s*[\"']?)(?!\*\*\*|bearer\b|basic\b)[^\s\"',;}&]{4,}"),
     r"\1\2***"),
    # key shapes that are credentials wherever they stand
    (re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}"), "sk-***"),  # OpenAI, Anthropic
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "AKIA***"),  # AWS access key id
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), "AIza***"),  # Google API key
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}"), "gh_***"),  # GitHub token
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), "xox-***"),  # Slack token
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), "***"),  # a JWT
]


def masked(text: str) -> str:
    """``text`` with every credential-like value replaced by ``***`` (docs/errors.md lists
    what is masked)."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def safe_reason(text: str) -> str:
    """A target's error as every output keeps it: masked, and cut to ``MAX_REASON``
    characters. Only the start is read (a credential there is whole within ``_SLACK``
    characters past the cut), so a 5 MB message costs what a short one does."""
    window = masked(text[:MAX_REASON + _SLACK])
    if len(text) <= MAX_REASON + _SLACK and len(window) <= MAX_REASON:
        return window
    return f"{window[:MAX_REASON]}... (cut: {len(text):,} characters in all)"


_SLACK = 512
