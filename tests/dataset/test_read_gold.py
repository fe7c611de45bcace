"""Gold records a JSONL span decodes reach the engine as read (``intake.Read``) where their
text shows the door would pass them as they are; elsewhere the door reads them as before."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.engine.core.depth import SHALLOW
from pytest_jsonmatch.engine.reading.intake import MAX_KEYS, depth_from_text, read_json

from ..cli.run import jsonmatch

# strings full of the characters that open containers, to be counted in the bound
TEXTS = st.text(alphabet='{[ab"\\]}', max_size=6)
JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        TEXTS,
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=20,
)


def _nested(levels: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"down": value}
    return value


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_the_bound_from_the_text_is_never_below_the_depth(value):
    text = json.dumps(value)
    bound = depth_from_text(text)
    assert bound == -1 or read_json(value, "expected")[1] <= bound <= SHALLOW


def test_a_deep_or_long_text_gives_no_bound():
    assert depth_from_text(json.dumps(_nested(SHALLOW))) == SHALLOW
    assert depth_from_text(json.dumps(_nested(SHALLOW + 1))) == -1
    assert depth_from_text('{"a": "' + "x" * (4 * MAX_KEYS) + '"}') == -1
    assert depth_from_text('{"a": "[[[{"}') == 5  # a bound: the string's brackets count


def test_gold_read_or_through_the_door_scores_as_evaluate_records(tmp_path):
    """Shallow records (read), records deeper than SHALLOW (the door), and a field scored
    that holds JSON text (the door parses it): the command's scores are evaluate_records'."""
    gold = [
        {"id": 1, "v": {"a": [1, 2], "b": "x"}},
        {"id": 2, "v": _nested(SHALLOW + 5)},
        {"id": 3, "v": json.dumps({"a": [1, 3], "b": "x"})},
        {"id": 4, "v": {"a": [], "b": "{[["}},
    ]
    pred = [
        {"id": 1, "v": {"a": [2, 1], "b": "z"}},
        {"id": 2, "v": _nested(SHALLOW + 4)},
        {"id": 3, "v": {"a": [1, 3], "b": "y"}},
        {"id": 4, "v": {"a": [], "b": "{[["}},
    ]
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gold))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pred))
    proc = jsonmatch(
        "score",
        str(tmp_path / "g.jsonl"),
        str(tmp_path / "p.jsonl"),
        "--gold-field",
        "v",
        "--pred-field",
        "v",
        "--metric",
        "structural_f1",
        "--format",
        "json",
    )
    assert proc.returncode in (0, 1), proc.stderr
    scores = [c["score"] for c in json.loads(proc.stdout)["comparisons"]]
    run = evaluate_records([r["v"] for r in gold], [r["v"] for r in pred], "structural_f1")
    assert scores == [r.score for r in run.records]
    assert scores[3] == 1.0 and 0 < scores[0] < 1 and scores[1] < 1


def test_a_gold_record_of_too_many_keys_is_refused_naming_its_line(tmp_path):
    (tmp_path / "g.jsonl").write_text('{"a": 1}\n{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}\n')
    (tmp_path / "p.jsonl").write_text('{"a": 1}\n{"a": 1}\n')
    proc = jsonmatch(
        "score",
        str(tmp_path / "g.jsonl"),
        str(tmp_path / "p.jsonl"),
        env={"JSONMATCH_MAX_KEYS": "4"},
    )
    assert proc.returncode == 2
    assert f"{tmp_path / 'g.jsonl'} line 2: $: an object of 5 keys in expected" in proc.stderr
