"""The door (engine/reading/intake.py): every input is read once, whole, before any comparison, into
plain JSON. What JSON cannot hold (NaN, Infinity, a set, a key that is not a string, a list
that holds itself) is a ParseError naming the field and the side, under every metric,
wherever it sits: compared values, and values nothing compares (an omission, a
hallucination, an unpaired element, extra keys a metric does not score). Only the fields
``ignore`` names are never read. Values nested beyond the limit are a JsonMatchError, never
a RecursionError."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import JsonMatchError, MatchResult, ParseError, match_json
from tests.helpers.bounded_errors import raised
from tests.helpers.timeout import GENEROUS, within

METRICS = ["field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1"]
DEPTH = 100_000


def deep_dict(depth: int = DEPTH) -> dict:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value  # type: ignore[return-value]


def deep_list(depth: int = DEPTH) -> dict:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return {"a": value}


# -- NaN, Infinity and Python objects inside compared values ----------------------------------


@pytest.mark.parametrize("constant", ["nan", "inf", "-inf"])
def test_nan_or_infinity_in_an_expected_mapping_is_a_parse_error_naming_the_path(constant):
    # "NaN and ±Infinity are not JSON": a mapping is taken as it is, but not with non-JSON values
    exc = raised(
        match_json,
        {"items": [{"price": 1.0}]},
        {"items": [{"price": float(constant)}]},
        metric="json_similarity",
    )
    assert isinstance(exc, ParseError)
    assert "items[0].price" in str(exc)
    assert "not JSON" in str(exc) or "not a JSON value" in str(exc)


@pytest.mark.parametrize("metric", ["json_similarity", "structural_f1", "field_f1"])
def test_the_same_infinity_on_both_sides_is_still_a_parse_error_naming_the_path(metric):
    # equal values of one type skip the comparator; an infinity equals itself, and must not
    exc = raised(
        match_json,
        {"items": [{"price": float("inf")}]},
        {"items": [{"price": float("inf")}]},
        metric=metric,
    )
    assert isinstance(exc, ParseError)
    assert "items[0].price" in str(exc) and "expected" in str(exc)


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized"])
def test_the_same_infinity_inside_a_whole_value_is_a_parse_error_naming_its_own_field(metric):
    # the field-match metrics compare each top-level value whole; the error still names the
    # field inside it that holds the infinity, and the side
    exc = raised(
        match_json,
        {"items": [{"price": float("inf")}]},
        {"items": [{"price": float("inf")}]},
        metric=metric,
    )
    assert isinstance(exc, ParseError)
    assert str(exc) == (
        "items[0].price: inf in expected is not a JSON number (NaN and Infinity are not JSON)"
    )


@pytest.mark.parametrize("metric", METRICS)
def test_nan_deep_in_actual_is_named_by_its_field_and_side_under_every_metric(metric):
    expected = {"items": [{"price": 1.0}, {"dims": {"w": 2.0}}]}
    actual = {"items": [{"price": 1.0}, {"dims": {"w": float("nan")}}]}
    exc = raised(match_json, actual, expected, metric=metric)
    assert isinstance(exc, ParseError)
    assert str(exc).startswith("items[1].dims.w: nan in actual is not a JSON number")


@pytest.mark.parametrize("metric", METRICS)
def test_a_python_object_deep_in_a_value_is_named_by_its_field_under_every_metric(metric):
    exc = raised(match_json, {"tags": {"a": [1, {2, 3}]}}, {"tags": {"a": [1, 2]}}, metric=metric)
    assert isinstance(exc, ParseError)
    assert str(exc).startswith("tags.a[1]: set in actual is not a JSON value")


# -- values nothing compares are read too; values the options leave out are not ---------------

NOT_JSON = "is not a JSON number (NaN and Infinity are not JSON)"


@pytest.mark.parametrize("metric", METRICS)
def test_nan_in_a_field_actual_lacks_is_named_as_expected_s(metric):
    # an omission is counted without being compared: nothing else would look at the value
    exc = raised(match_json, {"a": 1}, {"a": 1, "b": float("nan")}, metric=metric)
    assert str(exc) == f"b: nan in expected {NOT_JSON}"


@pytest.mark.parametrize("metric", METRICS)
def test_infinity_deep_in_an_omitted_value_is_named_by_its_own_field(metric):
    expected = {"a": 1, "b": {"c": [1.5, {"d": float("-inf")}]}}
    exc = raised(match_json, {"a": 1}, expected, metric=metric)
    assert str(exc) == f"b.c[1].d: -inf in expected {NOT_JSON}"


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])
def test_nan_in_a_hallucinated_field_is_named_as_actual_s(metric):
    # the F1 metrics count extra actual fields, so they are read too
    exc = raised(match_json, {"a": 1, "extra": [2.0, float("nan")]}, {"a": 1}, metric=metric)
    assert str(exc) == f"extra[1]: nan in actual {NOT_JSON}"


@pytest.mark.parametrize("metric", METRICS)
def test_nan_in_an_unpaired_array_element_is_named(metric):
    exc = raised(
        match_json,
        {"items": [{"p": 1.0}]},
        {"items": [{"p": 1.0}, {"p": float("nan")}]},
        metric=metric,
    )
    assert str(exc) == f"items[1].p: nan in expected {NOT_JSON}"


@pytest.mark.parametrize("metric", ["field_match", "field_match_normalized"])
@pytest.mark.parametrize(
    ("actual", "where"),
    [
        ([1, 2, float("nan")], "items[2]"),  # lengths differ: the comparison reads no element
        ({"x": 9, "y": float("inf")}, "items.y"),  # x differs first: y is never reached
    ],
    ids=["array-lengths", "object-first-field"],
)
def test_a_nan_past_the_first_difference_of_a_whole_value_is_still_named(metric, actual, where):
    expected = {"items": [1, 2]} if isinstance(actual, list) else {"items": {"x": 1, "y": 2}}
    exc = raised(match_json, {"items": actual}, expected, metric=metric)
    value = "nan" if isinstance(actual, list) else "inf"
    assert str(exc) == f"{where}: {value} in actual {NOT_JSON}"


@pytest.mark.parametrize("metric", ["field_match", "json_similarity", "structural_f1", "field_f1"])
def test_a_container_against_an_expected_scalar_is_read_for_non_json_values(metric):
    # json_similarity does not count the container's leaves; it must still not hide a set
    exc = raised(match_json, {"a": {"x": {1, 2}}}, {"a": "text"}, metric=metric)
    assert str(exc).startswith("a.x: set in actual is not a JSON value")


def test_a_key_the_schema_does_not_know_is_read_for_non_json_values():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    exc = raised(
        match_json,
        {"a": 1, "debug": {"t": float("inf")}},
        {"a": 1},
        metric="field_f1",
        schema=schema,
    )
    assert str(exc) == f"debug.t: inf in actual {NOT_JSON}"


@pytest.mark.parametrize(
    ("metric", "score"),
    [
        ("field_match", 0.5),
        ("field_match_normalized", 0.5),  # a matches once a.y is pruned; b missing
        ("json_similarity", 0.5),  # leaves a.x (1) and b.m (0): 1 / 2
        ("structural_f1", 2 / 3),
        ("field_f1", 2 / 3),  # a.x matches, b.m omitted: P 1/1, R 1/2
    ],
)
def test_values_the_ignore_option_names_are_not_read(metric, score):
    # ignored fields are not looked at, inside a whole value or a one-sided one
    result = match_json(
        {"a": {"x": 1, "y": float("nan")}},
        {"a": {"x": 1, "y": 2}, "b": {"n": float("nan"), "m": 1}},
        metric=metric,
        ignore=["a.y", "b.n"],
    )
    assert result.score == pytest.approx(score, abs=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_an_omitted_value_that_holds_itself_is_a_parse_error_not_a_hang(metric):
    loop: list = [1]
    loop.append(loop)
    exc = raised(match_json, {"a": 1}, {"a": 1, "b": loop}, metric=metric)
    assert str(exc) == (
        "b[1]: the value in expected contains itself (a value that holds itself is not JSON)"
    )


@pytest.mark.parametrize("metric", ["field_match", "json_similarity"])
def test_extra_actual_keys_a_metric_does_not_score_are_still_read_whole(metric):
    # these two metrics ignore actual's extra keys (their rule), but an input is read whole at
    # the door: only what `ignore` names is never read
    exc = raised(match_json, {"a": 1, "extra": float("nan")}, {"a": 1}, metric=metric)
    assert str(exc) == f"extra: nan in actual {NOT_JSON}"
    assert (
        match_json({"a": 1, "extra": float("nan")}, {"a": 1}, metric=metric, ignore=["extra"]).score
        == 1.0
    )


# -- 100,000 levels of Python values ----------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("build", [deep_dict, deep_list], ids=["dict", "list"])
def test_deep_python_values_compared_with_themselves_are_a_jsonmatch_error(metric, build):
    value = build()
    exc = raised(match_json, value, value, metric=metric)
    assert "nest too deeply" in str(exc)


@pytest.mark.parametrize("metric", METRICS)
def test_a_deep_python_expected_against_a_shallow_actual_never_raises_recursion_error(metric):
    value = deep_dict()
    with within(GENEROUS):
        try:
            result = match_json({"a": {"a": 1}}, value, metric=metric)
        except JsonMatchError as exc:
            assert "too deeply" in str(exc)
        except RecursionError:
            pytest.fail("RecursionError escaped")
        else:
            assert isinstance(result, MatchResult) and 0.0 <= result.score < 1.0


@pytest.mark.parametrize("metric", METRICS)
def test_a_deep_python_actual_against_a_shallow_expected_never_raises_recursion_error(metric):
    value = deep_dict()
    with within(GENEROUS):
        try:
            result = match_json(value, {"a": {"a": {"b": 1}}}, metric=metric)
        except JsonMatchError as exc:
            assert "too deeply" in str(exc)
        except RecursionError:
            pytest.fail("RecursionError escaped")
        else:
            assert 0.0 <= result.score < 1.0


def test_the_door_names_the_first_bad_value_in_document_order():
    from pytest_jsonmatch.engine.reading.intake import read_json

    value = {"a": [1.0, {"b": float("-inf")}], "c": float("nan")}
    with pytest.raises(ParseError) as info:
        read_json(value, "actual")
    assert str(info.value) == (
        "a[1].b: -inf in actual is not a JSON number (NaN and Infinity are not JSON)"
    )
    with pytest.raises(ParseError, match=r"^x: nan in expected"):
        read_json({"x": float("nan")}, "expected")
    plain = {"a": [1, "two", None, True, {"b": 2.5}]}
    assert read_json(plain, "expected") == (plain, 3)  # plain JSON passes as it is, depth 3
    assert read_json(plain, "expected")[0] is plain


def test_the_door_turns_tuples_and_mappings_into_plain_json_and_refuses_a_cycle():
    from types import MappingProxyType

    from pytest_jsonmatch.engine.reading.intake import read_json

    value, depth = read_json((1, "a", MappingProxyType({"k": [None, True]})), "actual")
    assert (value, depth) == ([1, "a", {"k": [None, True]}], 3)
    assert type(value[2]) is dict
    shared = [1.0]
    assert read_json({"a": shared, "b": [shared]}, "actual")[0] == {"a": [1.0], "b": [[1.0]]}
    loop: list = [1.0]
    loop.append(loop)  # holds itself: an error, not a hang
    with within(GENEROUS, "read_json"), pytest.raises(ParseError) as info:
        read_json({"a": loop}, "actual")
    assert (
        str(info.value)
        == "a[1]: the value in actual contains itself (a value that holds itself is not JSON)"
    )
    with pytest.raises(ParseError) as info:
        read_json({"a": (1, float("nan"))}, "expected")
    assert str(info.value) == f"a[1]: nan in expected {NOT_JSON}"


# -- pydantic models and dataclasses, read without importing pydantic --------------------------

import dataclasses  # noqa: E402
import enum  # noqa: E402

from pydantic import BaseModel  # noqa: E402

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Part(BaseModel):
    sku: str
    qty: int


class Order(BaseModel):
    id: str
    colour: Colour
    parts: list[Part]
    note: str | None = None


@dataclasses.dataclass
class Line:
    sku: str
    qty: int


def test_model_instances_are_read_as_their_json_dump_on_both_sides():
    expected = Order(id="o1", colour=Colour.RED, parts=[Part(sku="a", qty=1), Part(sku="b", qty=2)])
    actual = Order(id="o1", colour=Colour.BLUE, parts=[Part(sku="a", qty=1), Part(sku="b", qty=3)])
    result = match_json(actual, expected, schema=Order)
    assert [(f.path, f.status, f.expected, f.actual) for f in result.fields] == [
        ("id", "match", "o1", "o1"),
        ("colour", "mismatch", "red", "blue"),
        ("parts[0].sku", "match", "a", "a"),
        ("parts[0].qty", "match", 1, 1),
        ("parts[1].sku", "match", "b", "b"),
        ("parts[1].qty", "mismatch", 2, 3),
        ("note", "match", None, None),
    ]
    assert result.score == pytest.approx(5 / 7)


def test_models_and_dataclasses_inside_values_and_lists():
    expected = {"order": Order(id="o1", colour="red", parts=[]), "lines": [Line("a", 1)]}
    actual = {
        "order": {"id": "o1", "colour": "red", "parts": [], "note": None},
        "lines": [{"sku": "a", "qty": 1}],
    }
    assert match_json(actual, expected).score == 1.0
    assert (
        match_json([Line("a", 1)], [Line("a", 2)], metric="structural_f1").score == 0.5
    )  # sku 1, qty 0


def test_a_model_that_cannot_dump_is_a_parse_error_naming_it():
    class Broken(BaseModel):
        x: int

        def model_dump(self, **kwargs):
            raise RuntimeError("no")

    with pytest.raises(ParseError) as info:
        match_json({"m": Broken(x=1)}, {"m": 1})
    assert str(info.value) == "m: Broken.model_dump(mode='json') failed in actual: RuntimeError: no"
