"""How long a retry waits (calls/retries.py): what the server asks, read as OpenAI, Azure and
RFC 9110 write it, bounded; anything unreadable leaves the backoff to decide."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from pytest_jsonmatch.calls.retries import RETRY_AFTER_CAP_S, retry_after

NOW = 1_800_000_000.0  # a fixed clock, in seconds since the epoch


class _Response:
    def __init__(self, headers: object) -> None:
        self.headers = headers


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"retry-after-ms": "2500", "retry-after": "9"}, 2.5),  # the milliseconds win
        ({"retry-after-ms": "junk", "retry-after": "9"}, 9.0),  # ... when they can be read
        ({"retry-after": formatdate(NOW + 42, usegmt=True)}, 42.0),  # an HTTP date
        ({"retry-after": formatdate(NOW - 42, usegmt=True)}, 0.0),  # a date past: at once
        ({"retry-after": "1e9"}, RETRY_AFTER_CAP_S),
        ({"retry-after-ms": "1e12"}, RETRY_AFTER_CAP_S),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "inf"}, None),
        ({}, None),
    ],
)
def test_retry_after(headers, seconds):
    assert retry_after(_Response(headers), now=NOW) == seconds


def test_headers_of_an_unknown_shape_say_nothing():
    class Odd:
        def get(self, name):
            raise RuntimeError("no")

    assert retry_after(_Response(Odd()), now=NOW) is None
    assert retry_after(_Response(None), now=NOW) is None and retry_after(object()) is None
