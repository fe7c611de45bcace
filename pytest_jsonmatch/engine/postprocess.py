"""Post-processors: reclassify field results after scoring, before the metrics are computed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED, FieldResult


def reclassify_nulls(fields: Iterable[FieldResult], absent_values: Sequence[Any] = (None,),
                     both_absent_skip: bool = True) -> list[FieldResult]:
    """Treat null (or any of ``absent_values``) as "not extracted": a value against null
    becomes an omission (actual null) or a hallucination (expected null), and null against
    null is skipped (or a match, with ``both_absent_skip=False``).

    Only results that compared two leaf values change; omissions, hallucinations and
    container-level results stay as they are.
    """

    def absent(value: Any) -> bool:
        return any(value is v or (type(value) is type(v) and value == v) for v in absent_values)

    out: list[FieldResult] = []
    for fr in fields:
        if fr.status not in (MATCH, MISMATCH) or fr.reason == "both empty":
            out.append(fr)
            continue
        e_absent, a_absent = absent(fr.expected), absent(fr.actual)
        if e_absent and a_absent:
            status, score, reason = (SKIPPED, 0.0, "both absent") if both_absent_skip else (MATCH, 1.0, "both absent")
        elif e_absent:
            status, score, reason = HALLUCINATION, 0.0, "expected is absent"
        elif a_absent:
            status, score, reason = OMISSION, 0.0, "actual is absent"
        else:
            out.append(fr)
            continue
        out.append(FieldResult(fr.path, status, score, fr.expected, fr.actual, fr.comparator,
                               reason, fr.field_path, fr.actual_path))
    return out


BUILTIN_POST_PROCESSORS = {"reclassify_nulls": reclassify_nulls}
