"""Spans of two JSONL files (dataset/spans.py): read apart, they give exactly the pairs the
command's streaming reader gives (cli/record_pairs.py), case ids, places and values
included, for any cut of the files, blank lines, a byte-order mark, a last line without a
newline, and lines that only Unicode whitespace fills; what the fast path cannot take, it
refuses (SpanError, or the reader's own error), and then the streaming reader runs."""

from __future__ import annotations

import json
import os
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_jsonmatch import SchemaWarning
from pytest_jsonmatch.cli.input_error import InputError
from pytest_jsonmatch.cli.record_pairs import Leftovers, PairingSettings, pairs
from pytest_jsonmatch.dataset import SchemaSketch
from pytest_jsonmatch.dataset import spans as spans_module
from pytest_jsonmatch.dataset.chunk_work import sketch_part
from pytest_jsonmatch.dataset.spans import SpanError, is_jsonl, span_pairs, spans
from pytest_jsonmatch.dataset.undecoded import RecordError
from pytest_jsonmatch.engine.core.depth import SHALLOW
from pytest_jsonmatch.engine.reading.intake import read_json

# What may stand between records: nothing, blank lines of ASCII or Unicode whitespace
# (str.strip removes \x1c-\x1f, NEL, no-break and ideographic spaces), a carriage return.
BLANKS = st.sampled_from(["", "\n", "  \n", "\r\n", "\x1c\n", "\u00a0\n", "\x85\t\n", "\u3000\n"])
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "é"]), inner, max_size=3),
    ),
    max_leaves=8,
)


def _file(path, records, blanks, bom=False, last_newline=True) -> str:
    text = "".join(
        blank + json.dumps(r, ensure_ascii=False) + "\n" for r, blank in zip(records, blanks)
    )
    if not last_newline:
        text = text[:-1]
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return str(path)


def _streamed(gold: str, pred: str, **fields) -> list:
    return list(pairs(PairingSettings(gold, pred, **fields), Leftovers()))


def _spanned(gold: str, pred: str, size: int, **fields) -> list:
    """The spans' pairs, each checked for its ``read_depth`` and then without it (the
    streaming reader leaves every gold record to the door)."""
    out = []
    for span in spans(gold, pred, size, **fields):
        for pair in span_pairs(span):
            depth = read_json(pair.expected, "expected")[1]
            assert pair.read_depth == -1 or depth <= pair.read_depth <= SHALLOW
            out.append(pair._replace(read_depth=-1))
    return out


@settings(max_examples=100, deadline=None)
@given(
    records=st.lists(st.dictionaries(st.sampled_from(["a", "b"]), VALUES, min_size=1), max_size=12),
    data=st.data(),
    size=st.integers(1, 5),
)
def test_spans_give_the_pairs_the_streaming_reader_gives(tmp_path_factory, records, data, size):
    folder = tmp_path_factory.mktemp("spans")
    n = len(records)
    gold = _file(
        folder / "g.jsonl",
        records,
        data.draw(st.lists(BLANKS, min_size=n, max_size=n)),
        bom=data.draw(st.booleans()),
        last_newline=data.draw(st.booleans()),
    )
    answers = [{**r, "a": 1} for r in records]
    pred = _file(
        folder / "p.jsonl",
        answers,
        data.draw(st.lists(BLANKS, min_size=n, max_size=n)),
        bom=data.draw(st.booleans()),
        last_newline=data.draw(st.booleans()),
    )
    assert _spanned(gold, pred, size) == _streamed(gold, pred)


@pytest.mark.parametrize("newline", [True, False])
def test_a_line_too_long_for_the_scan_is_left_to_the_streaming_reader(
    tmp_path, monkeypatch, newline
):
    # (as the reader's readline(LONGEST_LINE) has it: a line whose bytes, its newline
    # included, reach LONGEST_LINE is too long; {"a": "xx..."} is 9 bytes and its x's)
    monkeypatch.setattr(spans_module, "LONGEST_LINE", 40)
    short = {"a": 1}
    pred = _file(tmp_path / "p.jsonl", [short, short], ["", ""])
    longest = 30 if newline else 31  # the first length refused
    for xs, refused in [(longest, True), (longest - 1, False)]:
        gold = _file(tmp_path / "g.jsonl", [short, {"a": "x" * xs}], ["", ""], last_newline=newline)
        if refused:
            with pytest.raises(SpanError, match="too long"):
                list(spans(gold, pred, 1))
        else:
            assert len(list(spans(gold, pred, 1))) == 2


def test_blank_lines_after_the_last_record_and_a_field_scored(tmp_path):
    gold = tmp_path / "g.jsonl"
    pred = tmp_path / "p.jsonl"
    gold.write_text('{"out": {"x": 1}}\n\n{"out": [2]}\n \n\n')
    pred.write_text('\n{"answer": "{\\"x\\": 1}"}\n{"answer": 3}')
    fields = {"gold_field": "out", "pred_field": "answer"}
    expected = _streamed(str(gold), str(pred), **fields)
    assert [(p.case_id, p.expected, p.actual, p.where, p.line) for p in expected] == [
        ("1", {"x": 1}, '{"x": 1}', f"{gold} line 1", 1),
        ("2", [2], 3, f"{gold} line 3", 3),
    ]
    assert _spanned(str(gold), str(pred), 1, **fields) == expected


@pytest.mark.parametrize(
    "gold_text, pred_text",
    [
        ('{"a": 1}\n{"a": 2}\n', '{"a": 1}\n'),  # different lengths
        ('{"a": 1}\n', '{"a": 1}\n{"a": 2}\n'),
        ('{"a": 1}\n{"a": \n', '{"a": 1}\n{"a": 2}\n'),  # not JSON
        ('{"a": 1, "a": 2}\n', '{"a": 1}\n'),  # a gold key given twice
        ('{"a": NaN}\n', '{"a": 1}\n'),
        ('{"b": 1}\n', '{"a": 1}\n'),  # no field "a" to score
    ],
)
def test_what_the_streaming_reader_refuses_the_spans_refuse(tmp_path, gold_text, pred_text):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text(gold_text)
    pred.write_text(pred_text)
    fields = {"gold_field": "a"} if "b" in gold_text else {}
    with pytest.raises((InputError, RecordError)):
        _streamed(str(gold), str(pred), **fields)
    with pytest.raises((SpanError, RecordError)):  # then the streaming reader runs
        _spanned(str(gold), str(pred), 1, **fields)


def test_text_that_is_not_utf8_is_left_to_the_streaming_reader(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_bytes(b'{"a": "\xff"}\n')
    pred.write_text('{"a": 1}\n')
    with pytest.raises(SpanError):
        _spanned(str(gold), str(pred), 1)


def test_only_jsonl_files_take_the_spans(tmp_path):
    (tmp_path / "lines.jsonl").write_text('\n {"a": 1}\n')
    (tmp_path / "array.json").write_text(' \n[{"a": 1}]')
    (tmp_path / "record.jsonl").write_text("[1, 2]\n")  # a file starting "[" is an array
    (tmp_path / "empty.jsonl").write_text("")
    assert is_jsonl(str(tmp_path / "lines.jsonl"))
    for name in ("array.json", "record.jsonl", "empty.jsonl", "missing.jsonl"):
        assert not is_jsonl(str(tmp_path / name))
    assert not is_jsonl(str(tmp_path))  # a folder


def test_a_span_sketch_is_the_sketch_of_its_gold_records_deep_ones_included(tmp_path):
    deep: object = 1
    for _ in range(80):  # deeper than a comparison's own stack allows: the door's path
        deep = {"n": [deep]}
    records = [
        {"a": 1, "items": [{"sku": "x"}]},
        {"b": None, "deep": deep},
        {"a": "text", "items": [{"qty": 2}, "odd"]},
    ]
    gold = _file(tmp_path / "g.jsonl", records, ["", "\n", ""])
    pred = _file(tmp_path / "p.jsonl", records, ["", "", ""])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        parts = [sketch_part(span, "field_f1", {}) for span in spans(gold, pred, 2)]
        assert SchemaSketch.merged(parts).schema() == SchemaSketch.of(records).schema()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_fifo_is_not_opened_to_be_tested(tmp_path):
    fifo = tmp_path / "pred.jsonl"
    os.mkfifo(fifo)  # opening it would wait for a writer
    assert not is_jsonl(str(fifo))
