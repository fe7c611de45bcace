"""The error a call raises, within the time bound, for inputs that must fail fast and say so
briefly: anything but a JsonMatchError (a RecursionError above all) fails the test."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import JsonMatchError
from tests.helpers.timeout import GENEROUS, within

MAX_MESSAGE = 400  # an error about a 10 MB input must not be 10 MB long


def raised(fn, *args, **kwargs) -> BaseException:
    """The exception ``fn`` raises within the bound; RecursionError and any exception outside
    the project's family fail the test with what was raised."""
    with within(GENEROUS, getattr(fn, "__name__", "the call")):
        try:
            value = fn(*args, **kwargs)
        except JsonMatchError as exc:
            assert len(str(exc)) <= MAX_MESSAGE, f"message of {len(str(exc))} characters"
            return exc
        except RecursionError:
            pytest.fail("RecursionError escaped: deep input must be a JsonMatchError")
    pytest.fail(f"no error raised; returned {value!r:.200}")
