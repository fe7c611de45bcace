"""``jsonmatch compare-runs``: three runs scored by ``jsonmatch score`` from small JSONL files,
every number worked by hand.

The runs (field_f1, the id ignored, two fields a case: a case scores matched / 2):

    case  gold            base (A)          new (B)           third (C)
    c1    alpha, 1        alpha 1 -> 1.0    alpha 1 -> 1.0    alpha 1 -> 1.0
    c2    beta,  2        beta  0 -> 0.5    beta  2 -> 1.0    beta  0 -> 0.5
    c3    gamma, 3        x     0 -> 0.0    gamma 0 -> 0.5    gamma 0 -> 0.5
    c4    delta, 4        delta 4 -> 1.0    y     0 -> 0.0    delta 4 -> 1.0
    c5    eps,   5        eps   5 -> 1.0    eps   5 -> 1.0    (C's gold has no c5)

Shared cases: c1..c4; c5 is in base and new only, left out of every number.
Overall over c1..c4: A (1 + .5 + 0 + 1) / 4 = .625; B (1 + 1 + .5 + 0) / 4 = .625;
C (1 + .5 + .5 + 1) / 4 = .75.

The reports are written by ``jsonmatch score`` in subprocesses, once; the tests run
``compare-runs`` in their own process (``jsonmatch = jsonmatch_main``: what the command
prints, not the process that prints it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_jsonmatch.reporting.render.html import render_runs_html
from pytest_jsonmatch.reporting.render.markdown import render_runs_markdown
from pytest_jsonmatch.reporting.render.text import render_runs_text
from pytest_jsonmatch.reporting.verdicts.runs import Run, compare_runs

from .run import jsonmatch, one_error_line

GOLD = [
    ("c1", "alpha", 1),
    ("c2", "beta", 2),
    ("c3", "gamma", 3),
    ("c4", "delta", 4),
    ("c5", "eps", 5),
]
PREDICTIONS = {
    "base": [
        ("c1", "alpha", 1),
        ("c2", "beta", 0),
        ("c3", "x", 0),
        ("c4", "delta", 4),
        ("c5", "eps", 5),
    ],
    "new": [
        ("c1", "alpha", 1),
        ("c2", "beta", 2),
        ("c3", "gamma", 0),
        ("c4", "y", 0),
        ("c5", "eps", 5),
    ],
    "third": [("c1", "alpha", 1), ("c2", "beta", 0), ("c3", "gamma", 0), ("c4", "delta", 4)],
}


def _jsonl(path: Path, rows: list[tuple[str, str, int]]) -> None:
    path.write_text(
        "".join(json.dumps({"id": i, "name": name, "n": n}) + "\n" for i, name, n in rows),
        encoding="utf-8",
    )


def make_runs(folder: Path) -> dict[str, Path]:
    """The three reports (base.json, new.json, third.json), written by ``jsonmatch score``."""
    _jsonl(folder / "gold.jsonl", GOLD)
    _jsonl(folder / "gold4.jsonl", GOLD[:4])
    out = {}
    for name, rows in PREDICTIONS.items():
        _jsonl(folder / f"{name}.jsonl", rows)
        gold = folder / ("gold4.jsonl" if name == "third" else "gold.jsonl")
        report = folder / f"{name}.json"
        proc = jsonmatch(
            "score",
            str(gold),
            str(folder / f"{name}.jsonl"),
            "--id-field",
            "id",
            "--option",
            'ignore=["id"]',
            "--report",
            str(report),
        )
        assert proc.returncode in (0, 1), proc.stderr
        out[name] = report
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return make_runs(tmp_path_factory.mktemp("runs"))


def _data(runs: dict[str, Path], *names: str) -> dict:
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    return compare_runs([Run(n, str(runs[n]), load_report(runs[n])) for n in names])


def test_the_numbers(runs):
    data = _data(runs, "base", "new", "third")
    assert data["shared"] == ["c1", "c2", "c3", "c4"]
    assert data["partial"] == [{"case_id": "c5", "runs": ["base", "new"]}]
    base, new, third = data["runs"]
    # each run's figures are over the 4 shared cases: c5, which only base and new have, is
    # in no number, its count included
    assert [r["cases"] for r in data["runs"]] == [4, 4, 4]
    assert [r["overall"] for r in data["runs"]] == [0.625, 0.625, 0.75]
    # passed (score 1.0 at threshold 1.0) among c1..c4: A c1, c4; B c1, c2; C c1, c4
    assert [r["passed"] for r in data["runs"]] == [2, 2, 2]
    assert base["difference"] is None and base["better"] is None
    # new - base per case: c1 0, c2 +.5, c3 +.5, c4 -1 -> mean 0; better 2, worse 1, same 1.
    # deviations 0, .5, .5, -1: sum of squares 1.5, / 3 = .5, s = .70711, SE = s / 2 = .35355;
    # t(.975, 3) = 3.18245 -> half width 1.12516: -1.12516 to +1.12516, cut to the [-1, 1]
    # a change of scores in [0, 1] can take; the detectable drop 2.80159 * .35355 = .99051
    d = new["difference"]
    assert d["n"] == 4 and d["mean"] == 0.0
    assert (d["low"], d["high"]) == (-1.0, 1.0)
    assert d["detectable"] == pytest.approx(0.99051, abs=1e-5)
    assert (new["better"], new["worse"], new["same"]) == (2, 1, 1)
    # pass/fail flips against base: c4 passed there and fails here, c2 the other way;
    # McNemar exact: 2 * P(X <= 1 | n = 2, 1/2) = 2 * .75, capped at 1
    assert (new["pass_to_fail"], new["fail_to_pass"], new["mcnemar_p"]) == (1, 1, 1.0)
    assert (third["pass_to_fail"], third["fail_to_pass"], third["mcnemar_p"]) == (0, 0, 1.0)
    # third - base: 0, 0, +.5, 0 -> mean .125; deviations -.125 (x3), .375: squares .046875
    # + .140625 = .1875, / 3 = .0625, s = .25, SE = .125; half 3.18245 * .125 = .39781
    d = third["difference"]
    assert d["mean"] == 0.125 and d["se"] == pytest.approx(0.125)
    assert d["low"] == pytest.approx(0.125 - 0.39781, abs=1e-5)
    assert d["high"] == pytest.approx(0.125 + 0.39781, abs=1e-5)
    assert (third["better"], third["worse"], third["same"]) == (1, 0, 3)
    # per field over c1..c4: name A 1,1,0,1 = .75; B 1,1,1,0 = .75; C 1,1,1,1 = 1
    #                        n    A 1,0,0,1 = .5;  B 1,1,0,0 = .5;  C 1,0,0,1 = .5
    fields = {f["path"]: f for f in data["fields"]}
    assert set(fields) == {"name", "n"}  # the ignored id is no field
    assert fields["name"]["scores"] == [0.75, 0.75, 1.0]
    assert fields["n"]["scores"] == [0.5, 0.5, 0.5]
    # name: new - base 0, 0, +1, -1 -> 0; third - base 0, 0, +1, 0 -> .25
    assert [d and d["mean"] for d in fields["name"]["differences"]] == [None, 0.0, 0.25]
    # n: new - base 0, +1, 0, -1 -> 0; third - base all 0
    assert [d and d["mean"] for d in fields["n"]["differences"]] == [None, 0.0, 0.0]
    # spreads (max - min): c1 0 (left out), c2 1 - .5 = .5, c3 .5 - 0 = .5, c4 1 - 0 = 1
    assert [(r["case_id"], r["spread"]) for r in data["disagreements"]] == [
        ("c4", 1.0),
        ("c2", 0.5),
        ("c3", 0.5),
    ]
    assert data["disagreements"][0]["scores"] == [1.0, 0.0, 1.0]
    # no report carries latency or usage
    assert all(r["latency"] is None and r["usage"] is None for r in data["runs"])


def test_text(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    proc = jsonmatch(
        "compare-runs",
        str(runs["base"]),
        str(runs["new"]),
        str(runs["third"]),
        "--name",
        "base",
        "--name",
        "new",
        "--name",
        "third",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith(
        "compare-runs: 3 runs over 4 shared cases; 1 case only some runs have "
        "(left out of every number)\n"
    )
    lines = out.splitlines()
    assert re.search(r"^base\s+4\s+0\.6250\s+2\s+–\s+–$", out, re.MULTILINE), out
    assert re.search(
        r"^new\s+4\s+0\.6250\s+2\s+\+0\.0000\s+-1\.0000 to \+1\.0000$", out, re.MULTILINE
    ), out
    assert re.search(
        r"^third\s+4\s+0\.7500\s+2\s+\+0\.1250\s+-0\.2728 to \+0\.5228$", out, re.MULTILINE
    ), out
    # case by case: better, worse, same; flips against base: new c4 passed -> fails, c2 failed
    # -> passes (1/1, p 1.000)
    assert re.search(r"^base\s+–\s+–\s+–\s+–$", out, re.MULTILINE), out
    assert re.search(r"^new\s+2\s+1\s+1\s+1/1 \(p 1\.000\)$", out, re.MULTILINE), out
    assert re.search(r"^third\s+1\s+0\s+3\s+0/0 \(p 1\.000\)$", out, re.MULTILINE), out
    assert "  c5 (in base, new)" in lines
    assert re.search(
        r"^name\s+4\s+0\.7500\s+0\.7500\s+1\.0000\s+\+0\.0000\s+\+0\.2500$", out, re.MULTILINE
    ), out
    assert re.search(
        r"^n\s+4\s+0\.5000\s+0\.5000\s+0\.5000\s+\+0\.0000\s+\+0\.0000$", out, re.MULTILINE
    ), out
    worst = lines[lines.index("Where the runs disagree most:") + 2 :]
    assert [line.split() for line in worst] == [
        ["c4", "1.0000", "0.0000", "1.0000", "1.0000"],
        ["c2", "0.5000", "1.0000", "0.5000", "0.5000"],
        ["c3", "0.0000", "0.5000", "0.5000", "0.5000"],
    ]


def test_names_default_to_file_names(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    proc = jsonmatch("compare-runs", str(runs["base"]), str(runs["third"]))
    assert proc.returncode == 0, proc.stderr
    assert "vs base.json" in proc.stdout
    assert re.search(r"^third\.json\s+4\s+0\.7500", proc.stdout, re.MULTILINE)
    # two runs: c5 is in base only
    assert "  c5 (in base.json)" in proc.stdout.splitlines()


def test_markdown(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    proc = jsonmatch(
        "compare-runs",
        str(runs["base"]),
        str(runs["new"]),
        str(runs["third"]),
        "-f",
        "markdown",
        "--name",
        "base",
        "--name",
        "new",
        "--name",
        "third",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("## jsonmatch compare-runs\n")
    assert "| new | 4 | 0.6250 | 2 | +0.0000 | -1.0000 to +1.0000 | 2 | 1 | 1 |" in out
    assert "| base | 4 | 0.6250 | 2 | – | – | – | – | – |" in out
    assert "- c5 (in base, new)" in out
    assert "| third | 4 | 0.7500 | 2 | +0.1250 | -0.2728 to +0.5228 | 1 | 0 | 3 |" in out
    assert "| name | 4 | 0.7500 | 0.7500 | 1.0000 | +0.0000 | +0.2500 |" in out
    assert "| c4 | 1.0000 | 0.0000 | 1.0000 | 1.0000 |" in out


def test_html_is_one_page_with_a_column_per_run(runs, tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main
    out = tmp_path / "runs.html"
    proc = jsonmatch(
        "compare-runs",
        str(runs["base"]),
        str(runs["new"]),
        str(runs["third"]),
        "--format",
        "html",
        "-o",
        str(out),
    )
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    page = out.read_text(encoding="utf-8")
    assert page.count("<script") == 1 and "script-src 'sha256-" in page
    assert "http://" not in page and "https://" not in page
    # the field table: a column per run, then the differences, then a chart (a bar for each
    # run but the first: its difference from the first)
    assert (
        '<tr data-field="name"><td>name</td><td data-sort="4">4</td><td data-sort="0.75">0.7500</td>'
        '<td data-sort="0.75">0.7500</td><td data-sort="1.0">1.0000</td>'
    ) in page
    assert page.count('<svg class="chart"') == 2 and page.count('<g class="bar run-') == 4
    assert page.count('<div class="chart-caption">difference from base.json</div>') == 2
    assert '<th data-col="0" tabindex="0">run</th>' in page
    assert "<li><code>c5</code> (in base.json, new.json)</li>" in page


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_values_from_reports_are_escaped(runs, fmt):
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    hostile = "<script>window.hacked=1</script>|*x*\n::add-mask::"
    reports = [load_report(runs["base"]), load_report(runs["new"])]
    for report in reports:
        for c in report["comparisons"]:
            if c["case_id"] == "c4":
                c["case_id"] = hostile
    data = compare_runs([Run(hostile, "a<b>.json", reports[0]), Run("b", "b.json", reports[1])])
    text = {"text": render_runs_text, "markdown": render_runs_markdown, "html": render_runs_html}[
        fmt
    ](data)
    if fmt == "text":  # plain text: no markup to escape, but no control character either
        assert "<script>window.hacked=1</script>|*x*\\n::add-mask::" in text
    else:
        assert "<script>window" not in text and "<b>" not in text
    assert not any(line.lstrip().startswith("::") for line in text.splitlines())
    if fmt == "html":
        assert "&lt;script&gt;window.hacked=1&lt;/script&gt;" in text


def _with_costs(report: dict, latency: dict[str, float], usage: dict[str, dict]) -> dict:
    report = json.loads(json.dumps(report))
    for c in report["comparisons"]:
        if c["case_id"] in latency:
            c["latency_s"] = latency[c["case_id"]]
        if c["case_id"] in usage:
            c["usage"] = usage[c["case_id"]]
    return report


def test_latency_and_cost_shown_only_when_present(runs):
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    base = load_report(runs["third"])  # c1..c4: c5 is not shared
    new = _with_costs(
        load_report(runs["new"]),
        {"c1": 1.0, "c2": 2.0, "c3": 3.0, "c4": 6.0, "c5": 100.0},
        {
            "c1": {"input_tokens": 100, "output_tokens": 10, "cost": 0.25},
            "c2": {"input_tokens": 50, "output_tokens": 5, "cost": 0.5},
            "c5": {"input_tokens": 9999, "output_tokens": 9999, "cost": 99.0},
        },
    )
    plain = compare_runs([Run("base", "b", base), Run("new", "n", base)])
    assert "latency" not in render_runs_text(plain) and "cost" not in render_runs_html(plain)
    data = compare_runs([Run("base", "b", base), Run("new", "n", new)])
    # over the shared cases c1..c4 only (c5's 100 s and 99.0 left out): latency
    # (1 + 2 + 3 + 6) / 4 = 3 s mean, 12 s in all; tokens 100 + 50 = 150 in, 10 + 5 = 15 out;
    # cost .25 + .5 = .75, printed in three significant digits (money.money); sorted 1, 2, 3,
    # 6: p50 at rank 1.5 = 2 + .5 * (3 - 2) = 2.5, p95 at rank 2.85 = 3 + .85 * (6 - 3) = 5.55
    assert data["runs"][1]["latency"] == {
        "mean_s": 3.0,
        "total_s": 12.0,
        "count": 4,
        "p50_s": 2.5,
        "p95_s": pytest.approx(5.55),
    }
    assert data["runs"][1]["usage"] == {"input_tokens": 150.0, "output_tokens": 15.0, "cost": 0.75}
    assert data["runs"][0]["latency"] is None and data["runs"][0]["usage"] is None
    text = render_runs_text(data)
    table = text.split("Latency (per comparison) and usage (summed), over the shared cases:\n")[1]
    assert table.splitlines()[:3] == [
        "run   latency p50 / p95  input tokens  output tokens   cost",
        "base                  –             –              –      –",
        "new     2.500 / 5.550 s           150             15  0.750",
    ]
    page = render_runs_html(data)
    assert '">2.500 / 5.550 s</td>' in page and '<td data-sort="0.75">0.750</td>' in page
    assert "| 2.500 / 5.550 s | 150 | 15 | 0.750 |" in render_runs_markdown(data)


def _costing(report: dict, per_case: float) -> dict:
    """The report with every comparison costing ``per_case``."""
    return _with_costs(
        report, {}, {c["case_id"]: {"cost": per_case} for c in report["comparisons"]}
    )


def test_costs_that_differ_print_differently(runs):
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    # four shared cases (c1..c4) in each run: 4 * .0012 = .0048, 4 * .0011975 = .00479,
    # 4 * 3.08625 = 12.345 and 4 * 308.625 = 1234.5; four decimals printed the first two alike
    report = load_report(runs["third"])
    costs = {"cheap": 0.0012, "cheaper": 0.0011975, "dear": 3.08625, "dearest": 308.625}
    data = compare_runs([Run(name, name, _costing(report, each)) for name, each in costs.items()])
    assert [r["usage"]["cost"] for r in data["runs"]] == pytest.approx(
        [0.0048, 0.00479, 12.345, 1234.5]
    )
    shown = ["0.00480", "0.00479", "12.35", "1,234.50"]
    text = render_runs_text(data).split("over the shared cases:\n")[1].splitlines()
    assert [line.split()[-1] for line in text[1:5]] == shown
    markdown = render_runs_markdown(data)
    for name, cost in zip(costs, shown):
        assert re.search(rf"^\| {name} \|.* \| {re.escape(cost)} \|$", markdown, re.MULTILINE), (
            markdown
        )
    page = render_runs_html(data)
    cells = re.findall(r'<td data-sort="([^"]*)">([^<]*)</td></tr>', page)[:4]
    assert [text for _, text in cells] == shown
    # the page sorts by the amount itself, not by its text
    assert [float(value) for value, _ in cells] == pytest.approx([0.0048, 0.00479, 12.345, 1234.5])


def test_latency_and_cost_from_the_call_of_each_comparison(runs):
    from pytest_jsonmatch.reporting.verdicts.report import load_report

    base = load_report(runs["third"])
    new = json.loads(json.dumps(load_report(runs["new"])))
    calls = {
        "c1": (0.5, 10, 2, 0.01),
        "c2": (1.5, 20, 4, None),
        "c3": (None, None, None, None),
        "c4": (2.5, 30, 6, 0.03),
        "c5": (9.0, 900, 90, 9.0),
    }
    for c in new["comparisons"]:
        latency, tokens_in, tokens_out, cost = calls[c["case_id"]]
        c["call"] = {
            "latency_s": latency,
            "attempts": 1,
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "cost": cost,
            "failed": False,
        }
    data = compare_runs([Run("base", "b", base), Run("new", "n", new)])
    # c1..c4 (c5 not shared); a null is no figure: latency (.5 + 1.5 + 2.5) / 3 = 1.5 mean,
    # 4.5 in all, p50 1.5, p95 at rank 1.9: 1.5 + .9 * (2.5 - 1.5) = 2.4; tokens 10 + 20 + 30
    # = 60 in, 2 + 4 + 6 = 12 out; cost .01 + .03 = .04
    assert data["runs"][1]["latency"] == {
        "mean_s": 1.5,
        "total_s": 4.5,
        "count": 3,
        "p50_s": 1.5,
        "p95_s": pytest.approx(2.4),
    }
    assert data["runs"][1]["usage"] == {
        "input_tokens": 60.0,
        "output_tokens": 12.0,
        "cost": pytest.approx(0.04),
    }


def test_runs_that_agree_everywhere(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    proc = jsonmatch(
        "compare-runs", str(runs["base"]), str(runs["base"]), "--name", "one", "--name", "two"
    )
    assert proc.returncode == 0, proc.stderr
    assert "  every shared case scores the same in every run" in proc.stdout
    assert re.search(
        r"^two\s+5\s+0\.7000\s+3\s+\+0\.0000\s+\+0\.0000 to \+0\.0000$", proc.stdout, re.MULTILINE
    ), proc.stdout  # all five shared: 3.5 / 5 = .7


# -- bad input: one line naming the file, exit status 2 -----------------------------------------


def test_one_run_is_an_error(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    line = one_error_line(jsonmatch("compare-runs", str(runs["base"])))
    assert line == (
        f"jsonmatch: error: compare-runs: {runs['base']}: only one run given, and it "
        f"ran fewer than two named targets; compare-runs needs two or more reports, "
        f"or one report of a run with jsonmatch_targets"
    )


def test_name_count_must_match(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    line = one_error_line(
        jsonmatch("compare-runs", str(runs["base"]), str(runs["new"]), "--name", "only")
    )
    assert line == (
        f"jsonmatch: error: compare-runs: 1 --name for 2 files ({runs['base']}, "
        f"{runs['new']}); give one --name per file, in order"
    )


def test_names_must_differ(runs, jsonmatch_main):
    jsonmatch = jsonmatch_main
    line = one_error_line(
        jsonmatch("compare-runs", str(runs["base"]), str(runs["new"]), "--name", "x", "--name", "x")
    )
    assert line == (
        f"jsonmatch: error: compare-runs: --name 'x' is given to both "
        f"{runs['base']} and {runs['new']}"
    )


def test_same_file_names_in_two_folders_are_told_apart(runs, tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "base.json").write_text(runs["new"].read_text(encoding="utf-8"), encoding="utf-8")
    proc = jsonmatch("compare-runs", str(runs["base"]), str(other / "base.json"))
    assert proc.returncode == 0, proc.stderr
    assert f"vs {runs['base']}" in proc.stdout
    line = one_error_line(jsonmatch("compare-runs", str(runs["base"]), str(runs["base"])))
    assert (
        line
        == f"jsonmatch: error: compare-runs: {runs['base']} is given twice; name the runs with --name"
    )


def test_not_a_report_names_the_file(runs, tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main
    empty = tmp_path / "empty.json"
    empty.write_text("{}", encoding="utf-8")
    line = one_error_line(jsonmatch("compare-runs", str(runs["base"]), str(empty)))
    assert line.startswith(
        f"jsonmatch: error: {empty}: $.version: not a version-4 jsonmatch report"
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    line = one_error_line(jsonmatch("compare-runs", str(broken), str(runs["base"])))
    assert line.startswith(f"jsonmatch: error: {broken} is not valid JSON")
    line = one_error_line(jsonmatch("compare-runs", str(runs["base"]), str(tmp_path / "none.json")))
    assert str(tmp_path / "none.json") in line
    bad_score = json.loads(runs["base"].read_text(encoding="utf-8"))
    bad_score["comparisons"][0]["score"] = 2
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(bad_score), encoding="utf-8")
    line = one_error_line(jsonmatch("compare-runs", str(runs["base"]), str(odd)))
    assert line.startswith(f"jsonmatch: error: {odd}: $.comparisons[0].score")


def test_listed_in_help(jsonmatch_main):
    jsonmatch = jsonmatch_main
    proc = jsonmatch("--help")
    assert "compare-runs" in proc.stdout
    proc = jsonmatch("compare-runs", "--help")
    assert proc.returncode == 0 and "--name NAME" in proc.stdout
