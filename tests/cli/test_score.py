"""jsonmatch score: a dataset scored as evaluate_records scores it, however it is laid out
and however many worker processes share it; gates, baseline and report as the plugin's."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pytest_jsonmatch import evaluate_records
from pytest_jsonmatch.reporting.render.text import error_cause

from .run import jsonmatch, one_error_line


def dataset(n: int, seed: int = 7) -> tuple[list[dict], list]:
    rng = random.Random(seed)
    gold, pred = [], []
    for i in range(n):
        record = {
            "id": f"r{i}",
            "vendor": rng.choice(["ACME Corp", "Initech", "Globex"]),
            "total": rng.randint(1, 50),
            "items": [{"sku": s, "qty": rng.randint(1, 3)} for s in rng.sample("ABCDE", 2)],
        }
        gold.append(record)
        answer = json.loads(json.dumps(record))
        if rng.random() < 0.3:
            answer["total"] += 1
        if rng.random() < 0.2:
            answer["items"].reverse()
        if rng.random() < 0.2:
            del answer["vendor"]
        kind = rng.random()
        if kind < 0.1:
            pred.append("Sorry, I cannot read this invoice.")
        elif kind < 0.3:
            pred.append("Here it is:\n```json\n" + json.dumps(answer) + "\n```")
        else:
            pred.append(answer)
    return gold, pred


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def expected_scores(gold: list, pred: list, metric: str = "field_f1", **options) -> list[float]:
    """Each pair as evaluate_records scores it, a prediction without JSON counting 0."""
    scorable = [i for i, p in enumerate(pred) if not (isinstance(p, str) and p.startswith("Sorry"))]
    run = evaluate_records(
        [gold[i] for i in scorable], [pred[i] for i in scorable], metric, **options
    )
    scores = [0.0] * len(gold)
    for i, record in zip(scorable, run.records):
        scores[i] = record.score
    return scores


def run_json(*args: str, call=jsonmatch) -> dict:
    proc = call("score", *args, "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    report.pop("run")
    return report


@pytest.mark.parametrize("metric", ["field_f1", "structural_f1"])
def test_scores_equal_evaluate_records(tmp_path, metric, jsonmatch_main):
    gold, pred = dataset(60)
    report = run_json(
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--metric",
        metric,
        call=jsonmatch_main,
    )
    scores = expected_scores(gold, pred, metric)
    assert [c["score"] for c in report["comparisons"]] == scores
    assert [c["case_id"] for c in report["cases"]] == [str(i + 1) for i in range(60)]
    assert report["overall"] == pytest.approx(sum(scores) / 60, abs=1e-12)
    assert report["errors"] == sum(isinstance(p, str) and p.startswith("Sorry") for p in pred)
    run = evaluate_records(gold[:1], pred[:1], metric) if not isinstance(pred[0], str) else None
    if run is not None:
        assert report["comparisons"][0]["score"] == run.records[0].score


@pytest.mark.parametrize("verbose", [[], ["-v"]])
def test_a_text_run_lists_the_cases_a_run_with_a_report_lists(tmp_path, jsonmatch_main, verbose):
    """A text run without a report keeps only the lines of the cases its summary names
    (those not scored, those scored from a cut answer): it prints what a run keeping every
    case prints, with 8 unscored cases (more than are named without -v) and 2 cut ones."""
    gold, pred = dataset(80, seed=5)
    cut = 0
    for i, answer in enumerate(pred):
        if isinstance(answer, dict) and cut < 2 and i % 7 == 3:
            pred[i] = json.dumps(answer)[:-9]  # the answer cut off before its end
            cut += 1
    assert cut == 2
    args = [
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--option",
        "truncated=close",
        "--color",
        "never",
        *verbose,
    ]
    listed = jsonmatch_main("score", *args)
    kept_all = jsonmatch_main("score", *args, "--report", str(tmp_path / "r.json"))
    assert listed.returncode == kept_all.returncode == 0
    assert listed.stdout == kept_all.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert len(report["cases"]) == 80
    unscored = [c["case_id"] for c in report["cases"] if c["status"] == "error"]
    assert len(unscored) == 8
    assert sum(bool(c.get("truncated")) for c in report["cases"]) == 2
    # one line per cause (render/text.py): its count and its first 3 cases (-v: all), the
    # 5 commonest causes (-v: all); a cause that struck one case lists it with its message
    causes: dict[str, list[str]] = {}
    for case in report["cases"]:
        if case["status"] == "error":
            causes.setdefault(error_cause(case["error"]), []).append(case["case_id"])
    counted = sorted(causes.items(), key=lambda item: (-len(item[1]), item[0]))
    if len(causes) == len(unscored):
        named = unscored if verbose else unscored[:5]
        assert all(f"  {case_id}: " in listed.stdout for case_id in named)
        return
    for _, ids in counted if verbose else counted[:5]:
        count = f"  {len(ids)} case{'' if len(ids) == 1 else 's'} ({ids[0]}"
        assert count in listed.stdout
        assert all(case_id in listed.stdout for case_id in (ids if verbose else ids[:3]))


def test_a_text_run_with_a_report_does_not_read_its_comparisons_back(
    tmp_path, jsonmatch_main, monkeypatch
):
    """The comparisons a text run keeps for its ``--report`` go to the report file as they
    were spooled (copied, not read back): the text summary is given what it shows of a run,
    as it is without a report, and reads none of them (each read back field by field costs
    more than its scoring)."""
    from pytest_jsonmatch.reporting.run_model.spool import ComparisonSpool

    def refused(self):
        raise AssertionError("a comparison read back")

    monkeypatch.setattr(ComparisonSpool, "__iter__", refused)
    gold, pred = dataset(40, seed=3)
    args = [
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "-j",
        "1",
        "--color",
        "never",
    ]
    with_report = jsonmatch_main("score", *args, "--report", str(tmp_path / "r.json"))
    assert with_report.returncode in (0, 1), with_report.stderr
    assert with_report.stdout == jsonmatch_main("score", *args).stdout
    assert len(json.loads((tmp_path / "r.json").read_text())["comparisons"]) == 40


def test_jobs_give_exactly_the_single_process_result(tmp_path):
    gold, pred = dataset(300, seed=11)
    args = (
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
    )
    one = run_json(*args, "-j", "1")
    two = run_json(*args, "-j", "2")
    assert one == two
    assert one["count"] == 300


def test_layouts_pair_alike(tmp_path, jsonmatch_main):
    """The same records as JSONL paired by position, shuffled JSONL paired by id, JSON
    arrays, and two folders matched by name: the same scores per case."""
    gold, pred = dataset(25, seed=3)
    by_position = run_json(
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--metric",
        "structural_f1",
        call=jsonmatch_main,
    )
    score_of = {gold[i]["id"]: c["score"] for i, c in enumerate(by_position["comparisons"])}
    # by id, predictions in another order (each keeps its id in a record around the answer)
    wrapped = [{"id": g["id"], "answer": p} for g, p in zip(gold, pred)]
    random.Random(1).shuffle(wrapped)
    by_id = run_json(
        str(write_jsonl(tmp_path / "g2.jsonl", gold)),
        str(write_jsonl(tmp_path / "p2.jsonl", wrapped)),
        "--metric",
        "structural_f1",
        "--id-field",
        "id",
        "--pred-field",
        "answer",
        call=jsonmatch_main,
    )
    assert {c["case_id"]: c["score"] for c in by_id["comparisons"]} == score_of
    # JSON arrays, pretty-printed over many lines
    (tmp_path / "g.json").write_text(json.dumps(gold, indent=2))
    (tmp_path / "p.json").write_text(json.dumps(pred, indent=2))
    arrays = run_json(
        str(tmp_path / "g.json"),
        str(tmp_path / "p.json"),
        "--metric",
        "structural_f1",
        call=jsonmatch_main,
    )
    assert [c["score"] for c in arrays["comparisons"]] == list(score_of.values())
    # folders: gold/<id>.json against pred/<id>.txt (the model's raw text)
    (tmp_path / "gold").mkdir()
    (tmp_path / "pred").mkdir()
    for g, p in zip(gold, pred):
        (tmp_path / "gold" / f"{g['id']}.json").write_text(json.dumps(g))
        (tmp_path / "pred" / f"{g['id']}.txt").write_text(
            p if isinstance(p, str) else json.dumps(p)
        )
    folders = run_json(
        str(tmp_path / "gold"),
        str(tmp_path / "pred"),
        "--metric",
        "structural_f1",
        call=jsonmatch_main,
    )
    assert {c["case_id"]: c["score"] for c in folders["comparisons"]} == score_of


def test_a_missing_prediction_counts_zero_and_extra_ones_are_named(tmp_path, jsonmatch_main):
    gold = [{"id": 1, "a": "x"}, {"id": 2, "a": "y"}]
    pred = [{"id": 2, "a": "y"}, {"id": 9, "a": "z"}]
    report = run_json(
        str(write_jsonl(tmp_path / "g.jsonl", gold)),
        str(write_jsonl(tmp_path / "p.jsonl", pred)),
        "--id-field",
        "id",
        call=jsonmatch_main,
    )
    # case 1 has no prediction: an error at 0; case 2 matches (id and a): 1. Overall 0.5
    assert [(c["case_id"], c["status"], c["score"]) for c in report["comparisons"]] == [
        ("1", "error", 0.0),
        ("2", "passed", 1.0),
    ]
    assert report["overall"] == 0.5
    assert "no prediction has id '1'" in report["comparisons"][0]["error"]
    assert any("1 prediction no gold record has (9)" in w for w in report["gates"]["warnings"])


def test_fail_under_and_field_floors_set_the_exit_status(tmp_path):
    gold = [{"a": 1, "b": 2}, {"a": 1, "b": 2}]
    pred = [{"a": 1, "b": 2}, {"a": 1, "b": 3}]
    g, p = write_jsonl(tmp_path / "g.jsonl", gold), write_jsonl(tmp_path / "p.jsonl", pred)
    # case 1: 1.0; case 2: a matches, b does not: F1 = 0.5. Overall 0.75
    assert jsonmatch("score", str(g), str(p)).returncode == 0
    assert jsonmatch("score", str(g), str(p), "--fail-under", "0.75").returncode == 0
    proc = jsonmatch("score", str(g), str(p), "--fail-under", "0.76")
    assert proc.returncode == 1 and "overall score 0.7500 is below" in proc.stdout
    # field b: scores 1 and 0, mean 0.5
    proc = jsonmatch("score", str(g), str(p), "--field-floor", "b=0.6")
    assert proc.returncode == 1 and "field b (field_f1): mean score 0.5000" in proc.stdout


def test_strict_makes_a_floor_that_matches_no_field_fail_the_run(tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main  # what the command reports: in this process
    # the plugin's jsonmatch_strict: a floor's pattern with a typo is a failure, not a warning
    g = write_jsonl(tmp_path / "g.jsonl", [{"total": 1}, {"total": 2}])
    p = write_jsonl(tmp_path / "p.jsonl", [{"total": 1}, {"total": 2}])
    lenient = jsonmatch("score", str(g), str(p), "--field-floor", "totl=0.9", "--format", "json")
    gates = json.loads(lenient.stdout)["gates"]
    assert lenient.returncode == 0 and gates["passed"] and gates["failures"] == []
    assert ["floor 'totl' matched no" in w for w in gates["warnings"]] == [True]
    # the warning names the command line's flag, not the plugin's ini setting
    assert gates["warnings"][0].endswith("(--strict fails the run)")
    assert "jsonmatch_strict" not in lenient.stdout
    strict = jsonmatch(
        "score", str(g), str(p), "--field-floor", "totl=0.9", "--strict", "--format", "json"
    )
    gates = json.loads(strict.stdout)["gates"]
    assert strict.returncode == 1 and not gates["passed"] and gates["warnings"] == []
    assert ["floor 'totl' matched no" in f for f in gates["failures"]] == [True]
    # a floor that matches is judged as ever, --strict or not
    assert (
        jsonmatch("score", str(g), str(p), "--field-floor", "total=0.9", "--strict").returncode == 0
    )


def test_report_baseline_and_diff(tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main  # fourteen commands: in this process, not fourteen interpreters
    gold = [{"a": i, "b": "x"} for i in range(6)]
    good = [{"a": i, "b": "x"} for i in range(6)]
    worse = [{"a": i, "b": "x" if i % 2 else "y"} for i in range(6)]  # 3 cases drop to 0.5
    g = write_jsonl(tmp_path / "g.jsonl", gold)
    base = tmp_path / "base.json"
    proc = jsonmatch(
        "score", str(g), str(write_jsonl(tmp_path / "p1.jsonl", good)), "--report", str(base)
    )
    assert proc.returncode == 0 and json.loads(base.read_text())["overall"] == 1.0
    new = tmp_path / "new.json"
    # differences: three of -0.5 and three of 0: mean -0.25, an interval that holds 0
    # with n = 6 (s = 0.2739, SE = 0.1118, t(0.975, 5) = 2.5706: -0.25 +/- 0.2874)
    # the three cases that dropped by 0.5 each fail the run by themselves (the per-case rule) ...
    proc = jsonmatch(
        "score",
        str(g),
        str(write_jsonl(tmp_path / "p2.jsonl", worse)),
        "--baseline",
        str(base),
        "--max-drop",
        "0.1",
    )
    assert proc.returncode == 1 and [
        line for line in proc.stdout.splitlines() if line.startswith("  case ")
    ] == [
        f"  case {i} ({g}:{i}) dropped from 1.0000 to 0.5000, by more than --max-drop 0.1000"
        for i in (1, 3, 5)
    ]  # ids are line numbers; records 0, 2, 4 got worse
    # ... unless they are allowed, or within --max-case-drop; the mean rule then only warns
    for accept in (["--allow-regressions", "3"], ["--max-case-drop", "0.5"]):
        assert (
            jsonmatch(
                "score",
                str(g),
                str(tmp_path / "p2.jsonl"),
                "--baseline",
                str(base),
                "--max-drop",
                "0.1",
                *accept,
            ).returncode
            == 0
        )
    assert (
        jsonmatch(
            "score",
            str(g),
            str(tmp_path / "p2.jsonl"),
            "--baseline",
            str(base),
            "--max-drop",
            "0.1",
            "--allow-regressions",
            "2",
        ).returncode
        == 1
    )
    proc = jsonmatch(
        "score",
        str(g),
        str(tmp_path / "p2.jsonl"),
        "--report",
        str(new),
        "--baseline",
        str(base),
        "--max-drop",
        "0.1",
        "--max-case-drop",
        "0.5",
        "-v",
    )
    assert proc.returncode == 0, proc.stdout  # may be noise: a warning
    data = json.loads(new.read_text())
    assert data["baseline"]["difference"]["mean"] == pytest.approx(-0.25)
    assert data["baseline"]["difference"]["low"] == pytest.approx(-0.25 - 2.5706 * 0.1118, abs=1e-3)
    assert "may be noise" in proc.stdout
    strict = jsonmatch(
        "score",
        str(g),
        str(tmp_path / "p2.jsonl"),
        "--baseline",
        str(base),
        "--max-drop",
        "0.1",
        "--gate",
        "strict",
    )
    assert strict.returncode == 1
    diff = jsonmatch("diff", str(base), str(new))
    assert diff.returncode == 1 and "  case 1 (" in diff.stdout  # the per-case rule
    diff = jsonmatch("diff", str(base), str(new), "--allow-regressions", "3")
    assert diff.returncode == 0, diff.stderr
    assert "mean change -0.2500 (1.0000 -> 0.7500)" in diff.stdout
    assert (
        jsonmatch(
            "diff", str(base), str(new), "--gate", "strict", "--allow-regressions", "3"
        ).returncode
        == 1
    )
    for fmt, marker in (
        ("markdown", "## jsonmatch"),
        ("html", "<!DOCTYPE html>"),
        ("text", "overall score 0.7500 over 6 cases"),
    ):
        proc = jsonmatch("report", str(new), "--format", fmt)
        assert proc.returncode == 0 and marker in proc.stdout, (fmt, proc.stderr)


@pytest.mark.parametrize(
    ("gold_text", "message"),
    [
        ('{"a": 1}\n{"a": 2, "a": 3}\n', "g.jsonl line 2: not valid JSON: duplicate key 'a'"),
        ('{"a": 1}\n\n{"a": \n', "g.jsonl line 3: not valid JSON"),
        ('[{"a": 1},\n {"a": 2}\n {"a": 3}]', "g.jsonl line 3 (element 2): expected ',' or ']'"),
    ],
)
def test_a_bad_gold_file_names_the_line(tmp_path, gold_text, message):
    (tmp_path / "g.jsonl").write_text(gold_text)
    write_jsonl(tmp_path / "p.jsonl", [{"a": 1}] * 3)
    line = one_error_line(jsonmatch("score", "g.jsonl", "p.jsonl", cwd=tmp_path))
    assert message in line


def test_other_dataset_errors_are_one_line(tmp_path, jsonmatch_main):
    jsonmatch = jsonmatch_main  # the error lines main() prints: in this process
    g = write_jsonl(tmp_path / "g.jsonl", [{"id": 1}, {"id": 2}])
    p = write_jsonl(tmp_path / "p.jsonl", [{"id": 1}])
    assert "pairing by position needs as many" in one_error_line(jsonmatch("score", str(g), str(p)))
    line = one_error_line(jsonmatch("score", str(g), str(p), "--id-field", "key"))
    assert "g.jsonl line 1" in line and "no id field 'key'" in line
    dup = write_jsonl(tmp_path / "d.jsonl", [{"id": 1}, {"id": 1}])
    line = one_error_line(jsonmatch("score", str(dup), str(p), "--id-field", "id"))
    assert "d.jsonl line 2" in line and "id '1'" in line
    assert "--jobs" in one_error_line(jsonmatch("score", str(g), str(p), "-j", "0"))


def test_the_progress_bar_shows_only_on_a_terminal_after_a_second(monkeypatch):
    import io

    from pytest_jsonmatch.cli import progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    quiet = io.StringIO()
    bar = progress.Progress(100, quiet)
    clock = iter([0.0, 0.5, 2.0, 2.05, 3.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    bar = progress.Progress(100, Tty())
    bar.advance(10)  # 0.5 s: too early
    assert bar.stream.getvalue() == ""
    bar.advance(40)  # 2.0 s: drawn
    assert "50% 50/100 records" in bar.stream.getvalue()
    bar.advance(10)  # 2.05 s: within 0.1 s of the last draw
    assert "60/100" not in bar.stream.getvalue()
    bar.close()
    assert bar.stream.getvalue().endswith("\r\x1b[K")
    assert not progress.Progress(100, quiet).enabled  # not a terminal: never drawn


def test_diff_of_runs_where_more_than_1023_cases_flip(tmp_path, jsonmatch_main):
    # 1,100 cases passed in the baseline and fail now: the exact McNemar p is 2 * 2^-1100,
    # which underflows to 0; the old float sum of binomial terms raised OverflowError here
    import json as json_

    from pytest_jsonmatch.reporting.run_model.aggregate import summarize
    from pytest_jsonmatch.reporting.run_model.comparisons import FAILED, PASSED, Comparison
    from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
    from pytest_jsonmatch.reporting.verdicts.report import build_report, report_text

    def run(score: float, status) -> list[Comparison]:
        return [
            Comparison(
                case_id=f"c{i}",
                nodeid=f"c{i}",
                metric="field_f1",
                score=score,
                threshold=0.9,
                status=status,
            )
            for i in range(1100)
        ]

    for name, comparisons in (("base.json", run(1.0, PASSED)), ("new.json", run(0.5, FAILED))):
        summary = summarize(comparisons)
        report = build_report(summary, comparisons, decision_of(summary, GateSettings()))
        (tmp_path / name).write_text(report_text(report), encoding="utf-8")
    proc = jsonmatch_main(
        "diff", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "--format", "json"
    )
    assert proc.returncode == 1, proc.stderr  # a real drop: the gate fails, no crash
    baseline = json_.loads(proc.stdout)["baseline"]
    assert (baseline["pass_to_fail"], baseline["fail_to_pass"]) == (1100, 0)
    assert baseline["mcnemar_p"] == 0.0
