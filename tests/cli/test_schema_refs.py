"""--schema FILE reads FILE's references beside it, as match_json(schema=path) and the plugin do,
whatever folder the command runs in (compare, score, score -j 2). A decoy file of the same name
in the working directory would give another score if it were read instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_jsonmatch import match_json

from .run import jsonmatch, one_error_line

INVOICE = {
    "type": "object",
    "properties": {
        "seller": {"$ref": "party.schema.json#/$defs/party"},
        "total": {"type": "number"},
    },
}
PARTY = {
    "$defs": {
        "party": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "x-eval-compare": "levenshtein"},
                "vat": {"type": "string"},
            },
        }
    }
}
EXPECTED = {"seller": {"name": "ACME Corp", "vat": "X1"}, "total": 5}
ANSWER = 'Here:\n```json\n{"seller": {"name": "ACME Corp.", "vat": "X1"}, "total": 5}\n```\n'


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """schemas/ (invoice + party), data/ (the pair), elsewhere/ (the working directory, with a
    decoy party.schema.json that compares names exactly)."""
    schemas, data, elsewhere = (tmp_path / "schemas", tmp_path / "data", tmp_path / "elsewhere")
    for folder in (schemas, data, elsewhere):
        folder.mkdir()
    (schemas / "invoice.schema.json").write_text(json.dumps(INVOICE))
    (schemas / "party.schema.json").write_text(json.dumps(PARTY))
    decoy = json.loads(json.dumps(PARTY))
    decoy["$defs"]["party"]["properties"]["name"]["x-eval-compare"] = "exact"
    (elsewhere / "party.schema.json").write_text(json.dumps(decoy))
    (data / "answer.txt").write_text(ANSWER)
    (data / "expected.json").write_text(json.dumps(EXPECTED))
    return {"schemas": schemas, "data": data, "cwd": elsewhere}


def library_score(schema: Path) -> float:
    return match_json(ANSWER, EXPECTED, schema=str(schema)).score


def overall(proc) -> float:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["overall"]


@pytest.mark.parametrize("spelling", ["absolute", "relative"])
def test_compare_reads_a_schema_reference_beside_the_schema_file(layout, spelling):
    schema = layout["schemas"] / "invoice.schema.json"
    given = str(schema) if spelling == "absolute" else "../schemas/invoice.schema.json"
    proc = jsonmatch(
        "compare",
        str(layout["data"] / "answer.txt"),
        str(layout["data"] / "expected.json"),
        "--schema",
        given,
        "--format",
        "json",
        cwd=layout["cwd"],
    )
    assert overall(proc) == library_score(schema)
    assert library_score(schema) < 1.0 and library_score(schema) > 2 / 3  # levenshtein, not exact


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_score_reads_a_schema_reference_beside_the_schema_file(layout, jobs):
    schema = layout["schemas"] / "invoice.schema.json"
    data = layout["data"]
    (data / "gold.jsonl").write_text(json.dumps(EXPECTED) + "\n")
    (data / "pred.jsonl").write_text(json.dumps(ANSWER) + "\n")
    proc = jsonmatch(
        "score",
        str(data / "gold.jsonl"),
        str(data / "pred.jsonl"),
        "--schema",
        str(schema),
        "-j",
        jobs,
        "--format",
        "json",
        cwd=layout["cwd"],
    )
    assert overall(proc) == library_score(schema)


def test_a_yaml_schema_under_another_name_reads_its_references_beside_it_too(layout):
    schema = layout["schemas"] / "invoice.txt"
    schema.write_text(
        "type: object\nproperties:\n  seller: {$ref: 'party.schema.json#/$defs/party'}\n"
        "  total: {type: number}\n"
    )
    proc = jsonmatch(
        "compare",
        str(layout["data"] / "answer.txt"),
        str(layout["data"] / "expected.json"),
        "--schema",
        str(schema),
        "--format",
        "json",
        cwd=layout["cwd"],
    )
    assert overall(proc) == library_score(layout["schemas"] / "invoice.schema.json")


@pytest.mark.parametrize("command", ["compare", "score"])
def test_a_reference_that_cannot_be_resolved_names_the_schema_option_and_file(layout, command):
    (layout["schemas"] / "party.schema.json").unlink()
    data = layout["data"]
    (data / "gold.jsonl").write_text(json.dumps(EXPECTED) + "\n")
    (data / "pred.jsonl").write_text(json.dumps(ANSWER) + "\n")
    pair = ("answer.txt", "expected.json") if command == "compare" else ("gold.jsonl", "pred.jsonl")
    proc = jsonmatch(
        command,
        *(f"../data/{name}" for name in pair),
        "--schema",
        "../schemas/invoice.schema.json",
        cwd=layout["cwd"],
    )
    missing = layout["schemas"].resolve() / "party.schema.json"
    assert one_error_line(proc) == (
        "jsonmatch: error: --schema ../schemas/invoice.schema.json: schema node seller: $ref "
        "'party.schema.json#/$defs/party' cannot be resolved (cannot read schema file "
        f"'{missing}': No such file or directory)"
    )
