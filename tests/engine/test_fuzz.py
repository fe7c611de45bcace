"""The fuzz harness (issue 19): every public entry point fed every kind of value a user can
pass, with random option sets, checked for seven properties.

1. Only documented errors: any exception is a JsonMatchError (assert_json_match may also
   raise the AssertionError of a failing score), never a TypeError, OverflowError,
   RecursionError... from inside.
2. Every score, precision, recall and F1 (of the result and of each field) is a float in
   [0, 1], never NaN.
3. A value compared with itself scores 1.0, under every metric, with options that keep
   identical values equal (the same object, a copy, its JSON text in prose).
4. The inputs (values and options) are not mutated.
5. The same call twice gives the same result (or the same error).
6. The key order of the actual side changes no score.
7. Each call finishes within LIMIT seconds of CPU time (a failure naming the call); one
   slower than SLOW seconds, the requirement, is reported as a SlowCallWarning. CPU time,
   not the clock: a long run shares the machine, and a call that waited for a core is not
   slow. A call that waits on something that never comes (using no CPU) still fails, after
   LIMIT + GRACE seconds by the clock. The heap is frozen for the call (gc.freeze): the
   collector's passes over what hypothesis keeps of a long run (seconds, late in a run of
   100,000 examples) are not the call's time, and no call pays for them by chance.

The values and options come from tests/helpers/fuzz_values.py. The number of examples comes
from the hypothesis profile (tests/conftest.py): "fuzz-ci" by default, "fuzz-long" with
JSONMATCH_FUZZ=N or --hypothesis-profile=fuzz-long. How to run it: docs/errors.md, Fuzzing.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import random
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import (
    JsonMatchError,
    MatchResult,
    RunResult,
    annotate_schema,
    assert_json_match,
    evaluate_records,
    infer_schema,
    match_json,
    validate_gold,
)
from pytest_jsonmatch.session import (
    channel as recording,
)  # where assert_json_match records each comparison
from tests.helpers import fuzz_values as fv
from tests.helpers.timeout import Hang

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

LIMIT = 5.0  # seconds of CPU: a call that takes longer fails the test
SLOW = 2.0  # seconds of CPU: the requirement; a slower call is reported (SlowCallWarning)
GRACE = 60.0  # seconds by the clock a call may run past LIMIT, waiting or comparing deep
DEEP_THREAD = "jsonmatch-deep"  # engine/core/depth.py compares deep values in threads of this name
FUNCTIONS = {
    "match_json": match_json,
    "evaluate_records": evaluate_records,
    "assert_json_match": assert_json_match,
    "annotate_schema": annotate_schema,
    "infer_schema": infer_schema,
    "validate_gold": validate_gold,
}
NOT_SCORED = {"mismatch", "omission", "hallucination", "batch_error"}


def _profile() -> settings:
    # the profile --hypothesis-profile loaded (get_current_profile_name is newer than the
    # lowest hypothesis the test extra allows)
    current = getattr(settings, "get_current_profile_name", None)
    name = current() if current is not None else getattr(settings, "_current_profile", None)
    long_run = bool(os.environ.get("JSONMATCH_FUZZ", "").strip(" 0")) or name == "fuzz-long"
    return settings(settings.get_profile("fuzz-long" if long_run else "fuzz-ci"))


FUZZ = _profile()
LONG_RUN = FUZZ.max_examples > settings.get_profile("fuzz-ci").max_examples
PROGRESS_EVERY = (
    5_000  # a long run says how far it got (pytest -s shows it), every so many examples
)
_examples: dict[str, int] = {}
_started = time.monotonic()


def count_example(test: str) -> None:
    """Count an example of ``test``; in a long run, say how many so far every
    PROGRESS_EVERY (a run stopped before its end still tells how far it got)."""
    n = _examples[test] = _examples.get(test, 0) + 1
    if LONG_RUN and n % PROGRESS_EVERY == 0:
        print(
            f"[fuzz] {test}: {n} examples, {time.monotonic() - _started:.0f} s",
            file=sys.stderr,
            flush=True,
        )


class SlowCallWarning(UserWarning):
    """A call took longer than SLOW seconds (the requirement), but less than LIMIT."""


# -- running one call ---------------------------------------------------------------------------


@contextlib.contextmanager
def own_records() -> Iterator[list]:
    """assert_json_match records every comparison for the session's summary and report:
    the fuzz cases are recorded here instead (hundreds of junk rows in the summary, and a
    long run's results kept in memory, otherwise)."""
    outcomes: list = []
    previous = recording.activate(outcomes.append)
    try:
        yield outcomes
    finally:
        recording.activate(previous)


def run(case: fv.Case, args: tuple | None = None, kwargs: dict | None = None) -> Any:
    """The case's call within LIMIT seconds: its return value, or the documented exception it
    raised (a JsonMatchError; for assert_json_match, also the AssertionError of a failing
    score). Any other exception, or a call over LIMIT, fails the property with the call."""
    if case.function == "assert_json_match":
        with own_records() as outcomes:
            got = _run(case, args, kwargs)
        # the comparison is recorded once, as what it was: passed, failed or an error
        assert len(outcomes) == 1, f"{len(outcomes)} outcomes recorded: {case!r}"
        (recorded,) = outcomes
        if isinstance(got, JsonMatchError):
            assert recorded.error and recorded.result is None, (
                f"recorded as {recorded!r:.300}: {case!r}"
            )
        else:
            assert recorded.passed == isinstance(got, MatchResult) and not recorded.error, (
                f"recorded as {recorded!r:.300}: {case!r}"
            )
        return got
    return _run(case, args, kwargs)


def _deep_thread_running() -> bool:
    return any(t.name == DEEP_THREAD and t.is_alive() for t in threading.enumerate())


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after ``seconds`` (SIGALRM; pytest and xdist workers run
    tests in the main thread). Not while the engine compares a deep value in a thread of its
    own: interrupting its join makes the engine restore the recursion limit under that
    running thread, whose RecursionError can then become a fatal "Cannot recover from stack
    overflow" that aborts the whole process (hypothesis's gc callback runs Python code
    there). The alarm then waits for the thread, GRACE seconds at most, and the call, over
    its time, fails all the same (see _run). A call that has not yet used ``seconds`` of
    CPU (it waited for a core) is given until then, GRACE seconds at most."""
    give_up = time.monotonic() + seconds + GRACE
    cpu_start = time.process_time()

    def on_alarm(signum: int, frame: Any) -> None:
        if time.monotonic() < give_up:
            if _deep_thread_running():
                signal.setitimer(signal.ITIMER_REAL, 0.05)
                return
            if time.process_time() - cpu_start < seconds:
                signal.setitimer(signal.ITIMER_REAL, 0.25)
                return
        raise Hang(f"did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _run(case: fv.Case, args: tuple | None, kwargs: dict | None) -> Any:
    fn = FUNCTIONS[case.function]
    args = case.args if args is None else args
    kwargs = case.kwargs if kwargs is None else kwargs
    gc.freeze()  # the collector passes over what the call makes, not the harness's heap
    start = time.process_time()
    try:
        with time_limit(LIMIT):
            got = fn(*args, **kwargs)
    except Hang:
        raise AssertionError(f"did not finish within {LIMIT:g} s: {case!r}") from None
    except JsonMatchError as exc:
        got = exc
    except AssertionError as exc:
        if not (case.function == "assert_json_match" and hasattr(exc, "result")):
            raise AssertionError(
                f"an AssertionError from inside: {exc!s:.300} in {case!r}"
            ) from exc
        got = exc
    except Exception as exc:
        raise AssertionError(
            f"{type(exc).__name__} escaped (not a JsonMatchError): {exc!s:.300} in {case!r}"
        ) from exc
    finally:
        gc.unfreeze()
    elapsed = time.process_time() - start  # CPU time (see property 7)
    if elapsed > LIMIT:
        raise AssertionError(f"did not finish within {LIMIT:g} s (took {elapsed:.1f} s): {case!r}")
    if elapsed > SLOW:
        warnings.warn(SlowCallWarning(f"{elapsed:.1f} s (over {SLOW:g} s): {case!r}"), stacklevel=1)
    return got


# -- property 2: scores in [0, 1] ------------------------------------------------------------------


def _unit(x: Any, what: str, case: fv.Case) -> None:
    assert isinstance(x, float) and not math.isnan(x) and 0.0 <= x <= 1.0, (
        f"{what} is {x!r} ({type(x).__name__}), not a float in [0, 1]: {case!r}"
    )


def check_scores(result: Any, case: fv.Case) -> None:
    if isinstance(result, RunResult):
        for record in result.records:
            check_scores(record, case)
        for name in ("mean_score", "mean_precision", "mean_recall", "mean_f1"):
            _unit(getattr(result, name), name, case)
        for path, agg in result.per_field.items():
            _unit(agg.mean_score, f"per_field[{path!r}].mean_score", case)
        return
    assert isinstance(result, MatchResult), f"returned {type(result).__name__}: {case!r}"
    for name in ("score", "precision", "recall", "f1"):
        _unit(getattr(result, name), name, case)
    for f in result.fields:
        _unit(f.score, f"the score of field {f.path!r} ({f.status})", case)
    for p in result.pairings:
        _unit(p.score, f"the score of pairing {p.path!r}", case)


# -- property 5: the same result twice --------------------------------------------------------------


def outcome(value: Any) -> Any:
    """What a call gave, as comparable data: an error by class and message, a result by every
    score and field (values left out: they are the inputs)."""
    if isinstance(value, BaseException):
        key = (type(value).__name__, str(value))
        result = getattr(value, "result", None)  # assert_json_match's failure
        return key if result is None else (key[0], outcome(result))
    if isinstance(value, MatchResult):
        return (
            value.metric,
            value.score,
            value.precision,
            value.recall,
            value.f1,
            tuple(
                (
                    f.path,
                    f.status,
                    f.score,
                    f.comparator,
                    f.reason,
                    f.field_path,
                    f.actual_path,
                    f.weight,
                )
                for f in value.fields
            ),
            tuple(value.pairings),
            tuple(value.floor_failures),
        )
    if isinstance(value, RunResult):
        return (
            value.metric,
            tuple(outcome(r) for r in value.records),
            tuple(
                (path, agg.mean_score, agg.match, agg.mismatch, agg.omission, agg.hallucination)
                for path, agg in value.per_field.items()
            ),
        )
    return fv.snapshot(value)


# -- property 6: key order of the actual side ------------------------------------------------------


def _actual_index(case: fv.Case) -> int:
    return 1 if case.function == "evaluate_records" else 0


def _reorderable(value: Any) -> bool:
    return isinstance(value, (Mapping, list, tuple)) and not fv.has_cycle(value)


def reorder_actual(case: fv.Case, order: Any) -> tuple | None:
    """The case's arguments with the actual side's keys reordered at every depth; None when
    the actual side holds no mapping to reorder (text, cycles)."""
    i = _actual_index(case)
    actual = case.args[i]
    if case.function == "evaluate_records":
        if not isinstance(actual, (list, tuple)) or not all(_reorderable(a) for a in actual):
            return None
        new = type(actual)(fv.reordered(a, order) for a in actual)
    elif _reorderable(actual):
        new = fv.reordered(actual, order)
    else:
        return None
    args = list(case.args)
    args[i] = new
    return tuple(args)


def _scores(value: Any) -> list[MatchResult] | None:
    result = getattr(value, "result", value)  # assert_json_match's failure carries one
    if isinstance(result, MatchResult):
        return [result]
    if isinstance(result, RunResult):
        return list(result.records)
    return None


def assert_same_scores(first: Any, second: Any, case: fv.Case, how: str) -> None:
    a, b = _scores(first), _scores(second)
    assert (a is None) == (b is None) and type(first) is type(second), (
        f"with the actual side's keys {how}: {outcome(second)!r:.300} instead of "
        f"{outcome(first)!r:.300}: {case!r}"
    )
    if a is None:
        return
    for r1, r2 in zip(a, b):
        for name in ("score", "precision", "recall", "f1"):
            x, y = getattr(r1, name), getattr(r2, name)
            assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12), (
                f"{name} {y!r} instead of {x!r} with the actual side's keys {how}: {case!r}"
            )
        f1 = sorted((f.path, f.status, f.score) for f in r1.fields)
        f2 = sorted((f.path, f.status, f.score) for f in r2.fields)
        assert [x[:2] for x in f1] == [x[:2] for x in f2] and all(
            math.isclose(x[2], y[2], rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(f1, f2)
        ), (
            f"fields {[x for x in f2 if x not in f1][:3]} instead of {[x for x in f1 if x not in f2][:3]} "
            f"with the actual side's keys {how}: {case!r}"
        )


# -- the properties of one call -------------------------------------------------------------------


def _first_difference(before: list, after: list) -> str:
    for i, (x, y) in enumerate(zip(before, after)):
        if x != y:
            return f"item {i}: {fv.show(x)} became {fv.show(y)}"
    return f"{len(before)} items became {len(after)}"


def check_call(case: fv.Case, order_seed: int | None = None) -> Any:
    """Properties 1, 2, 4, 5, 6 and 7 of one call; its outcome."""
    before = fv.snapshot((case.args, case.kwargs))
    first = run(case)  # 1 and 7
    after = fv.snapshot((case.args, case.kwargs))
    assert after == before, (
        f"the call changed its inputs ({_first_difference(before, after)}): {case!r}"
    )
    if isinstance(first, (MatchResult, RunResult)):
        check_scores(first, case)
    elif getattr(first, "result", None) is not None:  # assert_json_match's failure
        check_scores(first.result, case)
    second = run(case)
    assert outcome(second) == outcome(first), (
        f"a second call gave {outcome(second)!r:.300}, the first {outcome(first)!r:.300}: {case!r}"
    )
    if order_seed is not None and case.function in (
        "match_json",
        "evaluate_records",
        "assert_json_match",
    ):
        if order_seed == 0:
            how, order = "reversed", lambda items: items[::-1]
        else:
            how = f"shuffled (random.Random({order_seed}))"
            rng = random.Random(order_seed)

            def order(items: list) -> list:
                items = list(items)
                rng.shuffle(items)
                return items

        args = reorder_actual(case, order)
        if args is not None:
            assert_same_scores(first, run(case, args=args), case, how)
    return first


ORDER_SEEDS = st.one_of(st.just(0), st.integers(1, 2**32))  # 0: every mapping's keys reversed

# A SchemaWarning is part of what these tests provoke, not a finding: a schema drawn at random
# declares keys the engine does not read, and random records give a field values of several
# types (infer_schema keeps the first and warns). The tests that draw schemas or infer them
# leave it out of the run's warnings; anything else they warn (SlowCallWarning) still shows.
SCHEMA_WARNINGS_EXPECTED = pytest.mark.filterwarnings("ignore::pytest_jsonmatch.SchemaWarning")


# -- the tests -----------------------------------------------------------------------------------


# Each test draws its metric (the case names it): a few hundred examples per test, spread
# over the five metrics, keep the CI profile well under a minute.


@SCHEMA_WARNINGS_EXPECTED
@FUZZ
@given(case=fv.match_cases(), order=ORDER_SEEDS)
def test_match_json(case, order):
    count_example("test_match_json")
    check_call(case, order_seed=order)


@SCHEMA_WARNINGS_EXPECTED
@FUZZ
@given(case=fv.record_cases(), order=ORDER_SEEDS)
def test_evaluate_records(case, order):
    count_example("test_evaluate_records")
    check_call(case, order_seed=order)


def _valid_threshold(threshold: Any) -> bool:
    return threshold is None or (
        isinstance(threshold, (int, float))
        and not isinstance(threshold, bool)
        and 0 <= threshold <= 1
    )


@SCHEMA_WARNINGS_EXPECTED
@FUZZ
@given(case=fv.assert_cases(), order=ORDER_SEEDS)
def test_assert_json_match(case, order):
    count_example("test_assert_json_match")
    got = check_call(case, order_seed=order)
    threshold = case.kwargs.get("threshold")
    if isinstance(got, MatchResult):
        assert _valid_threshold(threshold), f"threshold {threshold!r} was accepted: {case!r}"
        assert got.passed(1.0 if threshold is None else threshold), (
            f"passed a failing score: {case!r}"
        )
    elif isinstance(got, AssertionError):
        assert _valid_threshold(threshold), f"threshold {threshold!r} was accepted: {case!r}"
        assert not got.result.passed(got.threshold), f"failed a passing score: {case!r}"


def _with_schema(options: dict, value: Any) -> dict:
    """The options with the schema marker of equal_keeping_options made into a schema
    inferred from the value (and annotated); without a schema when an array of the value
    mixes types (the inferred schema would not fit it: each node takes the type of its first
    non-null value)."""
    marker = options.get("schema")
    if marker not in ("inferred", "annotated"):
        return options
    rest = {k: v for k, v in options.items() if k != "schema"}
    data = fv.plain(value)
    if not fv.one_type_per_array(data):
        return rest
    inferred = fv.Case("infer_schema", ([data],))
    schema = run(inferred)
    assert isinstance(schema, dict), f"{type(schema).__name__}: {schema!s:.300}: {inferred!r}"
    if marker == "annotated":
        annotate = fv.Case("annotate_schema", (schema,))
        schema = run(annotate)
        assert isinstance(schema, dict), f"{type(schema).__name__}: {schema!s:.300}: {annotate!r}"
    return {**rest, "schema": schema}


def _self_forms(value: Any) -> list[tuple[str, Any, Any]]:
    forms = [("the same object", value, value), ("a copy", fv.clone(value), value)]
    text = fv.to_json_text(fv.plain(value)) if fv.nesting(value) <= 500 else None
    if text is not None and "```" not in text:
        if isinstance(value, Mapping):
            forms.append(("its JSON text in prose", fv.in_prose(text, 0), text))
            forms.append(("its JSON text in a fence", fv.in_prose(text, 1), text))
        else:
            forms.append(("its JSON text", text, text))
    return forms


@FUZZ
@given(case=fv.self_cases())
def test_a_value_against_itself_scores_one(case):
    count_example("test_a_value_against_itself_scores_one")
    value = case.args[1]
    options = _with_schema(case.kwargs, value)
    for form, actual, expected in _self_forms(value):
        this = fv.Case("match_json", (actual, expected), options)
        result = run(this)
        assert isinstance(result, MatchResult), (
            f"{form}: {type(result).__name__}: {result!s:.300}, not a score of 1.0: {this!r}"
        )
        check_scores(result, this)
        bad = [(f.path, f.status, f.score) for f in result.fields if f.status in NOT_SCORED]
        assert (result.score, result.precision, result.recall, result.f1) == (
            1.0,
            1.0,
            1.0,
            1.0,
        ) and not bad, (
            f"{form}: score {result.score!r} (P {result.precision!r}, R {result.recall!r}), "
            f"fields {bad[:3]}: {this!r}"
        )


@SCHEMA_WARNINGS_EXPECTED
@FUZZ
@given(case=fv.schema_cases())
def test_schema_tools(case):
    count_example("test_schema_tools")
    got = check_call(case)
    if isinstance(got, JsonMatchError):
        return
    if case.function in ("annotate_schema", "infer_schema"):
        assert isinstance(got, dict), f"returned {type(got).__name__}: {case!r}"
    else:
        assert isinstance(got, list) and all(isinstance(w, str) for w in got), (
            f"returned {fv.show(got)}: {case!r}"
        )


@SCHEMA_WARNINGS_EXPECTED
@FUZZ
@given(
    records=st.lists(
        st.dictionaries(fv.PLAIN_KEYS, fv.ACCEPTED_TREES, max_size=5), min_size=1, max_size=3
    )
)
def test_a_schema_inferred_from_records_fits_them(records):
    """infer_schema reads records as the comparisons do (numpy values, subclasses and
    tuples as the JSON they hold), and a record fits the schema inferred from it alone."""
    count_example("test_a_schema_inferred_from_records_fits_them")
    case = fv.Case("infer_schema", (records,))
    schema = check_call(case)
    assert isinstance(schema, dict), f"{type(schema).__name__}: {schema!s:.300}: {case!r}"
    data = fv.plain(records)
    as_json = run(fv.Case("infer_schema", (data,)))
    assert schema == as_json, (
        f"{fv.show(schema)} from the records, {fv.show(as_json)} from the JSON they hold: {case!r}"
    )
    annotated = check_call(fv.Case("annotate_schema", (schema,)))
    assert isinstance(annotated, dict), f"{type(annotated).__name__}: {annotated!s:.300}"
    if len(records) == 1 and fv.one_type_per_array(data[0]):
        this = fv.Case("validate_gold", (records[0], annotated))
        warned = check_call(this)
        assert isinstance(warned, list), f"{type(warned).__name__}: {warned!s:.300}: {this!r}"
