"""Amounts of money as the runs comparison prints them (reporting/verdicts/money.py): hand-picked
amounts on each side of the rule, and the promise that amounts more than one unit of their
third significant digit apart never print alike."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_jsonmatch.reporting.verdicts.money import money


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (0, "0"),
        (0.0, "0"),
        (0.0048, "0.00480"),  # three significant digits, the trailing zero kept
        (0.00479, "0.00479"),
        (0.000012345, "0.0000123"),  # plain decimals, never 1.23e-05
        (0.75, "0.750"),
        (0.009996, "0.0100"),  # rounds up to the next power of ten: still three digits
        (0.99996, "1.00"),  # rounds up to 1: printed as amounts of 1 or more are
        (1, "1.00"),
        (12.345, "12.35"),
        (1234.5, "1,234.50"),
        (1234567.891, "1,234,567.89"),
        (-0.0048, "-0.00480"),  # a refund or a correction keeps its sign
    ],
)
def test_hand_picked_amounts(amount, text):
    assert money(amount) == text


def test_the_complaint():
    # four fixed decimals printed both as 0.0048
    assert money(0.0048) != money(0.00479)


def _unit(amount: float) -> float:
    """One unit of the amount's third significant digit (exactly, from its decimal form)."""
    return 10.0 ** (Decimal(amount).adjusted() - 2)


AMOUNTS = st.floats(min_value=1e-9, max_value=1e9, allow_nan=False, allow_infinity=False)
RULE = settings(max_examples=500, deadline=None, derandomize=True, database=None)


@RULE
@given(amount=AMOUNTS, apart=st.floats(min_value=1.001, max_value=20))
def test_amounts_a_unit_apart_print_differently(amount, apart):
    smaller = amount - apart * _unit(amount)
    assume(smaller > 0)
    assert money(amount) != money(smaller), (amount, smaller)


@RULE
@given(amount=AMOUNTS)
def test_the_text_is_the_amount_rounded_to_at_least_three_digits(amount):
    text = money(amount)
    printed = Decimal(text.replace(",", ""))
    digits = len(printed.as_tuple().digits)  # significant digits printed, trailing zeros too
    assert digits >= 3, text
    # rounded to the last digit printed: at most half of it away from the amount
    last = Decimal(1).scaleb(printed.as_tuple().exponent)
    assert abs(Decimal(amount) - printed) <= last / 2 * Decimal("1.000001"), text
    assert "e" not in text.lower()
