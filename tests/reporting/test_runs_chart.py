"""The compare-runs chart of one field (reporting/render/runs_chart.py) read as SVG: its scale for
hand-picked differences, and the charts that have nothing much to draw (one run, runs that
agree, runs without the field) drawn with finite numbers and labelled all the same. How it
looks in a browser: tests/cli/test_compare_runs_browser.py."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from pytest_jsonmatch.reporting.render.runs_chart import axis, difference_chart

GEOMETRY = ("x", "y", "x1", "y1", "x2", "y2", "width", "height")


@pytest.mark.parametrize(
    ("differences", "scale"),
    [
        ([-0.13], (-0.15, 0.0)),  # 0.85 against 0.98: steps of 0.05
        ([0.25], (0.0, 0.3)),
        ([0.1 * 3], (0.0, 0.3)),  # 0.30000000000000004 is 0.3, not a step more
        ([0.101], (0.0, 0.15)),
        ([-0.01, 0.2], (-0.1, 0.2)),  # zero inside: a step of 0.1
        ([-1.0, 1.0], (-1.0, 1.0)),
        ([0.004], (0.0, 0.01)),  # never finer than 0.01: a small difference stays small
        ([1e-12], (-0.01, 0.01)),  # float noise: as if zero
        ([0.0], (-0.01, 0.01)),  # nothing but zero: a step either side
        ([], (-0.01, 0.01)),
    ],
)
def test_the_scale(differences, scale):
    assert axis(differences) == pytest.approx(scale)


def _svg(differences, names=("base", "new", "third")):
    html = difference_chart(
        differences, list(names[: len(differences)]), [f"run-{i}" for i in range(len(differences))]
    )
    svg_text, caption = html.split("</svg>")
    svg = ET.fromstring(svg_text + "</svg>")
    numbers = [e.get(a) for e in svg.iter() for a in GEOMETRY if e.get(a) is not None]
    assert all(math.isfinite(float(n)) for n in numbers), numbers  # no NaN, no infinity
    return svg, caption, float(svg.get("height"))


def _labels(svg) -> dict[str, float]:
    return {t.text: float(t.get("y")) for t in svg.iter("text") if t.get("class") == "tick"}


def _bars(svg) -> dict[str, tuple[float, float]]:
    """Each bar's run (from its title) -> its rect's top and height."""
    return {
        g.find("title").text.split(" ")[0]: (
            float(g.find("rect").get("y")),
            float(g.find("rect").get("height")),
        )
        for g in svg.iter("g")
        if g.find("rect") is not None
    }


def test_a_difference_drawn_to_its_scale():
    svg, caption, _ = _svg([None, -0.13])
    labels = _labels(svg)
    assert set(labels) == {"0", "-0.15"}
    top, bottom = labels["0"], labels["-0.15"]
    ((y, height),) = _bars(svg).values()
    assert y == pytest.approx(top)  # hangs from the zero line
    assert height / (bottom - top) == pytest.approx(0.13 / 0.15, abs=0.001)
    assert caption == '<div class="chart-caption">difference from base</div>'
    assert svg.get("aria-label") == "difference from base, scale -0.15 to 0: new -0.1300"


def test_bars_either_side_of_zero():
    svg, _, _ = _svg([None, 0.2, -0.05])
    labels = _labels(svg)
    assert set(labels) == {"-0.10", "0", "+0.20"}
    per_unit = (labels["-0.10"] - labels["+0.20"]) / 0.3
    bars = _bars(svg)
    assert bars["new"] == pytest.approx((labels["0"] - 0.2 * per_unit, 0.2 * per_unit), abs=0.02)
    assert bars["third"] == pytest.approx((labels["0"], 0.05 * per_unit), abs=0.02)


def test_runs_that_agree():
    svg, caption, _ = _svg([None, 0.0, 0.0])
    assert set(_labels(svg)) == {"-0.01", "0", "+0.01"}
    assert [height for _, height in _bars(svg).values()] == [0, 0]
    assert "difference from base" in caption


def test_one_run_alone():
    svg, caption, height = _svg([None])
    assert _bars(svg) == {} and set(_labels(svg)) == {"-0.01", "0", "+0.01"}
    assert float(svg.get("width")) > 0 and height > 0
    assert svg.get("aria-label").endswith(": no other run")


def test_runs_without_a_difference_show_a_dash():
    svg, _, _ = _svg([None, None, 0.5])
    dashes = [g for g in svg.iter("g") if "none" in g.get("class", "")]
    assert len(dashes) == 1 and dashes[0].find("text").text == "–"
    assert "new: no difference from base" in dashes[0].find("title").text
    assert list(_bars(svg)) == ["third"]
    assert "new none" in svg.get("aria-label")


def test_a_difference_that_is_not_a_number_is_none():
    svg, _, _ = _svg([None, math.nan, math.inf])
    assert _bars(svg) == {}
    assert len([g for g in svg.iter("g") if "none" in g.get("class", "")]) == 2
