"""A case file that pytest cannot use (golden.py) is one collection error naming the file, the
line, the case and what is wrong, without a traceback: the file's shape, unknown keys, missing
or mistyped values, case ids, marks, folder defaults files, actual_file and schema paths (never
outside the test root). The first table also holds one example of each YAML mistake; their
variants are in test_yaml_safety.py. Other files still run with --continue-on-collection-errors.
An actual_file that is there but cannot be read fails its own case, in one paragraph."""

from __future__ import annotations

import os

import pytest

from tests.helpers.case_files import NAME, assert_no_traceback, collection_error, failure_text, run
from tests.helpers.plugin_cases import write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

CASE_KEYS = (
    "actual, actual_file, call_options, conversation, description, expected, expected_calls, expected_run, "
    "expected_state, id, input, judge_labels, marks, metric, options, repeat, rubric, "
    "run_options, schema, tau2, threshold, trace"
)
LIST_CASE_KEYS = (
    "actual, actual_file, call_options, conversation, description, expected, expected_calls, expected_run, "
    "expected_state, id, input, judge_labels, marks, metric, options, repeat, rubric, "
    "run_options, tau2, threshold, trace"
)
CASE = "    expected: {a: 1}\n    actual: {a: 1}\n"
CREATE_HINT = "; run pytest with --jsonmatch-update=create to write it from the actual output"


ERRORS = [
    (
        "bad-yaml",
        "expected: {a: 1\nactual: {a: 1}\n",
        "c.jsonmatch.yaml:2:7: invalid YAML: while parsing a flow mapping did not find expected ',' or '}'",
    ),
    (  # a syntax error in a list of cases names its column and the case it falls in
        "bad-yaml-in-a-case",
        "cases:\n  - id: first\n    expected: {a: 1}\n    actual: {a: 1}\n"
        "  - id: 'the second'\n    expected:\n      id: 7\n      b: [1\n    actual: {a: 1}\n",
        "c.jsonmatch.yaml:9:11: invalid YAML in case 'the second': while parsing a flow "
        "sequence did not find expected ',' or ']'",
    ),
    (
        "tab-indent",
        "expected:\n\t a: 1\n",
        "c.jsonmatch.yaml:2:1: invalid YAML: while scanning for the next token found character that cannot start any token",
    ),
    (
        "unsafe-tag",
        "expected: !!python/object/apply:os.getcwd []\nactual: {}\n",
        "c.jsonmatch.yaml:1: tag '!!python/object/apply:os.getcwd' is not allowed; case files hold plain data (unsafe tags are never executed)",
    ),
    (
        "set-tag",
        "expected: !!set {a: null}\nactual: {}\n",
        "c.jsonmatch.yaml:1: tag '!!set' is not allowed; case files hold plain data (unsafe tags are never executed)",
    ),
    (
        "missing-expected",
        "cases:\n  - id: one\n    actual: {a: 1}\n",
        "c.jsonmatch.yaml:2: case 'one': missing 'expected' (the mapping the output should match)"
        + CREATE_HINT,
    ),
    (
        "neither-expected-nor-cases",
        "actual: {a: 1}\n",
        "c.jsonmatch.yaml:1: missing 'expected' (one case) or 'cases' (a list of cases)"
        + CREATE_HINT,
    ),
    (
        "unknown-key",
        "cases:\n  - id: one\n" + CASE + "    treshold: 0.5\n",
        "c.jsonmatch.yaml:5: case 'one': unknown key 'treshold' (did you mean 'threshold'?); known keys: actual, actual_file, "
        "call_options, conversation, description, expected, expected_calls, expected_run, expected_state, "
        "id, input, judge_labels, marks, metric, options, repeat, rubric, run_options, tau2, "
        "threshold, trace",
    ),
    (
        "unknown-file-key",
        "metrics: field_f1\ncases:\n  - id: one\n" + CASE,
        "c.jsonmatch.yaml:1: file: unknown key 'metrics' (did you mean 'metric'?); known keys: call_options, cases, "
        "description, marks, metric, options, repeat, run_options, schema, threshold",
    ),
    (
        "duplicate-key",
        "cases:\n  - id: one\n    expected: {a: 1}\n    expected: {a: 2}\n    actual: {}\n",
        "c.jsonmatch.yaml:4: duplicate key 'expected' (first given at line 3)",
    ),
    (
        "duplicate-nested-key",
        "expected:\n  a: 1\n  b: 2\n  a: 3\nactual: {}\n",
        "c.jsonmatch.yaml:4: duplicate key 'a' (first given at line 2)",
    ),
    (
        "duplicate-id",
        "cases:\n  - id: one\n" + CASE + "  - id: one\n" + CASE,
        "c.jsonmatch.yaml:5: duplicate case id 'one' (first used at line 2)",
    ),
    (
        "non-string-key",
        "expected: {1: a}\nactual: {}\n",
        "c.jsonmatch.yaml:1: key '1' is not a string (JSON keys are strings; quote it: '1')",
    ),
    (
        "yes-is-a-boolean-key",
        "expected:\n  yes: 1\nactual: {}\n",
        "c.jsonmatch.yaml:2: key 'yes' is not a string (JSON keys are strings; quote it: 'yes')",
    ),
    (
        "top-level-list",
        "- expected: {a: 1}\n",
        "c.jsonmatch.yaml:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a list",
    ),
    (
        "top-level-scalar",
        "just text\n",
        "c.jsonmatch.yaml:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a string",
    ),
    (
        "empty",
        "",
        "c.jsonmatch.yaml:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)",
    ),
    (
        "comments-only",
        "# nothing yet\n",
        "c.jsonmatch.yaml:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)",
    ),
    (
        "binary",
        b"expected: {a: 1}\nactual: \xff\xfe\n",
        "c.jsonmatch.yaml:2: not a text file: byte 0xff at offset 25 is not valid UTF-8",
    ),
    (
        "nul-byte",
        "expected: {a: 1}\nactual: \x00\n",
        "c.jsonmatch.yaml:2:9: invalid YAML: unacceptable character #x0000: control characters are not allowed",
    ),
    (
        "threshold-type",
        "threshold: high\nexpected: {a: 1}\nactual: {a: 1}\n",
        "c.jsonmatch.yaml:1: threshold must be a number in [0, 1], not 'high'",
    ),
    (
        "threshold-range",
        "cases:\n  - id: one\n    threshold: 2\n" + CASE,
        "c.jsonmatch.yaml:3: case 'one': threshold must be a number in [0, 1], not 2",
    ),
    (
        "expected-type",
        "expected: some text\nactual: {a: 1}\n",
        "c.jsonmatch.yaml:1: case 'c': expected must be a mapping, not a string",
    ),
    (
        "options-type",
        "options: [ignore]\nexpected: {a: 1}\nactual: {a: 1}\n",
        "c.jsonmatch.yaml:1: options must be a mapping, not a list",
    ),
    (
        "options-metric",
        "options: {metric: x}\nexpected: {a: 1}\nactual: {a: 1}\n",
        "c.jsonmatch.yaml:1: options may not set 'metric'; give it beside options",
    ),
    (
        "actual-type",
        "expected: {a: 1}\nactual: 12\n",
        "c.jsonmatch.yaml:2: case 'c': actual must be a mapping or the model's text, not a number",
    ),
    (
        "two-sources",
        "expected: {a: 1}\nactual: {a: 1}\ninput: text\n",
        "c.jsonmatch.yaml:1: case 'c': give exactly one of actual, actual_file, input (found actual and input)",
    ),
    (
        "no-source",
        "cases:\n  - id: one\n    expected: {a: 1}\n",
        "c.jsonmatch.yaml:2: case 'one': give exactly one of actual, actual_file, input (found none)",
    ),
    (
        "missing-id",
        "cases:\n  - expected: {a: 1}\n    actual: {a: 1}\n",
        "c.jsonmatch.yaml:2: case without 'id' (every case in a 'cases' list needs one)",
    ),
    (
        "bad-id",
        "cases:\n  - id: 'a::b'\n" + CASE,
        "c.jsonmatch.yaml:2: case id must be a non-empty one-line string without '::' or '#\u200b#[', not 'a::b'",
    ),
    (
        "empty-cases",
        "cases: []\n",
        "c.jsonmatch.yaml:1: cases must be a non-empty list of cases, not an empty list",
    ),
    (
        "case-not-mapping",
        "cases:\n  - just-a-name\n",
        "c.jsonmatch.yaml:2: each case is a mapping with id and expected, not a string",
    ),
    (
        "both-forms",
        "expected: {a: 1}\ncases: []\n",
        "c.jsonmatch.yaml:1: give either 'expected' (one case) or 'cases', not both",
    ),
    (
        "bad-mark",
        "cases:\n  - id: one\n    marks: ['not a name']\n" + CASE,
        "c.jsonmatch.yaml:3: case 'one': marks are names or {name: arguments}, not 'not a name'",
    ),
    (
        "recursive-alias",
        "expected: &a {x: [*a]}\nactual: {}\n",
        "c.jsonmatch.yaml:1: an alias refers to a value that contains it; recursive data is not JSON",
    ),
    (
        "missing-actual-file",
        "expected: {a: 1}\nactual_file: out/missing.txt\n",
        "c.jsonmatch.yaml:2: actual_file 'out/missing.txt' does not exist (looked for ",
    ),
    (
        "actual-file-type",
        "expected: {a: 1}\nactual_file: [a]\n",
        "c.jsonmatch.yaml:2: actual_file must be a path (a string), not a list",
    ),
]


@pytest.mark.parametrize(("text", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_an_invalid_case_file_is_one_short_collection_error(pytester, text, message):
    shown = collection_error(pytester, text)
    if message.endswith("(looked for "):
        assert shown.startswith(message)
    else:
        assert shown == message


# -- the shape of the file --------------------------------------------------------------------

SHAPES = [
    (
        "top-level-number",
        "42\n",
        f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a number",
    ),
    (
        "top-level-null",
        "~\n",
        f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not null",
    ),
    (
        "top-level-list-of-cases",
        "- id: one\n  expected: {a: 1}\n  actual: {a: 1}\n",
        f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a list",
    ),
    (
        "top-level-json-text",
        '"{\\"a\\": 1}"\n',
        f"{NAME}:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a string",
    ),
    (
        "whitespace-only",
        "   \n\n\t\n",
        f"{NAME}:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)",
    ),
    (
        "bom-only",
        "\ufeff",
        f"{NAME}:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)",
    ),
    (
        "two-documents",
        "expected: {a: 1}\nactual: {a: 1}\n---\nexpected: {b: 1}\n",
        f"{NAME}:3:1: invalid YAML: expected a single document in the stream but found another document",
    ),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_a_file_that_is_not_one_mapping_says_what_it_is(pytester, text, message):
    assert collection_error(pytester, text) == message


# -- case content -----------------------------------------------------------------------------

CASE_ERRORS = [
    (
        "single-case-typo-of-expected",
        "expcted: {a: 1}\nactual: {a: 1}\n",
        f"{NAME}:1: case: unknown key 'expcted' (did you mean 'expected'?); known keys: {CASE_KEYS}",
    ),
    (
        "single-case-unknown-key",
        "expected: {a: 1}\nactual: {a: 1}\nexpcted: {a: 2}\n",
        f"{NAME}:3: case: unknown key 'expcted' (did you mean 'expected'?); known keys: {CASE_KEYS}",
    ),
    (
        "unknown-key-in-second-case",
        "cases:\n  - id: one\n" + CASE + "  - id: two\n    expected: {a: 1}\n"
        "    actual_text: '{\"a\": 1}'\n",
        f"{NAME}:7: case 'two': unknown key 'actual_text'; known keys: {LIST_CASE_KEYS}",
    ),
    (
        "second-case-without-expected",
        "cases:\n  - id: one\n" + CASE + "  - id: two\n    actual: {a: 1}\n",
        f"{NAME}:5: case 'two': missing 'expected' (the mapping the output should match)"
        + CREATE_HINT,
    ),
    (
        "expected-null",
        "expected:\nactual: {a: 1}\n",
        f"{NAME}:1: case 'c': expected must be a mapping, not null",
    ),
    (
        "expected-as-json-text",
        "cases:\n  - id: one\n    expected: '{\"a\": 1}'\n    actual: {a: 1}\n",
        f"{NAME}:3: case 'one': expected must be a mapping, not a string",
    ),
    (
        "duplicate-id-number-and-string",
        "cases:\n  - id: 1\n" + CASE + "  - id: '1'\n" + CASE,
        f"{NAME}:5: duplicate case id '1' (first used at line 2)",
    ),
    (
        "duplicate-id-third-case",
        "cases:\n  - id: a\n" + CASE + "  - id: b\n" + CASE + "  - id: a\n" + CASE,
        f"{NAME}:8: duplicate case id 'a' (first used at line 2)",
    ),
    (
        "id-null",
        "cases:\n  - id:\n" + CASE,
        f"{NAME}:2: case id must be a non-empty one-line string without '::' or '#\u200b#[', not None",
    ),
    (
        "id-multiline",
        'cases:\n  - id: "a\\nb"\n' + CASE,
        f"{NAME}:2: case id must be a non-empty one-line string without '::' or '#\u200b#[', not 'a\\nb'",
    ),
]


@pytest.mark.parametrize(
    ("text", "message"), [c[1:] for c in CASE_ERRORS], ids=[c[0] for c in CASE_ERRORS]
)
def test_case_mistakes_name_line_case_and_problem(pytester, text, message):
    assert collection_error(pytester, text) == message


def test_case_ids_differing_in_case_are_distinct(pytester):
    write(pytester, NAME, "cases:\n  - id: one\n" + CASE + "  - id: One\n" + CASE)
    run(pytester).assert_outcomes(passed=2)


# -- folder defaults files --------------------------------------------------------------------


def test_an_error_in_a_folder_defaults_file_names_that_file(pytester):
    write(pytester, "sub/jsonmatch.yaml", "metric: field_f1\nthreshold: [1]\n")
    shown = collection_error(
        pytester, "expected: {a: 1}\nactual: {a: 1}\n", name="sub/c.jsonmatch.yaml"
    )
    assert shown == "sub/jsonmatch.yaml:2: threshold must be a number in [0, 1], not [1]"


def test_unknown_key_in_a_folder_defaults_file(pytester):
    write(pytester, "jsonmatch.yaml", "cases: []\n")
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n")
    assert shown == (
        "jsonmatch.yaml:1: defaults file: unknown key 'cases'; known keys: call_options, "
        "metric, options, repeat, run_options, schema, threshold"
    )


# -- paths: schema and actual_file ------------------------------------------------------------


def test_a_path_escaping_the_root_is_an_error(pytester):
    outside = pytester.path.parent / "secret.txt"
    outside.write_text('{"a": 1}')
    shown = collection_error(pytester, "expected: {a: 1}\nactual_file: ../secret.txt\n")
    assert shown == (
        f"c.jsonmatch.yaml:2: actual_file '../secret.txt' points outside the test "
        f"root '{pytester.path}'"
    )


def test_a_schema_path_escaping_the_root_is_an_error(pytester):
    (pytester.path.parent / "s.json").write_text("{}")
    shown = collection_error(pytester, "schema: ../s.json\nexpected: {a: 1}\nactual: {a: 1}\n")
    assert (
        shown
        == f"c.jsonmatch.yaml:1: schema '../s.json' points outside the test root '{pytester.path}'"
    )


def test_an_absolute_actual_file_outside_the_root_is_refused(pytester, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    outside.write_text('{"a": 1}')
    shown = collection_error(pytester, f"expected: {{a: 1}}\nactual_file: {outside}\n")
    assert shown == (
        f"{NAME}:2: actual_file {str(outside)!r} points outside the test root "
        f"{str(pytester.path)!r}"
    )


def test_a_symlink_inside_the_root_pointing_outside_is_refused(pytester, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    outside.write_text('{"a": 1}')
    os.symlink(outside, pytester.path / "link.txt")
    shown = collection_error(pytester, "expected: {a: 1}\nactual_file: link.txt\n")
    assert (
        shown
        == f"{NAME}:2: actual_file 'link.txt' points outside the test root {str(pytester.path)!r}"
    )


def test_a_path_that_leaves_and_reenters_the_root_is_fine(pytester):
    write(pytester, "out/reply.txt", '{"a": 1}')
    back_in = f"../{pytester.path.name}/out/reply.txt"
    write(pytester, NAME, f"expected: {{a: 1}}\nactual_file: {back_in}\n")
    run(pytester).assert_outcomes(passed=1)


def test_a_missing_actual_file_in_a_cases_list_names_case_line_and_where_it_looked(pytester):
    shown = collection_error(
        pytester,
        "cases:\n  - id: one\n" + CASE + "  - id: two\n    expected: {a: 1}\n"
        "    actual_file: outputs/two.txt\n",
    )
    assert shown == (
        f"{NAME}:7: actual_file 'outputs/two.txt' does not exist (looked for "
        f"{str(pytester.path / 'outputs' / 'two.txt')!r})"
    )


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
    result.stdout.fnmatch_lines(
        [
            f"{NAME}:2: case 'one': actual_file '{pytester.path / 'out.txt'}' "
            f"is not UTF-8 text: byte 0xe9 at offset 10 (line 1)"
        ]
    )


def test_an_empty_actual_file_fails_its_case_with_one_paragraph(pytester):
    write(pytester, "out.txt", "")
    write(pytester, NAME, "cases:\n  - id: one\n    expected: {a: 1}\n    actual_file: out.txt\n")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    failure_text(result)
    result.stdout.fnmatch_lines([f"{NAME}:2: case 'one': no JSON object found in actual: ''"])


# -- other files still run --------------------------------------------------------------------


def test_other_files_still_run_with_continue_on_collection_errors(pytester):
    write(pytester, "bad.jsonmatch.yaml", "expected: {a: 1\n")
    write(pytester, "good.jsonmatch.yaml", "expected: {a: 1}\nactual: {a: 1}\n")
    result = run(pytester, "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["bad.jsonmatch.yaml:2:*: invalid YAML: *"])


def test_continue_on_collection_errors_runs_the_good_cases_of_other_files(pytester):
    write(
        pytester,
        "bad1.jsonmatch.yaml",
        "expected: !!python/object/apply:os.getcwd []\nactual: {}\n",
    )
    write(pytester, "bad2.jsonmatch.yaml", b"\xff\xfe")
    write(pytester, "good.jsonmatch.yaml", "cases:\n  - id: one\n" + CASE + "  - id: two\n" + CASE)
    result = run(pytester, "--continue-on-collection-errors")
    result.assert_outcomes(passed=2, errors=2)
    assert_no_traceback(result.stdout.str())
    result.stdout.fnmatch_lines(
        [
            "bad1.jsonmatch.yaml:1: tag '!!python/object/apply:os.getcwd' is not allowed; *",
            "bad2.jsonmatch.yaml:1: not a text file: byte 0xff at offset 0 is not valid UTF-8",
        ]
    )
