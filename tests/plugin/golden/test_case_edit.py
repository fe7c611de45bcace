"""Rewriting a case's ``expected`` in its file (case_edit.py): only the text of that value
changes, byte for byte, on files written to be awkward; the new value is written in the
file's own style and reads back to exactly the output."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import CaseFileError
from pytest_jsonmatch.engine.reading.safe_yaml import parse_yaml
from pytest_jsonmatch.plugin.case_update import rewrite

NEW = {"vendor": "ACME Corp", "total": 12.5}


def test_a_block_value_with_comments_inside_and_around_it():
    text = ("# invoices\n"
            "cases:\n"
            "  - id: one   # the first\n"
            "    expected:   # what the model should say\n"
            "      vendor: ACME   # short name\n"
            "      # a comment inside the value\n"
            "      total: 10\n"
            "\n"
            "    # a comment between keys\n"
            "    actual: {vendor: ACME, total: 12.5}\n")
    # the value's own text (and the comment inside it) is replaced; everything around stays
    assert rewrite(text, {"one": NEW}, "c.yaml", "c") == (
        "# invoices\n"
        "cases:\n"
        "  - id: one   # the first\n"
        "    expected:   # what the model should say\n"
        "      vendor: ACME Corp\n"
        "      total: 12.5\n"
        "\n"
        "    # a comment between keys\n"
        "    actual: {vendor: ACME, total: 12.5}\n")


def test_a_flow_value_stays_flow_and_its_trailing_comment_stays():
    text = "cases:\n- {id: a, expected: {x: 1}, actual: {x: 2}}\n- id: b\n  expected: {y: 1}  # keep\n  input: q\n"
    assert rewrite(text, {"b": {"y": [1, "two"]}}, "c.yaml", "c") == (
        "cases:\n- {id: a, expected: {x: 1}, actual: {x: 2}}\n- id: b\n  expected: {y: [1, two]}  # keep\n  input: q\n")
    assert rewrite(text, {"a": {"x": 2}}, "c.yaml", "c") == text.replace("expected: {x: 1}", "expected: {x: 2}")


def test_crlf_line_endings_and_no_final_newline_are_kept():
    text = "cases:\r\n  - id: a\r\n    actual: {x: 1}\r\n    expected:\r\n      x: 2"
    assert rewrite(text, {"a": {"x": 1, "y": [True, None]}}, "c.yaml", "c") == (
        "cases:\r\n  - id: a\r\n    actual: {x: 1}\r\n    expected:\r\n      x: 1\r\n      y:\r\n"
        "        - true\r\n        - null")


def test_anchors_elsewhere_stay_and_an_alias_of_this_case_is_replaced():
    text = ("shared: &s {k: 1}\n"
            "cases:\n"
            "  - id: a\n"
            "    expected: *s\n"
            "    actual: {k: 2}\n"
            "  - id: b\n"
            "    expected: *s\n"
            "    actual: {k: 1}\n")
    assert rewrite(text, {"a": {"k": 2}}, "c.yaml", "c") == text.replace(
        "    expected: *s\n    actual: {k: 2}", "    expected: {k: 2}\n    actual: {k: 2}")


def test_an_anchored_value_another_case_uses_is_left_alone_with_an_error():
    text = ("cases:\n  - id: a\n    expected: &mine\n      k: 1\n    actual: {k: 2}\n"
            "  - id: b\n    expected: *mine\n    actual: {k: 1}\n")
    with pytest.raises(CaseFileError, match="left as it was"):
        rewrite(text, {"a": {"k": 2}}, "c.yaml", "c")


def test_a_case_without_expected_gets_one_in_the_file_s_style():
    block = "cases:\n  - id: a\n    input: hello\n  - id: b  # later\n    input: x\n"
    assert rewrite(block, {"a": {"k": 2, "j": [1]}}, "c.yaml", "c") == (
        "cases:\n  - id: a\n    input: hello\n    expected:\n      k: 2\n      j:\n        - 1\n"
        "  - id: b  # later\n    input: x\n")
    flow_case = "cases:\n  - {id: a, input: x}\n"
    assert rewrite(flow_case, {"a": {"z": None}}, "c.yaml", "c") == (
        "cases:\n  - {id: a, input: x, expected: {z: null}}\n")
    single = "description: one case\ninput: x"
    assert rewrite(single, {"c": {"a": "b"}}, "c.yaml", "c") == (
        "description: one case\ninput: x\nexpected:\n  a: b")


def test_the_file_s_indentation_list_style_and_quotes_are_followed():
    text = ("cases:\n"
            "- id: a\n"
            "  expected:\n"
            "      name: \"x\"\n"
            "      tags:\n"
            "      - \"p\"\n"
            "  actual: {}\n")
    out = rewrite(text, {"a": {"name": "yes", "tags": ["q: r", "s"]}}, "c.yaml", "c")
    # four-space step, lists not indented under their key, double quotes where quotes are needed
    assert out == ("cases:\n"
                   "- id: a\n"
                   "  expected:\n"
                   "      name: \"yes\"\n"
                   "      tags:\n"
                   "      - \"q: r\"\n"
                   "      - s\n"
                   "  actual: {}\n")


AWKWARD_VALUES = [
    {"b": True, "i": 1, "f": 1.0, "neg": -0.0, "small": 1e-07, "big": 10 ** 30},
    {"yes": "yes", "no": "NO", "on": "on", "null": "null", "tilde": "~", "num": "1.0",
     "date": "2024-03-05", "time": "12:30", "hex": "0x1F", "oct": "0o17", "inf": ".inf"},
    {"colon": "a: b", "hash": "a #b", "dash": "- x", "quote'": "it's", 'dq"': 'say "hi"',
     "lead": " space", "trail": "space ", "empty": ""},
    {"multi": "line one\nline two\n", "tab": "a\tb", "unicode": "Straße ✓ 日本", "esc": "\x07"},
    {"nested": {"deep": [[], {}, [[1, [2, {"x": None}]]]]}, "": "empty key", "1": "digit key"},
    [{"list": "at the top"}, 1, "two", None],
]


@pytest.mark.parametrize("value", AWKWARD_VALUES)
@pytest.mark.parametrize("text", [
    "cases:\n  - id: a\n    expected:\n      x: 1\n    actual: {x: 1}\n",
    "cases:\n  - id: a\n    expected: {x: 1}\n    actual: {x: 1}\n",
    "cases:\n  - id: a\n    actual: {x: 1}\n",
], ids=["block", "flow", "missing"])
def test_the_new_value_reads_back_to_exactly_the_output(value, text):
    out = rewrite(text, {"a": value}, "c.yaml", "c")
    data, _ = parse_yaml(out, "c.yaml")
    read = data["cases"][0]["expected"]
    assert read == value and _types(read) == _types(value)
    assert data["cases"][0]["actual"] == {"x": 1}


def _types(value):
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__
