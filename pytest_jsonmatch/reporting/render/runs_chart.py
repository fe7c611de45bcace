"""The compare-runs page's chart of one field (:func:`difference_chart`): each later run's
difference from the first run in the field's mean score, as a bar from a zero line, in inline
SVG.

Why differences: on a scale from 0 to 1, bars of 0.98 and 0.85 are nearly the same length.
Their difference, -0.13, drawn from zero on a scale that holds it, fills most of the chart.
A bar always starts at the zero line, so its length is the difference itself and nothing is
cut off. Each chart has a scale of its own: its ends and zero are labelled with their values
on the chart, and a caption under it names the run the differences are taken from.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..verdicts.changes import signed

NICE = (1.0, 2.0, 5.0)  # a scale's step is one of these times a power of ten
MIN_STEP = 0.01  # differences smaller than a hundredth of a score are not blown up
MAX_STEPS = 4  # the step is the smallest one that spans the differences in this many steps
SLACK = 1e-9  # float noise when the differences are divided by the step

_LABELS_W, _BAR_W, _GAP, _PLOT_H, _PAD = 40, 14, 6, 60, 7  # pixels; _PAD keeps labels inside


def axis(values: Sequence[float]) -> tuple[float, float]:
    """The scale's bottom and top for ``values``: zero and every value included, both ends a
    multiple of a round step (``NICE``, at least ``MIN_STEP``). With no value other than zero
    the scale is one step either side of zero, never of no height."""
    low, high = min([0.0, *values]), max([0.0, *values])
    wanted = max((high - low) / MAX_STEPS, MIN_STEP)
    power = 10.0 ** math.floor(math.log10(wanted))
    step = next((n * power for n in NICE if n * power >= wanted * (1 - SLACK)), 10 * power)
    bottom = math.floor(low / step + SLACK) * step
    top = math.ceil(high / step - SLACK) * step
    if top - bottom < step:  # every value zero
        return -step, step
    return round(bottom, 10), round(top, 10)


def _label(value: float) -> str:
    """A value on the scale, as the table's differences are written (sign first), but in two
    decimals: every end of a scale is a multiple of 0.01."""
    return "0" if abs(value) < SLACK else f"{value:+.2f}"


def difference_chart(
    differences: Sequence[float | None],
    names: Sequence[str],
    classes: Sequence[str],
    printed: Sequence[str] | None = None,
) -> str:
    """The chart of one field: ``differences[i]`` is run ``i``'s difference from run 0 (None
    where it has none: the run has no case holding the field where run 0 does), ``names``
    the runs' names already escaped for the page, ``classes`` the CSS class of each run's
    bar (its colour). Run 0 has no bar; a run without a difference has a dash beside the
    zero line instead. ``printed[i - 1]`` is run ``i``'s difference as the table beside the
    chart prints it, for the bar's label (so that the two say the same digits); without it
    the label is the difference to four decimals."""
    later = [d if d is not None and math.isfinite(d) else None for d in differences[1:]]
    shown = list(printed) if printed is not None else [signed(d or 0.0) for d in later]
    bottom, top = axis([d for d in later if d is not None])

    def y(value: float) -> float:  # the scale's top at _PAD, its bottom _PLOT_H lower
        value = min(max(value, bottom), top)
        return round(_PAD + (top - value) / (top - bottom) * _PLOT_H, 2)

    slots = max(1, len(later))
    width = _LABELS_W + _GAP + slots * (_BAR_W + _GAP)
    height = _PLOT_H + 2 * _PAD
    zero, first = y(0.0), names[0]
    # a dash drawn on the zero line would hide in it: it goes beside it, where there is room
    dash = zero + 10 if zero < _PAD + _PLOT_H / 2 else zero - 10
    parts = []
    for mark in sorted({bottom, 0.0, top}):  # the ends and zero, labelled and ticked
        at = y(mark)
        parts.append(
            f'<line class="tick" x1="{_LABELS_W - 3}" y1="{at}" x2="{width}" '
            f'y2="{at}"></line><text class="tick" x="{_LABELS_W - 5}" y="{at}" '
            f'text-anchor="end" dominant-baseline="middle">{_label(mark)}</text>'
        )
    parts.append(
        f'<line class="zero" x1="{_LABELS_W}" y1="{zero}" x2="{width}" y2="{zero}"></line>'
    )
    told = []
    for i, value in enumerate(later, start=1):
        x = _LABELS_W + _GAP + (i - 1) * (_BAR_W + _GAP)
        name = names[i]
        if value is None:
            told.append(f"{name} none")
            parts.append(
                f'<g class="bar none"><title>{name}: no difference from {first} '
                "(no shared case holds the field in both)</title>"
                f'<text x="{x + _BAR_W / 2}" y="{dash}" text-anchor="middle" '
                'dominant-baseline="middle">–</text></g>'
            )
            continue
        told.append(f"{name} {shown[i - 1]}")
        end = y(value)
        parts.append(
            f'<g class="bar {classes[i]}"><title>{name} − {first}: {shown[i - 1]}'
            f'</title><rect x="{x}" y="{min(zero, end)}" width="{_BAR_W}" '
            f'height="{round(abs(zero - end), 2)}"></rect></g>'
        )
    label = f"difference from {first}, scale {_label(bottom)} to {_label(top)}: " + (
        ", ".join(told) or "no other run"
    )
    return (
        f'<svg class="chart" role="img" aria-label="{label}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">' + "".join(parts) + "</svg>"
        f'<div class="chart-caption">difference from {first}</div>'
    )
