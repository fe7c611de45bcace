"""The command line on inputs that used to hang it or end it with an internal error (issue
55): a schema pattern that backtracks catastrophically costs its own line only, and lone
surrogates in the data are written escaped in every report format."""

from __future__ import annotations

import io
import json

import pytest

from tests.helpers.reports import held
from tests.helpers.timeout import GENEROUS, within

from .run import jsonmatch

ALTERNATION = "^(a|aa)+$"


def test_a_catastrophic_pattern_costs_only_its_own_line(tmp_path, jsonmatch_main):
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": ALTERNATION}}}
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    (tmp_path / "gold.jsonl").write_text('{"a": "aa"}\n{"a": "aa"}\n{"a": "aa"}\n')
    bad = "a" * 100 + "!"
    (tmp_path / "pred.jsonl").write_text(f'{{"a": "aa"}}\n{{"a": "{bad}"}}\n{{"a": "aaa"}}\n')
    with within(GENEROUS):
        done = jsonmatch_main(
            "score",
            str(tmp_path / "gold.jsonl"),
            str(tmp_path / "pred.jsonl"),
            "--schema",
            str(tmp_path / "schema.json"),
            "--format",
            "json",
        )
    report = json.loads(done.stdout)
    comparisons = report["comparisons"]
    assert [c["score"] for c in comparisons] == [1.0, 0.0, 0.0]
    assert comparisons[0]["error"] in (None, "")
    assert "#/properties/a/pattern" in comparisons[1]["error"]
    assert repr(ALTERNATION) in comparisons[1]["error"]
    assert comparisons[2]["error"] in (None, "")  # "aaa" is valid, and scores 0 against "aa"


GOLD = '{"\\ud800": 1, "b": "x\\udc00"}\n{"a": [1]}\n'
PRED = '{"\\ud800": 1, "b": "y\\udfff"}\n{"a": [2]}\n'


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fmt", ["json", "html", "markdown", "text"])
def test_lone_surrogates_are_written_escaped_in_every_report(tmp_path, fmt, jobs):
    (tmp_path / "gold.jsonl").write_text(GOLD)
    (tmp_path / "pred.jsonl").write_text(PRED)
    out, report = tmp_path / f"out.{fmt}", tmp_path / "report.json"
    done = jsonmatch(
        "score",
        str(tmp_path / "gold.jsonl"),
        str(tmp_path / "pred.jsonl"),
        "--format",
        fmt,
        "--values",
        "full",
        "--jobs",
        jobs,
        "--output",
        str(out),
        "--report",
        str(report),
    )
    assert done.returncode == 0, done.stderr  # (no gate is set)
    assert "internal error" not in done.stderr
    written = held(report.read_text(encoding="utf-8"))
    fields = {f["path"]: f for c in written["comparisons"] for f in c["fields"]}
    # the report reads back as the values were: the surrogates kept, escaped in the text
    assert fields["b"]["expected"] == "x\udc00" and fields["b"]["actual"] == "y\udfff"
    assert fields['["\ud800"]']["score"] == 1.0  # the key's path holds the surrogate itself
    assert "\\udc00" in report.read_text(encoding="utf-8")
    assert "\\ud800" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--jobs", "1" + "0" * 21, "a whole number of worker processes, at most 1,024"),
        ("--allow-regressions", "1" + "0" * 30, "a whole number of cases, at most 1,000,000,000"),
        # below the minimum: said so, not "at most" (it was); auto is named beside the number
        ("--jobs", "0", "auto, or a whole number of worker processes, 1 or more, not '0'"),
        ("--allow-regressions", "-1", "a whole number of cases, 0 or more"),
        # thousands of digits: past the maximum, never read as an int (Python refuses those)
        ("--jobs", "9" * 5000, "a whole number of worker processes, at most 1,024"),
    ],
)
def test_a_count_past_its_range_is_a_usage_error_naming_it(
    tmp_path, jsonmatch_main, option, value, named
):
    (tmp_path / "g.jsonl").write_text('{"a": 1}\n')
    done = jsonmatch_main(
        "score", str(tmp_path / "g.jsonl"), str(tmp_path / "g.jsonl"), option, value
    )
    assert done.returncode == 2
    assert named in done.stderr and "internal error" not in done.stderr


def test_a_long_jsonl_line_is_read_in_time_proportional_to_its_length(tmp_path, monkeypatch):
    # With 16-character blocks a 4 MB line spans 262,144 blocks: kept as pieces and joined
    # once, that is 4 MB copied twice (well under a second); a reader that copied the
    # unfinished line again on each block would copy 16 * 262,144**2 / 2 characters, 550 GB.
    from pytest_jsonmatch.cli import datasets

    monkeypatch.setattr(datasets, "_BLOCK", 16)
    text = "y" * (4 * 2**20)
    path = tmp_path / "gold.jsonl"
    path.write_text(
        f'{{"a": 1}}\n\n{{"long": "{text}"}}\n{{"b": 2}}'
    )  # (a line before the long one: its rest is what a block leaves over)
    with within(GENEROUS):
        records = list(datasets.read_records(str(path), gold=True))
    assert [(r.value, r.line) for r in records] == [
        ({"a": 1}, 1),
        ({"long": text}, 3),
        ({"b": 2}, 4),  # the last line, with no newline after it
    ]


class _CountingReads(io.StringIO):
    """A text file that counts the characters it handed out."""

    given = 0

    def read(self, size: int | None = -1, /) -> str:
        block = super().read(size)
        self.given += len(block)
        return block


def test_a_line_past_the_cap_is_refused_before_the_rest_of_it_is_read(monkeypatch):
    from pytest_jsonmatch.cli import datasets
    from pytest_jsonmatch.cli.input_error import InputError

    monkeypatch.setattr(datasets, "MAX_RECORD_BYTES", 1000)
    monkeypatch.setattr(datasets, "_BLOCK", 16)
    fh = _CountingReads("{}\n" + "z" * 100_000)
    with pytest.raises(InputError, match=r"^big\.jsonl line 2: a line longer than 0 MB$"):
        list(datasets._jsonl(fh, fh.read(16), "big.jsonl", True, False))
    # refused once 1,000 characters of it are held: the 100,000 never read whole
    assert fh.given <= 3 + 1000 + 2 * 16
