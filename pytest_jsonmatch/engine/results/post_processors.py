"""Post-processors: reclassify field results after scoring, before the metrics are computed.

``reclassify_nulls`` counts null (or other "absent" values) as not extracted;
``propagate_batch_errors`` leaves out every field of a batch comparator that failed for some.
Both are extract-eval's, and both are registered under their names. ``field_f1`` runs the
ones its ``post_process`` option names through :func:`run_post_processors`, which checks
what each returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from ..core.errors import (
    ComparatorError,
    ConfigError,
    JsonMatchError,
    did_you_mean,
    known_names,
    printable,
    shown,
)
from .field_results import (
    BATCH_ERROR,
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    STATUSES,
    FieldResult,
)


def reclassify_nulls(
    fields: Iterable[FieldResult],
    absent_values: Sequence[object] = (None,),
    both_absent_skip: bool = True,
) -> list[FieldResult]:
    """Treat null (or any of ``absent_values``) as "not extracted": a value against null
    becomes an omission (actual null) or a hallucination (expected null), and null against
    null is skipped (or a match, with ``both_absent_skip=False``).

    The values looked at are those the comparator saw: after the field's transforms, so
    ``"   "`` under ``strip`` is ``""`` (absent when ``""`` is listed). Only results that
    compared two leaf values change; omissions, hallucinations, batch errors and
    container-level results stay as they are.
    """

    def absent(value: object) -> bool:
        return any(value is v or (type(value) is type(v) and value == v) for v in absent_values)

    out: list[FieldResult] = []
    for fr in fields:
        if fr.status not in (MATCH, MISMATCH) or fr.reason == "both empty":
            out.append(fr)
            continue
        seen_e, seen_a = fr.compared if fr.compared is not None else (fr.expected, fr.actual)
        e_absent, a_absent = absent(seen_e), absent(seen_a)
        if e_absent and a_absent:
            status, score, reason = (
                (SKIPPED, 0.0, "both absent") if both_absent_skip else (MATCH, 1.0, "both absent")
            )
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
    return [
        fr._replace(
            status=BATCH_ERROR,
            score=0.0,
            reason=f"batch tainted: comparator {fr.comparator!r} failed for other fields "
            f"of this record",
        )
        if fr.comparator in tainted and fr.status in (MATCH, MISMATCH, SKIPPED)
        else fr
        for fr in fields
    ]


def spare_cut_elements(fields: Iterable[FieldResult], elements: Sequence[str]) -> list[FieldResult]:
    """An answer cut off and scored closed (``truncated="close"``): the array elements the
    model was still writing (``elements``, instance paths such as ``items[1]``) may be too
    short for a metric that pairs elements to find them a partner. Such a field was not
    invented, it was cut: a hallucination at or below one of them is ``skipped`` instead,
    and counts nowhere. Not a registered post-processor: match_json runs it on cut answers."""
    fields = list(fields)
    if not elements:
        return fields
    heads = tuple(elements)
    below = tuple(head + sep for head in heads for sep in (".", "["))

    def cut(fr: FieldResult) -> bool:
        where = fr.actual_path if fr.actual_path is not None else fr.path
        return where in heads or where.startswith(below)

    return [
        fr._replace(
            status=SKIPPED,
            score=0.0,
            reason="written when the answer was cut off: not counted as invented",
        )
        if fr.status == HALLUCINATION and cut(fr)
        else fr
        for fr in fields
    ]


BUILTIN_POST_PROCESSORS = {
    "reclassify_nulls": reclassify_nulls,
    "propagate_batch_errors": propagate_batch_errors,
}


# -- running them, checked ---------------------------------------------------------------------


# ``fn(fields) -> fields``; a user's is checked for what it returns (_post_processed)
PostProcessor = Callable[[list[FieldResult]], object]


def _named(spec: object, known: Mapping[str, PostProcessor]) -> list[PostProcessor]:
    if spec is None:
        return []
    out: list[PostProcessor] = []
    for item in spec if isinstance(spec, (list, tuple)) else [spec]:
        if callable(item):
            out.append(item)
        elif isinstance(item, str) and item in known:
            out.append(known[item])
        else:
            raise ConfigError(
                f"unknown post-processor {shown(item)}{did_you_mean(item, known)}; "
                f"known: {known_names(known)}"
            )
    return out


def _post_processed(post: PostProcessor, fields: list[FieldResult]) -> list[FieldResult]:
    """What a post-processor makes of the field results, checked: a list of FieldResults
    with known statuses and scores in [0, 1]; anything else is a ComparatorError naming it."""
    name = getattr(post, "__name__", type(post).__name__)
    try:
        returned = post(list(fields))
        if isinstance(returned, (str, bytes, Mapping)) or not isinstance(returned, Iterable):
            raise ComparatorError(
                f"post-processor {name!r} returned a {type(returned).__name__}, "
                f"not a list of FieldResults"
            )
        out = list(returned)  # a generator runs its code here
    except JsonMatchError:
        raise
    except Exception as exc:  # noqa: BLE001 - user code: say whose it is
        raise ComparatorError(
            f"post-processor {name!r} raised {type(exc).__name__}: {printable(str(exc))[:200]}"
        ) from None
    for fr in out:
        if not isinstance(fr, FieldResult):
            raise ComparatorError(
                f"post-processor {name!r} returned a {type(fr).__name__}, not a FieldResult"
            )
        in_unit = isinstance(fr.score, (int, float)) and 0.0 <= fr.score <= 1.0  # NaN is not
        if fr.status not in STATUSES or not in_unit:
            raise ComparatorError(
                f"post-processor {name!r} returned {fr.display_path} with "
                f"status {shown(fr.status)} and score {shown(fr.score)}; "
                f"statuses are {', '.join(STATUSES)}, scores in [0, 1]"
            )
    return out


def run_post_processors(
    spec: object, fields: list[FieldResult], known: Mapping[str, PostProcessor]
) -> list[FieldResult]:
    """``fields`` through the post-processors ``spec`` names (a name from ``known``, a
    callable, or a list of them), in order; each one's output checked (see above)."""
    for post in _named(spec, known):
        fields = _post_processed(post, fields)
    return fields
