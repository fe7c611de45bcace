"""A case's ``judge_labels``: a person's verdicts on the judge's fields of the case, checked
where the case is read (case_files.py), so that a label that names nothing is the case
file's error, never found missing when the judge's calibration runs.

``judge_labels`` maps field paths of the case's expected value, as the field tables write
them (``summary``, ``items[0].note``), to ``same`` or ``different``: the person's verdict on
what the case produced there (calibration/case_labels.py pairs each with the output).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..engine.core.errors import CaseFileError
from .agent_expectations import AGENT_KEYS
from .case_layers import kind_of

VERDICTS = {"same": True, "different": False}
# the most field paths of an expected value a wrong path's suggestion looks at (the typo
# checks' bound, cases/typos.py)
MAX_PATHS = 200_000


def judge_labels_of(
    data: Mapping[str, object], error: Callable[[str], CaseFileError], expected: object
) -> dict[str, bool]:
    """The case ``data``'s ``judge_labels`` (empty: none), each path's verdict True for
    "same"; ``error`` makes the case file's error at the key's line. A path that names no
    field of ``expected`` (or a mapping or a list: the judge decides one field's value) is
    refused, with the nearest paths the value has; so is a verdict other than same or
    different, and a label on an agent's case (its output is not one value of fields)."""
    if "judge_labels" not in data:
        return {}
    given = data["judge_labels"]
    if not isinstance(given, Mapping):
        raise error(
            f"judge_labels must be a mapping of field paths to 'same' or 'different', "
            f"not {kind_of(given)}"
        )
    if any(key in data for key in AGENT_KEYS):
        raise error("judge_labels labels a plain case's fields, not an agent's")
    if not isinstance(expected, (Mapping, list)):
        raise error("judge_labels labels fields of the case's expected value: give one")
    out: dict[str, bool] = {}
    for path, verdict in given.items():
        if not isinstance(path, str) or not path:
            raise error(f"judge_labels: a field path must be text, not {kind_of(path)}")
        if not isinstance(verdict, str) or verdict not in VERDICTS:
            raise error(
                f"judge_labels {quoted(path)}: the verdict is 'same' or 'different', not "
                f"{quoted(verdict)}"
            )
        why = _not_a_field(expected, path)
        if why:
            raise error(f"judge_labels {quoted(path)}: {why}")
        out[path] = VERDICTS[verdict]
    return out


def _not_a_field(expected: object, path: str) -> str:
    """Why ``path`` names no field of ``expected`` that the judge could have decided (empty:
    it does), with the nearest paths the value has."""
    value = value_at(expected, path)
    if value is _ABSENT:
        from ..engine.core.paths import nearest_paths

        close = nearest_paths(path, _field_paths(expected))
        hint = f"; did you mean {' or '.join(map(quoted, close))}?" if close else ""
        return f"no such field in the case's expected value{hint}"
    if isinstance(value, (Mapping, list)):
        return f"it holds {kind_of(value)}; label one field of it (the judge decides one value)"
    return ""


_ABSENT = object()


def _field_paths(value: object) -> list[str]:
    """The instance paths of ``value``'s fields holding one value (not a mapping nor a
    list): what a label may name; at most :data:`MAX_PATHS` of them."""
    from ..engine.core.paths import index_segment, key_segment

    out: list[str] = []
    stack: list[tuple[object, str]] = [(value, "")]
    while stack and len(out) < MAX_PATHS:
        node, path = stack.pop()
        if isinstance(node, Mapping):
            stack.extend((v, key_segment(path, str(k))) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, index_segment(path, i)) for i, v in enumerate(node))
        else:
            out.append(path)
    return out


def quoted(value: object) -> str:
    """A path or verdict from the case file as its error quotes it: its repr, cut as a
    report cuts a reason (a 5 MB key is not echoed whole)."""
    from ..engine.core.masking import safe_reason

    return safe_reason(repr(value))


def value_at(value: object, path: str) -> object:
    """The value at instance path ``path`` of ``value`` (``items[0].note``), or a marker
    :func:`absent` tells apart where it has none."""
    from ..engine.core.paths import path_segments

    for segment in path_segments(path):
        if segment[0] == "k" and isinstance(value, Mapping) and segment[1:] in value:
            value = value[segment[1:]]
        elif segment[0] == "i" and isinstance(value, list) and segment[1:].isdigit():
            index = int(segment[1:])
            if index >= len(value):
                return _ABSENT
            value = value[index]
        else:
            return _ABSENT
    return value


def absent(value: object) -> bool:
    """Whether :func:`value_at` found nothing."""
    return value is _ABSENT
