"""Post-processors: reclassify field results after scoring, before the metrics are computed.

``reclassify_nulls`` counts null (or other "absent" values) as not extracted;
``propagate_batch_errors`` leaves out every field of a batch comparator that failed for some.
Both are extract-eval's, and both are registered under their names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .field_results import BATCH_ERROR, HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED, FieldResult


def reclassify_nulls(fields: Iterable[FieldResult], absent_values: Sequence[Any] = (None,),
                     both_absent_skip: bool = True) -> list[FieldResult]:
    """Treat null (or any of ``absent_values``) as "not extracted": a value against null
    becomes an omission (actual null) or a hallucination (expected null), and null against
    null is skipped (or a match, with ``both_absent_skip=False``).

    The values looked at are those the comparator saw: after the field's transforms, so
    ``"   "`` under ``strip`` is ``""`` (absent when ``""`` is listed). Only results that
    compared two leaf values change; omissions, hallucinations, batch errors and
    container-level results stay as they are.
    """

    def absent(value: Any) -> bool:
        return any(value is v or (type(value) is type(v) and value == v) for v in absent_values)

    out: list[FieldResult] = []
    for fr in fields:
        if fr.status not in (MATCH, MISMATCH) or fr.reason == "both empty":
            out.append(fr)
            continue
        seen_e, seen_a = fr.compared if fr.compared is not None else (fr.expected, fr.actual)
        e_absent, a_absent = absent(seen_e), absent(seen_a)
        if e_absent and a_absent:
            status, score, reason = (SKIPPED, 0.0, "both absent") if both_absent_skip else (MATCH, 1.0, "both absent")
        elif e_absent:
            status, score, reason = HALLUCINATION, 0.0, "expected is absent"
        elif a_absent:
            status, score, reason = OMISSION, 0.0, "actual is absent"
        else:
            out.append(fr)
            continue
        out.append(fr._replace(status=status, score=score, reason=reason))
    return out


def propagate_batch_errors(fields: Iterable[FieldResult]) -> list[FieldResult]:
    """When a batch comparator (an LLM judge) failed for some fields of a record, its other
    answers in that record are not trusted either: every field it scored becomes a
    ``batch_error`` too. Omissions and hallucinations stay (they were found before the
    comparator ran), and so does every field of another comparator."""
    fields = list(fields)
    tainted = {fr.comparator for fr in fields if fr.status == BATCH_ERROR and fr.comparator}
    if not tainted:
        return fields
    return [fr._replace(status=BATCH_ERROR, score=0.0,
                        reason=f"batch tainted: comparator {fr.comparator!r} failed for other fields "
                               f"of this record")
            if fr.comparator in tainted and fr.status in (MATCH, MISMATCH, SKIPPED) else fr
            for fr in fields]


BUILTIN_POST_PROCESSORS = {"reclassify_nulls": reclassify_nulls,
                           "propagate_batch_errors": propagate_batch_errors}
