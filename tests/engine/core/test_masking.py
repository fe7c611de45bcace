"""Credential-like values masked in an error's one-line reason (engine/core/masking.py), and
nothing else touched."""

from __future__ import annotations

import pytest

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
