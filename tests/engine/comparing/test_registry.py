"""The registry (engine/comparing/registry.py): custom comparators and transforms, batch comparators (an
LLM judge), the naming rules. A custom comparator that fails (raises, returns no usable
score) is a ComparatorError naming the comparator, the field path and why, inside paired
arrays too. A judge that fails for some fields marks each of them batch_error, with why
(extract-eval's rule), and the comparison does not pass."""

from __future__ import annotations

import math
import re

import pytest

from pytest_jsonmatch import (
    REGISTRY,
    BatchItem,
    ComparatorError,
    ConfigError,
    evaluate_records,
    match_json,
    register_comparator,
    register_transform,
)
from pytest_jsonmatch.engine.comparing.registry import _params_key
from tests.helpers.timeout import GENEROUS, within


@pytest.fixture
def registered():
    """Register names for one test and remove them afterwards."""
    names = []

    def register(name, fn, kind="comparator", **kwargs):
        if kind == "comparator":
            register_comparator(name, fn, **kwargs)
        else:
            register_transform(name, fn, **kwargs)
        names.append(name)

    yield register
    for name in names:
        REGISTRY.unregister(name)


def schema_with(compare, *names, type_="string"):
    return {
        "type": "object",
        "properties": {n: {"type": type_, "x-eval-compare": compare} for n in names},
    }


# -- custom comparators --------------------------------------------------------------------


def test_custom_comparator_scores_a_field(registered):
    registered("test_len", lambda e, a, params: 1.0 if len(e) == len(a) else 0.0)
    result = match_json(
        {"a": "xyz", "b": "q"},
        {"a": "abc", "b": "pp"},
        metric="field_f1",
        schema=schema_with("test_len", "a", "b"),
    )
    assert [(f.path, f.status, f.comparator) for f in result.fields] == [
        ("a", "match", "test_len"),
        ("b", "mismatch", "test_len"),
    ]


def test_custom_comparator_receives_its_parameters(registered):
    seen = []

    def date(e, a, params):
        seen.append(params)
        return 1.0

    registered("test_date", date)
    match_json(
        {"d": "x"},
        {"d": "y"},
        metric="field_f1",
        schema=schema_with({"test_date": {"formats": ["%Y"]}}, "d"),
    )
    assert seen == [{"formats": ["%Y"]}]


def test_partial_score_is_a_mismatch_that_keeps_its_score(registered):
    # a 0.7, b 1.0: TP 1.7 over 2 fields each side -> P = R = F1 = 0.85
    registered("test_seventy", lambda e, a, params: 1.0 if e == a else 0.7)
    result = match_json(
        {"a": "x", "b": "y"},
        {"a": "z", "b": "y"},
        metric="field_f1",
        schema=schema_with("test_seventy", "a", "b"),
    )
    assert [(f.status, f.score) for f in result.fields] == [
        ("mismatch", pytest.approx(0.7)),
        ("match", 1.0),
    ]
    assert result.precision == pytest.approx(0.85)
    assert result.recall == pytest.approx(0.85)
    assert result.f1 == pytest.approx(0.85)


def test_custom_comparator_in_fields_option_of_another_metric(registered):
    registered("test_always", lambda e, a, params: 1.0)
    result = match_json(
        {"a": "nothing alike"},
        {"a": "xyz"},
        metric="json_similarity",
        fields={"a": {"comparator": "test_always"}},
    )
    assert result.score == 1.0


def test_registering_a_taken_name_needs_overwrite(registered):
    registered("test_dup", lambda e, a, params: 0.0)
    with pytest.raises(ConfigError, match="overwrite"):
        register_comparator("test_dup", lambda e, a, params: 1.0)
    register_comparator("test_dup", lambda e, a, params: 1.0, overwrite=True)
    result = match_json(
        {"a": "x"}, {"a": "y"}, metric="field_f1", schema=schema_with("test_dup", "a")
    )
    assert result.score == 1.0


@pytest.mark.parametrize("name", ["exact", "numeric", "oneof"])
def test_builtin_comparators_cannot_be_overwritten(name):
    with pytest.raises(ConfigError):
        register_comparator(name, lambda e, a, params: 1.0, overwrite=True)
    # still the built-in
    assert match_json({"a": 2}, {"a": 1}, metric="field_f1").score == 0.0


def test_unregistered_comparator_is_unknown_again():
    register_comparator("test_gone", lambda e, a, params: 1.0)
    REGISTRY.unregister("test_gone")
    with pytest.raises(ConfigError, match="test_gone"):
        match_json({"a": "x"}, {"a": "x"}, metric="field_f1", schema=schema_with("test_gone", "a"))


def test_registered_comparator_is_listed_among_known_names(registered):
    registered("test_listed", lambda e, a, params: 1.0)
    with pytest.raises(ConfigError, match="test_listed"):
        match_json({"a": "x"}, {"a": "x"}, metric="field_f1", fields={"a": {"comparator": "nope"}})


def test_custom_transform(registered):
    registered(
        "test_digits", lambda v, params: "".join(c for c in v if c.isdigit()), kind="transform"
    )
    schema = {
        "type": "object",
        "properties": {"p": {"type": "string", "x-eval-transform": ["test_digits"]}},
    }
    assert (
        match_json({"p": "(555) 12-34"}, {"p": "5551234"}, metric="field_f1", schema=schema).score
        == 1.0
    )


def test_builtin_transform_cannot_be_overwritten():
    with pytest.raises(ConfigError):
        register_transform("lowercase", lambda v, params: v, overwrite=True)


# -- batch comparators: a fake LLM judge ---------------------------------------------------


class FakeJudge:
    """Scores 1.0 when the normalized texts share a word, else 0.0; records each call."""

    def __init__(self):
        self.calls: list[list[BatchItem]] = []

    def __call__(self, items):
        self.calls.append(list(items))
        out = []
        for item in items:
            e = set(str(item.expected_compared).lower().split())
            a = set(str(item.actual_compared).lower().split())
            out.append(1.0 if e & a else 0.0)
        return out


JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "x-eval-compare": "test_judge"},
        "summary": {
            "type": "string",
            "x-eval-compare": "test_judge",
            "x-eval-transform": ["lowercase"],
        },
        "notes": {"type": "array", "items": {"type": "string", "x-eval-compare": "test_judge"}},
        "count": {"type": "integer"},
    },
}

EXPECTED = {"title": "Big Cat", "summary": "A LION rests", "notes": ["one", "two"], "count": 3}
ACTUAL = {"title": "large cat", "summary": "the lion sleeps", "notes": ["one!", "two"], "count": 3}


def test_batch_comparator_gets_every_field_of_a_record_in_one_call(registered):
    judge = FakeJudge()
    registered("test_judge", judge, batch=True)
    result = match_json(ACTUAL, EXPECTED, metric="field_f1", schema=JUDGE_SCHEMA)
    assert len(judge.calls) == 1
    assert [item.path for item in judge.calls[0]] == ["title", "summary", "notes[0]", "notes[1]"]
    # title shares "cat" 1; summary shares "lion" 1; notes[0] "one" vs "one!" 0; notes[1] 1; count 1
    assert [(f.path, f.status, f.score) for f in result.fields] == [
        ("title", "match", 1.0),
        ("summary", "match", 1.0),
        ("notes[0]", "mismatch", 0.0),
        ("notes[1]", "match", 1.0),
        ("count", "match", 1.0),
    ]
    assert result.f1 == pytest.approx(4 / 5)


def test_batch_items_carry_raw_and_transformed_values_and_params(registered):
    judge = FakeJudge()
    registered("test_judge", judge, batch=True)
    schema = {
        "type": "object",
        "properties": {
            "s": {
                "type": "string",
                "x-eval-compare": {"test_judge": {"model": "tiny"}},
                "x-eval-transform": ["lowercase"],
            }
        },
    }
    match_json({"s": "HeLLo"}, {"s": "HELLO"}, metric="field_f1", schema=schema)
    (item,) = judge.calls[0]
    assert (item.expected, item.actual) == ("HELLO", "HeLLo")
    assert (item.expected_compared, item.actual_compared) == ("hello", "hello")
    assert item.params == {"model": "tiny"}


def test_batch_comparator_is_called_once_per_record(registered):
    judge = FakeJudge()
    registered("test_judge", judge, batch=True)
    run = evaluate_records(
        [EXPECTED, EXPECTED, EXPECTED],
        [ACTUAL, EXPECTED, ACTUAL],
        metric="field_f1",
        schema=JUDGE_SCHEMA,
    )
    assert len(judge.calls) == 3
    assert all(len(call) == 4 for call in judge.calls)
    assert [r.f1 for r in run.records] == [pytest.approx(0.8), 1.0, pytest.approx(0.8)]


def test_batch_comparator_not_called_for_omitted_fields(registered):
    judge = FakeJudge()
    registered("test_judge", judge, batch=True)
    result = match_json(
        {"title": "big cat", "count": 3}, EXPECTED, metric="field_f1", schema=JUDGE_SCHEMA
    )
    assert len(judge.calls) == 1
    assert [item.path for item in judge.calls[0]] == ["title"]
    # title match, count match; summary, notes[0], notes[1] omitted -> P 1, R 2/5
    assert result.recall == pytest.approx(2 / 5)


def test_batch_comparator_through_fields_option(registered):
    judge = FakeJudge()
    registered("test_judge", judge, batch=True)
    result = match_json(
        {"a": "red fox", "b": "blue"},
        {"a": "fox", "b": "green"},
        metric="json_similarity",
        fields={"*": {"comparator": "test_judge"}},
    )
    assert len(judge.calls) == 1
    assert result.score == 0.5


def test_batch_comparator_partial_score(registered):
    registered("test_half", lambda items: [0.5 for _ in items], batch=True)
    result = match_json(
        {"a": "x"}, {"a": "y"}, metric="field_f1", schema=schema_with("test_half", "a")
    )
    assert [(f.status, f.score) for f in result.fields] == [("mismatch", 0.5)]


def test_batch_comparator_in_hungarian_arrays_is_still_one_call_per_record(registered):
    # pairing needs the judge's scores; they can be asked for in the record's one call
    judge = FakeJudge()
    registered("test_judge", judge, batch=True)
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "x-eval-compare": "test_judge"},
            "t": {
                "type": "array",
                "x-eval-align": {"match_by": "hungarian"},
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "string", "x-eval-compare": "test_judge"},
                        "k": {"type": "integer"},
                    },
                },
            },
        },
    }
    expected = {"title": "a cat", "t": [{"n": "red", "k": 1}, {"n": "blue", "k": 2}]}
    actual = {"title": "the cat", "t": [{"n": "blue", "k": 2}, {"n": "red", "k": 1}]}
    result = match_json(actual, expected, metric="field_f1", schema=schema)
    assert result.f1 == 1.0
    assert len(judge.calls) == 1


# -- custom comparators that fail -------------------------------------------------------------


def _priced(n: int = 5, changed: int = 3) -> tuple[dict, dict]:
    expected = {"items": [{"sku": f"s{i}", "price": float(i + 1)} for i in range(n)]}
    actual = {"items": [dict(e) for e in expected["items"]]}
    actual["items"][changed]["price"] += 10
    return actual, expected


def _fx_rate(e, a, params):
    if e != a:
        raise KeyError("no rate for EUR")
    return 1.0


PRICE_FIELD = {"items[*].price": {"comparator": "test_rel_fx"}}
SCHEMA_FX = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "price": {"type": "number", "x-eval-compare": "test_rel_fx"},
                },
            },
        }
    },
}


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("json_similarity", {"fields": PRICE_FIELD}),
        ("field_f1", {"fields": PRICE_FIELD}),
        ("field_f1", {"schema": SCHEMA_FX}),
    ],
    ids=["json_similarity", "field_f1-fields", "field_f1-schema"],
)
def test_a_raising_comparator_is_named_with_the_field_path(registered, metric, options):
    registered("test_rel_fx", _fx_rate)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric=metric, **options)
    assert (
        str(info.value)
        == "comparator 'test_rel_fx' raised KeyError: 'no rate for EUR' at items[3].price"
    )


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("structural_f1", {"fields": PRICE_FIELD}),
        ("field_f1", {"fields": PRICE_FIELD, "align": "hungarian"}),
    ],
    ids=["structural_f1", "field_f1-hungarian"],
)
def test_a_raising_comparator_inside_paired_arrays_still_names_the_field(
    registered, metric, options
):
    registered("test_rel_fx", _fx_rate)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(actual, expected, metric=metric, **options)
    message = str(info.value)
    assert message.startswith("comparator 'test_rel_fx' raised KeyError: 'no rate for EUR' at ")
    assert re.search(r"items\[\d*\]\.price$", message), f"the field is not named: {message!r}"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (1.5, "returned 1.5, outside [0, 1]"),
        (-0.1, "returned -0.1, outside [0, 1]"),
        (float("nan"), "returned nan, outside [0, 1]"),
        (None, "returned None, not a number"),
        ("high", "returned 'high', not a number"),
        ([1.0], "returned [1.0], not a number"),
    ],
)
def test_a_comparator_returning_no_usable_score_is_named_with_the_field(registered, value, words):
    registered("test_rel_bad", lambda e, a, p: value)
    actual, expected = _priced()
    with pytest.raises(ComparatorError) as info:
        match_json(
            actual,
            expected,
            metric="field_f1",
            fields={"items[*].price": {"comparator": "test_rel_bad"}},
        )
    assert str(info.value) == f"comparator 'test_rel_bad' {words} at items[0].price"


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_an_out_of_range_score_inside_paired_arrays_still_names_the_field(registered, metric):
    registered("test_rel_bad", lambda e, a, p: 1.5)
    actual, expected = _priced()
    options = {"align": "hungarian"} if metric == "field_f1" else {}
    with pytest.raises(ComparatorError) as info:
        match_json(
            actual,
            expected,
            metric=metric,
            fields={"items[*].price": {"comparator": "test_rel_bad"}},
            **options,
        )
    message = str(info.value)
    assert message.startswith("comparator 'test_rel_bad' returned 1.5, outside [0, 1] at ")
    assert re.search(r"items\[\d*\]\.price$", message), f"the field is not named: {message!r}"


# -- batch comparators (an LLM judge) that fail for some fields -------------------------------
# As extract-eval does: a field the judge could not score is a batch_error (with the reason),
# left out of precision and recall and counted; the comparison goes on, and does not pass.


def _flaky_judge(items):
    out = []
    for item in items:
        if item.path == "items[1].price":
            out.append(RuntimeError("rate limited"))
        elif item.path == "items[3].price":
            out.append(None)
        else:
            out.append(1.0)
    return out


def _batch_errors(result):
    return [(f.path, f.reason) for f in result.fields if f.status == "batch_error"]


def test_a_judge_failing_for_some_fields_marks_each_field_with_why(registered):
    registered("test_rel_judge", _flaky_judge, batch=True)
    actual, expected = _priced()
    result = match_json(
        actual,
        expected,
        metric="field_f1",
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
    )
    assert _batch_errors(result) == [
        (
            "items[1].price",
            "batch comparator 'test_rel_judge' answered RuntimeError('rate limited')",
        ),
        ("items[3].price", "batch comparator 'test_rel_judge' gave no answer"),
    ]
    # 5 skus and 3 judged prices, all right; the 2 batch errors count nowhere
    assert (result.score, result.precision, result.recall) == (1.0, 1.0, 1.0)
    assert result.batch_errors == 2
    assert not result.passed(0.0)  # a comparison with fields left unscored never passes


def test_a_judge_raising_marks_every_field_it_was_asked_about(registered):
    def down(items):
        raise TimeoutError("LLM API timed out")

    registered("test_rel_judge", down, batch=True)
    actual, expected = _priced(n=3, changed=1)
    result = match_json(
        actual,
        expected,
        metric="json_similarity",
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
    )
    why = "batch comparator 'test_rel_judge' raised TimeoutError: LLM API timed out"
    assert _batch_errors(result) == [
        ("items[0].price", why),
        ("items[1].price", why),
        ("items[2].price", why),
    ]
    assert result.score == 1.0  # the three skus, the only leaves scored, all match


def test_a_judge_answering_too_few_fields_marks_the_unanswered_ones(registered):
    registered("test_rel_judge", lambda items: [1.0, 1.0], batch=True)
    actual, expected = _priced(n=3, changed=1)
    result = match_json(
        actual,
        expected,
        metric="field_f1",
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
    )
    assert _batch_errors(result) == [
        ("items[2].price", "batch comparator 'test_rel_judge' gave no answer")
    ]


def test_a_judge_answering_out_of_range_marks_the_field_with_the_value(registered):
    registered(
        "test_rel_judge",
        lambda items: [7.0 if i.path == "items[2].price" else 1.0 for i in items],
        batch=True,
    )
    actual, expected = _priced(n=3, changed=1)
    result = match_json(
        actual,
        expected,
        metric="field_f1",
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
    )
    assert _batch_errors(result) == [
        ("items[2].price", "comparator 'test_rel_judge' returned 7.0, outside [0, 1]")
    ]


@pytest.mark.parametrize(
    ("metric", "options"),
    [("structural_f1", {}), ("field_f1", {"align": "hungarian"})],
    ids=["structural_f1", "field_f1-hungarian"],
)
def test_a_working_judge_given_through_fields_scores_paired_arrays(registered, metric, options):
    registered("test_rel_judge", lambda items: [1.0] * len(items), batch=True)
    actual, expected = _priced(n=3, changed=1)
    with within(GENEROUS):
        result = match_json(
            actual,
            expected,
            metric=metric,
            fields={"items[*].price": {"comparator": "test_rel_judge"}},
            **options,
        )
    assert result.score == 1.0


@pytest.mark.parametrize(
    ("metric", "options"),
    [("structural_f1", {}), ("field_f1", {"align": "hungarian"})],
    ids=["structural_f1", "field_f1-hungarian"],
)
def test_a_judge_failing_inside_paired_arrays_marks_the_fields(registered, metric, options):
    calls = []

    def judge(items):
        calls.append(len(items))
        return _flaky_judge(items)

    registered("test_rel_judge", judge, batch=True)
    actual, expected = _priced()
    result = match_json(
        actual,
        expected,
        metric=metric,
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
        **options,
    )
    errors = _batch_errors(result)
    assert errors and all("rate limited" in why or "gave no answer" in why for _, why in errors)
    assert all(re.fullmatch(r"items\[\d\]\.price", path) for path, _ in errors)
    assert len(calls) == 1  # a field that failed is not asked about again on the second walk


def test_propagate_batch_errors_taints_the_failing_judge_s_other_answers(registered):
    registered("test_rel_judge", _flaky_judge, batch=True)
    actual, expected = _priced()
    result = match_json(
        actual,
        expected,
        metric="field_f1",
        post_process=["propagate_batch_errors"],
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
    )
    assert [f.path for f in result.fields if f.status == "batch_error"] == [
        f"items[{i}].price" for i in range(5)
    ]
    assert [f.status for f in result.fields if f.path.endswith("sku")] == [
        "match"
    ] * 5  # exact: untouched
    assert result.score == 1.0 and result.batch_errors == 5


def test_evaluate_records_counts_batch_errors(registered):
    registered("test_rel_judge", _flaky_judge, batch=True)
    actual, expected = _priced()
    run = evaluate_records(
        [expected, expected],
        [actual, actual],
        metric="field_f1",
        fields={"items[*].price": {"comparator": "test_rel_judge"}},
    )
    assert run.total_batch_errors == 4  # two per record
    assert run.total_fields == 16  # 5 skus and 3 prices per record
    agg = run.per_field["items[].price"]
    assert (agg.match, agg.batch_error, agg.mean_score) == (6, 4, 1.0)
    assert agg.to_dict()["batch_error"] == 4


# -- type defaults (extract-eval's set_type_default / reset_type_defaults) --------------------------


@pytest.fixture
def type_defaults():
    from pytest_jsonmatch import reset_type_defaults

    yield
    reset_type_defaults()


def test_set_type_default_changes_inferred_and_unannotated_leaves(type_defaults):
    from pytest_jsonmatch import annotate_schema, set_type_default

    expected, actual = (
        {"name": "Acme", "n": 100, "items": [{"sku": "ab"}]},
        {"name": "ACME", "n": 100.5, "items": [{"sku": "AB"}]},
    )
    assert match_json(actual, expected).score == 0.0
    set_type_default("string", "normalized")
    set_type_default("integer", {"numeric": {"abs": 1}})
    result = match_json(actual, expected)
    # strings fold case everywhere, the inferred array elements too; the integer 100 against
    # 100.5 is an integer and a float: the number default (exact) still applies
    assert [(f.path, f.status, f.comparator) for f in result.fields] == [
        ("name", "match", "normalized"),
        ("n", "mismatch", "numeric"),
        ("items[0].sku", "match", "normalized"),
    ]
    assert match_json({"n": 101}, {"n": 100}).score == 1.0  # two integers: within 1
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    assert annotate_schema(schema)["properties"]["name"]["x-eval-compare"] == "normalized"
    assert match_json({"name": "ACME"}, {"name": "Acme"}, schema=schema).score == 1.0


def test_reset_type_defaults_restores_the_built_in_ones(type_defaults):
    from pytest_jsonmatch import reset_type_defaults, set_type_default

    set_type_default("string", "levenshtein")
    assert match_json({"a": "abcx"}, {"a": "abcd"}).score == 0.75
    reset_type_defaults()
    assert match_json({"a": "abcx"}, {"a": "abcd"}).score == 0.0


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("str", "exact"),
            "set_type_default: 'str' is not a JSON type; known: array, boolean, integer, null, "
            "number, object, string",
        ),
        (
            ("string", "soundex"),
            "set_type_default('string'): unknown comparator 'soundex'; known comparators: ",
        ),
    ],
)
def test_set_type_default_checks_its_arguments(type_defaults, args, message):
    from pytest_jsonmatch import set_type_default

    with pytest.raises(ConfigError) as info:
        set_type_default(*args)
    assert str(info.value).startswith(message)


def test_a_metric_registered_as_something_else_is_named_when_used():
    # the registry keeps any object with a name (it sits below engine/metrics); looking the
    # metric up is where it must turn out to be a Metric, or say what it is instead
    class Impostor:
        name = "impostor"

    REGISTRY.register_metric("impostor", Impostor())
    try:
        with pytest.raises(ConfigError, match=r"metric 'impostor' is registered as a Impostor"):
            match_json({"a": 1}, {"a": 1}, metric="impostor")
    finally:
        REGISTRY.unregister("impostor")


def test_a_comparator_bound_again_with_equal_parameters_is_the_one_bound_before() -> None:
    # a tolerance's parameters, bound at each call that gives it: equal ones, one binding;
    # another type is another binding, as their JSON texts differ (``1`` and ``true``)
    tolerance = REGISTRY.comparator({"numeric": {"abs": 5, "rel": 0.5}})
    assert REGISTRY.comparator({"numeric": {"rel": 0.5, "abs": 5}}) is tolerance
    assert REGISTRY.comparator({"numeric": {"abs": 5.0, "rel": 0.5}}) is not tolerance
    assert _params_key({"abs": 1}) != _params_key({"abs": True})
    assert _params_key({"abs": 1}) != _params_key({"abs": 1.0})
    # what is not a plain scalar keeps its JSON text; a NaN or infinity, too
    assert _params_key({"abs": [1]}) == '{"abs": [1]}'
    assert _params_key({"abs": math.inf}) == '{"abs": Infinity}'
    # the numeric comparator's scores, bound either way: 10 against 12 within abs 5
    assert tolerance.score(10, 12) == 1.0
