"""Amounts of money as the runs comparison prints them (:func:`money`): one rule, used by its
text, Markdown and HTML alike.

Costs summed over a run are often fractions of a cent: printed with a fixed four decimals,
0.0048 and 0.00479 both read 0.0048. Printed with three significant digits they read
0.00480 and 0.00479.
"""

from __future__ import annotations


def money(value: float) -> str:
    """A finite amount as text, by one rule:

    - zero is ``0``;
    - an amount under 1 (in size) has three significant digits, in plain decimals, trailing
      zeros kept: ``0.00480``, ``0.00479``, ``0.0000123``, ``0.750``;
    - an amount of 1 or more has two decimals and commas between thousands: ``12.35``,
      ``1,234.50``.

    An amount under 1 that rounds to 1 is printed as the second rule prints it (``1.00``).
    Either way at least three significant digits are shown, so two amounts more than one unit
    of their third significant digit apart never print alike. No currency is named: a
    report's costs are in whatever currency its targets reported them.
    """
    if value == 0:
        return "0"
    # rounded once to three significant digits; its exponent says how many decimals those are
    exponent = int(f"{abs(value):.2e}".split("e")[1])
    if exponent >= 0:
        return f"{value:,.2f}"
    return f"{value:.{2 - exponent}f}"
