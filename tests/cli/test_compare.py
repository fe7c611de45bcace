"""jsonmatch compare: one pair, as match_json scores it; structeval's spelling; exit status;
input errors as one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_jsonmatch import match_json
from tests.helpers.reports import held

from .run import ROOT, jsonmatch, one_error_line

EXPECTED = {"a": 1, "b": "x"}
ANSWER = 'Here you go:\n```json\n{"a": 1, "b": "y", "c": 2}\n```\n'


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    actual, expected = tmp_path / "answer.txt", tmp_path / "expected.json"
    actual.write_text(ANSWER)
    expected.write_text(json.dumps(EXPECTED))
    return actual, expected


def test_compare_scores_the_pair_as_match_json_does(pair, jsonmatch_main):
    actual, expected = pair
    proc = jsonmatch_main("compare", str(actual), str(expected), "--format", "json")
    assert proc.returncode == 1, proc.stderr  # below the default threshold 1.0
    report = held(proc.stdout)
    # field_f1: a matches (1), b mismatches (0), c is invented. TP = 1; precision 1/3,
    # recall 1/2, F1 = 2 * (1/3) * (1/2) / (1/3 + 1/2) = (1/3) / (5/6) = 0.4
    (comparison,) = report["comparisons"]
    assert comparison["score"] == pytest.approx(0.4)
    assert comparison["score"] == match_json(ANSWER, EXPECTED).score
    assert [(f["path"], f["status"]) for f in comparison["fields"]] == [
        ("a", "match"),
        ("b", "mismatch"),
        ("c", "hallucination"),
    ]
    assert report["overall"] == comparison["score"] and report["count"] == 1


def test_the_threshold_decides_the_exit_status(pair):
    actual, expected = pair
    assert jsonmatch("compare", str(actual), str(expected), "--threshold", "0.4").returncode == 0
    assert jsonmatch("compare", str(actual), str(expected), "-t", "0.41").returncode == 1


def test_text_is_plain_unless_a_terminal_or_asked_and_no_color_wins(pair):
    actual, expected = pair
    plain = jsonmatch("compare", str(actual), str(expected))
    assert "\x1b[" not in plain.stdout
    assert "b  mismatch" in plain.stdout.replace("   ", "  ") or "mismatch" in plain.stdout
    assert "FAILED" in plain.stdout
    coloured = jsonmatch("compare", str(actual), str(expected), "--color", "always")
    assert "\x1b[31mFAILED\x1b[0m" in coloured.stdout
    assert "\x1b[32mmatch\x1b[0m" in coloured.stdout


def test_standard_input_for_either_side(pair):
    actual, expected = pair
    proc = jsonmatch("compare", "-", str(expected), "--format", "json", stdin=ANSWER)
    assert json.loads(proc.stdout)["overall"] == pytest.approx(0.4)
    proc = jsonmatch("compare", str(actual), "-", "--format", "json", stdin=json.dumps(EXPECTED))
    assert json.loads(proc.stdout)["overall"] == pytest.approx(0.4)


STRUCTEVAL_LEFT = {
    "name": "Blue Widget",
    "price": 10.0005,
    "tags": [{"k": "big box", "n": 2}, {"k": "red", "n": 1}],
    "extra": True,
}
STRUCTEVAL_RIGHT = {
    "name": "blue widget",
    "price": 10.0,
    "tags": [{"k": "red", "n": 1}, {"k": "big box", "n": 2}],
}


def test_structevals_command_line_runs_with_the_name_changed(tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main  # what the commands print: in this process
    left, right = tmp_path / "left.json", tmp_path / "right.json"
    left.write_text(json.dumps(STRUCTEVAL_LEFT))
    right.write_text(json.dumps(STRUCTEVAL_RIGHT))
    proc = jsonmatch("--test", str(left), "--gt", str(right), "--report", "json")
    assert proc.returncode == 0, proc.stderr  # structeval has no threshold: nothing fails
    (comparison,) = held(proc.stdout)["comparisons"]
    # structural_f1: name 1 (same tokens, case folded), price 1 - (0.0005/0.001)**10
    # = 0.99902, four tag leaves paired across the order: TP = 5.99902 over 6 expected
    # leaves and 7 actual ones (extra is invented): F1 = 2 * 5.99902 / 13 = 0.92293
    expected_score = 2 * (1 + (1 - 0.5**10) + 4) / 13
    assert comparison["metric"] == "structural_f1"
    assert comparison["score"] == pytest.approx(expected_score)
    assert (
        comparison["score"]
        == match_json(STRUCTEVAL_LEFT, STRUCTEVAL_RIGHT, metric="structural_f1").score
    )
    text = jsonmatch("--test", str(left), "--gt", str(right), "--report", "text")
    assert "expected[0] <-> actual[1]" in text.stdout
    html = jsonmatch("--test", str(left), "--gt", str(right), "--report", "html")
    assert html.stdout.startswith("<!DOCTYPE html>")


def test_structevals_config_file_becomes_options(tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main  # what the commands print: in this process
    left, right, config = tmp_path / "l.json", tmp_path / "r.json", tmp_path / "config.json"
    left.write_text(json.dumps({"name": "blue widget", "n": 10.5}))
    right.write_text(json.dumps({"name": "Blue Widget", "n": 10.0}))
    config.write_text(
        json.dumps(
            {
                "string_evaluation_type": {"evaluation_type": "binary"},
                "float_evaluation_type": {
                    "evaluation_type": "threshold",
                    "evaluation_params": {"threshold": 1, "difference_penalty_weighting": 1},
                },
                "array_matching_threshold": 0.4,
            }
        )
    )
    proc = jsonmatch(
        "--test", str(left), "--gt", str(right), "--config", str(config), "--report", "json"
    )
    (comparison,) = held(proc.stdout)["comparisons"]
    # binary strings: "blue widget" != "Blue Widget": 0; n: 1 - (0.5 / 1) ** 1 = 0.5;
    # TP 0.5 over 2 leaves on each side: F1 0.25
    assert comparison["score"] == pytest.approx(0.25)
    # a setting structural_f1 cannot take is one line naming the file, before any pair
    config.write_text(json.dumps({"string_evaluation_type": {"evaluation_type": "cosinus"}}))
    line = one_error_line(
        jsonmatch("--test", str(left), "--gt", str(right), "--config", str(config))
    )
    assert str(config) in line and "'cosinus'" in line and "binary, jaccard, cosine" in line
    config.write_text(json.dumps({"string_evaluation_typ": {"evaluation_type": "binary"}}))
    line = one_error_line(
        jsonmatch("--test", str(left), "--gt", str(right), "--config", str(config))
    )
    assert str(config) in line and "unknown structeval key 'string_evaluation_typ'" in line


@pytest.mark.parametrize(
    ("content", "expected_text"),
    [
        ('{"a": 1,\n "b": }', "line 2"),  # the line of the syntax error
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ('{"a": NaN}', "NaN"),
        ("42", "must be a mapping"),
    ],
)
def test_a_bad_expected_file_is_one_line_naming_it(
    tmp_path, content, expected_text, jsonmatch_main
):
    actual, expected = tmp_path / "a.json", tmp_path / "e.json"
    actual.write_text('{"a": 1}')
    expected.write_text(content)
    line = one_error_line(jsonmatch_main("compare", str(actual), str(expected)))
    assert str(expected) in line and expected_text in line


def test_other_input_errors_are_one_line(tmp_path, pair, jsonmatch_main):
    jsonmatch = jsonmatch_main  # the error lines main() prints: in this process
    actual, expected = pair
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("I cannot help with that")
    line = one_error_line(jsonmatch("compare", str(garbage), str(expected)))
    assert str(garbage) in line and "no JSON object" in line
    line = one_error_line(jsonmatch("compare", str(tmp_path / "nope.json"), str(expected)))
    assert "nope.json" in line and "No such file" in line
    line = one_error_line(jsonmatch("compare", str(actual), str(expected), "--metric", "nope"))
    assert "nope" in line and "field_f1" in line
    line = one_error_line(jsonmatch("compare", str(actual), str(expected), "--option", "bogus=1"))
    assert "bogus" in line
    line = one_error_line(jsonmatch("compare", str(actual), str(expected), "--threshold", "2"))
    assert "--threshold" in line
    line = one_error_line(jsonmatch("compare", str(actual), str(expected), "--option", "x"))
    assert "KEY=VALUE" in line
    line = one_error_line(jsonmatch("compare", str(tmp_path), str(expected)))
    assert f"{str(tmp_path)!r} is not a regular file (a directory)" in line
    assert one_error_line(jsonmatch("frobnicate")).startswith("jsonmatch")


@pytest.mark.parametrize("command", [[], ["compare"], ["score"], ["report"], ["diff"]])
def test_every_command_has_help(command):
    proc = jsonmatch(*command, "--help")
    assert proc.returncode == 0 and "usage: jsonmatch" in proc.stdout


def test_the_command_line_never_imports_pytest(pair, tmp_path):
    actual, expected = pair
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text(json.dumps(EXPECTED) + "\n")
    pred.write_text(json.dumps(ANSWER) + "\n")
    code = (
        "import sys, contextlib, io\n"
        "from pytest_jsonmatch.cli import main\n"
        "for argv in (['compare', sys.argv[1], sys.argv[2], '--format', 'html'],\n"
        "             ['score', sys.argv[3], sys.argv[4], '--report', sys.argv[5]],\n"
        "             ['report', sys.argv[5], '--format', 'markdown']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        main(argv)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', 'pluggy'))\n"
        "print(loaded)\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(actual),
            str(expected),
            str(gold),
            str(pred),
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
