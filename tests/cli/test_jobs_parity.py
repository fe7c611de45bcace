"""jsonmatch score -j N: byte for byte what -j 1 gives (docs/cli.md), errors included. Each
run's standard output (text, Markdown), its --report file (JSON), its standard error and its
exit status are compared; only the report's run time is masked. Every dataset spans several
chunks (64 records scored together, up to 256 handled at a time, by the command's process
or a worker: -j 2 is the command and one worker), so that errors reach workers and chunks
are in flight when they come. With workers the lines are decoded where the chunk is
handled, not where the files are read: an error in a line must still come in its place."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .run import jsonmatch

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)

N = 300
TIME = re.compile(r'"time": "[^"]*"')


def record(i: int) -> dict:
    return {
        "id": f"r{i:04d}",
        "vendor": ["ACME", "Initech", "Globex"][i % 3],
        "total": i,
        "items": [{"sku": "A", "qty": i % 4}],
    }


def answer(i: int) -> dict:
    value = record(i)
    if i % 5 == 0:
        value["total"] += 1
    return value


def write_jsonl(path: Path, lines: list) -> str:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    )
    return str(path)


def outputs(tmp_path: Path, *args: str, jobs: str) -> list:
    """What one run leaves: exit status, standard error, text output and the JSON report,
    then the Markdown output of a second run."""
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    text = jsonmatch("score", *args, "-j", jobs, "--report", str(report), cwd=tmp_path)
    saved = TIME.sub('"time": "-"', report.read_text()) if report.exists() else None
    markdown = jsonmatch("score", *args, "-j", jobs, "--format", "markdown", cwd=tmp_path)
    return [
        text.returncode,
        text.stderr,
        text.stdout,
        saved,
        markdown.returncode,
        markdown.stderr,
        markdown.stdout,
    ]


def assert_same_for_any_jobs(tmp_path: Path, *args: str) -> list:
    one = outputs(tmp_path, *args, jobs="1")
    two = outputs(tmp_path, *args, jobs="2")
    assert two == one
    return one


def test_missing_extra_and_unparsable_predictions_by_id(tmp_path):
    gold = [record(i) for i in range(N)]
    # out of order (each waits for its gold record), two missing, two no gold record has
    pred = [
        {"id": f"r{i:04d}", "answer": answer(i)} for i in reversed(range(N)) if i not in (17, 230)
    ]
    pred += [{"id": "x-1", "answer": {"total": 1}}, {"id": "x-2", "answer": {"total": 2}}]
    pred[40]["answer"] = "Sorry, I cannot read this invoice."
    pred[41]["answer"] = '```json\n{"vendor": "ACME",\n "total": '
    pred[42]["answer"] = "Here:\n" + json.dumps(pred[42]["answer"])
    args = (
        write_jsonl(tmp_path / "gold.jsonl", gold),
        write_jsonl(tmp_path / "pred.jsonl", pred),
        "--id-field",
        "id",
        "--pred-field",
        "answer",
        "--option",
        'ignore=["id"]',
    )
    status, _, _, saved, *_ = assert_same_for_any_jobs(tmp_path, *args)
    assert status == 0 and saved is not None  # no gate: unscored cases count 0
    report = json.loads(saved)
    errors = {c["case_id"]: c["error"] for c in report["comparisons"] if c["error"]}
    pred_path = tmp_path / "pred.jsonl"
    assert errors == {
        "r0017": f"no prediction has id 'r0017' in {pred_path}",
        "r0230": f"no prediction has id 'r0230' in {pred_path}",
        pred[40]["id"]: "no JSON object found in actual: 'Sorry, I cannot read this invoice.'",
        pred[41]["id"]: "actual was cut off: its JSON value opened at line 2, column 1 is not "
        "closed when the text ends at line 3, column 11, after 29 characters "
        "(the answer was truncated, e.g. by max_tokens): ..." + repr(pred[41]["answer"][-30:]),
    }
    assert report["gates"]["warnings"][0] == (
        f"{pred_path}: 2 predictions no gold record has (x-1, x-2), not scored"
    )


def test_missing_extra_and_unparsable_files_of_two_folders(tmp_path):
    (tmp_path / "gold").mkdir()
    (tmp_path / "pred").mkdir()
    for i in range(150):
        (tmp_path / "gold" / f"r{i:04d}.json").write_text(json.dumps(record(i)))
        if i not in (3, 99):
            (tmp_path / "pred" / f"r{i:04d}.txt").write_text(json.dumps(answer(i)))
    (tmp_path / "pred" / "r0070.txt").write_text("no JSON here")
    (tmp_path / "pred" / "r0071.txt").write_text('```json\n{"vendor": "ACME" "total": 1}\n```')
    (tmp_path / "pred" / "stray.txt").write_text("{}")
    status, _, _, saved, *_ = assert_same_for_any_jobs(tmp_path, "gold", "pred")
    assert status == 0
    errors = [c["error"] for c in json.loads(saved)["comparisons"] if c["error"]]
    assert errors[:2] == [
        "no file r0003.* in pred",
        "no JSON object found in actual: 'no JSON here'",
    ]
    assert len(errors) == 4


def dataset_files(tmp_path: Path, gold_lines: list, pred_lines: list) -> tuple[str, str]:
    return (
        write_jsonl(tmp_path / "gold.jsonl", gold_lines),
        write_jsonl(tmp_path / "pred.jsonl", pred_lines),
    )


def stop_line(tmp_path: Path, *args: str) -> str:
    """The one error line both runs stop with (exit status 2, nothing on standard output)."""
    status, stderr, text, saved, *_ = assert_same_for_any_jobs(tmp_path, *args)
    assert (status, text, saved) == (2, "", None)
    return stderr.replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize(
    ("where", "twice", "line"),
    [(250, 240, 251), (N, 240, 301), (250, 260, 252)],
    ids=["after-its-pairing", "after-every-gold-record", "still-waiting"],
)
def test_a_prediction_id_given_twice(tmp_path, where, twice, line):
    # the earlier one already paired with its gold record, or read ahead and waiting for it
    pred: list = [answer(i) for i in range(N)]
    pred[250], pred[260] = pred[260], pred[250]  # r0260 is read ahead of r0250
    pred.insert(where, answer(twice))
    args = dataset_files(tmp_path, [record(i) for i in range(N)], pred)
    assert stop_line(tmp_path, *args, "--id-field", "id") == (
        f"jsonmatch: error: pred.jsonl line {line}: id 'r0{twice}' is given to an earlier "
        f"prediction too\n"
    )


def test_a_gold_id_given_twice(tmp_path):
    gold: list = [record(i) for i in range(N)]
    gold[280] = record(3)
    args = dataset_files(tmp_path, gold, [answer(i) for i in range(N)])
    assert stop_line(tmp_path, *args, "--id-field", "id") == (
        "jsonmatch: error: gold.jsonl line 281: id 'r0003' is given to an earlier gold record too\n"
    )


def test_an_unparsable_gold_line(tmp_path):
    gold: list = [record(i) for i in range(N)]
    gold[199] = '{"id": "r0199", "total": '
    args = dataset_files(tmp_path, gold, [answer(i) for i in range(N)])
    assert stop_line(tmp_path, *args, "--metric", "structural_f1") == (
        "jsonmatch: error: gold.jsonl line 200: not valid JSON: Expecting value (column 25); a "
        "JSONL file holds one JSON value per line\n"
    )


def test_an_unusable_gold_record_before_an_unparsable_line_is_the_error_of_both(tmp_path):
    # -j 1 scores the first chunk (a gold record that holds no object) before it reads line
    # 200; -j 2 has read further by then, and must still report the first chunk's error
    gold: list = [record(i) for i in range(N)]
    gold[9] = json.dumps("not an object")
    gold[199] = '{"id": "r0199", "total": '
    args = dataset_files(tmp_path, gold, [answer(i) for i in range(N)])
    assert stop_line(tmp_path, *args, "--metric", "structural_f1") == (
        "jsonmatch: error: gold.jsonl line 10: expected is not valid JSON: Expecting value "
        "(line 1, column 1) (text starts 'not an object')\n"
    )


@pytest.mark.parametrize("metric", ["structural_f1", "field_f1"])  # field_f1: schema inferred
def test_an_unparsable_line_before_the_files_are_found_of_different_lengths(tmp_path, metric):
    # -j 1 decodes line 270 while it reads, before it finds that the files differ in length;
    # -j 2 finds that first (line 270 is still text in a chunk it has not sent), and must
    # report line 270 all the same
    gold: list = [record(i) for i in range(N)]
    gold[269] = '{"id": "r0269", "total": '
    args = dataset_files(tmp_path, gold, [answer(i) for i in range(N - 1)])
    assert stop_line(tmp_path, *args, "--metric", metric) == (
        "jsonmatch: error: gold.jsonl line 270: not valid JSON: Expecting value (column 25); a "
        "JSONL file holds one JSON value per line\n"
    )


def test_an_unparsable_gold_line_past_the_predictions(tmp_path):
    # the first gold record without a prediction is read (and fails) before the lengths
    # are compared, with or without workers
    gold: list = [record(i) for i in range(N)]
    gold[N - 1] = '{"id": '
    args = dataset_files(tmp_path, gold, [answer(i) for i in range(N - 1)])
    assert stop_line(tmp_path, *args) == (
        f"jsonmatch: error: gold.jsonl line {N}: not valid JSON: Expecting value (column 7); "
        f"a JSONL file holds one JSON value per line\n"
    )


def test_an_unparsable_prediction_past_the_gold_records(tmp_path):
    # the files differ in length; the prediction past the last gold record is read (and
    # fails) before the lengths are compared, with or without workers
    pred: list = [answer(i) for i in range(N + 1)]
    pred[N] = "{not json"
    args = dataset_files(tmp_path, [record(i) for i in range(N)], pred)
    assert stop_line(tmp_path, *args) == (
        f"jsonmatch: error: pred.jsonl line {N + 1}: not valid JSON: Expecting property name "
        f"enclosed in double quotes (column 2); a JSONL file holds one JSON value per line\n"
    )


def test_a_bad_prediction_in_the_first_chunk_of_a_schema_inferred_run(tmp_path):
    # the schema is inferred from every gold record first: a prediction line that is not
    # JSON is met while the gold records are read, before any record is scored
    pred: list = [answer(i) for i in range(N)]
    pred[3] = "{not json"
    gold: list = [record(i) for i in range(N)]
    gold[290] = '{"id": 1'
    args = dataset_files(tmp_path, gold, pred)
    assert stop_line(tmp_path, *args) == (
        "jsonmatch: error: pred.jsonl line 4: not valid JSON: Expecting property name enclosed "
        "in double quotes (column 2); a JSONL file holds one JSON value per line\n"
    )


@pytest.mark.parametrize(("gold_n", "pred_n"), [(N, N - 1), (N - 1, N)], ids=["fewer", "more"])
def test_files_of_different_lengths_paired_by_position(tmp_path, gold_n, pred_n):
    args = dataset_files(
        tmp_path, [record(i) for i in range(gold_n)], [answer(i) for i in range(pred_n)]
    )
    line = stop_line(tmp_path, *args)
    assert "pairing by position needs as many (or pair by --id-field)" in line


def test_the_report_records_the_command_without_its_jobs(tmp_path):
    args = dataset_files(tmp_path, [record(i) for i in range(3)], [answer(i) for i in range(3)])
    for jobs in (["-j", "2"], ["-j2"], ["--jobs", "2"], ["--jobs=2"], ["--jo", "2"]):
        proc = jsonmatch("score", *args, *jobs, "--format", "json", cwd=tmp_path)
        assert json.loads(proc.stdout)["run"]["command"] == [
            "jsonmatch",
            "score",
            *args,
            "--format",
            "json",
        ]


def test_a_gold_record_the_sketch_refuses_before_an_unparsable_prediction(tmp_path):
    # schema inferred: one process sketches record 5 (a number too large for a float)
    # before it reads line 250 of the same chunk; a worker decodes and sketches pair by
    # pair, so that it meets them in the same order
    gold: list = [record(i) for i in range(N)]
    gold[4] = '{"id": "r0004", "total": 1e999}'
    pred: list = [answer(i) for i in range(N)]
    pred[249] = "{not json"
    args = dataset_files(tmp_path, gold, pred)
    assert stop_line(tmp_path, *args) == (
        "jsonmatch: error: gold.jsonl line 5: total: inf in expected is not a JSON number "
        "(NaN and Infinity are not JSON)\n"
    )


def test_a_gold_record_scoring_refuses_before_an_unparsable_prediction_of_its_group(tmp_path):
    # one process scores the pairs read before line 21 (record 10 among them) before it
    # reports line 21; a worker decodes a group of 64, and scores what came before the
    # line that is not JSON first
    gold: list = [record(i) for i in range(N)]
    gold[9] = json.dumps("not an object")
    pred: list = [answer(i) for i in range(N)]
    pred[20] = "{not json"
    args = dataset_files(tmp_path, gold, pred)
    assert stop_line(tmp_path, *args, "--metric", "structural_f1") == (
        "jsonmatch: error: gold.jsonl line 10: expected is not valid JSON: Expecting value "
        "(line 1, column 1) (text starts 'not an object')\n"
    )


@pytest.mark.parametrize(
    ("late_field", "jobs"), [(False, "3"), (True, "2")], ids=["guess-holds", "guess-redone"]
)
def test_many_chunks_shared_by_the_command_and_its_workers(tmp_path, late_field, jobs):
    # 1,100 records by position: -j N scores chunks in the command's process and in
    # workers, smaller ones near the end (cli/parallel.py); with a field only record 1,000
    # has, the guessed schema is refused and every chunk is sketched, then scored again
    gold: list = [record(i) for i in range(1100)]
    if late_field:
        gold[999]["note"] = "late"
    args = dataset_files(tmp_path, gold, [answer(i) for i in range(1100)])
    one = outputs(tmp_path, *args, jobs="1")
    assert outputs(tmp_path, *args, jobs=jobs) == one
    report = json.loads(one[3])
    assert len(report["cases"]) == len(report["comparisons"]) == 1100
    # the schema scored by: the late field is in it only where a record has it
    assert ("note" in report["fields"]) is late_field
