"""JsonMatch in a real pydantic-evals Dataset: the report holds match_json's score, the
assertion against the threshold and the reason naming the fields that cost points."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_jsonmatch import ConfigError, match_json

from .frameworks import require
from .pairs import PAIRS


def _evals() -> SimpleNamespace:
    """pydantic-evals' ``Case`` and ``Dataset``, and ``JsonMatch`` (its class is made from
    pydantic-evals' ``Evaluator`` when first imported), imported by the first test that runs:
    when the module is collected, every xdist worker would pay for the import (0.7 s of CPU)
    before the first test starts, whether or not it runs one of these."""
    require("pydantic_evals")
    from pydantic_evals import Case, Dataset

    from pytest_jsonmatch.integrations.pydantic_evals import JsonMatch

    return SimpleNamespace(Case=Case, Dataset=Dataset, JsonMatch=JsonMatch)


def _report(evaluator, pairs=PAIRS, expected=lambda pair: pair.expected):
    ev = _evals()
    answers = {pair.name: pair.actual for pair in pairs}
    dataset = ev.Dataset(
        name="pairs",
        cases=[
            ev.Case(name=pair.name, inputs=pair.name, expected_output=expected(pair))
            for pair in pairs
        ],
        evaluators=[evaluator],
    )
    report = dataset.evaluate_sync(lambda name: answers[name], progress=False)
    return {case.name: case for case in report.cases}, report


@pytest.mark.parametrize("pair", PAIRS, ids=[pair.name for pair in PAIRS])
def test_the_reports_score_is_match_jsons(pair):
    ev = _evals()
    cases, _ = _report(ev.JsonMatch(metric=pair.metric, threshold=0.5, **pair.options), [pair])
    case = cases[pair.name]
    assert case.evaluator_failures == []
    score = case.scores[f"{pair.metric}_score"].value
    assert score == match_json(pair.actual, pair.expected, pair.metric, **pair.options).score
    assert score == pytest.approx(pair.score, abs=1e-12)
    assertion = case.assertions[f"{pair.metric}_pass"]
    assert assertion.value is (pair.score >= 0.5)
    assert assertion.reason.startswith(f"{pair.metric} {pair.score:.4f} ")
    shown = [line.split()[0] for line in assertion.reason.splitlines()[2:]]
    assert shown == list(pair.costly)


def test_a_dataset_of_text_outputs_and_text_expectations_reports_pass_and_fail():
    ev = _evals()
    json_pairs = PAIRS[:2]
    cases, report = _report(
        ev.JsonMatch(threshold=0.5, evaluation_name="json"),
        json_pairs,
        expected=lambda pair: pair.expected_text,
    )
    # under field_f1 the second pair's a and b match, c mismatches, d is omitted and e made
    # up: precision = 2 / 4, recall = 2 / 4, F1 = 0.5, which reaches the threshold
    assert {name: case.assertions["json_pass"].value for name, case in cases.items()} == {
        "field_f1": False,
        "field_match-ignore": True,
    }
    assert cases["field_f1"].scores["json_score"].value == pytest.approx(0.4)
    assert cases["field_match-ignore"].scores["json_score"].value == 0.5
    assert (
        "fields that cost points, worst first (2):"
        in cases["field_f1"].assertions["json_pass"].reason
    )
    rendered = report.render(include_reasons=True, width=200)
    assert "json_score" in rendered and "json_pass" in rendered and "country  mismatch" in rendered


def test_objects_on_both_sides_and_a_case_without_expected_output():
    ev = _evals()
    from pydantic import BaseModel

    class City(BaseModel):
        city: str
        country: str

    dataset = ev.Dataset(
        name="objects",
        cases=[
            ev.Case(
                name="model", inputs="x", expected_output={"city": "Paris", "country": "France"}
            ),
            ev.Case(name="no expectation", inputs="y"),
        ],
        evaluators=[ev.JsonMatch()],
    )
    report = dataset.evaluate_sync(lambda _: City(city="Paris", country="France"), progress=False)
    cases = {case.name: case for case in report.cases}
    assert cases["model"].scores["field_f1_score"].value == 1.0
    assert cases["model"].assertions["field_f1_pass"].value is True
    assert cases["no expectation"].scores == {} and cases["no expectation"].assertions == {}


def test_bad_options_raise_config_error_when_the_evaluator_is_made():
    ev = _evals()
    with pytest.raises(ConfigError, match="unknown option 'ignroe'"):
        ev.JsonMatch(ignroe=["a"])
    with pytest.raises(ConfigError, match="threshold must be a number in \\[0, 1\\]"):
        ev.JsonMatch(threshold=2)


def test_the_evaluator_is_a_pydantic_evals_evaluator_and_serializes_its_options():
    ev = _evals()
    from pydantic_evals.evaluators import Evaluator

    evaluator = ev.JsonMatch(metric="field_match", threshold=0.5, ignore=["c"])
    assert isinstance(evaluator, Evaluator)
    assert evaluator.as_spec().arguments == {
        "metric": "field_match",
        "threshold": 0.5,
        "ignore": ["c"],
    }
    assert ev.JsonMatch(**evaluator.as_spec().arguments) == evaluator
