"""A dataset's report lines written from pieces (reporting/run_model/comparison_lines.py) are the
bytes the dicts write: ``comparison_line`` is ``json_line`` of ``comparison_dict(...)`` as
the report stores it (field_rows.stored_comparison: its fields rows of a table of heads,
each side's table filled in the same order) and
``case_line`` is ``json_line(case_dict(...))`` for generated comparisons, fields and cases,
every value mode, and with the texts they keep cleared at any point."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pytest_jsonmatch.engine.core.values import MISSING
from pytest_jsonmatch.engine.results.field_results import STATUSES as FIELD_STATUSES
from pytest_jsonmatch.engine.results.field_results import FieldResult
from pytest_jsonmatch.reporting.run_model import comparison_lines, field_rows
from pytest_jsonmatch.reporting.run_model.aggregate import CaseResult, case_dict
from pytest_jsonmatch.reporting.run_model.comparison_lines import case_line, comparison_line
from pytest_jsonmatch.reporting.run_model.comparisons import (
    VALUE_LIMIT,
    Comparison,
    ReportedConformance,
    Status,
    comparison_dict,
)
from pytest_jsonmatch.reporting.run_model.field_rows import Heads, StoredFields, stored_comparison
from pytest_jsonmatch.reporting.run_model.spool import json_line

MODES = ("none", "short", "full")


class Text(str):
    """A string subclass: json writes its characters; records keeps it as it is."""


class Number(float):
    """A float subclass: json writes ``float.__repr__`` of it."""


STRINGS = [
    "",
    "abc",
    "INV-000001",
    'say "hi"',
    "back\\slash",
    "tab\there\nnewline\r",
    "\x00\x01\x1f\x7f",
    "\u00e9t\u00e9 \u4e2d\u6587 \U0001f600",
    "\u2028\u2029</script>",
    "x" * 33,
    "x" * 34,
    "\u00e9" * 33,
    "\n" * 33,
    "\n" * 34,
    "y" * 99,
    "y" * 100,
    "z" * 198,
    "z" * 199,
    "z" * 200,
    "w" * 250,
    '"' * 120,
    "\x01" * 40,
    "\u00e9" * 300,
    Text("sub"),
    Text("s" * 300),
]
FLOATS = [
    0.0,
    -0.0,
    1.0,
    0.5,
    0.1 + 0.2,
    254.68,
    -3.5,
    1e300,
    5e-324,
    1e16,
    123456789.125,
    2 / 3,
    float("nan"),
    float("inf"),
    float("-inf"),
    Number(2.5),
]
INTS = [
    0,
    1,
    -1,
    12,
    10**15 - 1,
    -(10**15 - 1),
    10**15,
    -(10**15),
    10**199,
    -(10**199),
    10**200,
    -(10**200 - 1),
    10**5000,
    True,
    False,
]
CONTAINERS = [
    [],
    {},
    [1, "a", None],
    {"a": {"b": ["c" * 300]}},
    {"k": 1.5, "\u00e9": [True]},
    list(range(100)),
    {"n": float("nan")},
    ("tuple", 1),
]
VALUES: list[Any] = [*STRINGS, *FLOATS, *INTS, *CONTAINERS, None, MISSING]
PATHS = [
    "",
    "a",
    "items[0].sku",
    "items[].sku",
    'we"ird\\key',
    "\u00e9l\u00e8ve.\u2028",
    "$",
    "x" * 250,
    "tab\tkey",
]
SCORES: list[Any] = [1.0, 0.0, -0.0, 0.5, 2 / 3, 1, 0, True, 0.25]


def _value(rng: random.Random) -> Any:
    return rng.choice(VALUES)


def _field(rng: random.Random, finite: bool) -> FieldResult:
    """A field as the engine gives it: a matched one holds an equal value twice (often a
    distinct object of the same text), any other two values drawn apart."""
    path = rng.choice(PATHS)
    field_path = path if rng.random() < 0.7 else rng.choice(PATHS)
    status = rng.choice([*FIELD_STATUSES, 'we"ird'])
    score = rng.choice(SCORES if finite else [*SCORES, float("nan"), float("inf")])
    expected = _value(rng)
    if rng.random() < 0.4:
        actual = expected
        if type(expected) is str:  # an equal string, not the same object
            actual = "".join(list(expected))
        elif type(expected) is float and rng.random() < 0.3:
            actual = -expected  # 0.0 against -0.0 (and other signs)
    else:
        actual = _value(rng)
    return FieldResult(path, status, score, expected, actual, "exact", "", field_path)


def _comparison(rng: random.Random) -> Comparison:
    base = Comparison(
        case_id=str(rng.randrange(100)),
        nodeid="gold.jsonl::7",
        metric="field_f1",
        score=rng.choice(FLOATS[:12]),
        threshold=rng.choice([1.0, 0.9, 0.0]),
        status=rng.choice(list(Status)),
        precision=rng.choice(FLOATS[:12]),
        recall=0.75,
        f1=2 / 3,
        file="data/gold.jsonl",
        line=rng.choice([None, 1, 12_345]),
    )
    extras: list[dict[str, Any]] = [
        {},
        {},
        {},
        {
            "case_id": 'c "q" \u2028\u00e9',
            "error": "bad\\\n",
            "source": "live",
            "recording": "stale",
            "seq": 3,
            "repeat": 2,
        },
        {"pairings": (("items", 0, 1, 0.5),)},
        {"floor_failures": (("total", 0.9, 0.0),)},
        {"call": {"latency_s": 0.25, "attempts": 1}},
        {"truncated": (1, 5, 40)},
        {"target": "cheap"},
        {"conformance": ReportedConformance((("$", "$", "type"),), 1, True)},
        {"conformance": ReportedConformance((), 0, False)},
        {
            "conformance": ReportedConformance(
                (("items[0].qty", "items[].qty", "type"), ('we"ird\u2028', "\u00e9", "required")),
                1_234,
                False,
            )
        },
        {"conformance": ReportedConformance((), 0, False), "target": "cheap"},
        {"threshold": 1},
        {"seq": True},
        {"line": 2.0},
        {"score": Number(0.5)},
        {"case_id": 7},
        {"score": float("nan")},
        {"f1": -0.0},
    ]
    return base.replace(**rng.choice(extras))


def stored_line(comparison: Comparison, fields: list[FieldResult], mode: str, heads: Heads) -> str:
    """The line the dict writes, as the report stores it (its rows of ``heads``)."""
    return json_line(stored_comparison(comparison_dict(comparison, fields, mode), heads, 0))


def held(line: str, heads: Heads) -> dict[str, Any]:
    """A stored line read back as the reader holds it."""
    return dict(StoredFields([heads.heads], "line", ValueError).comparison(json.loads(line), 0))


def _both(
    comparison: Comparison,
    fields: list[FieldResult],
    mode: str,
    tables: tuple[Heads, Heads] | None = None,
) -> tuple[Any, Any]:
    """Each way's line (each with its own table, both filled alike), or the kind of error it
    raised."""
    ours, theirs = tables or (Heads(), Heads())
    out = []
    for write in (
        lambda: comparison_line(comparison, fields, mode, ours),
        lambda: stored_line(comparison, fields, mode, theirs),
    ):
        try:
            out.append(write())
        except (ValueError, TypeError) as error:
            out.append(type(error))
    return out[0], out[1]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", range(4))
def test_a_generated_comparison_line_is_the_bytes_of_its_dict(mode: str, seed: int) -> None:
    """Strings with escapes, control and non-ASCII characters, long and cut ones, numbers
    at every edge (huge, negative zero, not finite), booleans, null, containers, a side
    missing, subclasses; paths, statuses and scores of every kind; plain and optional
    entries: the same bytes, or the same refusal."""
    rng = random.Random(seed)
    written = refused = 0
    tables = (Heads(), Heads())  # a chunk's: filled over every line
    for _ in range(300):
        comparison = _comparison(rng)
        fields = [_field(rng, finite=rng.random() < 0.97) for _ in range(rng.randrange(0, 12))]
        ours, theirs = _both(comparison, fields, mode, tables)
        assert ours == theirs, (comparison, fields)
        written += isinstance(theirs, str)
        refused += theirs is ValueError
    assert written > 150 and refused > 10  # both kinds met


@pytest.mark.parametrize("mode", MODES)
def test_every_value_on_either_side_alone_and_against_every_other(mode: str) -> None:
    """Each value on one side with the other missing, and each pair of values: the field
    written from pieces is the field records writes."""
    comparison = Comparison(
        case_id="1", nodeid="1", metric="field_f1", score=0.5, threshold=1.0, status=Status.FAILED
    )
    for expected in VALUES:
        for actual in VALUES:
            fields = [FieldResult("a.b", "mismatch", 0.0, expected, actual, "exact", "", "a.b")]
            ours, theirs = _both(comparison, fields, mode)
            assert ours == theirs, (expected, actual)


def test_long_strings_are_cut_in_short_mode_and_whole_in_full() -> None:
    """The cases the fast path must hand over: a string whose JSON passes VALUE_LIMIT on one
    side, on both, and two short ones whose texts together do."""
    comparison = Comparison(
        case_id="1", nodeid="1", metric="m", score=1.0, threshold=1.0, status=Status.PASSED
    )
    long, edge = "q" * (VALUE_LIMIT - 1), '"' * 99  # 201 and 200 characters of JSON
    for expected, actual in [
        (long, "b"),
        ("b", long),
        (long, long),
        (edge, edge),
        ("c" * 150, "d" * 150),
    ]:
        fields = [FieldResult("p", "mismatch", 0.0, expected, actual, "exact", "", "p")]
        for mode in ("short", "full"):
            heads = Heads()
            line = comparison_line(comparison, fields, mode, heads)
            assert line == stored_line(comparison, fields, mode, Heads())
            (field,) = held(line, heads)["fields"]
            assert ("expected_cut" in field) == (mode == "short" and expected is long)
            assert ("actual_cut" in field) == (mode == "short" and actual is long)
            assert (field["expected"], field["actual"]) == (
                # a value cut is its JSON text's first 197 characters and "..."
                (expected if "expected_cut" not in field else f'"{expected[:196]}...'),
                (actual if "actual_cut" not in field else f'"{actual[:196]}...'),
            )


def test_a_negative_zero_is_never_written_as_a_kept_zero() -> None:
    """0.0 and -0.0 are equal as keys: a field's head and a float's text kept for one are
    not given to the other, in either order."""
    comparison = Comparison(
        case_id="1", nodeid="1", metric="m", score=0.0, threshold=1.0, status=Status.FAILED, f1=-0.0
    )
    for first, second in ((0.0, -0.0), (-0.0, 0.0)):
        fields = [
            FieldResult("p", "mismatch", first, first, second, "exact", "", "p"),
            FieldResult("p", "mismatch", second, second, first, "exact", "", "p"),
        ]
        heads = Heads()
        line = comparison_line(comparison, fields, "short", heads)
        assert line == stored_line(comparison, fields, "short", Heads())
        back = held(line, heads)["fields"]
        assert [(f["score"], f["expected"], f["actual"]) for f in back] == [
            (first, first, second),
            (second, second, first),
        ]
        # each zero read back with its own sign: a row holds -0.0 and both values
        assert [str(f["score"]) + str(f["expected"]) for f in back] == [
            str(first) * 2,
            str(second) * 2,
        ]


def test_the_kept_texts_are_bounded_and_right_after_being_cleared(monkeypatch) -> None:
    """Past its bound a cache is cleared (the floats' texts) or no longer grows (a table's
    fields found by their own scores), never larger; the lines before and after are the
    dicts' bytes, and the table holds each head once."""
    monkeypatch.setattr(comparison_lines, "_floats", {})
    monkeypatch.setattr(comparison_lines, "_FLOATS_KEPT", 7)
    monkeypatch.setattr(field_rows, "_FOUND_KEPT", 5)
    comparison = Comparison(
        case_id="1", nodeid="1", metric="m", score=0.5, threshold=1.0, status=Status.FAILED
    )
    cleared = set()
    ours, theirs = Heads(), Heads()
    for i in range(60):
        fields = [
            FieldResult(
                f"items[{i % 9}].x",
                status,
                score,
                i + 0.5,
                (i % 4) + 0.25,
                "numeric",
                "",
                "items[].x",
            )
            for status, score in (("match", 1.0), ("mismatch", 0.0), ("match", 0.5 + i / 1000))
        ]
        scored = comparison.replace(score=(i % 20) / 64)  # a float's text kept per line
        line = comparison_line(scored, fields, "short", ours)
        assert line == stored_line(scored, fields, "short", theirs)
        assert len(ours.known) <= 5 and len(comparison_lines._floats) <= 7
        cleared.add(len(comparison_lines._floats))
    assert len(cleared) > 1  # it filled and was cleared again
    # 9 paths, each matched at 1.0, mismatched at 0.0, matched at its own score (null)
    assert len(ours) == 27 and ours.heads == theirs.heads


CASE = CaseResult(
    "12",
    "field_f1",
    0.9,
    Status.PASSED,
    1,
    0.75,
    0.5,
    1.0,
    1,
    0.8,
    0.7,
    0.7466666666666667,
    "data/gold.jsonl",
    12,
    "",
)


def _case(rng: random.Random) -> CaseResult:
    number = lambda: rng.choice(FLOATS[:12] + [1, Number(0.5)])  # noqa: E731
    return CASE.replace(
        case_id=rng.choice(STRINGS[:10] + ["7"]),
        status=rng.choice(list(Status)),
        threshold=number(),
        mean=number(),
        low=number(),
        high=number(),
        precision=number(),
        recall=number(),
        f1=number(),
        runs=rng.choice([1, 2, 10**20]),
        passed_runs=rng.choice([0, 1, True]),
        file=rng.choice(["", "a/b.jsonl", 'q"\\.jsonl']),
        line=rng.choice([None, 1, 99]),
        error=rng.choice(STRINGS[:10]),
        truncated=rng.choice([0, 0, 0, 2]),
        checked=rng.choice([0, 0, 0, 3, True, 10**20]),
        valid=rng.choice([0, 1, True]),
        target=rng.choice(["", "", "", "cheap \u00e9"]),
        metric=rng.choice(["field_f1", "m\u2028"]),
    )


@pytest.mark.parametrize("group_by", ["metric", "file", "folder"])
def test_a_generated_case_line_is_the_bytes_of_its_dict(group_by: str) -> None:
    """Cases with every status, numbers at every edge, escaped strings, a line or none, and
    with an answer cut, a schema check or a named target (the dict's way): the same bytes,
    or the same refusal."""
    rng = random.Random(group_by)
    optional = 0
    for _ in range(600):
        case = _case(rng)
        if rng.random() < 0.03:
            case = case.replace(mean=rng.choice([float("nan"), float("inf")]))
        try:
            theirs: Any = json_line(case_dict(case, group_by))
        except ValueError:
            with pytest.raises(ValueError):
                case_line(case, group_by)
            continue
        assert case_line(case, group_by) == theirs, case
        optional += bool(case.truncated or case.checked or case.target)
    assert optional > 50


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "options",
    [{}, {"align": "hungarian"}, {"truncated": "close"}, {"schema": {"type": "object"}}],
    ids=["plain", "hungarian", "cut", "schema"],
)
def test_a_result_line_is_the_line_of_its_comparison(mode: str, options: dict[str, Any]) -> None:
    """scored_lines' comparison line (a dataset's report line written from the engine's
    result, no Comparison made; bare, as a part keeps it) is comparison_line of the
    Comparison the dataset records for it, byte for byte and each table filled alike; None,
    before any field is written, for a result with pairings, a floor failure, a cut answer
    or a conformance."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.dataset.scoring import Pair, ScoreSettings, comparison_of
    from pytest_jsonmatch.reporting.run_model.comparison_lines import scored_lines
    from pytest_jsonmatch.reporting.run_model.spool import LINE_START

    rng = random.Random(len(mode) + len(options))
    ours, theirs = Heads(), Heads()
    written = declined = 0
    for k in range(120):
        expected = {
            "id": f"r{k}",
            "note": rng.choice(STRINGS[:18]),
            "n": rng.choice(FLOATS[:12] + INTS[:8]),
            "items": [{"v": rng.choice(INTS[:6])} for _ in range(rng.randrange(3))],
        }
        actual = json.loads(json.dumps(expected))
        if rng.random() < 0.5:
            actual["note"] = rng.choice(STRINGS[:18])
        if rng.random() < 0.3:
            actual["items"].reverse()
        if rng.random() < 0.2:
            actual["extra"] = 1
        text = json.dumps(actual)
        answer = text[:-3] if options.get("truncated") and rng.random() < 0.3 else text
        result = match_json(answer, expected, "field_f1", **options)
        threshold = rng.choice([1.0, 0.5, 1])
        settings = ScoreSettings("field_f1", threshold, options, values=mode, keep_fields=False)
        pair = Pair(str(k), expected, answer, "", rng.choice(["", 'g "1".jsonl']), k or None)
        passed = result.passed(threshold, False)
        before = list(ours.heads)
        found = scored_lines(
            result, pair.case_id, threshold, passed, (pair.file, pair.line), mode, ours
        )
        line = None if found is None else LINE_START + found[0]
        comparison = comparison_of(pair, result, settings)
        if line is None:
            declined += 1
            assert ours.heads == before  # nothing of it written
            assert (
                result.pairings
                or result.floor_failures
                or result.truncated is not None
                or result.conformance is not None
                or type(threshold) is not float
            )
            line = comparison_line(comparison, result.fields, mode, ours)
        else:
            written += 1
        assert line == comparison_line(comparison, result.fields, mode, theirs)
        assert ours.heads == theirs.heads
    assert declined > 20 and (written > 20 or "schema" in options)  # (each its conformance)


@pytest.mark.parametrize("group_by", ["metric", "file", "folder"])
def test_a_scored_pair_s_case_line_is_the_line_of_its_one_run_case(group_by: str) -> None:
    """scored_lines writes a scored pair's comparison line (the same with no group_by) and
    its case's line from one set of texts: the case line is case_line of one_run_case, byte
    for byte, for results whose figures are usual floats, zeros of both signs, whole
    numbers, a boolean and NaN (these last declined by both or by neither), thresholds that
    pass and fail them, files of every group, kept texts found again (each result written
    twice) and cleared."""
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.reporting.run_model.aggregate import one_run_case
    from pytest_jsonmatch.reporting.run_model.comparison_lines import scored_lines

    rng = random.Random(group_by)
    figures: list[Any] = [0.0, -0.0, 1.0, 0.5, 0.1 + 0.2, 1, True, float("nan"), 0.75]
    written = declined = 0
    for k in range(240):
        expected = {"id": f"r{k}", "n": rng.choice(INTS[:6]), "s": rng.choice(STRINGS[:6])}
        actual = dict(expected, s=rng.choice(STRINGS[:6]))
        result = match_json(actual, expected, "field_f1")
        if rng.random() < 0.4:  # (a figure of every kind in any of the four places)
            name = rng.choice(["score", "precision", "recall", "f1"])
            result = result.replace(**{name: rng.choice(figures)})
        threshold = rng.choice([1.0, 0.5, 0.75, 0.0, -0.0])
        passed = result.passed(threshold, False)
        place = (rng.choice(["", "a/b.jsonl", 'q"\\.jsonl']), rng.choice([None, 1, k]))
        if rng.random() < 0.05:
            comparison_lines._SCORED.clear()
        for _ in range(2):
            ours, theirs = Heads(), Heads()
            found = scored_lines(
                result, str(k), threshold, passed, place, "short", ours, None, group_by
            )
            alone = scored_lines(result, str(k), threshold, passed, place, "short", theirs)
            if found is None:
                declined += 1
                assert alone is None
                continue
            written += 1
            assert alone is not None and found[0] == alone[0] and alone[1] == ""
            case = one_run_case(
                result,
                case_id=str(k),
                threshold=threshold,
                file=place[0],
                line=place[1],
                invalid_fails=False,
            )
            assert found[1] == case_line(case, group_by) == json_line(case_dict(case, group_by))
    assert written > 200 and declined > 20
