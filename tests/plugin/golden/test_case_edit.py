"""Rewriting a case's ``expected`` in its file (case_edit.py): only the text of that value
changes, byte for byte, on files written to be awkward; the new value is written in the
file's own style and reads back to exactly the output."""

from __future__ import annotations

import pytest

from pytest_jsonmatch import CaseFileError
from pytest_jsonmatch.engine.reading.safe_yaml import parse_yaml
from pytest_jsonmatch.updating.yaml_edit import rewrite

NEW = {"vendor": "ACME Corp", "total": 12.5}


def test_a_block_value_with_comments_inside_and_around_it():
    text = (
        "# invoices\n"
        "cases:\n"
        "  - id: one   # the first\n"
        "    expected:   # what the model should say\n"
        "      vendor: ACME   # short name\n"
        "      # a comment inside the value\n"
        "      total: 10\n"
        "\n"
        "    # a comment between keys\n"
        "    actual: {vendor: ACME, total: 12.5}\n"
    )
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
        "    actual: {vendor: ACME, total: 12.5}\n"
    )


def test_a_flow_value_stays_flow_and_its_trailing_comment_stays():
    text = "cases:\n- {id: a, expected: {x: 1}, actual: {x: 2}}\n- id: b\n  expected: {y: 1}  # keep\n  input: q\n"
    assert rewrite(text, {"b": {"y": [1, "two"]}}, "c.yaml", "c") == (
        "cases:\n- {id: a, expected: {x: 1}, actual: {x: 2}}\n- id: b\n  expected: {y: [1, two]}  # keep\n  input: q\n"
    )
    assert rewrite(text, {"a": {"x": 2}}, "c.yaml", "c") == text.replace(
        "expected: {x: 1}", "expected: {x: 2}"
    )


def test_crlf_line_endings_and_no_final_newline_are_kept():
    text = "cases:\r\n  - id: a\r\n    actual: {x: 1}\r\n    expected:\r\n      x: 2"
    assert rewrite(text, {"a": {"x": 1, "y": [True, None]}}, "c.yaml", "c") == (
        "cases:\r\n  - id: a\r\n    actual: {x: 1}\r\n    expected:\r\n      x: 1\r\n      y:\r\n"
        "        - true\r\n        - null"
    )


def test_anchors_elsewhere_stay_and_an_alias_of_this_case_is_replaced():
    text = (
        "shared: &s {k: 1}\n"
        "cases:\n"
        "  - id: a\n"
        "    expected: *s\n"
        "    actual: {k: 2}\n"
        "  - id: b\n"
        "    expected: *s\n"
        "    actual: {k: 1}\n"
    )
    assert rewrite(text, {"a": {"k": 2}}, "c.yaml", "c") == text.replace(
        "    expected: *s\n    actual: {k: 2}", "    expected: {k: 2}\n    actual: {k: 2}"
    )


def test_an_anchored_value_another_case_uses_is_left_alone_with_an_error():
    text = (
        "cases:\n  - id: a\n    expected: &mine\n      k: 1\n    actual: {k: 2}\n"
        "  - id: b\n    expected: *mine\n    actual: {k: 1}\n"
    )
    with pytest.raises(CaseFileError, match="left as it was"):
        rewrite(text, {"a": {"k": 2}}, "c.yaml", "c")


def test_a_case_without_expected_gets_one_in_the_file_s_style():
    block = "cases:\n  - id: a\n    input: hello\n  - id: b  # later\n    input: x\n"
    assert rewrite(block, {"a": {"k": 2, "j": [1]}}, "c.yaml", "c") == (
        "cases:\n  - id: a\n    input: hello\n    expected:\n      k: 2\n      j:\n        - 1\n"
        "  - id: b  # later\n    input: x\n"
    )
    flow_case = "cases:\n  - {id: a, input: x}\n"
    assert rewrite(flow_case, {"a": {"z": None}}, "c.yaml", "c") == (
        "cases:\n  - {id: a, input: x, expected: {z: null}}\n"
    )
    single = "description: one case\ninput: x"
    assert rewrite(single, {"c": {"a": "b"}}, "c.yaml", "c") == (
        "description: one case\ninput: x\nexpected:\n  a: b"
    )


def test_the_file_s_indentation_list_style_and_quotes_are_followed():
    text = 'cases:\n- id: a\n  expected:\n      name: "x"\n      tags:\n      - "p"\n  actual: {}\n'
    out = rewrite(text, {"a": {"name": "yes", "tags": ["q: r", "s"]}}, "c.yaml", "c")
    # four-space step, lists not indented under their key, double quotes where quotes are needed
    assert out == (
        "cases:\n"
        "- id: a\n"
        "  expected:\n"
        '      name: "yes"\n'
        "      tags:\n"
        '      - "q: r"\n'
        "      - s\n"
        "  actual: {}\n"
    )


AWKWARD_VALUES = [
    {"b": True, "i": 1, "f": 1.0, "neg": -0.0, "small": 1e-07, "big": 10**30},
    {
        "yes": "yes",
        "no": "NO",
        "on": "on",
        "null": "null",
        "tilde": "~",
        "num": "1.0",
        "date": "2024-03-05",
        "time": "12:30",
        "hex": "0x1F",
        "oct": "0o17",
        "inf": ".inf",
    },
    {
        "colon": "a: b",
        "hash": "a #b",
        "dash": "- x",
        "quote'": "it's",
        'dq"': 'say "hi"',
        "lead": " space",
        "trail": "space ",
        "empty": "",
    },
    {"multi": "line one\nline two\n", "tab": "a\tb", "unicode": "Straße ✓ 日本", "esc": "\x07"},
    {"nested": {"deep": [[], {}, [[1, [2, {"x": None}]]]]}, "": "empty key", "1": "digit key"},
    [{"list": "at the top"}, 1, "two", None],
]


@pytest.mark.parametrize("value", AWKWARD_VALUES)
@pytest.mark.parametrize(
    "text",
    [
        "cases:\n  - id: a\n    expected:\n      x: 1\n    actual: {x: 1}\n",
        "cases:\n  - id: a\n    expected: {x: 1}\n    actual: {x: 1}\n",
        "cases:\n  - id: a\n    actual: {x: 1}\n",
    ],
    ids=["block", "flow", "missing"],
)
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


# -- minimal edits: what did not change keeps its bytes ------------------------------------------

INVOICE = (
    "cases:\n"
    "- id: a\n"
    "  expected:\n"
    '    vendor: "ACME"      # as printed\n'
    "    note: 'net 30'\n"
    "    date: 2024-01-13\n"
    "    lines:\n"
    "    - sku: A-1\n"
    "      qty: 2\n"
    "    - sku: 'B-2'\n"
    "      qty: 5   # a box\n"
    "    total: 10\n"
    "  input: x\n"
)
INVOICE_VALUE = {
    "vendor": "ACME",
    "note": "net 30",
    "date": "2024-01-13",
    "lines": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 5}],
    "total": 10,
}


def _with(**changes):
    return {**INVOICE_VALUE, **changes}


def test_a_field_of_an_indentless_list_item_changes_only_its_line():
    out = rewrite(
        INVOICE,
        {"a": _with(lines=[{"sku": "A-1", "qty": 3}, {"sku": "B-2", "qty": 5}])},
        "c.yaml",
        "c",
    )
    assert out == INVOICE.replace("      qty: 2\n", "      qty: 3\n")


def test_unchanged_plain_dates_and_quoted_strings_keep_their_bytes():
    out = rewrite(INVOICE, {"a": _with(total=12)}, "c.yaml", "c")
    # the date stays plain, "ACME" double-quoted, 'net 30' and 'B-2' single-quoted, comments kept
    assert out == INVOICE.replace("    total: 10\n", "    total: 12\n")


def test_a_changed_scalar_keeps_the_quotes_it_had():
    out = rewrite(
        INVOICE,
        {
            "a": _with(
                vendor="ACME Corp",
                note="it's net 60",
                date="2024-01-14",
                lines=[{"sku": "A-1", "qty": 2}, {"sku": "B-3", "qty": 5}],
            )
        },
        "c.yaml",
        "c",
    )
    assert out == (
        "cases:\n"
        "- id: a\n"
        "  expected:\n"
        '    vendor: "ACME Corp"      # as printed\n'
        "    note: 'it''s net 60'\n"
        "    date: 2024-01-14\n"
        "    lines:\n"
        "    - sku: A-1\n"
        "      qty: 2\n"
        "    - sku: 'B-3'\n"
        "      qty: 5   # a box\n"
        "    total: 10\n"
        "  input: x\n"
    )


def test_a_plain_string_stays_plain_while_it_can_and_takes_the_file_s_quotes_when_not():
    text = 'expected:\n  a: "x"\n  b: plain\n  c: 1\n'
    assert rewrite(text, {"c": {"a": "x", "b": "still plain", "c": 1}}, "c.yaml", "c") == (
        'expected:\n  a: "x"\n  b: still plain\n  c: 1\n'
    )
    assert rewrite(text, {"c": {"a": "x", "b": "yes", "c": 1}}, "c.yaml", "c") == (
        'expected:\n  a: "x"\n  b: "yes"\n  c: 1\n'
    )  # plain, it would read as true
    assert rewrite(text, {"c": {"a": "x", "b": "two\nlines", "c": 1}}, "c.yaml", "c") == (
        'expected:\n  a: "x"\n  b: "two\\nlines"\n  c: 1\n'
    )
    assert rewrite(text, {"c": {"a": "x", "b": "plain", "c": "1"}}, "c.yaml", "c") == (
        'expected:\n  a: "x"\n  b: plain\n  c: "1"\n'
    )


def test_a_key_added_goes_after_the_key_it_follows_at_the_mapping_s_indentation():
    out = rewrite(
        INVOICE,
        {
            "a": {
                "vendor": "ACME",
                "note": "net 30",
                "currency": "EUR",
                "date": "2024-01-13",
                "lines": INVOICE_VALUE["lines"],
                "total": 10,
                "tax": {"rate": 0.2, "codes": ["S", "Z"]},
            }
        },
        "c.yaml",
        "c",
    )
    assert out == (
        "cases:\n"
        "- id: a\n"
        "  expected:\n"
        '    vendor: "ACME"      # as printed\n'
        "    note: 'net 30'\n"
        "    currency: EUR\n"
        "    date: 2024-01-13\n"
        "    lines:\n"
        "    - sku: A-1\n"
        "      qty: 2\n"
        "    - sku: 'B-2'\n"
        "      qty: 5   # a box\n"
        "    total: 10\n"
        "    tax:\n"
        "      rate: 0.2\n"
        "      codes:\n"
        "      - S\n"
        "      - Z\n"
        "  input: x\n"
    )


def test_a_key_removed_takes_its_lines_and_a_key_first_in_the_new_value_goes_first():
    value = {"id_no": 7, **INVOICE_VALUE}
    del value["note"], value["lines"]
    assert rewrite(INVOICE, {"a": value}, "c.yaml", "c") == (
        "cases:\n"
        "- id: a\n"
        "  expected:\n"
        "    id_no: 7\n"
        '    vendor: "ACME"      # as printed\n'
        "    date: 2024-01-13\n"
        "    total: 10\n"
        "  input: x\n"
    )


def test_a_list_that_grows_or_shrinks_keeps_its_items_and_style():
    grown = INVOICE_VALUE["lines"] + [{"sku": "C-3", "qty": 1}]
    assert rewrite(INVOICE, {"a": _with(lines=grown)}, "c.yaml", "c") == INVOICE.replace(
        "      qty: 5   # a box\n", "      qty: 5   # a box\n    - sku: C-3\n      qty: 1\n"
    )
    first = [{"sku": "Z-0", "qty": 9}] + INVOICE_VALUE["lines"]
    assert rewrite(INVOICE, {"a": _with(lines=first)}, "c.yaml", "c") == INVOICE.replace(
        "    lines:\n", "    lines:\n    - sku: Z-0\n      qty: 9\n"
    )
    shrunk = INVOICE_VALUE["lines"][1:]
    assert rewrite(INVOICE, {"a": _with(lines=shrunk)}, "c.yaml", "c") == INVOICE.replace(
        "    - sku: A-1\n      qty: 2\n", ""
    )
    indented = "expected:\n  tags:\n    - 'a'\n    - b\n  n: 1\n"
    assert rewrite(indented, {"c": {"tags": ["a", "b", "c d"], "n": 1}}, "c.yaml", "c") == (
        "expected:\n  tags:\n    - 'a'\n    - b\n    - c d\n  n: 1\n"
    )
    flow = "expected: {tags: ['a', b], n: 1}  # flow\n"
    assert rewrite(flow, {"c": {"tags": ["a", "b", "c"], "n": 1}}, "c.yaml", "c") == (
        "expected: {tags: ['a', b, c], n: 1}  # flow\n"
    )
    assert rewrite(flow, {"c": {"tags": ["b"], "n": 1, "m": "2024-01-13"}}, "c.yaml", "c") == (
        "expected: {tags: [b], n: 1, m: '2024-01-13'}  # flow\n"
    )


def test_crlf_and_a_missing_final_newline_with_minimal_edits():
    text = "expected:\r\n  a: 1\r\n  b: x\r\n  c: 2"
    assert (
        rewrite(text, {"c": {"a": 1, "b": "y"}}, "c.yaml", "c") == "expected:\r\n  a: 1\r\n  b: y"
    )
    assert rewrite(text, {"c": {"a": 1, "b": "x", "c": 2, "d": [1]}}, "c.yaml", "c") == (
        "expected:\r\n  a: 1\r\n  b: x\r\n  c: 2\r\n  d:\r\n    - 1"
    )


def test_an_alias_inside_the_value_stays_while_its_value_does():
    text = (
        "shared: &s {k: 1}\ncases:\n  - id: a\n    expected:\n      x: *s   # shared\n      y: 2\n"
    )
    assert rewrite(text, {"a": {"x": {"k": 1}, "y": 3}}, "c.yaml", "c") == text.replace(
        "y: 2", "y: 3"
    )
    assert rewrite(text, {"a": {"x": {"k": 2}, "y": 2}}, "c.yaml", "c") == text.replace(
        "      x: *s   # shared\n", "      x:\n        k: 2   # shared\n"
    )


def test_ten_cases_each_with_one_field_changed_give_a_diff_of_ten_lines():
    import difflib

    case = (
        "  - id: c{i}\n"
        "    expected:\n"
        '      vendor: "Vendor {i}"\n'
        "      date: 2024-01-1{i}\n"
        "      ref: 'R-{i}'\n"
        "      lines:\n"
        "      - sku: A-{i}\n"
        "        qty: {i}\n"
        "      - sku: B-{i}\n"
        "        qty: 1\n"
        "      total: {i}0.5\n"
        "    input: text {i}\n"
    )
    text = "cases:\n" + "".join(case.format(i=i) for i in range(10))
    values = {}
    for i in range(10):
        value = {
            "vendor": f"Vendor {i}",
            "date": f"2024-01-1{i}",
            "ref": f"R-{i}",
            "lines": [{"sku": f"A-{i}", "qty": i}, {"sku": f"B-{i}", "qty": 1}],
            "total": float(f"{i}0.5"),
        }
        if i % 3 == 0:
            value["total"] += 1
        elif i % 3 == 1:
            value["lines"][1]["qty"] = 2
        else:
            value["date"] = f"2024-02-1{i}"
        values[f"c{i}"] = value
    out = rewrite(text, values, "c.yaml", "c")
    diff = [
        line
        for line in difflib.unified_diff(text.splitlines(), out.splitlines(), lineterm="")
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert len([d for d in diff if d.startswith("-")]) == 10
    assert len([d for d in diff if d.startswith("+")]) == 10
    assert "+      date: 2024-02-12" in diff  # still plain
    data, _ = parse_yaml(out, "c.yaml")
    assert [case["expected"] for case in data["cases"]] == list(values.values())


def test_an_update_that_fails_names_the_file():
    text = "s: &s {k: 1}\ncases:\n  - id: a\n    ? expected\n    : *s\n"
    with pytest.raises(CaseFileError, match=r"^c\.yaml: cannot find the alias"):
        rewrite(text, {"a": {"k": 2}}, "c.yaml", "c")
    with pytest.raises(CaseFileError, match=r"^c\.yaml: no case 'b' to update"):
        rewrite(text, {"b": {"k": 2}}, "c.yaml", "c")
    shared = (
        "cases:\n  - id: a\n    expected: &mine\n      k: 1\n      j: 2\n"
        "  - id: b\n    expected: *mine\n"
    )
    with pytest.raises(CaseFileError, match=r"^c\.yaml: the update would change more"):
        rewrite(shared, {"a": {"k": 1, "j": 3}}, "c.yaml", "c")
