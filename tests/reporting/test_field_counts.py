"""The per-field tables counted as comparisons are recorded (reporting/verdicts/field_counts.py) are
those counted from kept field records (aggregate.summarize), to the bit: over many generated
comparisons of every metric, with errors, xfail-marked tests, repeated cases, fields missing,
extra, ignored and skipped, answers cut off, named targets and every grouping; and a session's
report built from the counts (report.conclude, ``SummaryReads``) prints the same summary."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import NamedTuple

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.results.field_results import (
    BATCH_ERROR,
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    FieldAggregate,
    FieldResult,
)
from pytest_jsonmatch.reporting.render.text import summary_lines, verdict_lines
from pytest_jsonmatch.reporting.run_model.aggregate import GROUP_BY, group_key, summarize
from pytest_jsonmatch.reporting.run_model.comparisons import ERROR, Comparison, Status, case_id_of
from pytest_jsonmatch.reporting.verdicts.field_counts import FieldCounts
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, parse_floors
from pytest_jsonmatch.reporting.verdicts.reliability import passed_fields
from pytest_jsonmatch.reporting.verdicts.report import SummaryReads, conclude, summary_reads

OPTIONS = [
    ("field_f1", {}),
    ("field_f1", {"ignore": ["note"]}),  # skipped fields: listed, counted nowhere
    ("field_f1", {"truncated": "close"}),  # an answer cut off, scored closed
    ("field_match", {}),
    ("json_similarity", {}),
    ("field_f1", {"align": "hungarian"}),
    ("structural_f1", {}),
]


def _gold(rng: random.Random) -> dict:
    return {
        "id": f"r{rng.randint(0, 99)}",
        "total": rng.choice([3, 3.5, 0.1, -2]),
        "meta": {"source": rng.choice("ab"), "tags": ["x", "y"][: rng.randint(0, 2)]},
        "items": [
            {"sku": s, "qty": rng.randint(1, 3), "price": rng.random()}
            for s in rng.sample("ABCDE", rng.randint(0, 3))
        ],
    }


def _answer(rng: random.Random, gold: dict) -> object:
    """An answer to ``gold``: itself, a value changed, a field missing, one extra, an
    element dropped or added, of another type, or its JSON text cut off."""
    answer = copy.deepcopy(gold)
    kind = rng.randrange(8)
    if kind == 1:
        answer["total"] = rng.random()
    elif kind == 2:
        del answer[rng.choice(["id", "meta", "items"])]
    elif kind == 3:
        answer["extra"] = {"note": "hallucinated", "n": 1}
    elif kind == 4 and answer["items"]:
        answer["items"].pop()
    elif kind == 5:
        answer["items"].append({"sku": "Z", "qty": 9})
    elif kind == 6:
        answer["meta"] = "not an object"
    elif kind == 7:
        return json.dumps(gold)[: -rng.randint(2, 15)]
    return answer


def _comparisons(seed: int, cases: int = 150) -> list[tuple[Comparison, tuple]]:
    """(comparison with its field records, the engine's fields) of ``cases`` cases, some
    repeated, in files of two folders, some of named targets; an error or an xfail-marked
    test now and then."""
    rng = random.Random(seed)
    out = []
    for k in range(cases):
        metric, options = rng.choice(OPTIONS)
        gold = _gold(rng)
        if "ignore" in options:  # a field only ever skipped: its path listed, never scored
            gold["note"] = "internal"
        file = f"{rng.choice(['cases', 'more'])}/f{rng.randint(0, 3)}.jsonmatch.yaml"
        target = rng.choice(["", "", "cheap", "big"])
        nodeid = f"{file}::c{k}" + (f"[{target}]" if target else "")
        runs = rng.choice([1, 1, 1, 3])
        status = rng.choice([None] * 8 + ["xfailed", "xpassed"])
        for repeat in range(runs):
            common = dict(
                case_id=case_id_of(nodeid, 0),
                nodeid=nodeid,
                threshold=0.8,
                repeat=repeat if runs > 1 else 0,
                file=file,
                line=1,
                target=target,
            )
            try:  # an answer cut off, scored without truncated=close, is an error
                if rng.random() < 0.05:
                    raise JsonMatchError("no JSON")
                result = match_json(_answer(rng, gold), gold, metric=metric, **options)
            except JsonMatchError as exc:
                c = Comparison(metric=metric, score=0.0, status=ERROR, error=str(exc), **common)
                out.append((c if status is None else c.with_status(Status(status)), ()))
                continue
            c = Comparison.of_result(result, passed=result.passed(0.8), values="short", **common)
            out.append((c if status is None else c.with_status(Status(status)), result.fields))
    return out


def _counted(pairs, group_by: str) -> tuple[list[Comparison], FieldCounts]:
    """The comparisons as a counted session keeps them (no field records), and the counts:
    each test's fields held as it records them, counted once its report gave the statuses."""
    counts = FieldCounts(group_by)
    kept = []
    for start in range(0, len(pairs), 3):  # a few comparisons a test
        made = []
        for comparison, fields in pairs[start : start + 3]:
            made.append(comparison.replace(fields=()))
            counts.hold(made[-1], fields)
        counts.count(made[::-1])  # (in any order)
        kept += made
    return kept, counts


def _table(fields: dict[str, FieldAggregate]) -> dict:
    """Every number of a per-field table, the exact sums' units included, in its order."""
    return {
        path: (
            agg.scored,
            agg.match,
            agg.mismatch,
            agg.omission,
            agg.hallucination,
            agg.batch_error,
            agg.total.units,
        )
        for path, agg in fields.items()
    }


PAIRS = _comparisons(7) + _comparisons(8, 60)


def test_the_comparisons_cover_the_edge_cases():
    comparisons = [c for c, _ in PAIRS]
    statuses = {f.status for c in comparisons for f in c.fields}
    assert {"match", "mismatch", "omission", "hallucination", SKIPPED} <= statuses
    assert any(c.status == ERROR for c in comparisons)
    assert any(c.status in ("xfailed", "xpassed") for c in comparisons)
    assert any(c.truncated is not None for c in comparisons)
    assert any(c.repeat for c in comparisons)
    assert any(c.target for c in comparisons)
    assert len({f.score for c in comparisons for f in c.fields}) > 3  # not only 0 and 1


@pytest.mark.parametrize("group_by", GROUP_BY)
@pytest.mark.parametrize("rule", ["mean", "all"])
def test_counted_tables_are_the_tables_of_the_kept_records(group_by, rule):
    kept = summarize([c for c, _ in PAIRS], group_by, rule)
    comparisons, counts = _counted(PAIRS, group_by)
    counted = summarize(comparisons, group_by, rule, counts.groups)
    assert list(counted.groups) == list(kept.groups)
    for key in kept.groups:
        assert _table(counted.groups[key]) == _table(kept.groups[key]), key
    assert _table(counted.fields) == _table(kept.fields)
    assert any(agg.scored == 0 for agg in kept.fields.values())  # a path only ever skipped
    assert (counted.overall, counted.count, counted.errors, counted.xfailed, counted.xpassed) == (
        kept.overall,
        kept.count,
        kept.errors,
        kept.xfailed,
        kept.xpassed,
    )
    assert {k: m.to_dict() for k, m in counted.metrics.items()} == {
        k: m.to_dict() for k, m in kept.metrics.items()
    }
    assert counted.cases == kept.cases


def test_counts_do_not_depend_on_the_order_comparisons_come_in():
    shuffled = PAIRS[:]
    random.Random(1).shuffle(shuffled)
    first = summarize(*_as_args(PAIRS))
    again = summarize(*_as_args(shuffled))
    assert {k: _table(v) for k, v in first.groups.items()} == {
        k: _table(v) for k, v in again.groups.items()
    }


def _as_args(pairs):
    comparisons, counts = _counted(pairs, "metric")
    return comparisons, "metric", "mean", counts.groups


def test_a_group_of_errors_alone_has_its_empty_table():
    error = Comparison(
        case_id="e",
        nodeid="e",
        metric="exact",
        score=0.0,
        threshold=1.0,
        status=ERROR,
        error="x",
        file="t.py",
    )
    pairs = PAIRS[:20] + [(error, ())]
    comparisons, counts = _counted(pairs, "metric")
    counted = summarize(comparisons, "metric", "mean", counts.groups)
    assert counted.groups["exact"] == {}
    assert list(counted.groups) == list(summarize([c for c, _ in pairs]).groups)


def test_runs_of_one_case_in_two_tables_are_refused():
    result = match_json({"a": 1}, {"a": 1})
    runs = [
        Comparison.of_result(
            result,
            case_id="c",
            nodeid="c",
            threshold=1.0,
            passed=True,
            values=None,
            repeat=k,
            file=f"f{k}.yaml",
        )
        for k in range(2)
    ]
    counts = FieldCounts("file")
    for run in runs:
        counts.add(group_key(run, "file"), result.fields)
    with pytest.raises(ValueError, match="several per-field tables"):
        summarize(runs, "file", "mean", counts.groups)
    summarize(runs, "metric", "mean", counts.groups)  # one table by metric: fine


def test_a_run_counted_beside_one_not_counted_is_refused():
    result = match_json({"a": 1}, {"a": 2})
    runs = [
        Comparison.of_result(
            result,
            case_id="c",
            nodeid="c",
            threshold=1.0,
            passed=False,
            values=None,
            repeat=k,
            file="f.yaml",
        )
        for k in range(2)
    ]
    runs[1] = runs[1].with_status(Status("xfailed"))
    with pytest.raises(ValueError, match="count and do not"):
        summarize(runs, "metric", "mean", {})


# -- what a session's report must hold ---------------------------------------------------


class Settings(NamedTuple):  # what summary_reads reads of the plugin's Settings
    writes_reports: bool = False
    baseline: str | None = None
    targets: tuple = ()
    sends_telemetry: bool = False
    annotations: bool = False


def test_summary_reads_keeps_records_for_whatever_reads_them():
    plain = Settings()
    assert summary_reads(plain, xdist=False) == SummaryReads(records=False, whole=False)
    assert summary_reads(plain, xdist=True) == SummaryReads(True, True)
    assert summary_reads(plain._replace(writes_reports=True), False) == SummaryReads(True, True)
    for reader in (dict(baseline="b.json"), dict(targets=("cheap",)), dict(sends_telemetry=True)):
        assert summary_reads(plain._replace(**reader), False) == SummaryReads(True, False)
    # annotations name a failed case's worst fields: its failed comparisons keep them
    assert summary_reads(plain._replace(annotations=True), False) == SummaryReads(True, False, True)
    assert not summary_reads(plain._replace(annotations=True), True).failing
    assert summary_reads(plain, False).field_counts("file").group_by == "file"
    assert summary_reads(plain, True).field_counts("file") is None


def test_held_fields_are_counted_with_the_comparisons_they_were_recorded_with():
    scored = [(c, fields) for c, fields in PAIRS if fields and c.counted]
    (first, its_fields), (second, _) = scored[0], scored[1]
    counts = FieldCounts()
    counts.hold(first, its_fields)
    counts.count([second])  # (made by a thread as the test reported): nothing held for it
    assert counts.groups == {}
    counts.count([first.with_status(Status("xfailed"))])  # its test was xfail-marked
    assert counts.groups == {} and not counts._held
    counts.hold(first, its_fields)
    counts.count([first])
    assert sum(counts.groups[first.metric].values()) == len(its_fields)
    counts.count([first])  # counted once
    assert sum(counts.groups[first.metric].values()) == len(its_fields)


GATES = GateSettings(fail_under=0.5, floors=parse_floors(["total=0.2"]))


@pytest.mark.parametrize("verbose", [0, 1])
@pytest.mark.parametrize("group_by", ["metric", "folder"])
def test_a_counted_report_prints_the_summary_of_the_whole_one(group_by, verbose):
    comparisons = [c for c, _ in PAIRS]
    whole, whole_verdict = conclude(comparisons, GATES, {}, group_by=group_by)
    kept, counts = _counted(PAIRS, group_by)
    reads = SummaryReads(records=False, whole=False, failing=True)
    counted, verdict = conclude(kept, GATES, {}, group_by=group_by, reads=reads, counts=counts)
    assert summary_lines(counted, 100, verbose) == summary_lines(whole, 100, verbose)
    assert verdict_lines(counted, 100, verbose) == verdict_lines(whole, 100, verbose)
    assert verdict == whole_verdict
    for key in (
        "overall",
        "count",
        "errors",
        "xfailed",
        "xpassed",
        "metrics",
        "fields",
        "groups",
        "gates",
    ):
        assert counted[key] == whole[key], key
    # the cases listed: repeated, unscored, cut off, failed (annotations); no comparison
    listed = {c["case_id"] for c in counted["cases"]}
    assert listed == {
        c["case_id"]
        for c in whole["cases"]
        if c["runs"] > 1 or c["status"] in ("error", "failed") or c.get("truncated")
    }
    assert 0 < len(listed) < len(whole["cases"])
    # the comparisons listed: the failed ones only (an annotation names their worst fields)
    failed = [c["case_id"] for c in whole["comparisons"] if c["status"] == "failed"]
    assert [c["case_id"] for c in counted["comparisons"]] == failed


def test_a_counted_report_lists_the_comparisons_with_calls_and_recordings():
    result = match_json({"a": 1}, {"a": 1})
    made = [
        Comparison.of_result(
            result,
            case_id=f"c{k}",
            nodeid=f"c{k}",
            threshold=1.0,
            passed=True,
            values="short",
            source=source,
            recording=recording,
            call={"latency_s": 0.5, "attempts": 1} if source != "case" else None,
        )
        for k, (source, recording) in enumerate(
            itertools.product(("case", "live", "replayed"), ("", "recorded"))
        )
    ]
    counts = FieldCounts()
    for c in made:
        counts.hold(c, result.fields)
    counts.count(made)
    counted, _ = conclude(
        [c.replace(fields=()) for c in made],
        GateSettings(),
        {},
        reads=SummaryReads(False, False),
        counts=counts,
    )
    whole, _ = conclude(made, GateSettings(), {})
    assert [c["case_id"] for c in counted["comparisons"]] == ["c1", "c2", "c3", "c4", "c5"]
    assert summary_lines(counted) == summary_lines(whole)
    assert any(line.startswith("recordings:") for line in summary_lines(whole))


def test_comparisons_without_records_need_their_counts():
    with pytest.raises(ValueError, match="field counts"):
        conclude([], GateSettings(), {}, reads=SummaryReads(records=False, whole=False))


def test_the_settings_say_whether_a_file_or_telemetry_reads_the_records():
    from pytest_jsonmatch.reporting.render.report_files import ReportFiles
    from pytest_jsonmatch.session.setting_parts import SettingParts, parse_otel

    assert not SettingParts().writes_reports
    assert not SettingParts(given_reports=ReportFiles()).writes_reports  # no file named
    for kind in ("json", "html", "markdown"):
        assert SettingParts(given_reports=ReportFiles(paths={kind: "out"})).writes_reports, kind
    assert SettingParts(given_reports=ReportFiles(step_summary="out")).writes_reports
    assert not SettingParts().sends_telemetry
    assert not SettingParts(given_otel=parse_otel("off", "jsonmatch_otel")).sends_telemetry
    assert SettingParts(given_otel=parse_otel("cases", "jsonmatch_otel")).sends_telemetry


def test_each_runs_field_passes_are_those_of_its_kept_record():
    """What pass^k per field is made from, counted as a run is recorded (sets and a
    Counter, FieldCounts._passed) is what the kept record's rows give
    (reliability.passed_fields): each path scored against an expected value, 1 when every
    row of it matched; a path with a row missed counts 0 and is there; one only extra or
    skipped is not; the root's path ``""`` is read as ``$``."""
    rng = random.Random(8)
    statuses = (MATCH, MATCH, MATCH, MISMATCH, OMISSION, HALLUCINATION, SKIPPED, BATCH_ERROR)
    seen = set()
    for trial in range(2000):
        counts, kept = FieldCounts(), {}
        for _ in range(rng.randint(1, 3)):  # (runs of one case)
            fields = [
                FieldResult(
                    path="p",
                    status=rng.choice(statuses) if rng.random() < 0.4 else MATCH,
                    score=1.0,
                    expected=1,
                    actual=1,
                    comparator="exact",
                    field_path=rng.choice(["", "a", "b", "c[].d"]),
                )
                for _ in range(rng.randint(1, 6))
            ]
            counts._passed("case", fields)
            tally = kept.setdefault("case", {})
            for path, passed in passed_fields(
                (f.field_path or "$", f.status) for f in fields
            ).items():
                tally[path] = tally.get(path, 0) + passed
            seen.update(f.status for f in fields)
        assert dict(counts.passes["case"]) == kept["case"], trial
    assert seen == set(statuses)
