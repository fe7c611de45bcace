"""The built-in comparators score two plain scalars of their own types without the general
way's calls (``comparators._exact``: two values of one plain type by ``==``;
``_relative`` and ``threshold``: two numbers a float holds as floats): the same score, to
the bit, as the
rule they state, for any pair, and the general way still takes every other value (a
boolean is never a number, an integer past a float's range is compared exactly)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch.engine.comparing import all_pairs
from pytest_jsonmatch.engine.comparing.comparators import _exact, _relative, bind_threshold
from pytest_jsonmatch.engine.core.numbers import FLOAT_SAFE, gap, relative_gap
from pytest_jsonmatch.engine.core.values import is_number, json_equal

NUMBERS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-(10**20), 10**20),
    st.sampled_from([0, 0.0, -0.0, 1e-12, -1e-12, 2e-12, 5e-324, 2**1023, -(2**1024), 3**700]),
)
SCALARS = st.one_of(NUMBERS, st.booleans(), st.none(), st.text(max_size=4))


def relative_rule(expected: Any, actual: Any) -> float:
    """UiPath's relative score as the comparator states it: 1 - |e - a| / |e| floored at
    0, 1 where both are (near) zero; exact beyond a float's range; exact for non-numbers."""
    if is_number(expected) and is_number(actual):
        if all(isinstance(v, float) or -FLOAT_SAFE < v < FLOAT_SAFE for v in (expected, actual)):
            e, a = float(expected), float(actual)
            if abs(e) <= all_pairs.ZERO:
                return 1.0 if abs(a) <= all_pairs.ZERO else 0.0
            return max(0.0, 1.0 - abs(e - a) / abs(e))
        if expected == 0:
            return 0.0
        return max(0.0, 1.0 - relative_gap(expected, actual))
    return 1.0 if json_equal(expected, actual) else 0.0


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(expected=SCALARS, actual=SCALARS)
def test_relative_scores_as_its_rule_states(expected: Any, actual: Any) -> None:
    got, rule = _relative(expected, actual), relative_rule(expected, actual)
    assert got.hex() == rule.hex()


def threshold_rule(expected: Any, actual: Any, t: float, w: float) -> float:
    """structeval's threshold score: 0 past ``t`` apart, else 1 - (d / t) ** (1 / w)."""
    if is_number(expected) and is_number(actual):
        d = gap(expected, actual)
        if d > t:
            return 0.0
        return 1.0 if w == 0 else 1.0 - (d / t) ** (math.inf if w == 0 else 1.0 / w)
    return 1.0 if json_equal(expected, actual) else 0.0


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(
    expected=SCALARS,
    actual=SCALARS,
    params=st.sampled_from([(0.001, 0.1), (10.0, 1.0), (1e300, 0.5), (2.5, 0.0)]),
)
def test_threshold_scores_as_its_rule_states(
    expected: Any, actual: Any, params: tuple[float, float]
) -> None:
    t, w = params
    score = bind_threshold({"threshold": t, "weighting": w}).score
    assert score(expected, actual).hex() == threshold_rule(expected, actual, t, w).hex()


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(expected=SCALARS, actual=SCALARS)
def test_exact_scores_as_json_equality(expected: Any, actual: Any) -> None:
    assert _exact(expected, actual) == (1.0 if json_equal(expected, actual) else 0.0)
    assert _exact(expected, expected) == 1.0


def test_the_cases_each_way_takes() -> None:
    """Not vacuous: floats, integers, a boolean against a number, an integer past a
    float's range, a float near zero, a score below zero floored."""
    assert _relative(200.0, 150.0) == 0.75
    assert _relative(4, 5) == 0.75  # (1 - 1/4)
    assert _relative(4, 5.0) == 0.75
    assert _relative(1, True) == 0.0  # (a boolean is not a number: exact, unequal)
    assert _relative(True, True) == 1.0
    assert _relative(2**1100, 2**1100 + 1) == 1.0 - relative_gap(2**1100, 2**1100 + 1)
    assert _relative(1e-13, -1e-13) == 1.0 and _relative(0.0, 1e-11) == 0.0
    assert _relative(2.0, 7.0) == 0.0  # (1 - 5/2 floored)
    assert _relative(-0.0, 0.0) == 1.0
    near = bind_threshold({"threshold": 10, "weighting": 1}).score
    assert near(100, 105) == 0.5 and near(100.0, 95.0) == 0.5  # (1 - 5/10)
    assert near(2**1100, 2**1100 + 5) == 0.5 and near(1, 12) == 0.0 and near(True, 1) == 0.0
    assert _exact(1, 1.0) == 1.0 and _exact(True, 1) == 0.0 and _exact(None, 0) == 0.0
    assert _exact(0.1 + 0.2, 0.3) == 0.0 and math.isclose(0.1 + 0.2, 0.3)
