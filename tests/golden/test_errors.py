"""An unusable case file is one collection error: file, line and what is wrong, no traceback."""

from __future__ import annotations

import time

import pytest

from tests.helpers.plugin_cases import write

QUIET = ("-p", "no:hypothesispytest")  # a second per in-process run otherwise


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(*QUIET, *args)


def collection_error(pytester: pytest.Pytester, text: str | bytes, name: str = "c.jsonmatch.yaml") -> str:
    """The one-paragraph error pytest shows for this file, checked to carry no traceback."""
    write(pytester, name, text)
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = result.stdout.str()
    assert "Traceback" not in out and "golden.py" not in out and "CaseFileError" not in out
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if f"ERROR collecting {name}" in line)
    return lines[start + 1]


CASE = "    expected: {a: 1}\n    actual: {a: 1}\n"

ERRORS = [
    ("bad-yaml", "expected: {a: 1\nactual: {a: 1}\n",
     "c.jsonmatch.yaml:2: invalid YAML: while parsing a flow mapping did not find expected ',' or '}'"),
    ("tab-indent", "expected:\n\t a: 1\n",
     "c.jsonmatch.yaml:2: invalid YAML: while scanning for the next token found character that cannot start any token"),
    ("unsafe-tag", "expected: !!python/object/apply:os.getcwd []\nactual: {}\n",
     "c.jsonmatch.yaml:1: tag '!!python/object/apply:os.getcwd' is not allowed; case files hold plain data (unsafe tags are never executed)"),
    ("set-tag", "expected: !!set {a: null}\nactual: {}\n",
     "c.jsonmatch.yaml:1: tag '!!set' is not allowed; case files hold plain data (unsafe tags are never executed)"),
    ("missing-expected", "cases:\n  - id: one\n    actual: {a: 1}\n",
     "c.jsonmatch.yaml:2: case 'one': missing 'expected' (the mapping the output should match)"),
    ("neither-expected-nor-cases", "actual: {a: 1}\n",
     "c.jsonmatch.yaml:1: missing 'expected' (one case) or 'cases' (a list of cases)"),
    ("unknown-key", "cases:\n  - id: one\n" + CASE + "    treshold: 0.5\n",
     "c.jsonmatch.yaml:5: case 'one': unknown key 'treshold'; known keys: actual, actual_file, "
     "description, expected, id, input, marks, metric, options, threshold"),
    ("unknown-file-key", "metrics: field_f1\ncases:\n  - id: one\n" + CASE,
     "c.jsonmatch.yaml:1: file: unknown key 'metrics'; known keys: cases, description, marks, "
     "metric, options, schema, threshold"),
    ("duplicate-key", "cases:\n  - id: one\n    expected: {a: 1}\n    expected: {a: 2}\n    actual: {}\n",
     "c.jsonmatch.yaml:4: duplicate key 'expected' (first given at line 3)"),
    ("duplicate-nested-key", "expected:\n  a: 1\n  b: 2\n  a: 3\nactual: {}\n",
     "c.jsonmatch.yaml:4: duplicate key 'a' (first given at line 2)"),
    ("duplicate-id", "cases:\n  - id: one\n" + CASE + "  - id: one\n" + CASE,
     "c.jsonmatch.yaml:5: duplicate case id 'one' (first used at line 2)"),
    ("non-string-key", "expected: {1: a}\nactual: {}\n",
     "c.jsonmatch.yaml:1: key '1' is not a string (JSON keys are strings; quote it: '1')"),
    ("yes-is-a-boolean-key", "expected:\n  yes: 1\nactual: {}\n",
     "c.jsonmatch.yaml:2: key 'yes' is not a string (JSON keys are strings; quote it: 'yes')"),
    ("top-level-list", "- expected: {a: 1}\n",
     "c.jsonmatch.yaml:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a list"),
    ("top-level-scalar", "just text\n",
     "c.jsonmatch.yaml:1: a case file holds a mapping with 'expected' (one case) or 'cases' (a list), not a string"),
    ("empty", "",
     "c.jsonmatch.yaml:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)"),
    ("comments-only", "# nothing yet\n",
     "c.jsonmatch.yaml:1: the file is empty; a case file holds a mapping with 'expected' (one case) or 'cases' (a list)"),
    ("binary", b"expected: {a: 1}\nactual: \xff\xfe\n",
     "c.jsonmatch.yaml:2: not a text file: byte 0xff at offset 25 is not valid UTF-8"),
    ("nul-byte", "expected: {a: 1}\nactual: \x00\n",
     "c.jsonmatch.yaml:2: invalid YAML: unacceptable character #x0000: control characters are not allowed"),
    ("threshold-type", "threshold: high\nexpected: {a: 1}\nactual: {a: 1}\n",
     "c.jsonmatch.yaml:1: threshold must be a number in [0, 1], not 'high'"),
    ("threshold-range", "cases:\n  - id: one\n    threshold: 2\n" + CASE,
     "c.jsonmatch.yaml:3: case 'one': threshold must be a number in [0, 1], not 2"),
    ("expected-type", "expected: some text\nactual: {a: 1}\n",
     "c.jsonmatch.yaml:1: case 'c': expected must be a mapping, not a string"),
    ("options-type", "options: [ignore]\nexpected: {a: 1}\nactual: {a: 1}\n",
     "c.jsonmatch.yaml:1: options must be a mapping, not a list"),
    ("options-metric", "options: {metric: x}\nexpected: {a: 1}\nactual: {a: 1}\n",
     "c.jsonmatch.yaml:1: options may not set 'metric'; give it beside options"),
    ("actual-type", "expected: {a: 1}\nactual: 12\n",
     "c.jsonmatch.yaml:2: case 'c': actual must be a mapping or the model's text, not a number"),
    ("two-sources", "expected: {a: 1}\nactual: {a: 1}\ninput: text\n",
     "c.jsonmatch.yaml:1: case 'c': give exactly one of actual, actual_file, input (found actual and input)"),
    ("no-source", "cases:\n  - id: one\n    expected: {a: 1}\n",
     "c.jsonmatch.yaml:2: case 'one': give exactly one of actual, actual_file, input (found none)"),
    ("missing-id", "cases:\n  - expected: {a: 1}\n    actual: {a: 1}\n",
     "c.jsonmatch.yaml:2: case without 'id' (every case in a 'cases' list needs one)"),
    ("bad-id", "cases:\n  - id: 'a::b'\n" + CASE,
     "c.jsonmatch.yaml:2: case id must be a non-empty one-line string without '::', not 'a::b'"),
    ("empty-cases", "cases: []\n",
     "c.jsonmatch.yaml:1: cases must be a non-empty list of cases, not an empty list"),
    ("case-not-mapping", "cases:\n  - just-a-name\n",
     "c.jsonmatch.yaml:2: each case is a mapping with id and expected, not a string"),
    ("both-forms", "expected: {a: 1}\ncases: []\n",
     "c.jsonmatch.yaml:1: give either 'expected' (one case) or 'cases', not both"),
    ("bad-mark", "cases:\n  - id: one\n    marks: ['not a name']\n" + CASE,
     "c.jsonmatch.yaml:3: case 'one': marks are names or {name: arguments}, not 'not a name'"),
    ("recursive-alias", "expected: &a {x: [*a]}\nactual: {}\n",
     "c.jsonmatch.yaml:1: an alias refers to a value that contains it; recursive data is not JSON"),
    ("missing-actual-file", "expected: {a: 1}\nactual_file: out/missing.txt\n",
     "c.jsonmatch.yaml:2: actual_file 'out/missing.txt' does not exist (looked for "),
    ("actual-file-type", "expected: {a: 1}\nactual_file: [a]\n",
     "c.jsonmatch.yaml:2: actual_file must be a path (a string), not a list"),
]


@pytest.mark.parametrize(("text", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_an_invalid_case_file_is_one_short_collection_error(pytester, text, message):
    shown = collection_error(pytester, text)
    if message.endswith("(looked for "):
        assert shown.startswith(message)
    else:
        assert shown == message


def test_a_path_escaping_the_root_is_an_error(pytester):
    outside = pytester.path.parent / "secret.txt"
    outside.write_text('{"a": 1}')
    shown = collection_error(pytester, "expected: {a: 1}\nactual_file: ../secret.txt\n")
    assert shown == (f"c.jsonmatch.yaml:2: actual_file '../secret.txt' points outside the test "
                     f"root '{pytester.path}'")


def test_a_schema_path_escaping_the_root_is_an_error(pytester):
    (pytester.path.parent / "s.json").write_text("{}")
    shown = collection_error(pytester, "schema: ../s.json\nexpected: {a: 1}\nactual: {a: 1}\n")
    assert shown == f"c.jsonmatch.yaml:1: schema '../s.json' points outside the test root '{pytester.path}'"


def test_an_error_in_a_folder_defaults_file_names_that_file(pytester):
    write(pytester, "sub/jsonmatch.yaml", "metric: field_f1\nthreshold: [1]\n")
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n", name="sub/c.jsonmatch.yaml")
    assert shown == "sub/jsonmatch.yaml:2: threshold must be a number in [0, 1], not [1]"


def test_unknown_key_in_a_folder_defaults_file(pytester):
    write(pytester, "jsonmatch.yaml", "cases: []\n")
    shown = collection_error(pytester, "expected: {a: 1}\nactual: {a: 1}\n")
    assert shown == ("jsonmatch.yaml:1: defaults file: unknown key 'cases'; known keys: metric, "
                     "options, schema, threshold")


def test_unsafe_tags_are_never_executed(pytester):
    marker = pytester.path / "pwned"
    write(pytester, "c.jsonmatch.yaml",
          f'expected: !!python/object/apply:os.system ["touch {marker}"]\nactual: {{}}\n')
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not marker.exists()


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
    assert shown == "c.jsonmatch.yaml:6: aliases expand to more than 1,000,000 values; is this an alias bomb?"


def test_aliases_within_bounds_are_fine(pytester):
    write(pytester, "c.jsonmatch.yaml", """\
        cases:
          - id: one
            expected: &shared {vendor: ACME, total: 3}
            actual: {vendor: ACME, total: 3}
          - id: two
            expected: *shared
            actual: *shared
        """)
    run(pytester).assert_outcomes(passed=2)


def test_deep_nesting_is_an_error_or_a_case_never_a_crash(pytester):
    deep = "[" * 5000 + "]" * 5000
    write(pytester, "c.jsonmatch.yaml", f"expected: {{a: {deep}}}\nactual: {{a: 1}}\n")
    result = run(pytester)
    assert "Traceback" not in result.stdout.str()
    assert result.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)


def test_other_files_still_run_with_continue_on_collection_errors(pytester):
    write(pytester, "bad.jsonmatch.yaml", "expected: {a: 1\n")
    write(pytester, "good.jsonmatch.yaml", "expected: {a: 1}\nactual: {a: 1}\n")
    result = run(pytester, "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["bad.jsonmatch.yaml:2: invalid YAML: *"])
