"""What every rendering of a report lists, in which order, and in which words (they read the
JSON report): its cases worst first, a field table's scored rows and the fields never
scored, a metric's share of valid answers and one answer's conformance."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..run_model.comparisons import ERROR, FAILED, UNCOUNTED

if TYPE_CHECKING:
    from ..run_model.report_types import CaseDict, FieldAggregateDict, ValidShareDict

_SCORED_STATUSES = ("match", "mismatch", "omission", "hallucination")


def case_order(case: CaseDict) -> tuple[int, float, str]:
    """Where a case of a report comes in a list worst first: the cases that could not be
    scored (counted as 0) first, then the failing cases by mean score, lowest first, then the
    passing ones likewise (a passing case at 0.67 after a failing one at 0.86: its threshold
    is lower), then the xfail-marked ones (counted apart); ties by case id."""
    status = case["status"]
    rank = _CASE_RANKS.get(status, 2)
    return rank, case["mean_score"], case["case_id"]


# the ranks of case_order: unscored, failing, passing (any other status), expected to fail
_CASE_RANKS: dict[str, int] = {ERROR: 0, FAILED: 1, **dict.fromkeys(UNCOUNTED, 3)}


def worst_first(cases: Iterable[CaseDict]) -> list[CaseDict]:
    """A report's cases in :func:`case_order`."""
    return sorted(cases, key=case_order)


def never_scored(aggregate: FieldAggregateDict) -> bool:
    """Whether a field of a report was never scored: no match, mismatch, omission or
    hallucination anywhere (ignored or skipped wherever it occurred, or never scored by a
    batch comparator). Its ``mean_score`` of 1.0 is no score: renderings leave it out."""
    return not any(aggregate.get(status, 0) for status in _SCORED_STATUSES)


def field_rows(
    fields: Mapping[str, FieldAggregateDict],
) -> tuple[list[tuple[str, FieldAggregateDict]], list[str]]:
    """A report's field table: (the scored fields, lowest mean score first, then by path;
    the paths of the fields never scored, sorted)."""
    scored = sorted(
        ((path, agg) for path, agg in fields.items() if not never_scored(agg)),
        key=lambda kv: (kv[1]["mean_score"], kv[0]),
    )
    return scored, sorted(path for path, agg in fields.items() if never_scored(agg))


def field_figures(aggregate: FieldAggregateDict, judged: bool) -> list[str]:
    """A scored field's figures as a field table prints them: its mean score, its match,
    mismatch, omission and hallucination counts, and (``judged``: the judge left some
    field undecided) how many times it was left undecided."""
    return [
        f"{aggregate['mean_score']:.4f}",
        str(aggregate["match"]),
        str(aggregate["mismatch"]),
        str(aggregate["omission"]),
        str(aggregate["hallucination"]),
        *([str(aggregate.get("batch_error", 0))] if judged else []),
    ]


def never_scored_line(
    paths: Sequence[str], escape: Callable[[str], str] = str, limit: int | None = None
) -> str:
    """``2 fields never scored: id, meta.source``, each path through ``escape``, the first
    ``limit`` named and then how many more; "" for none."""
    if not paths:
        return ""
    shown = paths if limit is None else paths[:limit]
    more = f" and {len(paths) - len(shown)} more" if len(paths) > len(shown) else ""
    return (
        f"{len(paths)} field{'' if len(paths) == 1 else 's'} never scored: "
        f"{', '.join(escape(p) for p in shown)}{more}"
    )


def valid_share_text(
    share: ValidShareDict, escape: Callable[[str], str] = str, limit: int = 3
) -> str:
    """``93 of 100 answers valid (0.9300); broken most: items[].qty minimum (5 answers)``:
    a metric's conformance as every rendering words it (paths through ``escape``)."""
    text = (
        f"{share['valid']} of {share['checked']} answer{'' if share['checked'] == 1 else 's'} "
        f"valid ({share['share']:.4f})"
    )
    most = share["violated"][:limit]
    if most:
        text += "; broken most: " + ", ".join(
            f"{escape(v['field_path'])} {escape(v['keyword'])} ({v['answers']} "
            f"answer{'' if v['answers'] == 1 else 's'})"
            for v in most
        )
    return text


def violations_text(
    places: Sequence[tuple[str, str]],
    total: int,
    escape: Callable[[str], str] = str,
    limit: int = 5,
) -> str:
    """``answer breaks its schema (2 violations): items[0].qty minimum, total type``, or
    ``answer valid against its schema``: one answer's conformance as every rendering words
    it, the first ``limit`` (path, keyword) places named."""
    if not total:
        return "answer valid against its schema"
    named = ", ".join(f"{escape(path)} {escape(keyword)}" for path, keyword in places[:limit])
    more = f" and {total - min(len(places), limit)} more" if total > min(len(places), limit) else ""
    return f"answer breaks its schema ({total} violation{'' if total == 1 else 's'}): {named}{more}"
