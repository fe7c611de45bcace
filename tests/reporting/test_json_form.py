"""A case's input and a target's output enter a report through one door
(reporting/run_model/comparisons.py ``Shown.of``): whatever they hold, what is kept is strict
JSON, in the forms ``json_form`` documents, marked where it was rewritten; a value of any
size, depth or shape is written, never a hang, a RecursionError or a report lost."""

from __future__ import annotations

import json
import math

from pytest_jsonmatch.reporting.run_model.comparisons import ERROR, Comparison
from pytest_jsonmatch.reporting.run_model.shown_values import (
    JSON_FORM_DEPTH,
    SHOWN_LIMIT,
    Shown,
    json_form,
)


def _strict(value: object) -> str:
    return json.dumps(value, allow_nan=False)


def test_each_value_json_cannot_hold_has_one_documented_form():
    assert json_form(
        {"n": math.nan, "i": math.inf, "m": -math.inf, "s": {3, 1, 2}, "f": frozenset({"b", "a"})}
    ) == {"n": "NaN", "i": "Infinity", "m": "-Infinity", "s": [1, 2, 3], "f": ["a", "b"]}
    assert json_form({2: "a", None: "b", True: "c", 1.5: "d", (1, "x"): "e"}) == {
        "2": "a",
        "null": "b",
        "true": "c",
        "1.5": "d",
        '[1,"x"]': "e",
    }
    assert json_form([b"\x00", object.__new__(type("Thing", (), {"__repr__": lambda s: "T"}))]) == [
        "b'\\x00'",
        "T",
    ]
    assert json_form(10**5000).startswith("an integer of about 5,001 digits")  # (or 5,000)


def test_a_text_key_keeps_its_name_and_a_key_of_the_same_text_is_told_apart():
    assert json_form({1: "int", "1": "text"}) == {"1": "text", "1 (int)": "int"}


def test_a_set_of_mixed_members_is_sorted_by_their_json_text():
    # '"a"' < '1' < '[1,2]' < 'null' by their JSON text: one order every run
    assert json_form({1, "a", (1, 2), None}) == ["a", 1, [1, 2], None]


def test_a_container_that_holds_itself_or_nests_too_deep_is_written_as_its_repr():
    loop: list[object] = [1]
    loop.append(loop)
    assert json_form(loop) == [1, "[1, [...]]"]
    deep: list[object] = []
    for _ in range(100_000):  # deeper than Python's recursion limit, and json's
        deep = [deep]
    form = json_form(deep)
    depth = 0
    while isinstance(form, list):
        form, depth = form[0], depth + 1
    assert depth == JSON_FORM_DEPTH and form == "a list value"  # (its repr recursed too deep)


class _Unreadable(dict):
    """A mapping of the target's own whose items raise as they are read."""

    def items(self):
        raise KeyError("no items for you")


def test_a_mapping_that_raises_as_it_is_read_is_written_as_its_repr():
    seen = Shown.of(None, _Unreadable(a=1), "short")
    assert (seen.output, seen.not_json) == ("{'a': 1}", "o")


def test_what_a_report_keeps_is_strict_json_and_marked_where_it_was_rewritten():
    odd = {"x": math.nan, "s": {2, 1}}
    for mode in ("short", "full"):
        seen = Shown.of({"v": math.inf}, odd, mode)
        assert (seen.input, seen.output) == ({"v": "Infinity"}, {"x": "NaN", "s": [1, 2]})
        assert (seen.cut, seen.not_json) == ("", "io")
        _strict([seen.input, seen.output])
    plain = Shown.of({"v": 1}, {"x": (1, 2)}, "short")  # a tuple is JSON's array already
    assert (plain.output, plain.not_json) == ({"x": [1, 2]}, "")


def test_a_large_rewritten_output_is_cut_like_any_other_and_says_both():
    seen = Shown.of(None, {"n": math.nan, "items": set(range(10_000))}, "short")
    assert isinstance(seen.output, str) and len(seen.output) == SHOWN_LIMIT
    assert (seen.cut, seen.not_json) == ("o", "o")


def test_the_mark_is_read_back_with_the_comparison():
    comparison = Comparison(
        case_id="c.yaml::a",
        nodeid="c.yaml::a",
        metric="field_f1",
        score=0.0,
        threshold=0.5,
        status=ERROR,
        shown=Shown.of(None, {"x": math.nan}, "short"),
    )
    data = json.loads(_strict(comparison.to_dict()))
    assert data["output"] == {"x": "NaN"} and data["output_not_json"] is True
    again = Comparison.from_dict(data)
    assert again.shown == comparison.shown and again.to_dict() == data
