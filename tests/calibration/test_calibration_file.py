"""The calibration file: written and read back whole, and every kind of wrong file refused
with a ConfigError naming the file and the field."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_jsonmatch.calibration.calibration_file import (
    Calibration,
    Consistency,
    Estimate,
    Figures,
    JudgeIdentity,
    PanelMember,
    PanelResult,
    read_calibration,
    write_calibration,
)
from pytest_jsonmatch.engine.core.errors import ConfigError
from pytest_jsonmatch.engine.judge.agreement import Counts, figures, share


def _figures(tp: int, fp: int, tn: int, fn: int) -> Figures:
    # every figure as its counts give it: a file read back refuses any other
    estimates = {k: Estimate(*v) for k, v in figures(Counts(tp, fp, tn, fn)).items()}
    return Figures(tp + fp + tn + fn, tp, fp, tn, fn, **estimates)


def _calibration() -> Calibration:
    judge = JudgeIdentity("fake-judge", "0123456789abcdef", 512)
    held = Consistency(10, 9, Estimate(*share(9, 10)), 3)
    return Calibration(
        judge=judge,
        labels_path="labels.yaml",
        labels_digest="sha256:" + "ab" * 32,
        labels=10,
        same=6,
        different=4,
        overall=_figures(5, 1, 3, 1),
        # (no label of 'summary' says different: its false-accept rate is undefined)
        fields={"summary": _figures(3, 0, 0, 0), "title": _figures(2, 1, 3, 1)},
        position=held,
        repeat=held,
        repeat_k=3,
        panel=PanelResult(
            "majority", (PanelMember(judge, _figures(5, 1, 3, 1), 2, 0.001),), _figures(5, 1, 3, 1)
        ),
        requests=7,
        cost=0.25,
    )


def test_a_calibration_is_read_back_as_it_was_written(tmp_path: Path) -> None:
    path = tmp_path / "labels.calibration.json"
    cal = _calibration()
    write_calibration(path, cal)
    assert json.loads(path.read_text())["jsonmatch_calibration"] == 1
    assert read_calibration(path) == cal
    assert cal.too_small() == "10 labels, fewer than the minimum of 20"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_too_small_names_a_missing_class() -> None:
    cal = _calibration()
    from dataclasses import replace

    assert replace(cal, labels=30, same=30, different=0, min_labels=20).too_small() == (
        "no label says 'different': agreement beyond chance cannot be measured"
    )
    assert replace(cal, labels=30, same=10, different=20).too_small() is None


def _broken(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.json"
    write_calibration(path, _calibration())
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.pop("jsonmatch_calibration"), "no 'jsonmatch_calibration': 1 at its top"),
        (lambda d: d["overall"].pop("tp"), "overall.tp is missing"),
        (lambda d: d["overall"].update(tp=True), "overall.tp is True"),
        (lambda d: d["overall"].update(n=99), "overall.n is 99, not tp + fp + tn + fn"),
        (lambda d: d["overall"]["kappa"].update(low=7), "overall.kappa.low is 7, not a figure"),
        (lambda d: d["fields"]["title"].update(fp=-1), "fields['title'].fp is -1, below 0"),
        (lambda d: d.update(fields={"x": [1]}), "fields['x'] is a list"),
        (lambda d: d["position"].update(held=11), "position.held is 11, more than n (10)"),
        (lambda d: d["judge"].update(model=None), "judge.model is None"),
        (lambda d: d.update(labels=11), "labels is 11, not same + different (6 + 4)"),
        (lambda d: d["panel"]["members"][0].pop("judge"), "panel.members[0].judge is missing"),
    ],
)
def test_a_wrong_field_is_a_config_error_naming_the_file_and_field(
    tmp_path: Path,
    change,
    said: str,  # type: ignore[no-untyped-def]
) -> None:
    path = _broken(tmp_path, change)
    with pytest.raises(ConfigError) as caught:
        read_calibration(path)
    assert said in str(caught.value) and str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "not JSON"),
        ('{"jsonmatch_calibration": NaN}', "NaN is not a JSON number"),
        ("[" * 100_000 + "]" * 100_000, "cannot be used"),
        ("[]", "found None"),
    ],
)
def test_a_file_that_is_no_calibration_is_refused(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match="calibration file") as caught:
        read_calibration(path)
    assert said in str(caught.value)


def test_a_fifo_or_a_missing_file_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_calibration(fifo)
    with pytest.raises(ConfigError, match="cannot read calibration file"):
        read_calibration(tmp_path / "absent.json")


def test_an_undefined_figure_is_shown_as_a_dash_and_a_field_name_escaped() -> None:
    from dataclasses import replace

    from pytest_jsonmatch.calibration.showing import markdown, text

    cal = _calibration()
    cal = replace(cal, fields={"a|b\nc": cal.fields["title"], "d": cal.fields["summary"]})
    shown = text(cal)
    assert "  false-accept rate           -  -                 -\n" in shown
    assert "field 'a|b\\nc' (n 7: tp 2, fp 1 (false accepts), tn 3, fn 1)" in shown
    assert "### field 'a\\|b\\\\nc'" in markdown(
        cal
    ) and "| false-accept rate | - | - | - |" in markdown(cal)


def test_the_file_holds_every_figure_the_statistics_give():
    # agreement.py names the figures it works out; a calibration file keeps each as an
    # Estimate field of Figures: a figure added to one and not the other fails here
    from dataclasses import fields

    from pytest_jsonmatch.calibration.calibration_file import Estimate, Figures
    from pytest_jsonmatch.engine.judge.agreement import FIGURE_NAMES

    held = tuple(f.name for f in fields(Figures) if f.type in (Estimate, "Estimate"))
    assert held == FIGURE_NAMES


def test_a_field_name_from_the_labels_is_no_link_nor_markup_in_the_markdown() -> None:
    # the labels file may come from a pull request: its field names reach a PR comment
    from dataclasses import replace

    from pytest_jsonmatch.calibration.showing import markdown

    cal = _calibration()
    hostile = "[x](http://evil.example) <b>"
    cal = replace(cal, fields={hostile: cal.fields["title"], "d": cal.fields["summary"]})
    [heading] = [line for line in markdown(cal).splitlines() if "evil" in line]
    assert heading == "### field '\\[x\\]\\(http:\u200b//evil.example\\) \\<b\\>'"
