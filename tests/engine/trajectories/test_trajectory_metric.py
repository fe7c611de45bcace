"""The trajectory metric: modes, argument modes, per-tool rules, fields, scores, options."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import ConfigError, match_json


def call(name, **arguments):
    return {"name": name, "arguments": arguments}


def traj(run, expected, **options):
    return match_json(run, expected, metric="trajectory", **options)


def rows(result):
    return [(f.path, f.status, f.score) for f in result.fields]


USER, RESULT, ANSWER = {"role": "user", "content": "go"}, {"result": "r"}, {"answer": "done"}
FLIGHT = [
    USER,
    call("search", to="Oslo"),
    RESULT,
    call("book_flight", pnr="X1", seat="4A"),
    RESULT,
    ANSWER,
]


def test_strict_every_step_a_field_and_the_fields_by_step():
    result = traj(FLIGHT, FLIGHT)
    assert result.score == 1.0
    assert [f.path for f in result.fields] == [
        "[0]",
        "[1].search",
        "[1].search.to",
        "[2]",
        "[3].book_flight",
        "[3].book_flight.pnr",
        "[3].book_flight.seat",
        "[4]",
        "[5]",
    ]
    assert {f.field_path for f in result.fields} == {
        "[]",
        "[].search",
        "[].search.to",
        "[].book_flight",
        "[].book_flight.pnr",
        "[].book_flight.seat",
    }


def test_strict_a_wrong_argument_costs_its_field():
    run = [*FLIGHT[:3], call("book_flight", pnr="X2", seat="4A"), *FLIGHT[4:]]
    result = traj(run, FLIGHT)
    # 9 fields, 8 matched, 1 mismatched, none omitted or invented: P = R = F1 = 8/9
    assert result.score == pytest.approx(8 / 9)
    assert ("[3].book_flight.pnr", "mismatch", 0.0) in rows(result)


def test_strict_steps_out_of_order_are_omitted_and_invented_by_position():
    run = [
        USER,
        call("book_flight", pnr="X1", seat="4A"),
        RESULT,
        call("search", to="Oslo"),
        RESULT,
        ANSWER,
    ]
    result = traj(run, FLIGHT)
    # at step 1 search was expected and book_flight called, at step 3 the other way round:
    # calls of two functions never pair, so each expected call is omitted with its
    # arguments (search, to; book_flight, pnr, seat: 5 omissions) and each call made is
    # invented with its own (5 hallucinations); the 4 other steps match. TP = 4,
    # P = 4 / (4 + 5) = 4/9, R = 4 / (4 + 5) = 4/9, F1 = 4/9
    assert rows(result) == [
        ("[0]", "match", 1.0),
        ("[1].search", "omission", 0.0),
        ("[1].search.to", "omission", 0.0),
        ("[1].book_flight", "hallucination", 0.0),
        ("[1].book_flight.pnr", "hallucination", 0.0),
        ("[1].book_flight.seat", "hallucination", 0.0),
        ("[2]", "match", 1.0),
        ("[3].book_flight", "omission", 0.0),
        ("[3].book_flight.pnr", "omission", 0.0),
        ("[3].book_flight.seat", "omission", 0.0),
        ("[3].search", "hallucination", 0.0),
        ("[3].search.to", "hallucination", 0.0),
        ("[4]", "match", 1.0),
        ("[5]", "match", 1.0),
    ]
    assert result.score == pytest.approx(4 / 9)
    # unordered compares the calls alone, in any order: all 5 call fields match
    assert traj(run, FLIGHT, mode="unordered").score == 1.0


def test_strict_a_missing_answer_and_an_extra_step():
    result = traj(FLIGHT[:5], FLIGHT)
    # 8 fields matched, [5] omitted: P = 1, R = 8/9, F1 = 2 * 8/9 / (1 + 8/9) = 16/17
    assert result.score == pytest.approx(16 / 17)
    assert rows(result)[-1] == ("[5]", "omission", 0.0)
    longer = traj([*FLIGHT, {"role": "user", "content": "thanks"}], FLIGHT)
    # 9 matched, the run's step [6] invented: P = 9/10, R = 1, F1 = 18/19
    assert rows(longer)[-1] == ("[6]", "hallucination", 0.0)
    assert longer.score == pytest.approx(18 / 19)


def test_strict_parallel_calls_of_one_message_pair_in_any_order():
    expected = [{"role": "assistant", "tool_calls": [_oa("a", x=1), _oa("b", y=2)]}]
    run = [{"role": "assistant", "tool_calls": [_oa("b", y=2), _oa("a", x=1)]}]
    assert traj(run, expected).score == 1.0
    split = [
        {"role": "assistant", "tool_calls": [_oa("a", x=1)]},
        {"role": "assistant", "tool_calls": [_oa("b", y=2)]},
    ]
    # the run splits them in two messages: message 0 pairs a; b is omitted there (2 fields)
    # and the run's message 1 is invented (2 fields): 2 matched of 4 expected, 2 invented
    # P = 2/4, R = 2/4, F1 = 1/2
    assert traj(split, expected).score == pytest.approx(0.5)


def _oa(name, **arguments):
    import json

    return {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_superset_extra_calls_cost_nothing_and_subset_missing_calls_cost_nothing():
    expected = [call("search", q="a"), call("book", id=1)]
    more = [call("search", q="a"), call("weather", city="Oslo"), call("book", id=1)]
    assert traj(more, expected, mode="superset").score == 1.0
    assert traj(more, expected, mode="subset").score < 1.0
    fewer = [call("book", id=1)]
    assert traj(fewer, expected, mode="subset").score == 1.0
    # superset: search omitted (name and q), book matched (2 fields): P = 1, R = 2/4, F1 = 2/3
    assert traj(fewer, expected, mode="superset").score == pytest.approx(2 / 3)


def test_argument_modes():
    expected = [call("search", q="a", n=1)]
    fewer_args = [call("search", q="a")]
    more_args = [call("search", q="a", n=1, lang="en")]
    # superset: the run's call holds every expected argument; subset: the reverse
    assert traj(more_args, expected, args="superset").score == 1.0
    assert traj(fewer_args, expected, args="superset").score < 1.0
    assert traj(fewer_args, expected, args="subset").score == 1.0
    assert traj(more_args, expected, args="subset").score < 1.0
    ignored = traj([call("search", q="z")], expected, args="ignore")
    assert rows(ignored) == [("[0].search", "match", 1.0)]
    # exact: name, q match; n omitted: P = 1, R = 2/3, F1 = 4/5
    assert traj(fewer_args, expected).score == pytest.approx(0.8)


def test_subset_mode_faces_arguments_the_other_way_as_agentevals_does():
    # in subset mode agentevals holds the reference call as the output: args="subset" asks
    # the reference's arguments to be among the run's
    expected = [call("search", q="a")]
    run = [call("search", q="a", n=1)]
    assert traj(run, expected, mode="subset", args="subset").score == 1.0
    assert traj(run, expected, mode="subset", args="superset").score < 1.0


def test_unordered_with_set_arguments_comes_to_equal_arguments():
    expected = [call("search", q="a")]
    run = [call("search", q="a", n=1)]
    for args in ("subset", "superset"):
        assert traj(run, expected, mode="unordered", args=args).score < 1.0
    assert traj(run, expected, mode="unordered", args="ignore").score == 1.0


def test_tool_args_each_kind():
    expected = [call("search", q="Paris", page=1), call("book", city="Oslo", n=2)]
    run = [call("search", q="Paris", page=3), call("book", city="oslo", n=3)]
    # search compares q alone; book compares n within 1 and city by fuzzy ratio
    options = {"tool_args": {"search": ["q"], "book": {"n": {"numeric": {"abs": 1}}}}}
    assert traj(run, expected, **options).score == 1.0
    result = traj(run, expected, tool_args={"search": "ignore", "book": {"city": "exact"}})
    assert ("[1].book.city", "mismatch", 0.0) in rows(result)
    assert [f.path for f in result.fields if f.path.startswith("[0]")] == ["[0].search"]


def test_a_comparator_gives_partial_credit():
    expected = [call("search", q="kitten")]
    result = traj(
        [call("search", q="sitting")], expected, tool_args={"search": {"q": "levenshtein"}}
    )
    (field,) = [f for f in result.fields if f.path == "[0].search.q"]
    # levenshtein("kitten", "sitting") = 3 over the longer length 7: 1 - 3/7 = 4/7
    assert field.status == "mismatch" and field.score == pytest.approx(4 / 7)
    assert field.comparator == "levenshtein"


def test_nested_names_in_a_list_rule():
    expected = [call("find", filters={"city": "Oslo", "max": 3})]
    run = [call("find", filters={"city": "Oslo", "max": 9})]
    assert traj(run, expected, tool_args={"find": ["filters.city"]}).score == 1.0
    result = traj(run, expected, tool_args={"find": ["filters.max"]})
    assert ('[0].find["filters.max"]', "mismatch", 0.0) in rows(result)


def test_the_optimal_pairing_finds_what_first_fit_misses():
    expected = [call("search"), call("search", q="a")]
    run = [call("search", q="a"), call("search", q="b")]
    options = {"mode": "superset", "args": "superset"}
    assert traj(run, expected, **options).score == 1.0
    assert traj(run, expected, pairing="agentevals", **options).score < 1.0


def test_a_run_cut_off_while_a_step_was_written_spares_that_step():
    import json

    expected = [call("search", q="a"), call("book", id=1)]
    text = json.dumps([*expected, call("extra", z="long text")])
    cut = text[: text.index("long") + 1]  # inside the third call's argument
    # scored closed: the two expected calls match (4 fields); the call being written when
    # the answer was cut is skipped, not invented: P = R = 1 under unordered
    result = traj(cut, expected, mode="unordered", truncated="close")
    assert result.score == 1.0
    assert [(f.path, f.status) for f in result.fields if f.status != "match"] == [
        ("[2].extra", "skipped"),
        ("[2].extra.z", "skipped"),
    ]


def test_past_the_budget_first_fit_stands(monkeypatch):
    from pytest_jsonmatch.engine.pairing import call_pairing
    from pytest_jsonmatch.engine.pairing.pair_budget import PairBudget

    expected = [call("search"), call("search", q="a")]
    run = [call("search", q="a"), call("search", q="b")]
    # first fit's checks (superset: 4 pairs of 2 steps, each call's weight twice: 22 steps)
    # fit a budget of 30; the assignment's (4 cells + 22) do not: it is not solved
    monkeypatch.setattr(call_pairing, "CELLS_UNCOUNTED", 0)
    monkeypatch.setattr(PairBudget, "STEPS", 30)
    assert traj(run, expected, mode="superset", args="superset").score == pytest.approx(2 / 3)
    monkeypatch.setattr(PairBudget, "STEPS", 48)  # both fit: the assignment pairs both
    assert traj(run, expected, mode="superset", args="superset").score == 1.0


def test_empty_runs():
    assert traj([], []).score == 1.0
    assert traj([], [call("a")], mode="subset").score == 1.0
    assert traj([], [call("a")]).score == 0.0


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"mode": "strikt"}, "did you mean 'strict'"),
        ({"args": "partial"}, "trajectory option args must be one of"),
        ({"pairing": "greedy"}, "trajectory option pairing must be one of"),
        ({"tool_args": ["q"]}, "must map tool names to a rule"),
        ({"tool_args": {"f": "exactly"}}, "did you mean 'exact'"),
        ({"tool_args": {"f": []}}, "non-empty list"),
        ({"tool_args": {"f": {"q": "nosuch"}}}, "tool_args['f']['q']"),
        ({"order": "any"}, "unknown option 'order'"),
    ],
)
def test_bad_options_are_config_errors(options, words):
    with pytest.raises(ConfigError) as caught:
        traj([call("f")], [call("f")], **options)
    assert words in str(caught.value)


def test_a_batch_comparator_is_refused_for_an_argument():
    from pytest_jsonmatch.engine.comparing.registry import Registry
    from pytest_jsonmatch.engine.tool_calls.argument_checks import read_rules

    registry = Registry()
    registry.register_comparator("judged", lambda items: [1.0 for _ in items], batch=True)
    with pytest.raises(ConfigError, match="'judged' is a batch comparator"):
        read_rules("exact", {"f": {"q": "judged"}}, registry)


# -- the score is 1.0 exactly when the mode passes ---------------------------------------

NAMES = ("f", "g")
CALLS = st.tuples(
    st.sampled_from(NAMES), st.dictionaries(st.sampled_from("xy"), st.integers(0, 1), max_size=2)
)


def _valid(mode, args, e, a):
    """Whether run call ``a`` may stand for expected call ``e``, the rules read directly."""
    (en, ea), (an, aa) = e, a
    if en != an:
        return False
    if mode == "unordered" and args in ("subset", "superset"):
        args = "exact"
    if mode == "subset":  # the reference stands as the output
        args = {"subset": "superset", "superset": "subset"}.get(args, args)
    return {
        "exact": ea == aa,
        "ignore": True,
        "superset": all(aa.get(k, None) == v and k in aa for k, v in ea.items()),
        "subset": all(ea.get(k, None) == v and k in ea for k, v in aa.items()),
    }[args]


def _passes(mode, args, want, run):
    def injective(outer, inner, ok):
        return len(outer) <= len(inner) and any(
            all(ok(o, inner[k]) for o, k in zip(outer, chosen))
            for chosen in itertools.permutations(range(len(inner)), len(outer))
        )

    forward = injective(want, run, lambda e, a: _valid(mode, args, e, a))
    backward = injective(run, want, lambda a, e: _valid(mode, args, e, a))
    if mode == "strict":  # one message each: the same calls, any order
        return len(want) == len(run) and forward
    return {"superset": forward, "subset": backward, "unordered": forward and backward}[mode]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    st.sampled_from(("strict", "unordered", "subset", "superset")),
    st.sampled_from(("exact", "ignore", "subset", "superset")),
    st.lists(CALLS, max_size=4),
    st.lists(CALLS, max_size=4),
)
def test_the_score_is_one_exactly_when_the_mode_passes(mode, args, want, run):
    def message(calls):
        return (
            [{"role": "assistant", "tool_calls": [_oa(n, **a) for n, a in calls]}] if calls else []
        )

    result = traj(message(run), message(want), mode=mode, args=args)
    assert 0.0 <= result.score <= 1.0
    assert (result.score == 1.0) == _passes(mode, args, want, run)


def test_the_failure_message_names_the_first_step_off_the_path():
    from pytest_jsonmatch.reporting.render.failure_message import format_failure

    wrong = [*FLIGHT[:3], call("book_flight", pnr="X2", seat="4A"), *FLIGHT[4:]]
    assert (
        "the run left the expected path at step 3 (book_flight, argument pnr): mismatch, "
        'expected "X1", actual "X2"'
    ) in format_failure(traj(wrong, FLIGHT), 1.0)
    early = [USER, ANSWER]
    assert (
        'the run left the expected path at step 1 (search): mismatch, expected "search", '
        'actual "assistant"'
    ) in format_failure(traj(early, FLIGHT), 1.0)
    extra = [call("search", to="Oslo"), call("search", to="Rome")]
    message = format_failure(traj(extra, [call("search", to="Oslo")], mode="subset"), 1.0)
    assert (
        "the run left the expected path at the run's step 1 (search): hallucination, "
        'expected <missing>, actual "search"'
    ) in message


# -- strict: a call of another function than the one expected (issue 73, B3) ---------------

WANT_SEARCH = [
    call("search_flights", to="Oslo", date="2026-11-26"),
    RESULT,
    ANSWER,
]
BOOKED_INSTEAD = [call("book_flight", flight="SK1"), RESULT, ANSWER]


def test_strict_a_wrong_tool_omits_the_expected_call_and_invents_the_one_made():
    result = traj(BOOKED_INSTEAD, WANT_SEARCH)
    # step 0: search_flights expected, book_flight called. The expected call is omitted with
    # both its arguments (3 omissions), the call made is invented with its one (2
    # hallucinations); steps 1 and 2 match. TP = 2, P = 2 / (2 + 2) = 1/2,
    # R = 2 / (2 + 3) = 2/5, F1 = 2 * 1/2 * 2/5 / (1/2 + 2/5) = (2/5) / (9/10) = 4/9
    assert rows(result) == [
        ("[0].search_flights", "omission", 0.0),
        ("[0].search_flights.to", "omission", 0.0),
        ("[0].search_flights.date", "omission", 0.0),
        ("[0].book_flight", "hallucination", 0.0),
        ("[0].book_flight.flight", "hallucination", 0.0),
        ("[1]", "match", 1.0),
        ("[2]", "match", 1.0),
    ]
    assert result.score == pytest.approx(4 / 9)
    assert [f.field_path for f in result.fields][:3] == [
        "[].search_flights",
        "[].search_flights.to",
        "[].search_flights.date",
    ]
    # the calls alone score as unordered scores them: every call field omitted or invented
    calls_only = traj(BOOKED_INSTEAD[:1], WANT_SEARCH[:1])
    assert calls_only.score == traj(BOOKED_INSTEAD[:1], WANT_SEARCH[:1], mode="unordered").score
    assert calls_only.score == 0.0
    # and under first fit (pairing="agentevals") alike
    assert rows(traj(BOOKED_INSTEAD, WANT_SEARCH, pairing="agentevals")) == rows(result)


def test_strict_calls_where_another_step_was_expected_are_invented():
    run = [
        call("search_flights", to="Oslo", date="2026-11-26"),
        RESULT,
        call("book_flight", flight="SK1"),
    ]
    result = traj(run, WANT_SEARCH)
    # step 2: the answer expected, a call made. The step is a mismatch (its role against the
    # calls made) and the call nobody expected is invented with its argument (2
    # hallucinations); steps 0 (3 fields) and 1 match. TP = 4, P = 4 / (5 + 2) = 4/7,
    # R = 4 / 5, F1 = 2 * 4/7 * 4/5 / (4/7 + 4/5) = (32/35) / (48/35) = 2/3
    assert rows(result)[-3:] == [
        ("[2]", "mismatch", 0.0),
        ("[2].book_flight", "hallucination", 0.0),
        ("[2].book_flight.flight", "hallucination", 0.0),
    ]
    assert result.score == pytest.approx(2 / 3)
