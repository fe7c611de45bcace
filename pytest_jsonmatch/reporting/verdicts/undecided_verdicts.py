"""Comparisons the judge left undecided: one state, read alike by every gate.

A comparison with a field that a batch comparator (the LLM judge) could not score, because
its reply was prose, too short or cut off, or because the judge could not be reached, was
not decided: it is neither a pass nor a low score. Wherever it is made (a pytest test,
``jsonmatch score``) it is recorded as an error, scored 0, whose message says which fields
and why, with the count of those fields (``Comparison.undecided``). Every gate reads that
count (gates.py): no gate passes a run holding one, whichever share of the run it is, and
``jsonmatch report`` reads it back from a saved report rather than its stored verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...engine.results.field_results import BATCH_ERROR

if TYPE_CHECKING:
    from ...engine.results.field_results import MatchResult
    from ..run_model.report_types import ComparisonDict, Report

PATHS_NAMED = 5
UNDECIDED_FAILURE = "the judge left "  # how the gate failure of undecided comparisons starts  # the undecided fields a message names by path before "..."


def undecided_message(result: MatchResult) -> str:
    """What a comparison with fields a batch comparator could not score says: how many, the
    comparators' reasons, and the first paths."""
    failed = [fr for fr in result.fields if fr.status == BATCH_ERROR]
    reasons = sorted({fr.reason or f"batch comparator {fr.comparator!r} failed" for fr in failed})
    paths = ", ".join(fr.display_path for fr in failed[:PATHS_NAMED])
    more = ", ..." if len(failed) > PATHS_NAMED else ""
    noun = "field" if len(failed) == 1 else "fields"
    return (
        f"{result.metric}: {len(failed)} {noun} could not be scored "
        f"({'; '.join(reasons)}) at {paths}{more}"
    )


def undecided_failure(count: int, why: str) -> str:
    """The gate failure of a run with ``count`` comparisons left undecided, ``why`` being
    one of their messages (empty: none)."""
    if not count:
        return ""
    noun = "comparison" if count == 1 else "comparisons"
    reason = f" ({why})" if why else ""
    return (
        f"{UNDECIDED_FAILURE}{count} {noun} undecided{reason}: no gate passes on a comparison "
        f"the judge did not decide"
    )


def saved_undecided(report: Report) -> tuple[int, str]:
    """How many counted comparisons of a saved report the judge left undecided, and the
    message of one (the least in sort order, as the run's gates chose it), read from the
    comparisons themselves (their ``undecided`` count or a field whose status is
    ``batch_error``) and from the per-metric counts, whichever says more: a report that
    keeps no comparison still counts them per metric."""
    from ..run_model.comparisons import EXPECTED_TO_FAIL, undecided_of

    found, why = 0, ""
    for data in report.get("comparisons") or ():
        if not isinstance(data, Mapping) or data.get("status") in EXPECTED_TO_FAIL:
            continue
        if data.get("quarantine") is not None:  # counted by no gate
            continue
        try:
            undecided = undecided_of(_as_comparison(data))
        except ValueError:
            undecided = 1  # a count that is no count is not a decision either
        error = str(data.get("error", ""))
        if undecided:
            found += 1
            why = min(why, error) if why and error else why or error
    per_metric = sum(
        tally.get("undecided", 0) if isinstance(tally.get("undecided", 0), int) else 1
        for tally in (report.get("metrics") or {}).values()
        if isinstance(tally, Mapping)
    )
    return max(found, per_metric), why


def _as_comparison(data: Mapping[str, object]) -> ComparisonDict:
    """A report's comparison entry, as read (its keys are checked where they are used)."""
    return data  # type: ignore[return-value]
