"""What a person sees in the text and Markdown renderings (issue 26, item 6): cases worst
first (unscored ones, then by mean score, then by id), and a field that was never scored
(skipped or ignored everywhere, or never scored by its batch comparator) left out of the
field table, named in a line, never shown as a perfect 1.0000; the JSON report keeps it as
it is."""

from __future__ import annotations

import pytest

from pytest_jsonmatch.reporting.render.listing import case_order, field_rows, never_scored
from pytest_jsonmatch.reporting.render.markdown import render_markdown
from pytest_jsonmatch.reporting.render.text import render_text, summary_lines

from .statuses import every_status_report, repeated_report, truncated_report


def test_the_text_lists_cases_worst_first():
    # unscored first (e-err at 0, then b-rep, whose second run failed, at 0.5), then by mean
    # score, ties by id; never by id alone
    assert (
        render_text(repeated_report())
        == "\n".join(
            [
                "metric    cases  pass  fail  error   score    prec  recall      F1",
                "field_f1      5     1     2      2  0.4500  0.0000  0.0000  0.0000",
                "overall score 0.4500 over 5 cases, 2 unscored (counted as 0)",
                "",
                "field   score  match  mismatch  omission  halluc.",
                "name   0.6429      4         3         0        0",
                "1 field never scored: id",
                "",
                "repeated case  runs    mean     min     max  passed",
                "b-rep             2  0.5000  0.0000  1.0000     1/2",
                "c-rep             2  0.2500  0.0000  0.5000     0/2",
                "a-rep             2  0.5000  0.0000  1.0000     1/2",
                "d-rep             2  1.0000  1.0000  1.0000     2/2",
                "",
                "could not be scored (counted as 0):",
                "  e-err: run 0 timed out",
                "  b-rep: run 1 timed out",
                # 2 of 5 unscored is more than the quarter a passing verdict allows
                "FAILED: jsonmatch gates: 1 failure",
                "  2 of 5 cases could not be scored, more than the 25% a passing gate "
                "allows: no gate is judged as passed on what was not scored",
            ]
        )
        + "\n"
    )


def test_the_markdown_lists_cases_worst_first():
    markdown = render_markdown(repeated_report())
    assert (
        "\n".join(
            [
                "| case | where | score | why |",
                "| --- | --- | ---: | --- |",
                "| e-err |  | 0.0000 | run 0 timed out |",
                "| b-rep |  | 0.5000 | run 1 timed out |",
                "| c-rep |  | 0.2500 | score below threshold 0.8000: name mismatch |",
                "| a-rep |  | 0.5000 | score below threshold 0.8000: name mismatch |",
                "",
                "### Fields",
                "",
                "| field | score | match | mismatch | omission | hallucination |",
                "| --- | ---: | ---: | ---: | ---: | ---: |",
                "| name | 0.6429 | 4 | 3 | 0 | 0 |",
                "",
                "1 field never scored: id.",
            ]
        )
        + "\n"
        in markdown
    )


def test_the_text_leaves_out_never_scored_fields():
    report = every_status_report()
    assert (
        render_text(report)
        == "\n".join(
            [
                "metric    cases  pass  fail  error   score    prec  recall      F1",
                "field_f1      5     2     2      1  0.5300  0.5300  0.5300  0.5300",
                "overall score 0.5300 over 5 cases, 1 unscored (counted as 0)",
                "not counted (expected to fail): 1 xfailed, 1 xpassed",
                # (a conversation its simulated user spoiled: in no score, named apart)
                "simulator: 1 conversation spoiled by its simulated user, not counted (neither",
                "  the agent's pass nor its failure): h-spoiled",
                "",
                "field   score  match  mismatch  omission  halluc.",
                "extra  0.0000      0         0         0        1",
                "total  0.0000      0         0         1        0",
                "name   0.5000      2         2         0        0",
                "2 fields never scored: id, meta",
                "",
                "could not be scored (counted as 0):",
                "  c-error: no JSON object found in actual",
            ]
        )
        + "\n"
    )


def test_the_markdown_lists_cases_worst_first_and_leaves_out_never_scored_fields():
    report = every_status_report()
    assert (
        render_markdown(report)
        == "\n".join(
            [
                "## jsonmatch",
                "",
                "**Gates: passed**",
                "",
                "| metric | cases | passed | failed | errors | score | precision | recall | F1 |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
                "| field\\_f1 | 5 | 2 | 2 | 1 | 0.5300 | 0.5300 | 0.5300 | 0.5300 |",
                "",
                (
                    "Overall score **0.5300** over 5 cases, 1 of which could not be scored (counted as 0); "
                    "1 xfailed and 1 xpassed, not counted (expected to fail: xfail-marked, or caught by "
                    "the test); 1 conversation spoiled by its simulated user, not counted (neither "
                    "the agent's pass nor its failure)."
                ),
                "",
                "### Cases that failed or could not be scored",
                "",
                "| case | where | score | why |",
                "| --- | --- | ---: | --- |",
                "| c-error | t.py | 0.0000 | no JSON object found in actual |",
                # "why" names the fields that cost points, lowest score first, then by path
                "| d-low | t.py | 0.2500 | score below threshold 0.8000: extra hallucination, "
                "name mismatch |",
                "| b-fail | t.py | 0.5000 | score below threshold 0.8000: name mismatch, total "
                "omission |",
                "",
                "### Fields",
                "",
                "| field | score | match | mismatch | omission | hallucination |",
                "| --- | ---: | ---: | ---: | ---: | ---: |",
                "| extra | 0.0000 | 0 | 0 | 0 | 1 |",
                "| total | 0.0000 | 0 | 0 | 1 | 0 |",
                "| name | 0.5000 | 2 | 2 | 0 | 0 |",
                "",
                "2 fields never scored: id, meta.",
                "",
                "<!-- jsonmatch-report -->",
            ]
        )
        + "\n"
    )


def test_the_json_report_keeps_never_scored_fields_exactly():
    fields = every_status_report()["fields"]
    assert fields["id"] == {
        "mean_score": 1.0,
        "score_sum": 0.0,
        "scored": 0,
        "match": 0,
        "mismatch": 0,
        "omission": 0,
        "hallucination": 0,
    }
    assert fields["meta"]["scored"] == 0 and fields["meta"]["batch_error"] == 4
    assert never_scored(fields["id"]) and never_scored(fields["meta"])
    assert not any(never_scored(fields[p]) for p in ("extra", "total", "name"))


def test_never_scored_fields_count_in_no_row():
    report = every_status_report()
    # the per-metric row counts cases, and the overall score is their mean: (1 + 0.5 + 0 +
    # 0.25 + 0.9) / 5 = 0.53, whatever the fields; no table row holds id or meta
    assert report["overall"] == 2.65 / 5 == report["metrics"]["field_f1"]["mean_score"]
    rows, unscored = field_rows(report["fields"])
    assert [path for path, _ in rows] == ["extra", "total", "name"]
    assert unscored == ["id", "meta"]
    table = render_text(report).split("halluc.\n")[1].split("\n\n")[0]
    assert "1.0000" not in table and " id " not in table and "meta " not in table


def test_a_table_of_never_scored_fields_only_is_one_line():
    report = every_status_report()
    report["groups"] = {"field_f1": {p: report["fields"][p] for p in ("id", "meta")}}
    lines = summary_lines(report)
    assert "2 fields never scored: id, meta" in lines
    assert not any(line.startswith("field ") for line in lines)
    markdown = render_markdown(report)
    assert "### Fields\n\n2 fields never scored: id, meta.\n" in markdown
    assert "| field |" not in markdown


def test_case_order_puts_unscored_first_then_failing_then_passing_each_by_score_xfail_last():
    # a failing case at 0.9 (its threshold 1.0) comes before a passing one at 0.5 (its
    # threshold lower): a reviewer reads what failed first
    cases = [
        {"case_id": i, "status": s, "mean_score": m}
        for i, s, m in [
            ("z", "passed", 1.0),
            ("a", "passed", 1.0),
            ("x", "xfailed", 0.0),
            ("e", "error", 0.0),
            ("f", "failed", 0.0),
            ("b", "error", 0.0),
            ("p", "xpassed", 1.0),
            ("m", "failed", 0.3),
            ("g", "failed", 0.9),
            ("q", "passed", 0.5),
        ]
    ]
    assert [c["case_id"] for c in sorted(cases, key=case_order)] == [
        "b",
        "e",
        "f",
        "m",
        "g",
        "q",
        "a",
        "z",
        "x",
        "p",
    ]


def test_many_never_scored_fields_are_counted_and_the_first_named_unless_verbose():
    report = every_status_report()
    skipped = report["fields"]["id"]
    report["groups"] = {
        "field_f1": {**report["groups"]["field_f1"], **{f"x{k}": skipped for k in range(7)}}
    }
    assert "9 fields never scored: id, meta, x0, x1, x2 and 4 more" in summary_lines(report)
    assert "9 fields never scored: id, meta, x0, x1, x2, x3, x4, x5, x6" in summary_lines(
        report, verbose=1
    )


@pytest.mark.parametrize("make", [repeated_report, truncated_report, every_status_report])
def test_a_spooled_report_reads_as_the_same_text(tmp_path, make) -> None:
    """A dataset's report keeps its cases in a spool (one JSON line each), and the summary
    decodes only the lines that may be listed (repeated, unscored, cut off): the text is
    the same as the report's in memory, every listed case found."""
    from pytest_jsonmatch.reporting.run_model.spool import Spool

    report = make()
    with Spool(str(tmp_path)) as cases:
        for case in report["cases"]:
            cases.append(case)
        assert render_text({**report, "cases": cases}) == render_text(report)


def test_the_markdown_why_names_three_fields_once_each_and_counts_the_rest():
    from pytest_jsonmatch.reporting.render.markdown import failing_fields

    def field(path, status, score):
        return {"path": path, "field_path": path, "status": status, "score": score}

    comparisons = [
        {"case_id": "c", "fields": [field("a", "mismatch", 0.5), field("b", "match", 1.0)]},
        # the second run: "a" again, lower; three more that cost points
        {
            "case_id": "c",
            "fields": [
                field("a", "mismatch", 0.25),
                field("d", "omission", 0.0),
                field("e", "hallucination", 0.0),
                field("f", "mismatch", 0.9),
            ],
        },
        {"case_id": "other", "fields": [field("z", "omission", 0.0)]},
        {"case_id": "kept-none", "fields": []},
    ]
    # d and e at 0, then a at its lowest (0.25), then f: three named, one counted
    assert failing_fields(comparisons, {"c", "kept-none"}) == {
        "c": "d omission, e hallucination, a mismatch and 1 more"
    }


def test_a_comparison_keeps_who_decided_its_fields_and_its_input_and_output():
    from tests.reporting.statuses import reviewer_report

    report = reviewer_report()
    by_case = {c["case_id"]: c for c in report["comparisons"]}
    refund = by_case["refund"]
    # the judge decided reply_summary (field 1); pnr (plain equality) and currency (a rule:
    # missing) are not listed
    assert refund["by"] == {"semantic": [1]}
    assert by_case["greeting"]["by"] == {"fuzzy": [0]}
    assert refund["input"] == {"message": "Refund my flight"}
    assert refund["output"] == '{"pnr": "X1"}'
    assert "input_cut" not in refund and "output_cut" not in refund
    # read back as the report was written
    from pytest_jsonmatch.reporting.run_model.comparisons import Comparison

    again = Comparison.from_dict(refund)
    assert again.by == {"semantic": (1,)} and again.shown.input == refund["input"]


def test_a_long_output_is_cut_where_values_are_kept_short_and_whole_where_full():
    from pytest_jsonmatch.reporting.run_model.shown_values import SHOWN_LIMIT, Shown

    text = "x" * (SHOWN_LIMIT + 1)
    assert Shown.of(None, text, "full") == Shown(None, text, "")
    cut = Shown.of({"q": text}, text, "short")
    # a string of up to SHOWN_LIMIT characters is kept as it is; past it, its JSON (quoted)
    # is cut to SHOWN_LIMIT characters, the last three "..."
    assert cut.cut == "io" and len(cut.output) == SHOWN_LIMIT and cut.output.endswith("...")
    assert cut.input.startswith('{"q":"xxx')
    assert Shown.of({"q": 1}, "out", "none") == Shown()
    assert Shown.of({"q": 1}, "out", None) == Shown()
    # an output that is not JSON (an object of the user's) is described, never a traceback,
    # and marked as rewritten in JSON's terms (tests/reporting/test_json_form.py)
    described = Shown.of(None, object(), "short")
    assert (described.cut, described.not_json) == ("", "o")
    assert described.output.startswith("<object object at")
