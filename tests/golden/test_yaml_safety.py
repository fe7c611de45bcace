"""Reliability of golden YAML case files: every bad file is one short collection error naming
the file, the line and the problem, within a bounded time; nothing in a file runs as code.

tests/test_golden_errors.py covers the first example of each mistake; this module covers the
variants a hand-written suite meets (other unsafe tags, mapping and merge-key alias bombs,
mistakes inside a folder defaults file, other non-string keys, other encodings, ...).
"""

from __future__ import annotations

import os
import textwrap

import pytest

from tests.helpers.plugin_cases import write
from tests.helpers.timeout import GENEROUS, within

FAST = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark")
NAME = "c.jsonmatch.yaml"
CASE_KEYS = ("actual, actual_file, description, expected, id, input, marks, metric, options, "
             "schema, threshold")
LIST_CASE_KEYS = "actual, actual_file, description, expected, id, input, marks, metric, options, threshold"
UNSAFE = "case files hold plain data (unsafe tags are never executed)"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    with within(GENEROUS, "collecting the case files"):
        return pytester.runpytest_inprocess(*FAST, *args)


def assert_no_traceback(out: str) -> None:
    assert "Traceback" not in out
    assert 'File "' not in out  # no traceback frames of any style
    for internal in ("golden.py", "safe_yaml.py", "CaseFileError", "yaml/", "RecursionError"):
        assert internal not in out, f"{internal!r} leaked into the report:\n{out}"


def collection_error(pytester: pytest.Pytester, text: str | bytes | None = None,
                     name: str = NAME) -> str:
    """The one line pytest shows under 'ERROR collecting <name>', checked to carry no
    traceback and to be the whole report (the next line starts the summary)."""
    if text is not None:
        write(pytester, name, text)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()
    out = result.stdout.str()
    assert_no_traceback(out)
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if f"ERROR collecting {name}" in line)
    follow = lines[start + 2] if start + 2 < len(lines) else ""
    assert follow.startswith("=") or follow.startswith("_") or not follow.strip(), \
        f"the error is more than one paragraph:\n{out}"
    return lines[start + 1]


def failure_text(result: pytest.RunResult) -> str:
    out = result.stdout.str()
    assert_no_traceback(out)
    return out


CASE = "    expected: {a: 1}\n    actual: {a: 1}\n"


# -- unsafe tags: refused, never executed ------------------------------------------------------

UNSAFE_TAGS = [
    ("object-new", "cases:\n  - id: one\n    expected:\n      a: !!python/object/new:os.system [echo hi]\n"
                   "    actual: {}\n",
     f"{NAME}:4: tag '!!python/object/new:os.system' is not allowed; {UNSAFE}"),
    ("python-name", "expected: {a: !!python/name:os.system ''}\nactual: {}\n",
     f"{NAME}:1: tag '!!python/name:os.system' is not allowed; {UNSAFE}"),
    ("python-module", "expected: {a: !!python/module:os ''}\nactual: {}\n",
     f"{NAME}:1: tag '!!python/module:os' is not allowed; {UNSAFE}"),
    ("local-tag", "expected: {a: !Ref x}\nactual: {}\n",
     f"{NAME}:1: tag '!Ref' is not allowed; {UNSAFE}"),
    ("binary-tag", "expected: {a: !!binary aGVsbG8=}\nactual: {}\n",
     f"{NAME}:1: tag '!!binary' is not allowed; {UNSAFE}"),
    ("tag-in-actual-text", "expected: {a: 1}\nactual: !!python/object/apply:builtins.eval ['1+1']\n",
     f"{NAME}:2: tag '!!python/object/apply:builtins.eval' is not allowed; {UNSAFE}"),
    ("tag-in-second-case", "cases:\n  - id: one\n" + CASE + "  - id: two\n    expected: {a: 1}\n"
                           "    actual: !!python/object/apply:os.getpid []\n",
     f"{NAME}:7: tag '!!python/object/apply:os.getpid' is not allowed; {UNSAFE}"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in UNSAFE_TAGS], ids=[c[0] for c in UNSAFE_TAGS])
def test_unsafe_tag_variants_are_one_line_errors(pytester, text, message):
    assert collection_error(pytester, text) == message


def test_an_unsafe_tag_on_a_key_is_refused_on_its_line(pytester):
    # a tagged key is refused for its tag, on its own line (it is never constructed)
    shown = collection_error(pytester, "expected:\n  ? !!python/object/apply:os.getcwd []\n  : 1\nactual: {}\n")
    assert shown == f"{NAME}:2: tag '!!python/object/apply:os.getcwd' is not allowed; {UNSAFE}"


def test_an_unsafe_tag_in_a_folder_defaults_file_names_that_file(pytester):
    write(pytester, "sub/jsonmatch.yaml", "metric: !!python/object/apply:os.getcwd []\n")
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n", name="sub/c.jsonmatch.yaml")
    assert shown == f"sub/jsonmatch.yaml:1: tag '!!python/object/apply:os.getcwd' is not allowed; {UNSAFE}"


def test_unsafe_apply_tags_never_run_even_inside_cases_lists_and_defaults(pytester):
    marker = pytester.path / "pwned"
    payload = f'!!python/object/apply:builtins.exec ["open({str(marker)!r}, \'w\').write(\'x\')"]'
    write(pytester, "jsonmatch.yaml", f"options: {payload}\n")
    write(pytester, "a.jsonmatch.yaml", f"cases:\n  - id: one\n    expected: {{a: {payload}}}\n    actual: {{}}\n")
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


# -- alias bombs ---------------------------------------------------------------------------------


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
    assert shown == f"{NAME}:7: aliases expand to more than 1,000,000 values; is this an alias bomb?"


def test_a_bomb_inside_a_cases_list_is_refused(pytester):
    text = ("cases:\n  - id: laughs\n    expected:\n"
            + textwrap.indent(_bomb(9), "      ") + "    actual: {}\n")
    shown = collection_error(pytester, text)
    assert shown == f"{NAME}:9: aliases expand to more than 1,000,000 values; is this an alias bomb?"


def test_a_bomb_in_a_folder_defaults_file_is_refused_naming_that_file(pytester):
    write(pytester, "jsonmatch.yaml", "options:\n  fields:\n" + textwrap.indent(_bomb(9), "    "))
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n")
    assert shown == "jsonmatch.yaml:8: aliases expand to more than 1,000,000 values; is this an alias bomb?"


def test_a_merge_key_bomb_is_refused(pytester):
    rows = ["  m0: &m0 {" + ", ".join(f"k{j}: x" for j in range(10)) + "}"]
    for i in range(1, 9):
        rows.append(f"  m{i}: &m{i} {{" + ", ".join(f"c{j}: *m{i - 1}" for j in range(9))
                    + f", <<: *m{i - 1}}}")
    text = "expected:\n" + "\n".join(rows) + "\nactual: {}\n"
    shown = collection_error(pytester, text)
    assert shown.startswith(f"{NAME}:")
    assert shown.endswith(": aliases expand to more than 1,000,000 values; is this an alias bomb?")


def test_a_self_referencing_mapping_alias_is_refused(pytester):
    shown = collection_error(pytester, "expected: &loop {a: 1, self: *loop}\nactual: {}\n")
    assert shown == f"{NAME}:1: an alias refers to a value that contains it; recursive data is not JSON"


# -- duplicate and non-string keys -----------------------------------------------------------------

KEY_ERRORS = [
    ("dup-top-level-actual", "expected: {a: 1}\nactual: {a: 1}\nactual: {a: 2}\n",
     f"{NAME}:3: duplicate key 'actual' (first given at line 2)"),
    ("dup-quoted-and-plain", "expected:\n  'a': 1\n  a: 2\nactual: {}\n",
     f"{NAME}:3: duplicate key 'a' (first given at line 2)"),
    ("dup-in-flow-mapping", "expected: {sku: A1, sku: A2}\nactual: {}\n",
     f"{NAME}:1: duplicate key 'sku' (first given at line 1)"),
    ("dup-inside-array-item", "expected:\n  items:\n    - {sku: 1}\n    - sku: 2\n      qty: 1\n      sku: 3\n"
                              "actual: {}\n",
     f"{NAME}:6: duplicate key 'sku' (first given at line 4)"),
    ("dup-in-options", "options:\n  ignore: [a]\n  ignore: [b]\nexpected: {a: 1}\nactual: {a: 1}\n",
     f"{NAME}:3: duplicate key 'ignore' (first given at line 2)"),
    ("null-key", "expected: {~: 1}\nactual: {}\n",
     f"{NAME}:1: key '~' is not a string (JSON keys are strings; quote it: '~')"),
    ("float-key", "expected: {1.5: 1}\nactual: {}\n",
     f"{NAME}:1: key '1.5' is not a string (JSON keys are strings; quote it: '1.5')"),
    ("true-key", "expected: {true: 1}\nactual: {}\n",
     f"{NAME}:1: key 'true' is not a string (JSON keys are strings; quote it: 'true')"),
    ("no-key", "expected:\n  off: 1\nactual: {}\n",
     f"{NAME}:2: key 'off' is not a string (JSON keys are strings; quote it: 'off')"),
    ("int-key-in-actual", "expected: {a: 1}\nactual:\n  2024: 1\n",
     f"{NAME}:3: key '2024' is not a string (JSON keys are strings; quote it: '2024')"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in KEY_ERRORS], ids=[c[0] for c in KEY_ERRORS])
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
    write(pytester, NAME, "expected: {'1': a, 'yes': b, '~': c}\nactual: {'1': a, 'yes': b, '~': c}\n")
    run(pytester).assert_outcomes(passed=1)


# -- shape of the file ---------------------------------------------------------------------------

SHAPES = [
    ("top-level-number", "42\n",
     f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a number"),
    ("top-level-null", "~\n",
     f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not null"),
    ("top-level-list-of-cases", "- id: one\n  expected: {a: 1}\n  actual: {a: 1}\n",
     f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a list"),
    ("top-level-json-text", '"{\\"a\\": 1}"\n',
     f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a string"),
    ("whitespace-only", "   \n\n\t\n",
     f"{NAME}:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)"),
    ("bom-only", "\ufeff",
     f"{NAME}:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)"),
    ("two-documents", "expected: {a: 1}\nactual: {a: 1}\n---\nexpected: {b: 1}\n",
     f"{NAME}:3: invalid YAML: expected a single document in the stream but found another document"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_a_file_that_is_not_one_mapping_says_what_it_is(pytester, text, message):
    assert collection_error(pytester, text) == message


BINARY = [
    ("png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
     f"{NAME}:1: not a text file: byte 0x89 at offset 0 is not valid UTF-8"),
    ("latin-1-on-line-3", b"expected:\n  a: 1\n  b: caf\xe9\nactual: {}\n",
     f"{NAME}:3: not a text file: byte 0xe9 at offset 25 is not valid UTF-8"),
    ("utf-16", "expected: {a: 1}\nactual: {a: 1}\n".encode("utf-16"),
     f"{NAME}:1: not a text file: byte 0xff at offset 0 is not valid UTF-8"),
    ("truncated-multibyte", "expected: {a: é}\nactual: {a: 1}\n".encode()[:-len("}\nactual: {a: 1}\n") - 1],
     f"{NAME}:1: not a text file: byte 0xc3 at offset 14 is not valid UTF-8"),
    ("gzip", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcbH\xcd\xc9\xc9\x07\x00",
     f"{NAME}:1: not a text file: byte 0x8b at offset 1 is not valid UTF-8"),
]


@pytest.mark.parametrize(("data", "message"), [c[1:] for c in BINARY], ids=[c[0] for c in BINARY])
def test_binary_and_invalid_utf8_files_name_the_byte_and_line(pytester, data, message):
    assert collection_error(pytester, data) == message


def test_a_control_character_names_its_line(pytester):
    shown = collection_error(pytester, "expected: {a: 1}\nactual:\n  a: 1\n  b: \x07\n")
    assert shown == (f"{NAME}:4: invalid YAML: unacceptable character #x0007: control characters "
                     f"are not allowed")


# -- case content ----------------------------------------------------------------------------------

CASE_ERRORS = [
    ("single-case-typo-of-expected", "expcted: {a: 1}\nactual: {a: 1}\n",
     f"{NAME}:1: case: unknown key 'expcted'; known keys: {CASE_KEYS}"),
    ("single-case-unknown-key", "expected: {a: 1}\nactual: {a: 1}\nexpcted: {a: 2}\n",
     f"{NAME}:3: case: unknown key 'expcted'; known keys: {CASE_KEYS}"),
    ("unknown-key-in-second-case", "cases:\n  - id: one\n" + CASE + "  - id: two\n    expected: {a: 1}\n"
                                   "    actual_text: '{\"a\": 1}'\n",
     f"{NAME}:7: case 'two': unknown key 'actual_text'; known keys: {LIST_CASE_KEYS}"),
    ("second-case-without-expected", "cases:\n  - id: one\n" + CASE + "  - id: two\n    actual: {a: 1}\n",
     f"{NAME}:5: case 'two': missing 'expected' (the mapping the output should match)"),
    ("expected-null", "expected:\nactual: {a: 1}\n",
     f"{NAME}:1: case 'c': expected must be a mapping, not null"),
    ("expected-as-json-text", "cases:\n  - id: one\n    expected: '{\"a\": 1}'\n    actual: {a: 1}\n",
     f"{NAME}:3: case 'one': expected must be a mapping, not a string"),
    ("duplicate-id-number-and-string", "cases:\n  - id: 1\n" + CASE + "  - id: '1'\n" + CASE,
     f"{NAME}:5: duplicate case id '1' (first used at line 2)"),
    ("duplicate-id-third-case", "cases:\n  - id: a\n" + CASE + "  - id: b\n" + CASE + "  - id: a\n" + CASE,
     f"{NAME}:8: duplicate case id 'a' (first used at line 2)"),
    ("id-null", "cases:\n  - id:\n" + CASE,
     f"{NAME}:2: case id must be a non-empty one-line string without '::', not None"),
    ("id-multiline", "cases:\n  - id: \"a\\nb\"\n" + CASE,
     f"{NAME}:2: case id must be a non-empty one-line string without '::', not 'a\\nb'"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in CASE_ERRORS], ids=[c[0] for c in CASE_ERRORS])
def test_case_mistakes_name_line_case_and_problem(pytester, text, message):
    assert collection_error(pytester, text) == message


def test_case_ids_differing_in_case_are_distinct(pytester):
    write(pytester, NAME, "cases:\n  - id: one\n" + CASE + "  - id: One\n" + CASE)
    run(pytester).assert_outcomes(passed=2)


def test_continue_on_collection_errors_runs_the_good_cases_of_other_files(pytester):
    write(pytester, "bad1.jsonmatch.yaml", "expected: !!python/object/apply:os.getcwd []\nactual: {}\n")
    write(pytester, "bad2.jsonmatch.yaml", b"\xff\xfe")
    write(pytester, "good.jsonmatch.yaml", "cases:\n  - id: one\n" + CASE + "  - id: two\n" + CASE)
    result = run(pytester, "--continue-on-collection-errors")
    result.assert_outcomes(passed=2, errors=2)
    assert_no_traceback(result.stdout.str())
    result.stdout.fnmatch_lines([
        "bad1.jsonmatch.yaml:1: tag '!!python/object/apply:os.getcwd' is not allowed; *",
        "bad2.jsonmatch.yaml:1: not a text file: byte 0xff at offset 0 is not valid UTF-8",
    ])


# -- actual_file ---------------------------------------------------------------------------------


def test_an_absolute_actual_file_outside_the_root_is_refused(pytester, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    outside.write_text('{"a": 1}')
    shown = collection_error(pytester, f"expected: {{a: 1}}\nactual_file: {outside}\n")
    assert shown == (f"{NAME}:2: actual_file {str(outside)!r} points outside the test root "
                     f"{str(pytester.path)!r}")


def test_a_symlink_inside_the_root_pointing_outside_is_refused(pytester, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    outside.write_text('{"a": 1}')
    os.symlink(outside, pytester.path / "link.txt")
    shown = collection_error(pytester, "expected: {a: 1}\nactual_file: link.txt\n")
    assert shown == f"{NAME}:2: actual_file 'link.txt' points outside the test root {str(pytester.path)!r}"


def test_a_path_that_leaves_and_reenters_the_root_is_fine(pytester):
    write(pytester, "out/reply.txt", '{"a": 1}')
    back_in = f"../{pytester.path.name}/out/reply.txt"
    write(pytester, NAME, f"expected: {{a: 1}}\nactual_file: {back_in}\n")
    run(pytester).assert_outcomes(passed=1)


def test_a_missing_actual_file_in_a_cases_list_names_case_line_and_where_it_looked(pytester):
    shown = collection_error(pytester, "cases:\n  - id: one\n" + CASE + "  - id: two\n    expected: {a: 1}\n"
                                       "    actual_file: outputs/two.txt\n")
    assert shown == (f"{NAME}:7: actual_file 'outputs/two.txt' does not exist (looked for "
                     f"{str(pytester.path / 'outputs' / 'two.txt')!r})")


def test_an_actual_file_that_is_a_folder_is_refused(pytester):
    (pytester.path / "outputs").mkdir()
    shown = collection_error(pytester, "expected: {a: 1}\nactual_file: outputs\n")
    assert shown.startswith(f"{NAME}:2: actual_file 'outputs' ")


def test_an_actual_file_of_invalid_utf8_fails_its_case_naming_file_case_and_byte(pytester):
    write(pytester, "out.txt", b'{"a": "caf\xe9"}')
    write(pytester, NAME, "cases:\n  - id: one\n    expected: {a: 1}\n    actual_file: out.txt\n")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    failure_text(result)
    result.stdout.fnmatch_lines([f"{NAME}:2: case 'one': actual_file '{pytester.path / 'out.txt'}' "
                                 f"is not valid UTF-8 (byte 10)"])


def test_an_empty_actual_file_fails_its_case_with_one_paragraph(pytester):
    write(pytester, "out.txt", "")
    write(pytester, NAME, "cases:\n  - id: one\n    expected: {a: 1}\n    actual_file: out.txt\n")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    failure_text(result)
    result.stdout.fnmatch_lines([f"{NAME}:2: case 'one': no JSON object found in actual: ''"])
