"""jsonmatch score with a schema: the valid column in text and JSON, --invalid-fails,
--min-valid, an inferred schema left unchecked, and -j 2 byte for byte what -j 1 gives."""

from __future__ import annotations

import json
from pathlib import Path

from .run import jsonmatch_in_process
from .test_jobs_parity import assert_same_for_any_jobs, write_jsonl

SCHEMA = {
    "type": "object",
    "required": ["id", "total"],
    "properties": {
        "id": {"type": "integer"},
        "total": {"type": "number", "minimum": 0},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["sku", "qty"],
                "additionalProperties": False,
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
            },
        },
    },
}
GOLD = [
    {"id": 1, "total": 5, "items": [{"sku": "a", "qty": 1}]},
    {"id": 2, "total": 3, "items": [{"sku": "b", "qty": 2}]},
    {"id": 3, "total": 1, "items": []},
]
# 1: valid. 2: total below 0 (minimum), qty 0 (minimum), an extra key x
# (additionalProperties). 3: id a string (type), total missing (required). 1 of 3 valid.
PRED = [
    {"id": 1, "total": 5, "items": [{"sku": "a", "qty": 1}]},
    {"id": 2, "total": -3, "items": [{"sku": "b", "qty": 0, "x": 1}]},
    {"id": "3", "items": []},
]


def files(tmp_path: Path) -> list[str]:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    return [
        write_jsonl(tmp_path / "gold.jsonl", GOLD),
        write_jsonl(tmp_path / "pred.jsonl", PRED),
        "--schema",
        str(tmp_path / "schema.json"),
    ]


def test_score_prints_the_valid_share_and_the_places_broken_most(tmp_path, capsys):
    done = jsonmatch_in_process(capsys, "score", *files(tmp_path))
    assert done.returncode == 0  # the share alone gates nothing
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "metric",
        "cases",
        "pass",
        "fail",
        "error",
        "score",
        "prec",
        "recall",
        "F1",
        "valid",
    ]
    assert lines[1].split()[-1] == "0.3333"  # 1 of 3
    # five places, one answer each, by path then keyword; three named
    assert (
        " ".join(lines[2:4]).split()
        == (
            "schema: field_f1: 1 of 3 answers valid (0.3333); broken most: id type (1 answer), "
            "items[].qty minimum (1 answer), items[].x additionalProperties (1 answer)"
        ).split()
    )


def test_score_json_holds_each_answers_violations(tmp_path, capsys):
    done = jsonmatch_in_process(capsys, "score", *files(tmp_path), "-f", "json")
    report = json.loads(done.stdout)
    assert report["metrics"]["field_f1"]["conformance"] == {
        "checked": 3,
        "valid": 1,
        "share": 1 / 3,
        "violated": [
            {"field_path": "id", "keyword": "type", "answers": 1},
            {"field_path": "items[].qty", "keyword": "minimum", "answers": 1},
            {"field_path": "items[].x", "keyword": "additionalProperties", "answers": 1},
            {"field_path": "total", "keyword": "minimum", "answers": 1},
            {"field_path": "total", "keyword": "required", "answers": 1},
        ],
    }
    second = report["comparisons"][1]["conformance"]
    assert second["count"] == 3
    assert [(v["path"], v["keyword"]) for v in second["violations"]] == [
        ("total", "minimum"),
        ("items[0].qty", "minimum"),
        ("items[0].x", "additionalProperties"),
    ]


def test_invalid_fails_and_min_valid(tmp_path, capsys):
    args = files(tmp_path)
    # every score at threshold 0 passes; --invalid-fails fails answers 2 and 3
    done = jsonmatch_in_process(capsys, "score", *args, "-t", "0", "--invalid-fails", "-f", "json")
    report = json.loads(done.stdout)
    assert [c["status"] for c in report["cases"]] == ["passed", "failed", "failed"]
    assert report["metrics"]["field_f1"]["failed"] == 2
    done = jsonmatch_in_process(capsys, "score", *args, "-t", "0", "--min-valid", "0.5")
    assert done.returncode == 1
    assert (
        "field_f1: valid share 0.3333 (1 of 3 answers valid against their schema) is below "
        "--min-valid 0.5000"
    ) in done.stdout
    assert jsonmatch_in_process(capsys, "score", *args, "--min-valid", "0.3").returncode == 0


def test_an_inferred_schema_checks_no_answer(tmp_path, capsys):
    # without --schema, field_f1 infers its schema from the gold records: not a contract
    done = jsonmatch_in_process(capsys, "score", *files(tmp_path)[:2], "-f", "json")
    report = json.loads(done.stdout)
    assert "conformance" not in report["metrics"]["field_f1"]
    assert all("conformance" not in c for c in report["comparisons"])


def test_two_workers_give_what_one_gives(tmp_path):
    # 300 records over several chunks; every seventh answer's qty is 0 (minimum), every
    # eleventh has an extra key (additionalProperties)
    gold = [{"id": i, "total": i, "items": [{"sku": "a", "qty": 1 + i % 3}]} for i in range(300)]
    pred = []
    for i, record in enumerate(gold):
        answer = json.loads(json.dumps(record))
        if i % 7 == 0:
            answer["items"][0]["qty"] = 0
        if i % 11 == 0:
            answer["items"][0]["extra"] = True
        pred.append(answer)
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    one = assert_same_for_any_jobs(
        tmp_path,
        write_jsonl(tmp_path / "g.jsonl", gold),
        write_jsonl(tmp_path / "p.jsonl", pred),
        "--schema",
        str(tmp_path / "schema.json"),
        "--invalid-fails",
    )
    share = json.loads(one[3])["metrics"]["field_f1"]["conformance"]
    # invalid: multiples of 7 (43: 0..294) or of 11 (28: 0..297), both 77 (4: 0, 77, 154,
    # 231): 43 + 28 - 4 = 67; valid 300 - 67 = 233
    assert (share["checked"], share["valid"]) == (300, 233)
    assert share["violated"] == [
        {"field_path": "items[].qty", "keyword": "minimum", "answers": 43},
        {"field_path": "items[].extra", "keyword": "additionalProperties", "answers": 28},
    ]


def test_compare_shows_one_answers_violations(tmp_path, capsys):
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "e.json").write_text(json.dumps(GOLD[1]))
    (tmp_path / "a.json").write_text(json.dumps(PRED[1]))
    done = jsonmatch_in_process(
        capsys,
        "compare",
        str(tmp_path / "a.json"),
        str(tmp_path / "e.json"),
        "--schema",
        str(tmp_path / "schema.json"),
    )
    assert (
        "schema: answer breaks its schema (3 violations): total minimum, items[0].qty "
        "minimum, items[0].x additionalProperties"
    ) in " ".join(done.stdout.split())


def test_an_answer_cut_off_or_without_json_counts_as_invalid(tmp_path, capsys):
    # issue 51: before, 1 of 1 answer was valid (the two unread answers left out)
    gold, pred, schema = tmp_path / "g.jsonl", tmp_path / "p.jsonl", tmp_path / "s.json"
    gold.write_text('{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    pred.write_text('{"a": 1}\n"{\\"a\\": "\n"no json"\n')  # whole, cut off, no JSON
    schema.write_text('{"type": "object", "properties": {"a": {"type": "integer"}}}')
    args = (str(gold), str(pred), "--metric", "field_match", "--schema", str(schema))
    done = jsonmatch_in_process(capsys, "score", *args, "-f", "json")
    share = json.loads(done.stdout)["metrics"]["field_match"]["conformance"]
    assert (share["checked"], share["valid"]) == (3, 1)
    assert {(v["field_path"], v["keyword"]) for v in share["violated"]} == {
        ("(answer)", "cut off"),
        ("(answer)", "unreadable"),
    }
