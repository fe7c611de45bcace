"""Reading case files safely (safe_yaml.py): nothing in a file runs as code (an unsafe tag is
refused on its line, never executed); alias bombs and recursive aliases are refused within a
bounded time; keys are unique strings; the text is UTF-8 without control characters; deep
nesting is an error or a case, never a crash. Each mistake is one short collection error
naming the file (a folder defaults file too), the line and the problem."""

from __future__ import annotations

import textwrap
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.case_files import NAME, assert_no_traceback, collection_error, run
from tests.helpers.plugin_cases import write
from tests.helpers.timeout import GENEROUS, within

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

UNSAFE = "case files hold plain data (unsafe tags are never executed)"
CASE = "    expected: {a: 1}\n    actual: {a: 1}\n"


# -- unsafe tags: refused, never executed -----------------------------------------------------

UNSAFE_TAGS = [
    (
        "object-new",
        "cases:\n  - id: one\n    expected:\n      a: !!python/object/new:os.system [echo hi]\n"
        "    actual: {}\n",
        f"{NAME}:4: tag '!!python/object/new:os.system' is not allowed; {UNSAFE}",
    ),
    (
        "python-name",
        "expected: {a: !!python/name:os.system ''}\nactual: {}\n",
        f"{NAME}:1: tag '!!python/name:os.system' is not allowed; {UNSAFE}",
    ),
    (
        "python-module",
        "expected: {a: !!python/module:os ''}\nactual: {}\n",
        f"{NAME}:1: tag '!!python/module:os' is not allowed; {UNSAFE}",
    ),
    (
        "local-tag",
        "expected: {a: !Ref x}\nactual: {}\n",
        f"{NAME}:1: tag '!Ref' is not allowed; {UNSAFE}",
    ),
    (
        "binary-tag",
        "expected: {a: !!binary aGVsbG8=}\nactual: {}\n",
        f"{NAME}:1: tag '!!binary' is not allowed; {UNSAFE}",
    ),
    (
        "tag-in-actual-text",
        "expected: {a: 1}\nactual: !!python/object/apply:builtins.eval ['1+1']\n",
        f"{NAME}:2: tag '!!python/object/apply:builtins.eval' is not allowed; {UNSAFE}",
    ),
    (
        "tag-in-second-case",
        "cases:\n  - id: one\n" + CASE + "  - id: two\n    expected: {a: 1}\n"
        "    actual: !!python/object/apply:os.getpid []\n",
        f"{NAME}:7: tag '!!python/object/apply:os.getpid' is not allowed; {UNSAFE}",
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), [c[1:] for c in UNSAFE_TAGS], ids=[c[0] for c in UNSAFE_TAGS]
)
def test_unsafe_tag_variants_are_one_line_errors(pytester, text, message):
    assert collection_error(pytester, text) == message


def test_an_unsafe_tag_on_a_key_is_refused_on_its_line(pytester):
    # a tagged key is refused for its tag, on its own line (it is never constructed)
    shown = collection_error(
        pytester, "expected:\n  ? !!python/object/apply:os.getcwd []\n  : 1\nactual: {}\n"
    )
    assert shown == f"{NAME}:2: tag '!!python/object/apply:os.getcwd' is not allowed; {UNSAFE}"


def test_an_unsafe_tag_in_a_folder_defaults_file_names_that_file(pytester):
    write(pytester, "sub/jsonmatch.yaml", "metric: !!python/object/apply:os.getcwd []\n")
    shown = collection_error(
        pytester, "expected: {a: 1}\nactual: {a: 1}\n", name="sub/c.jsonmatch.yaml"
    )
    assert (
        shown
        == f"sub/jsonmatch.yaml:1: tag '!!python/object/apply:os.getcwd' is not allowed; {UNSAFE}"
    )


def test_unsafe_tags_are_never_executed(pytester):
    marker = pytester.path / "pwned"
    write(
        pytester,
        "c.jsonmatch.yaml",
        f'expected: !!python/object/apply:os.system ["touch {marker}"]\nactual: {{}}\n',
    )
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not marker.exists()


def test_unsafe_apply_tags_never_run_even_inside_cases_lists_and_defaults(pytester):
    marker = pytester.path / "pwned"
    payload = f"!!python/object/apply:builtins.exec [\"open({str(marker)!r}, 'w').write('x')\"]"
    write(pytester, "jsonmatch.yaml", f"options: {payload}\n")
    write(
        pytester,
        "a.jsonmatch.yaml",
        f"cases:\n  - id: one\n    expected: {{a: {payload}}}\n    actual: {{}}\n",
    )
    write(pytester, "b.jsonmatch.yaml", f"expected: {{a: 1}}\nactual: {payload}\n")
    result = run(pytester, "--continue-on-collection-errors")
    assert_no_traceback(result.stdout.str())
    assert result.ret != pytest.ExitCode.OK
    assert not marker.exists()


def test_an_unsafe_sleep_is_neither_run_nor_waited_for(pytester):
    # executed, this would block the collection for an hour; refused, it answers at once
    write(pytester, NAME, "expected: !!python/object/apply:time.sleep [3600]\nactual: {}\n")
    with within(GENEROUS, "refusing an unsafe time.sleep tag"):
        shown = collection_error(pytester)
    assert shown == f"{NAME}:1: tag '!!python/object/apply:time.sleep' is not allowed; {UNSAFE}"


# -- alias bombs ------------------------------------------------------------------------------

BOMB = """\
a: &a ["x","x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]
expected: {laughs: *i}
actual: {}
"""


def test_an_alias_bomb_is_refused_quickly(pytester):
    start = time.perf_counter()
    shown = collection_error(pytester, BOMB)
    assert time.perf_counter() - start < 5
    assert (
        shown
        == "c.jsonmatch.yaml:6: aliases expand to more than 1,000,000 values; is this an alias bomb?"
    )


def _bomb(levels: int, width: int = 10, mapping_root: bool = False) -> str:
    """``levels`` anchors, each holding ``width`` aliases of the one before: width**levels
    values once expanded."""
    names = [f"l{i}" for i in range(levels)]
    if mapping_root:
        first = "{" + ", ".join(f"k{j}: x" for j in range(width)) + "}"
    else:
        first = "[" + ", ".join(["x"] * width) + "]"
    rows = [f"{names[0]}: &{names[0]} {first}"]
    for prev, name in zip(names, names[1:]):
        rows.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * width) + "]")
    return "\n".join(rows) + "\n"


def test_a_ten_billion_value_bomb_of_mappings_is_refused_within_bounds(pytester):
    # the anchors sit inside expected (the case format has no other place for them)
    body = "expected:\n" + textwrap.indent(_bomb(10, mapping_root=True), "  ") + "actual: {}\n"
    shown = collection_error(pytester, body)
    # l0 holds 11 values, l1 111, l2 1,111, ... l5 1,111,111 > 1,000,000 on line 7 of the file
    assert (
        shown == f"{NAME}:7: aliases expand to more than 1,000,000 values; is this an alias bomb?"
    )


def test_a_bomb_inside_a_cases_list_is_refused(pytester):
    text = (
        "cases:\n  - id: laughs\n    expected:\n"
        + textwrap.indent(_bomb(9), "      ")
        + "    actual: {}\n"
    )
    shown = collection_error(pytester, text)
    assert (
        shown == f"{NAME}:9: aliases expand to more than 1,000,000 values; is this an alias bomb?"
    )


def test_a_bomb_in_a_folder_defaults_file_is_refused_naming_that_file(pytester):
    write(pytester, "jsonmatch.yaml", "options:\n  fields:\n" + textwrap.indent(_bomb(9), "    "))
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n")
    assert (
        shown
        == "jsonmatch.yaml:8: aliases expand to more than 1,000,000 values; is this an alias bomb?"
    )


def test_a_merge_key_bomb_is_refused(pytester):
    rows = ["  m0: &m0 {" + ", ".join(f"k{j}: x" for j in range(10)) + "}"]
    for i in range(1, 9):
        rows.append(
            f"  m{i}: &m{i} {{"
            + ", ".join(f"c{j}: *m{i - 1}" for j in range(9))
            + f", <<: *m{i - 1}}}"
        )
    text = "expected:\n" + "\n".join(rows) + "\nactual: {}\n"
    shown = collection_error(pytester, text)
    assert shown.startswith(f"{NAME}:")
    assert shown.endswith(": aliases expand to more than 1,000,000 values; is this an alias bomb?")


def test_a_self_referencing_mapping_alias_is_refused(pytester):
    shown = collection_error(pytester, "expected: &loop {a: 1, self: *loop}\nactual: {}\n")
    assert (
        shown
        == f"{NAME}:1: an alias refers to a value that contains it; recursive data is not JSON"
    )


def test_aliases_within_bounds_are_fine(pytester):
    write(
        pytester,
        "c.jsonmatch.yaml",
        """\
        cases:
          - id: one
            expected: &shared {vendor: ACME, total: 3}
            actual: {vendor: ACME, total: 3}
          - id: two
            expected: *shared
            actual: *shared
        """,
    )
    run(pytester).assert_outcomes(passed=2)


# -- duplicate and non-string keys ------------------------------------------------------------

KEY_ERRORS = [
    (
        "dup-top-level-actual",
        "expected: {a: 1}\nactual: {a: 1}\nactual: {a: 2}\n",
        f"{NAME}:3: duplicate key 'actual' (first given at line 2)",
    ),
    (
        "dup-quoted-and-plain",
        "expected:\n  'a': 1\n  a: 2\nactual: {}\n",
        f"{NAME}:3: duplicate key 'a' (first given at line 2)",
    ),
    (
        "dup-in-flow-mapping",
        "expected: {sku: A1, sku: A2}\nactual: {}\n",
        f"{NAME}:1: duplicate key 'sku' (first given at line 1)",
    ),
    (
        "dup-inside-array-item",
        "expected:\n  items:\n    - {sku: 1}\n    - sku: 2\n      qty: 1\n      sku: 3\n"
        "actual: {}\n",
        f"{NAME}:6: duplicate key 'sku' (first given at line 4)",
    ),
    (
        "dup-in-options",
        "options:\n  ignore: [a]\n  ignore: [b]\nexpected: {a: 1}\nactual: {a: 1}\n",
        f"{NAME}:3: duplicate key 'ignore' (first given at line 2)",
    ),
    (
        "null-key",
        "expected: {~: 1}\nactual: {}\n",
        f"{NAME}:1: key '~' is not a string (JSON keys are strings; quote it: '~')",
    ),
    (
        "float-key",
        "expected: {1.5: 1}\nactual: {}\n",
        f"{NAME}:1: key '1.5' is not a string (JSON keys are strings; quote it: '1.5')",
    ),
    (
        "true-key",
        "expected: {true: 1}\nactual: {}\n",
        f"{NAME}:1: key 'true' is not a string (JSON keys are strings; quote it: 'true')",
    ),
    (
        "no-key",
        "expected:\n  off: 1\nactual: {}\n",
        f"{NAME}:2: key 'off' is not a string (JSON keys are strings; quote it: 'off')",
    ),
    (
        "int-key-in-actual",
        "expected: {a: 1}\nactual:\n  2024: 1\n",
        f"{NAME}:3: key '2024' is not a string (JSON keys are strings; quote it: '2024')",
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), [c[1:] for c in KEY_ERRORS], ids=[c[0] for c in KEY_ERRORS]
)
def test_duplicate_and_non_string_keys_name_line_and_key(pytester, text, message):
    assert collection_error(pytester, text) == message


def test_a_sequence_used_as_a_key_is_refused(pytester):
    shown = collection_error(pytester, "expected:\n  ? [a, b]\n  : 1\nactual: {}\n")
    assert shown.startswith(f"{NAME}:2: key ")
    assert "is not a string (JSON keys are strings" in shown


def test_a_duplicate_key_in_a_folder_defaults_file_names_that_file(pytester):
    write(pytester, "jsonmatch.yaml", "metric: field_f1\nthreshold: 0.5\nmetric: json_similarity\n")
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n")
    assert shown == "jsonmatch.yaml:3: duplicate key 'metric' (first given at line 1)"


def test_quoted_keys_that_look_like_other_types_are_fine(pytester):
    write(
        pytester, NAME, "expected: {'1': a, 'yes': b, '~': c}\nactual: {'1': a, 'yes': b, '~': c}\n"
    )
    run(pytester).assert_outcomes(passed=1)


# -- the text: UTF-8, no control characters, nesting ------------------------------------------

BINARY = [
    (
        "png",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        f"{NAME}:1: not a text file: byte 0x89 at offset 0 is not valid UTF-8",
    ),
    (
        "latin-1-on-line-3",
        b"expected:\n  a: 1\n  b: caf\xe9\nactual: {}\n",
        f"{NAME}:3: not a text file: byte 0xe9 at offset 25 is not valid UTF-8",
    ),
    (
        "utf-16",
        "expected: {a: 1}\nactual: {a: 1}\n".encode("utf-16"),
        f"{NAME}:1: not a text file: byte 0xff at offset 0 is not valid UTF-8",
    ),
    (
        "truncated-multibyte",
        "expected: {a: é}\nactual: {a: 1}\n".encode()[: -len("}\nactual: {a: 1}\n") - 1],
        f"{NAME}:1: not a text file: byte 0xc3 at offset 14 is not valid UTF-8",
    ),
    (
        "gzip",
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcbH\xcd\xc9\xc9\x07\x00",
        f"{NAME}:1: not a text file: byte 0x8b at offset 1 is not valid UTF-8",
    ),
]


@pytest.mark.parametrize(("data", "message"), [c[1:] for c in BINARY], ids=[c[0] for c in BINARY])
def test_binary_and_invalid_utf8_files_name_the_byte_and_line(pytester, data, message):
    assert collection_error(pytester, data) == message


def test_a_control_character_names_its_line(pytester):
    shown = collection_error(pytester, "expected: {a: 1}\nactual:\n  a: 1\n  b: \x07\n")
    assert shown == (
        f"{NAME}:4:6: invalid YAML: unacceptable character #x0007: control characters are not allowed"
    )


def test_deep_nesting_is_an_error_or_a_case_never_a_crash(pytester):
    deep = "[" * 5000 + "]" * 5000
    write(pytester, "c.jsonmatch.yaml", f"expected: {{a: {deep}}}\nactual: {{a: 1}}\n")
    result = run(pytester)
    assert "Traceback" not in result.stdout.str()
    assert result.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)


# -- merge keys: the same key checks as every other mapping -----------------------------------

MERGE_ERRORS = [
    (
        "non-string-key-merged",
        "expected: {<<: {1: x}, a: 1}\nactual: {}\n",
        f"{NAME}:1: key '1' is not a string (JSON keys are strings; quote it: '1')",
    ),
    (
        "duplicate-inside-merged",
        "expected:\n  <<:\n    a: 1\n    a: 2\nactual: {}\n",
        f"{NAME}:4: duplicate key 'a' (first given at line 3)",
    ),
    (
        "merged-list",
        "expected: {<<: [{a: 1}, {2: b}]}\nactual: {}\n",
        f"{NAME}:1: key '2' is not a string (JSON keys are strings; quote it: '2')",
    ),
    (
        "merge-in-merge",
        "expected: {<<: {<<: {null: 1}}}\nactual: {}\n",
        f"{NAME}:1: key 'null' is not a string (JSON keys are strings; quote it: 'null')",
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), [c[1:] for c in MERGE_ERRORS], ids=[c[0] for c in MERGE_ERRORS]
)
def test_merged_mappings_get_the_key_checks(pytester, text, message):
    assert collection_error(pytester, text) == message


def test_a_key_beside_a_merge_overrides_the_merged_one(pytester):
    # YAML's merge: the explicit key wins; the case compares {a: 2, b: 3} with itself
    write(pytester, NAME, "expected: {<<: {a: 1, b: 3}, a: 2}\nactual: {a: 2, b: 3}\n")
    run(pytester).assert_outcomes(passed=1)


# -- marks: plain data, nothing evaluated or imported -----------------------------------------

MARK_ERRORS = [
    (
        "skipif-string",
        "marks: [{skipif: [\"__import__('os').system('touch pwned')\"]}]\n",
        "mark 'skipif': condition must be true or false (pytest would run a string condition as "
        "Python), not \"__import__('os').system('touch pwned')\"",
    ),
    (
        "xfail-condition-string",
        "marks: [{xfail: {condition: \"open('pwned', 'w')\"}}]\n",
        "mark 'xfail': condition must be true or false (pytest would run a string condition as "
        "Python), not \"open('pwned', 'w')\"",
    ),
    (
        "filterwarnings-module",
        "marks: [{filterwarnings: 'error::pwnmod.Warn'}]\n",
        "mark 'filterwarnings': warning category 'pwnmod.Warn' is not a builtin warning; a case "
        "file may not name a module for pytest to import (use a filterwarnings ini entry or "
        "conftest.py)",
    ),
    (
        "skip-unknown-argument",
        "marks: [{skip: {bogus: 1}}]\n",
        "mark 'skip': unknown argument 'bogus'; known: reason",
    ),
    (
        "xfail-raises",
        "marks: [{xfail: {raises: ValueError}}]\n",
        "mark 'xfail': unknown argument 'raises'; known: condition, reason, strict, run, fields",
    ),
    (
        "skipif-too-many",
        "marks: [{skipif: [true, why, extra]}]\n",
        "mark 'skipif': takes at most 1 argument(s) in a list, not 3",
    ),
    (
        "underscore-name",
        "marks: [_private]\n",
        "marks are names or {name: arguments}, not '_private'",
    ),
]


@pytest.mark.parametrize(
    ("marks", "message"), [c[1:] for c in MARK_ERRORS], ids=[c[0] for c in MARK_ERRORS]
)
def test_marks_that_would_run_code_or_cannot_apply_are_one_line_errors(pytester, marks, message):
    shown = collection_error(pytester, marks + "expected: {a: 1}\nactual: {a: 1}\n")
    assert shown == f"{NAME}:1: case 'c': {message}"  # one case: its id is the file's stem
    assert not (pytester.path / "pwned").exists()


def test_plain_data_marks_still_work(pytester):
    write(
        pytester,
        NAME,
        textwrap.dedent("""\
        cases:
          - id: skipped
            marks: [{skipif: {condition: true, reason: not here}}]
            expected: {a: 1}
            actual: {a: 2}
          - id: expected-failure
            marks: [{xfail: {reason: known, strict: true}}]
            expected: {a: 1}
            actual: {a: 2}
          - id: warned
            marks: [{filterwarnings: ["ignore::UserWarning", "error::DeprecationWarning"]}]
            expected: {a: 1}
            actual: {a: 1}
        """),
    )
    run(pytester).assert_outcomes(passed=1, skipped=1, xfailed=1)


# -- files that are not regular files, numbers beyond any float ------------------------------


@pytest.mark.parametrize("kind", ["a directory", "a FIFO"])
def test_an_actual_file_that_is_a_folder_or_a_fifo_is_an_error_naming_it(pytester, kind):
    import os

    if kind == "a directory":
        pytester.mkdir("other")
    else:
        os.mkfifo(pytester.path / "other")  # never opened for a blocking read: no hang
    shown = collection_error(pytester, "expected: {a: 1}\nactual_file: other\n")
    assert shown == (
        f"{NAME}:2: actual_file 'other' is not a regular file "
        f"({kind}: {str(pytester.path / 'other')!r})"
    )


def test_integers_beyond_float_range_in_a_case_compare_exactly(pytester):
    big = "1" + "0" * 400
    write(
        pytester,
        NAME,
        "cases:\n"
        f"  - id: same\n    metric: json_similarity\n    expected: {{a: {big}}}\n"
        f"    actual: {{a: {big}}}\n"
        f"  - id: other\n    metric: structural_f1\n    threshold: 0.6\n"
        f"    expected: {{a: {big}, b: 1}}\n    actual: {{a: {big}1, b: 1}}\n",
    )
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    assert_no_traceback(result.stdout.str())


# -- the plain files' own construction gives the safe loader's values ----------------------

_SCALAR_TEXTS = [
    "1",
    "-0",
    "0x1f",
    "0o17",
    "017",
    "1_000",
    "1:20",
    "2.5",
    "1e3",
    "1.5e3",
    ".inf",
    "-.Inf",
    ".nan",
    "yes",
    "No",
    "on",
    "off",
    "true",
    "~",
    "null",
    "",
    "=x",
    "-",
    "0b101",
    "+12",
    "1:20.5",
    "3.",
    ".5",
    "x y",
    "é",
    "' quoted '",
    '"a\\tb"',
]


@given(
    st.recursive(
        st.sampled_from(_SCALAR_TEXTS),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.dictionaries(st.sampled_from(["a", "b", "c", "x y", "'1'"]), inner, max_size=4).map(
                lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"
            ),
        ),
        max_leaves=12,
    ),
    st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_a_plain_file_reads_as_the_safe_loader_reads_it(flow, block):
    # values the safe loader types by their text (ints, floats, booleans, nulls, in every
    # spelling), in flow and block style: the same values, types and key order, or the
    # same error
    import yaml

    from pytest_jsonmatch.engine.core.errors import CaseFileError
    from pytest_jsonmatch.engine.reading.safe_yaml import parse_yaml

    text = f"top: {flow}\n"
    try:
        data = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        with pytest.raises(CaseFileError):
            parse_yaml(text, "f.yaml")
        return
    if block:  # the same value written in block style
        text = yaml.dump(data, Dumper=yaml.CSafeDumper, default_flow_style=False, sort_keys=False)
    assert repr(parse_yaml(text, "f.yaml")[0]) == repr(yaml.load(text, Loader=yaml.CSafeLoader))


def test_tags_and_values_remembered_across_files_are_the_safe_loaders(monkeypatch):
    # the reader remembers each plain scalar's tag and each non-string scalar's value by its
    # text (safe_yaml._PLAIN_TAGS, _SCALARS): a text met again, quoted or plain, in another
    # file or after the memos started over, reads as the safe loader reads it
    import yaml

    from pytest_jsonmatch.engine.reading import safe_yaml

    texts = [
        "{a: 1, b: '1', c: 1, d: \"1\"}",
        "{a: '1', b: 1, c: '1', d: 1}",
        "{yes: x}",  # a key that resolves to a boolean: refused, remembered or not
        "[yes, 'yes', .nan, '.nan', 0x1f, '0x1f', ~, '~', 1_000, '1_000']",
        "[0x1f, 1_000, yes, ~]",
    ]

    def read_all() -> list[str]:
        read = []
        for text in texts:
            try:
                read.append(repr(safe_yaml.parse_yaml(f"top: {text}\n", "f.yaml")[0]))
            except Exception as exc:  # noqa: BLE001 - compared as the error's kind
                read.append(type(exc).__name__)
        return read

    def stock() -> list[str]:
        read = []
        for text in texts:
            try:
                data = yaml.load(f"top: {text}\n", Loader=yaml.CSafeLoader)
                if any(
                    not isinstance(k, str) for k in data["top"] if isinstance(data["top"], dict)
                ):
                    read.append("CaseFileError")  # (a key that is not a string is refused)
                else:
                    read.append(repr(data))
            except yaml.YAMLError:
                read.append("CaseFileError")
        return read

    expected = stock()
    assert read_all() == expected  # first met
    assert read_all() == expected  # remembered
    assert safe_yaml._PLAIN_TAGS["1"] == "tag:yaml.org,2002:int"
    assert safe_yaml._SCALARS[("tag:yaml.org,2002:int", "0x1f")] == 31
    # a long text reads as well, and is not kept: a memo holds short texts only
    long_number, long_word = "1" * 200, "w" * 200
    read = safe_yaml.parse_yaml(f"n: {long_number}\nw: {long_word}\n", "f.yaml")[0]
    assert read == {"n": int(long_number), "w": long_word}
    assert long_word not in safe_yaml._PLAIN_TAGS and long_number not in safe_yaml._PLAIN_TAGS
    assert ("tag:yaml.org,2002:int", long_number) not in safe_yaml._SCALARS
    monkeypatch.setattr(safe_yaml, "_PLAIN_TAGS", {})
    monkeypatch.setattr(safe_yaml, "_SCALARS", {})
    monkeypatch.setattr(safe_yaml, "MAX_PLAIN_TAGS", 1)  # every new text starts them over
    assert read_all() == expected
    assert len(safe_yaml._PLAIN_TAGS) <= 1 and len(safe_yaml._SCALARS) <= 1
