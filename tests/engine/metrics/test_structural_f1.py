"""structural_f1 (structeval), metrics.md section 4: leaf scores, the string_evaluator option
(an unknown one lists the comparators), accounting, F-beta, pairing of array elements."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import ConfigError, match_json
from tests.helpers.known_names import (
    assert_lists_builtin_comparators as _assert_lists_builtin_comparators,
)


def sf(actual, expected, **options):
    return match_json(actual, expected, metric="structural_f1", **options)


def statuses(result):
    return sorted((f.path, f.status) for f in result.fields)


# -- string leaves: Jaccard on lower-cased whitespace tokens -----------------------------------
# With a single leaf on both sides, P = R = F1 = the leaf's score.


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        ("hello there world", "hello world", 2 / 3),  # {hello, world} of {hello, there, world}
        ("Paris", "paris", 1.0),  # lower-cased
        ("a b c d", "a b e", 0.4),  # 2 shared of 5
        ("a a b", "b a", 1.0),  # token sets: duplicates collapse
        ("foo,", "foo", 0.0),  # no punctuation stripping
        ("new   york", "New\tYork", 1.0),  # any whitespace splits
        ("", "", 1.0),  # both empty
        ("", "x", 0.0),
    ],
)
def test_strings_score_by_token_jaccard(expected, actual, score):
    result = sf({"s": actual}, {"s": expected})
    assert result.fields[0].score == pytest.approx(score)
    assert result.score == pytest.approx(score)


# -- number leaves: threshold evaluator ---------------------------------------------------------


@pytest.mark.parametrize(
    "expected, actual, score",
    [
        (1.0, 1.0, 1.0),
        (1.0, 1.0005, 1 - 0.5**10),  # d = 0.0005, t = 0.001, w = 0.1: 1 - (0.5)^10
        (5, 5.0004, 1 - 0.4**10),
        (1, 2, 0.0),  # d = 1 > t
        (100, 100.01, 0.0),
        (42, 42.0, 1.0),
    ],
)
def test_numbers_score_by_threshold_evaluator(expected, actual, score):
    result = sf({"n": actual}, {"n": expected})
    assert result.fields[0].score == pytest.approx(score, abs=1e-9)


def test_numeric_threshold_and_weighting_options():
    # t = 10, w = 1: d = 5 -> 1 - (5/10)^1 = 0.5
    result = sf({"n": 95}, {"n": 100}, numeric_threshold=10, numeric_weighting=1)
    assert result.fields[0].score == pytest.approx(0.5)
    # t = 10, w = 0.5: 1 - (5/10)^2 = 0.75
    result = sf({"n": 95}, {"n": 100}, numeric_threshold=10, numeric_weighting=0.5)
    assert result.fields[0].score == pytest.approx(0.75)


def test_number_beyond_threshold_scores_zero():
    # t = 10: d = 11 > 10 -> 0
    result = sf({"n": 89}, {"n": 100}, numeric_threshold=10, numeric_weighting=1)
    assert result.fields[0].score == 0.0


def test_booleans_compare_exactly():
    assert sf({"b": True}, {"b": True}).score == 1.0
    assert sf({"b": False}, {"b": True}).score == 0.0


def test_null_against_null_scores_one():
    result = sf({"z": None}, {"z": None})
    assert result.score == 1.0


def test_type_difference_scores_zero():
    result = sf({"a": "1"}, {"a": 1})
    assert [(f.status, f.score) for f in result.fields] == [("mismatch", 0.0)]
    assert result.score == 0.0


# -- string evaluator option --------------------------------------------------------------------


def test_string_evaluator_levenshtein():
    # abc vs abd: 1 - 1/3
    assert sf({"s": "abd"}, {"s": "abc"}, string_evaluator="levenshtein").score == pytest.approx(
        2 / 3
    )


def test_string_evaluator_exact():
    assert sf({"s": "paris"}, {"s": "Paris"}, string_evaluator="exact").score == 0.0
    assert sf({"s": "Paris"}, {"s": "Paris"}, string_evaluator="exact").score == 1.0


def test_unknown_string_evaluator_is_a_config_error_listing_known_names():
    with pytest.raises(ConfigError) as info:
        sf({"s": "a"}, {"s": "a"}, string_evaluator="no_such_evaluator")
    message = str(info.value)
    for name in ("jaccard", "levenshtein", "exact"):
        assert name in message


def test_an_unknown_string_evaluator_lists_the_comparators():
    with pytest.raises(ConfigError) as info:
        match_json({"a": "x"}, {"a": "x"}, metric="structural_f1", string_evaluator="cosinus")
    message = str(info.value)
    # names the option, then the comparator and what is known
    assert message.startswith(
        "string_evaluator: unknown comparator 'cosinus' (did you mean 'cosine'?); known comparators: "
    )
    _assert_lists_builtin_comparators(message)


# -- accounting (deliberately unlike structeval 0.1.1's code) ---------------------------------


def test_missing_key_lowers_structural_recall():
    # expected leaves 2 = TP + FN, actual leaves 1 = TP + FP, TP = 1
    # P = 1/1, R = 1/2, F1 = 2/3
    result = sf({"a": 1}, {"a": 1, "b": 2})
    assert result.precision == 1.0
    assert result.recall == 0.5
    assert result.f1 == pytest.approx(2 / 3)
    assert statuses(result) == [("a", "match"), ("b", "omission")]


def test_empty_actual_scores_zero_not_one():
    # structeval's code says 1.0 for {"a":1} vs {}; the formulas say R = 0/1, P = 1 (0/0), F1 0
    result = sf({}, {"a": 1})
    assert result.recall == 0.0
    assert result.precision == 1.0
    assert result.score == 0.0


def test_extra_key_lowers_structural_precision_only():
    # P = 1/2, R = 1/1, F1 = 2/3
    result = sf({"a": 1, "b": 2}, {"a": 1})
    assert result.precision == 0.5
    assert result.recall == 1.0
    assert result.f1 == pytest.approx(2 / 3)
    assert statuses(result) == [("a", "match"), ("b", "hallucination")]


def test_extra_nested_key_is_a_hallucination():
    # structeval's code: F1 0.5; the formulas: P = 1/2, R = 1/1, F1 = 2/3
    result = sf({"a": {"x": 1, "y": 2}}, {"a": {"x": 1}})
    assert result.precision == 0.5
    assert result.recall == 1.0
    assert result.f1 == pytest.approx(2 / 3)


def test_extra_key_holding_an_object_counts_every_leaf():
    # 2 extra leaves: P = 1/3, R = 1, F1 = 2*(1/3)/(4/3) = 0.5
    result = sf({"a": 1, "o": {"x": 1, "y": [2]}}, {"a": 1})
    assert result.precision == pytest.approx(1 / 3)
    assert result.f1 == pytest.approx(0.5)


def test_missing_object_counts_every_leaf_as_omission():
    result = sf({"a": 1}, {"a": 1, "o": {"x": 1, "y": {"z": 2}}})
    assert statuses(result) == [("a", "match"), ("o.x", "omission"), ("o.y.z", "omission")]
    assert result.recall == pytest.approx(1 / 3)


def test_expected_null_against_missing_scores_nothing():
    result = sf({"a": 1}, {"a": 1, "n": None})
    assert [f.path for f in result.fields if f.status != "skipped"] == ["a"]
    assert result.score == 1.0


def test_actual_null_against_missing_scores_nothing():
    result = sf({"a": 1, "n": None}, {"a": 1})
    assert [f.path for f in result.fields if f.status != "skipped"] == ["a"]
    assert result.score == 1.0


def test_both_empty_objects_score_one():
    result = sf({}, {})
    assert (result.precision, result.recall, result.f1) == (1.0, 1.0, 1.0)


def test_score_is_f_beta_with_beta_one_by_default():
    result = sf({"a": 1}, {"a": 1, "b": 2})
    assert result.score == result.f1


def test_beta_option_gives_f_beta():
    # P = 1, R = 0.5
    # F2 = 5PR / (4P + R) = 2.5 / 4.5; F0.5 = 1.25PR / (0.25P + R) = 0.625 / 0.75
    f2 = sf({"a": 1}, {"a": 1, "b": 2}, beta=2)
    assert f2.score == pytest.approx(2.5 / 4.5)
    assert f2.f1 == pytest.approx(2 / 3)
    f_half = sf({"a": 1}, {"a": 1, "b": 2}, beta=0.5)
    assert f_half.score == pytest.approx(0.625 / 0.75)


def test_a_beta_whose_square_overflows_gives_the_limit_recall():
    # beta = 1e200: beta squared is inf, and (1 + b2)PR / (b2 P + R) would be inf / inf;
    # as beta grows F-beta tends to R = 0.5 (P = 1)
    assert sf({"a": 1}, {"a": 1, "b": 2}, beta=1e200).score == 0.5
    assert sf({"a": 1}, {"a": 1, "b": 2}, beta=1e150).score == pytest.approx(0.5)


# -- arrays: pairing regardless of order --------------------------------------------------


def test_arrays_pair_regardless_of_order():
    assert sf({"t": ["y", "x"]}, {"t": ["x", "y"]}).score == 1.0


def test_top_level_arrays_pair_regardless_of_order_unpaired_expected_is_omission():
    # y-y, x-x paired; z has no partner above 0.3 -> omission
    # TP 2, expected leaves 3, actual leaves 2: P 1, R 2/3, F1 = 2*(2/3)/(5/3) = 0.8
    result = sf(["x", "y"], ["y", "x", "z"])
    assert result.precision == 1.0
    assert result.recall == pytest.approx(2 / 3)
    assert result.f1 == pytest.approx(0.8)


def test_arrays_of_objects_pair_by_mean_leaf_similarity():
    # sims: {foo bar,1}~{foo,1} = (1/2 + 1)/2 = 0.75; {baz,2}~{baz,2} = 1; the rest 0
    # paired: (foo bar, foo): n 0.5, v 1; (baz, baz): 1, 1 -> TP 3.5
    # {q, 9} unpaired: 2 omissions. P = 3.5/4, R = 3.5/6, F1 = 0.7
    actual = [{"n": "foo bar", "v": 1}, {"n": "baz", "v": 2}]
    expected = [{"n": "baz", "v": 2}, {"n": "foo", "v": 1}, {"n": "q", "v": 9}]
    result = sf(actual, expected)
    assert result.precision == pytest.approx(0.875)
    assert result.recall == pytest.approx(3.5 / 6)
    assert result.f1 == pytest.approx(0.7)


def test_pair_above_default_threshold_is_kept():
    # similarity over {n, k, m}: (1 + 0 + 0)/3 = 0.333 > 0.3 -> paired
    # then n match, k mismatch (0), m mismatch (0): TP 1 of 3 each side -> F1 1/3
    result = sf([{"n": "x", "k": 1, "m": "w z"}], [{"n": "x", "k": 2, "m": "u v"}])
    assert result.f1 == pytest.approx(1 / 3)
    assert {f.status for f in result.fields} == {"match", "mismatch"}


def test_pair_similarity_is_mean_over_the_union_of_leaf_paths():
    # union {a, b, c, d}: only a scores -> 1/4 = 0.25, not above 0.3 -> unpaired
    # (the mean over expected's paths would be 1/3 and pair them)
    # 3 omissions, 2 hallucinations, TP 0 -> F1 0
    result = sf([{"a": "x", "d": "z"}], [{"a": "x", "b": "y", "c": "w"}])
    assert result.f1 == 0.0
    assert sorted(f.status for f in result.fields) == ["hallucination"] * 2 + ["omission"] * 3


def test_pair_at_exactly_the_threshold_is_not_kept():
    # Jaccard("a b c d", "a b e") = 2/5 = 0.4; threshold 0.4: not greater -> unpaired
    result = sf({"t": ["a b e"]}, {"t": ["a b c d"]}, array_matching_threshold=0.4)
    assert sorted(f.status for f in result.fields) == ["hallucination", "omission"]
    assert result.f1 == 0.0


def test_pair_just_above_the_threshold_is_kept():
    # same pair, threshold 0.39: paired, leaf score 0.4 -> P = R = F1 = 0.4
    result = sf({"t": ["a b e"]}, {"t": ["a b c d"]}, array_matching_threshold=0.39)
    assert [f.status for f in result.fields] == ["mismatch"]
    assert result.f1 == pytest.approx(0.4)


def test_pairing_is_optimal_not_greedy():
    # built so that the first-row pick e0-a0 (a tie at 2/3) loses:
    # e0 {x:"p", y:"q", z:"r"}, e1 {x:"p", y:"q", z:"s"}
    # a0 {x:"p", y:"q", z:"s"} (= e1), a1 {x:"p", y:"k", z:"r"}
    # e0~a0 2/3, e0~a1 2/3, e1~a0 1, e1~a1 1/3 -> optimum e1-a0 (1) + e0-a1 (2/3)
    # fields: e1-a0 3 matches; e0-a1 x, z match, y mismatch -> TP 5 of 6 -> F1 5/6
    expected = [{"x": "p", "y": "q", "z": "r"}, {"x": "p", "y": "q", "z": "s"}]
    actual = [{"x": "p", "y": "q", "z": "s"}, {"x": "p", "y": "k", "z": "r"}]
    result = sf(actual, expected)
    assert result.f1 == pytest.approx(5 / 6)


def test_unpaired_expected_element_is_an_omission_of_every_leaf():
    result = sf({"t": []}, {"t": [{"a": "p", "b": "q"}]})
    assert statuses(result) == [("t[0].a", "omission"), ("t[0].b", "omission")]
    assert result.recall == 0.0


def test_unpaired_actual_element_is_a_hallucination_of_every_leaf():
    # {a:p} pairs with {a:p}; {a:q, b:r} left over: 2 hallucinations
    # TP 1: P = 1/3, R = 1, F1 = 0.5
    result = sf({"t": [{"a": "p"}, {"a": "q", "b": "r"}]}, {"t": [{"a": "p"}]})
    assert sorted(f.status for f in result.fields) == ["hallucination", "hallucination", "match"]
    assert result.f1 == pytest.approx(0.5)


def test_nested_arrays_are_compared_after_pairing():
    # outer pair by n; inner t: b-b paired, a and c have Jaccard 0 -> omission + hallucination
    # TP 2 (n, b) of 3 per side -> P = R = F1 = 2/3
    result = sf([{"n": "x", "t": ["b", "c"]}], [{"n": "x", "t": ["a", "b"]}])
    assert result.f1 == pytest.approx(2 / 3)


def test_structural_pairs_by_assignment_even_with_align_ordered():
    assert sf({"t": [3, 2, 1]}, {"t": [1, 2, 3]}, align="ordered").score == 1.0


def test_array_matching_threshold_out_of_range_is_a_config_error():
    with pytest.raises(ConfigError):
        sf({"t": []}, {"t": []}, array_matching_threshold=1.5)


def test_mixed_type_arrays_pair_by_type():
    # 1~1 and x~x score 1; 1~"x" is a type difference (0): both pair correctly
    assert sf(["x", 1], [1, "x"]).score == 1.0


def test_null_element_counts_as_absent():
    # the expected null element scores nothing; "x" pairs with "x"
    result = sf({"t": ["x"]}, {"t": [None, "x"]})
    assert result.score == 1.0
    assert [f.status for f in result.fields if f.status != "skipped"] == ["match"]


def test_a_container_against_an_expected_scalar_absorbs_its_first_leaf_by_path_whatever_the_key_order():
    # expected id is a scalar, actual id an object of two leaves: one mismatch (id) and one
    # hallucination; the leaf that stands as the mismatch is the first by path (id.b), so the
    # hallucination is id.y in both key orders. P = 0 / (1 + 1), R = 0 / 1: F1 0
    for actual in ({"id": {"b": 1, "y": 2}}, {"id": {"y": 2, "b": 1}}):
        result = sf(actual, {"id": False})
        assert [(f.path, f.status) for f in result.fields] == [
            ("id", "mismatch"),
            ("id.y", "hallucination"),
        ]
        assert (result.precision, result.recall, result.score) == (0.0, 0.0, 0.0)
