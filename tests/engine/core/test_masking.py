"""Credential-like values masked in an error's one-line reason (engine/core/masking.py), and
nothing else touched."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch.engine.core import masking
from pytest_jsonmatch.engine.core.masking import MAX_REASON, masked, one_line, safe_reason


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "GET /v1?key=AIzaSyA-12345678901234567890123456789012&alt=json",
            "GET /v1?key=***&alt=json",
        ),
        ("https://x.io/a?token=abc123&user=ann", "https://x.io/a?token=***&user=ann"),
        ("Authorization: Bearer abcdef1234567890", "Authorization: Bearer ***"),
        ("authorization=Basic dXNlcjpwYXNzd29yZA==", "authorization=Basic ***"),
        ("x-api-key: 12345678abcd; retry", "x-api-key: ***; retry"),
        ("api_key='sk-proj-abcdefghijklmnopqrstuvwx'", "api_key='***'"),
        (
            "Incorrect API key provided: sk-abcdefghijklmnop1234.",
            "Incorrect API key provided: sk-***.",
        ),
        ("key AKIAIOSFODNN7EXAMPLE denied", "key AKIA*** denied"),
        ("token ghp_" + "a" * 36 + " expired", "token gh_*** expired"),
        ("slack xoxb-1234567890-abcdef", "slack xox-***"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop", "jwt ***"),
        # a URL's user and password, whatever their length: up to the host's last @
        (
            "cannot reach http://ann:pw@h.io:8/v1: refused",
            "cannot reach http://***@h.io:8/v1: refused",
        ),
        ("'https://tok@en:p@ss@h.io/v1'", "'https://***@h.io/v1'"),
        ("git clone ssh://git@github.com/o/r", "git clone ssh://***@github.com/o/r"),
    ],
)
def test_credential_shapes_are_masked_and_what_names_them_kept(text, shown):
    assert masked(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "field 'key' mismatch: expected 'a', actual 'b'",
        "the token count 12 is over the limit; key points: 3",
        "password reset required",  # no value given to it
        "sk-short is not a key",
        "https://example.com/path?page=2&q=bearer",
        "https://example.com/users/@ann and mail ann@example.com",  # no user in the URL
    ],
)
def test_ordinary_text_is_left_alone(text):
    assert masked(text) == text


def test_a_reason_is_bounded_and_says_how_long_it_was():
    assert safe_reason("a" * MAX_REASON) == "a" * MAX_REASON
    assert (
        safe_reason("a" * (MAX_REASON + 1))
        == "a" * MAX_REASON + "... (cut: 1,001 characters in all)"
    )
    # a secret across the cut is masked before the cut (the masked window reaches past it)
    text = "a" * (MAX_REASON - 10) + " Bearer " + "b" * 40
    assert "bbbbbbbbbb" not in safe_reason(text)


def test_one_line_masks_and_survives_a_message_that_cannot_be_read():
    class Unreadable(Exception):
        def __str__(self):
            raise ValueError

    assert (
        one_line(RuntimeError("call ?key=secret123 failed")) == "RuntimeError: call ?key=*** failed"
    )
    assert one_line(Unreadable()) == "Unreadable: (its message could not be read)"


# Pieces a text is made of: each shape's words and signs, in either case; the characters
# ``re`` folds onto ASCII letters (long s, dotless i, Kelvin sign); credentials whole; and
# what stands between them.
_PIECES = [
    "://",
    "@",
    "=",
    ":",
    "?",
    "&",
    ";",
    "'",
    '"',
    " ",
    "\t",
    "/",
    "-",
    "_",
    ".",
    "bearer",
    "Basic",
    "BEARER",
    "key",
    "KEY",
    "api_key",
    "x-api-key",
    "token",
    "access-token",
    "auth",
    "Authorization",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "sig",
    "signature",
    "sk-",
    "sk-proj-",
    "AKIA",
    "akia",
    "AIza",
    "ghp_",
    "GHO_",
    "gh_",
    "xoxb-",
    "xox",
    "eyJ",
    "EYJ",
    "***",
    "ſ",
    "ı",
    "\u212a",
    "é",
    "baſic",
    "paſſword",
    "Kelvın",
    "https://ann:pw@h.io/v1",
    "abcdefghijklmnop1234567890ABCDEFGHIJ",
    "0123456789",
    "AB12",
    "?token=abc123&",
    "Authorization: Bearer abcdef123456",
    "AKIAIOSFODNN7EXAMPLE",
]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_a_text_is_masked_the_same_whether_shapes_are_gated_or_not(text) -> None:
    """The gate (masking.GATED: a shape searched only in an ASCII text that holds one
    string of each of its groups) changes no text's masking: with and without it, each text
    made of the shapes' words, signs, credentials and re's non-ASCII case folds reads the
    same."""
    _masked_the_same_both_ways(text)


def _masked_the_same_both_ways(text: str) -> None:
    """``text`` masks to the same text with the gate on and off (the switch restored)."""
    gated = masked(text)
    masking.GATED = False
    try:
        assert masked(text) == gated, text
    finally:
        masking.GATED = True


def test_the_gate_skips_a_text_without_a_shapes_strings(monkeypatch) -> None:
    """A command line of file names is searched for no shape (and no pattern compiled);
    ``--threshold=0.9`` for none either (an ``=``, but none of the names a credential's
    parameter or header has); the switch off searches every shape."""
    searched: list[str] = []
    compile_pattern = masking._pattern

    def noted(source: str):
        searched.append(source)
        return compile_pattern(source)

    monkeypatch.setattr(masking, "_pattern", noted)
    for part in ("jsonmatch", "score", "/tmp/gold.jsonl", "--threshold=0.9"):
        assert masked(part) == part
    assert searched == []
    assert masked("x?api_key=s3cr3t") == "x?api_key=***" and len(searched) == 2  # ?...= and key=
    monkeypatch.setattr(masking, "GATED", False)
    searched.clear()
    masked("score")
    assert len(searched) == len(masking._SHAPES)


# Each alternative of each shape, as a credential a text may hold.
_CREDENTIALS = [
    *(
        f"GET /v1?{name}=abc123xyz&x=1"
        for name in (
            "api_key",
            "api-key",
            "apikey",
            "key",
            "token",
            "access_token",
            "access-token",
            "auth",
            "secret",
            "password",
            "passwd",
            "sig",
            "signature",
            "client_secret",
            "client-secret",
        )
    ),
    *(
        f"{name}: 'abcd1234'"
        for name in (
            "x-api-key",
            "api_key",
            "apikey",
            "authorization",
            "client_secret",
            "client-secret",
            "password",
            "access_token",
            "access-token",
        )
    ),
    "Authorization: Bearer abcdef1234567890",
    "basic dXNlcjpwYXNzd29yZA==",
    "http://ann:pw@h.io/v1",
    "sk-ant-abcdefghijklmnop1234",
    "AKIAIOSFODNN7EXAMPLE",
    "AIzaSyA-12345678901234567890123456789012",
    *(f"gh{c}_{'a' * 36}" for c in "pousr"),
    *(f"xox{c}-1234567890-abc" for c in "abprs"),
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop",
]
# what ``re`` matches, case ignored, for an ASCII letter: long s, dotless i, Kelvin sign
_FOLDS = {"s": "ſ", "S": "ſ", "i": "ı", "I": "ı", "k": "\u212a", "K": "\u212a"}


def _variants(text: str) -> list[str]:
    """``text`` as written, in each case, and with each letter ``re`` folds onto one
    outside ASCII, one at a time."""
    out = [text, text.upper(), text.lower(), text.swapcase()]
    out += [text[:i] + _FOLDS[c] + text[i + 1 :] for i, c in enumerate(text) if c in _FOLDS]
    return out


@pytest.mark.parametrize("credential", _CREDENTIALS)
def test_each_shape_is_masked_the_same_gated_or_not_in_any_case(credential: str) -> None:
    """Every alternative of every shape, in every case and with each letter that ``re``
    folds onto a letter outside ASCII, masks the same with the gate and without."""
    for text in _variants(credential):
        _masked_the_same_both_ways(text)
    assert masked(credential) != credential  # (each one is a credential, masked)
