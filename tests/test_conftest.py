"""The suite's own fixtures and hooks (tests/conftest.py).

The floor-versions run's share of examples (JSONMATCH_TEST_EXAMPLES): every hypothesis test
draws that share of the examples it asks for, at least MIN_EXAMPLES and never more than it
asks for; a value that is not a share in (0, 1] stops the run. And a test with an inner
session writes no bytecode, in process or in its subprocesses: a test file written again as
long as before, within the second, would otherwise run its old code."""

from __future__ import annotations

import os
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import conftest


def _item(test: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(obj=test)


def _hypothesis_tests() -> list[object]:
    @settings(max_examples=200)
    @given(st.integers())
    def asks_200(n: int) -> None: ...

    @settings(max_examples=30)
    @given(st.integers())
    def asks_30(n: int) -> None: ...

    @settings(max_examples=4)
    @given(st.integers())
    def asks_4(n: int) -> None: ...

    return [asks_200, asks_30, asks_4]


def _examples(test: object) -> int:
    return test._hypothesis_internal_use_settings.max_examples  # type: ignore[attr-defined]


def test_a_share_scales_every_hypothesis_test_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JSONMATCH_TEST_EXAMPLES", "0.25")
    tests = _hypothesis_tests()
    plain = _item(lambda: None)
    # each test twice, as a parametrized test's items share their function: scaled once
    conftest.pytest_collection_modifyitems([plain, *map(_item, tests), *map(_item, tests)])
    # 200 / 4 = 50; 30 / 4 = 7.5, raised to MIN_EXAMPLES (10); 4 asks for fewer than 10: 4
    assert [_examples(t) for t in tests] == [50, conftest.MIN_EXAMPLES, 4]


def test_without_a_share_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JSONMATCH_TEST_EXAMPLES", raising=False)
    tests = _hypothesis_tests()
    conftest.pytest_collection_modifyitems(list(map(_item, tests)))
    assert [_examples(t) for t in tests] == [200, 30, 4]


@pytest.mark.parametrize("value", ["0", "1.5", "-0.5", "a quarter", "nan"])
def test_a_value_that_is_no_share_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("JSONMATCH_TEST_EXAMPLES", value)
    with pytest.raises(pytest.UsageError, match="JSONMATCH_TEST_EXAMPLES"):
        conftest.pytest_collection_modifyitems([])


def test_an_inner_session_writes_no_bytecode(pytester: pytest.Pytester) -> None:
    assert sys.dont_write_bytecode is True
    assert os.environ["PYTHONDONTWRITEBYTECODE"] == "1"
    # a test file written again as long as before (10, then 99) runs its new code at once
    for weight in (10, 99):
        pytester.makepyfile(test_weight=f"def test_weight():\n    assert {weight} == 99\n")
        outcome = pytester.runpytest_inprocess("-p", "no:cacheprovider")
        outcome.assert_outcomes(**({"passed": 1} if weight == 99 else {"failed": 1}))
    assert not list(pytester.path.rglob("*.pyc"))
