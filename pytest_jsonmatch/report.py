"""The session's comparisons, aggregated: summary tables, the JSON report, the baseline,
the CI gates and the JUnit properties.

Nothing here imports pytest. The plugin turns each comparison into a :class:`Comparison`
(plain data that crosses the xdist wire as a dict), and at the end of the session calls
:func:`summarize`, :func:`check_gates`, :func:`build_report` / :func:`write_report` and
:func:`summary_lines`. Aggregates are computed from the comparisons sorted by test id, so
a serial run and a run spread over xdist workers give the same numbers to the last bit.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Any

from .engine.results import SCORE_EPSILON, SKIPPED, FieldAggregate
from .settings import GateSettings, ReportError


REPORT_VERSION = 1
SUMMARY_FIELD_ROWS = 15


# -- what is recorded ----------------------------------------------------------------------


class FieldScore(NamedTuple):
    """One field of a recorded comparison (a NamedTuple: one is made per field per case)."""

    path: str
    field_path: str
    status: str
    score: float


@dataclass(frozen=True)
class Comparison:
    """One comparison made through the plugin, under the test ``nodeid`` (``seq`` orders
    several comparisons in one test)."""

    nodeid: str
    seq: int
    metric: str
    score: float
    precision: float
    recall: float
    f1: float
    threshold: float
    passed: bool
    fields: tuple[FieldScore, ...] = ()
    floor_failures: tuple[tuple[str, float, float], ...] = ()

    @classmethod
    def from_result(cls, nodeid: str, seq: int, result: Any, threshold: float,
                    passed: bool) -> Comparison:
        make = FieldScore._make  # no per-field keyword handling: one is made per field per case
        fields = tuple(make((f.path or "$", f.field_path or "$", f.status, float(f.score)))
                       for f in result.fields)
        floors = tuple((f.path or "$", float(f.min_score), float(f.score))
                       for f in result.floor_failures)
        return cls(nodeid, seq, result.metric, float(result.score), float(result.precision),
                   float(result.recall), float(result.f1), float(threshold), bool(passed),
                   fields, floors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid, "seq": self.seq, "metric": self.metric, "score": self.score,
            "precision": self.precision, "recall": self.recall, "f1": self.f1,
            "threshold": self.threshold, "passed": self.passed,
            "fields": [{"path": f.path, "field_path": f.field_path, "status": f.status,
                        "score": f.score} for f in self.fields],
            "floor_failures": [{"path": p, "min_score": m, "score": s}
                               for p, m, s in self.floor_failures],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        return cls(
            data["nodeid"], int(data["seq"]), data["metric"], float(data["score"]),
            float(data["precision"]), float(data["recall"]), float(data["f1"]),
            float(data["threshold"]), bool(data["passed"]),
            tuple(FieldScore(f["path"], f["field_path"], f["status"], float(f["score"]))
                  for f in data.get("fields", ())),
            tuple((f["path"], float(f["min_score"]), float(f["score"]))
                  for f in data.get("floor_failures", ())),
        )


def junit_properties(comparison: Comparison) -> list[tuple[str, Any]]:
    """The JUnit XML properties of one comparison (a test may hold several)."""
    return [("jsonmatch_metric", comparison.metric),
            ("jsonmatch_score", round(comparison.score, 4))]


# -- aggregation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSummary:
    """Per metric: how many comparisons, how many met their threshold, and macro means."""

    count: int
    passed: int
    failed: int
    mean_score: float
    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "passed": self.passed, "failed": self.failed,
                "mean_score": self.mean_score, "precision": self.precision,
                "recall": self.recall, "f1": self.f1}


@dataclass
class Summary:
    comparisons: list[Comparison]
    metrics: dict[str, MetricSummary]
    fields: dict[str, Any]  # field path -> engine FieldAggregate
    overall: float | None

    @property
    def count(self) -> int:
        return len(self.comparisons)


def sort_comparisons(comparisons: Iterable[Comparison]) -> list[Comparison]:
    return sorted(comparisons, key=lambda c: (c.nodeid, c.seq))


def summarize(comparisons: Iterable[Comparison]) -> Summary:
    """Aggregate the session: per metric (count, passed, failed, mean score, P, R, F1, as
    macro means over comparisons), per field path (the engine's FieldAggregate sums), and
    the overall score, the mean of every comparison's score."""
    ordered = sort_comparisons(comparisons)
    by_metric: dict[str, list[Comparison]] = {}
    for c in ordered:
        by_metric.setdefault(c.metric, []).append(c)
    metrics = {}
    for name in sorted(by_metric):
        group = by_metric[name]
        n = len(group)
        passed = sum(1 for c in group if c.passed)
        metrics[name] = MetricSummary(n, passed, n - passed, _mean(c.score for c in group),
                                      _mean(c.precision for c in group),
                                      _mean(c.recall for c in group), _mean(c.f1 for c in group))
    fields: dict[str, Any] = {}
    if ordered:
        for c in ordered:
            for f in c.fields:
                if f.status == SKIPPED:
                    continue
                agg = fields.get(f.field_path)
                if agg is None:
                    agg = fields[f.field_path] = FieldAggregate()
                agg.add(f)  # reads .status and .score only
    overall = _mean(c.score for c in ordered) if ordered else None
    return Summary(ordered, metrics, dict(sorted(fields.items())), overall)


def _mean(values: Iterable[float]) -> float:
    total, n = 0.0, 0
    for v in values:
        total += v
        n += 1
    return total / n if n else 1.0


def worst_fields(summary: Summary) -> list[tuple[str, Any]]:
    """Field aggregates, lowest mean score first, then by path."""
    return sorted(summary.fields.items(), key=lambda kv: (kv[1].mean_score, kv[0]))


# -- settings, baseline, gates -------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    path: str
    overall: float | None
    fields: Mapping[str, float]


def load_baseline(path: str | os.PathLike[str]) -> Baseline:
    """Read a report written by ``--jsonmatch-report`` to compare against."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ReportError(f"cannot read the baseline {os.fspath(path)}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ReportError(f"the baseline {os.fspath(path)} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("fields", {}), dict):
        raise ReportError(f"the baseline {os.fspath(path)} is not a jsonmatch report")
    try:
        overall = data.get("overall")
        fields = {str(k): float(v["mean_score"]) for k, v in data.get("fields", {}).items()}
        return Baseline(os.fspath(path), None if overall is None else float(overall), fields)
    except (TypeError, ValueError, KeyError):
        raise ReportError(f"the baseline {os.fspath(path)} is not a jsonmatch report") from None


@dataclass(frozen=True)
class Deltas:
    """Now minus baseline: overall and per field present in both (None when absent)."""

    overall: float | None
    fields: Mapping[str, float]


def compare_baseline(summary: Summary, baseline: Baseline) -> Deltas:
    overall = (None if summary.overall is None or baseline.overall is None
               else summary.overall - baseline.overall)
    fields = {path: agg.mean_score - baseline.fields[path]
              for path, agg in summary.fields.items() if path in baseline.fields}
    return Deltas(overall, fields)


def check_gates(summary: Summary, settings: GateSettings, baseline: Baseline | None = None,
                deltas: Deltas | None = None) -> list[str]:
    """Why the session fails its gates (empty when it does not). No comparisons: no verdict."""
    if summary.overall is None:
        return []
    failures = []
    if settings.fail_under is not None and summary.overall < settings.fail_under - SCORE_EPSILON:
        failures.append(f"overall score {summary.overall:.4f} is below "
                        f"jsonmatch_fail_under {settings.fail_under:.4f}")
    for path, floor in sorted(settings.field_floors.items()):
        agg = summary.fields.get(path)
        if agg is not None and agg.mean_score < floor - SCORE_EPSILON:
            failures.append(f"field {path}: mean score {agg.mean_score:.4f} is below its floor "
                            f"{floor:.4f}")
    if baseline is not None:
        deltas = deltas or compare_baseline(summary, baseline)
        limit = settings.max_drop
        if deltas.overall is not None and -deltas.overall > limit + SCORE_EPSILON:
            failures.append(f"overall score dropped by {-deltas.overall:.4f} "
                            f"({baseline.overall:.4f} -> {summary.overall:.4f}), "
                            f"more than jsonmatch_max_drop {limit:.4f}")
        for path, delta in sorted(deltas.fields.items()):
            if -delta > limit + SCORE_EPSILON:
                failures.append(f"field {path}: mean score dropped by {-delta:.4f} "
                                f"({baseline.fields[path]:.4f} -> "
                                f"{summary.fields[path].mean_score:.4f}), "
                                f"more than jsonmatch_max_drop {limit:.4f}")
    return failures


# -- the JSON report -----------------------------------------------------------------------


def build_report(summary: Summary, gate_failures: Sequence[str] = (),
                 baseline: Baseline | None = None, deltas: Deltas | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": REPORT_VERSION,
        "overall": summary.overall,
        "count": summary.count,
        "comparisons": [c.to_dict() for c in summary.comparisons],
        "metrics": {name: m.to_dict() for name, m in summary.metrics.items()},
        "fields": {path: agg.to_dict() for path, agg in summary.fields.items()},
        "gates": {"passed": not gate_failures, "failures": list(gate_failures)},
    }
    if baseline is not None:
        d = deltas or compare_baseline(summary, baseline)
        data["baseline"] = {"path": baseline.path, "overall": baseline.overall,
                            "overall_delta": d.overall, "field_deltas": dict(sorted(d.fields.items()))}
    return data


def write_report(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically: into a temporary file in the same
    folder, flushed and fsynced, then ``os.replace``-d over the target. If anything fails on
    the way, the previous file is left as it was and the temporary file is removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, allow_nan=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- the terminal summary ------------------------------------------------------------------


def summary_lines(summary: Summary, verbose: int = 0, deltas: Deltas | None = None,
                  baseline: Baseline | None = None,
                  max_rows: int = SUMMARY_FIELD_ROWS) -> list[str]:
    """The lines of the ``jsonmatch`` terminal section (without the gate verdict)."""
    rows = [("metric", "comparisons", "passed", "failed", "mean score", "precision", "recall", "F1")]
    for name, m in summary.metrics.items():
        rows.append((name, str(m.count), str(m.passed), str(m.failed), f"{m.mean_score:.4f}",
                     f"{m.precision:.4f}", f"{m.recall:.4f}", f"{m.f1:.4f}"))
    lines = _table(rows)
    overall = f"overall score {summary.overall:.4f} over {summary.count} comparison" + (
        "" if summary.count == 1 else "s")
    if baseline is not None and baseline.overall is not None and deltas is not None \
            and deltas.overall is not None:
        overall += f" (baseline {baseline.overall:.4f}, {_signed(deltas.overall)})"
    lines.append(overall)

    worst = worst_fields(summary)
    if worst:
        header = ["field", "mean score", "match", "mismatch", "omission", "hallucination"]
        if deltas is not None:
            header.append("vs baseline")
        frows: list[Sequence[str]] = [header]
        shown = worst if verbose > 0 else worst[:max_rows]
        for path, agg in shown:
            row = [path, f"{agg.mean_score:.4f}", str(agg.match), str(agg.mismatch),
                   str(agg.omission), str(agg.hallucination)]
            if deltas is not None:
                row.append(_signed(deltas.fields[path]) if path in deltas.fields else "new")
            frows.append(row)
        lines.append("")
        lines.extend(_table(frows))
        if len(worst) > len(shown):
            lines.append(f"... {len(worst) - len(shown)} more fields (-v shows all)")
    return lines


def _signed(delta: float) -> str:
    text = f"{delta:+.4f}"
    return "+0.0000" if text == "-0.0000" else text


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
    return out
