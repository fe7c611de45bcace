"""What an update (``--jsonmatch-update``) writes into a conversation case: each turn's
``expected`` (the fields its answer must show), taken from the turn's answer where the
metric counted it wrong, as a run case's ``expected`` is taken from its run's answer. A
turn's steps (``expected_run``), the user's turns and the end state are never rewritten,
as a run case's steps and state are not.

The update is one value, the case's ``conversation:`` as its file holds it with the new
answers in place, so that the file's editor (updating/yaml_edit.py) rewrites only what
changed inside it and a review lists each field by its place in the file
(``[1].expected.order``). The rows of each turn's answer are given the same places, and
an xfail that names a turn's fields (``turns[1].order``) holds them there.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..engine.core.paths import index_segment, key_segment

if TYPE_CHECKING:
    from ..engine.results.field_results import FieldResult, MatchResult

KEY = "conversation"  # the key of the case the update rewrites


class TurnsUpdate(NamedTuple):
    """The conversation as written (``old``), as an update would write it (``new``: each
    turn that expects an answer given the turn's answer, for the update to take from), the
    answer rows at their places in it, and each such place's row path as scored."""

    old: object
    new: object
    rows: tuple[FieldResult, ...]
    scored_path: Mapping[str, str]


def turns_update(
    given: object, answers: Sequence[object], result: MatchResult
) -> TurnsUpdate | None:
    """The update of the conversation ``given`` (its ``conversation:`` value: a list of
    turns, or a mapping holding ``turns``) from ``answers`` (each user turn's answer, in
    order) and ``result`` (the conversation scored); None where no turn expects an answer."""
    turns = given if isinstance(given, list) else _mapping_turns(given)
    if turns is None:
        return None
    new = copy.deepcopy(given)
    new_turns = new if isinstance(new, list) else new["turns"]  # type: ignore[index]
    base = "" if isinstance(given, list) else key_segment("", "turns")
    rows: list[FieldResult] = []
    scored_path: dict[str, str] = {}
    expecting = False
    for k, turn in enumerate(turns):
        if not isinstance(turn, Mapping) or turn.get("expected") is None:
            continue
        expecting = True
        if k >= len(answers):  # (the conversation ended before it: its rows say so)
            continue
        new_turns[k]["expected"] = answers[k]
        place = key_segment(index_segment(base, k), "expected")
        for row in _answer_rows(result, k):
            path, actual = _placed(row.path, k, place) or place, row.actual_path
            moved = None if actual is None else _placed(actual, k, place)
            rows.append(row._replace(path=path, actual_path=moved))
            scored_path[path] = row.path
    return TurnsUpdate(given, new, tuple(rows), scored_path) if expecting else None


def _placed(path: str, turn: int, place: str) -> str | None:
    """A row path as scored (``turns[1].order``) at its place in the conversation."""
    scored = f"turns[{turn}]"
    if path == scored or path.startswith((scored + ".", scored + "[")):
        return place + path[len(scored) :]
    return None


def held_as_scored(
    covers: Callable[[str], bool], scored_path: Mapping[str, str]
) -> Callable[[str], bool]:
    """An xfail's test of a row path (it names the fields as scored: ``turns[1].order``)
    applied to the rows at their places in the conversation."""
    return lambda path: covers(scored_path.get(path, path))


def _mapping_turns(given: object) -> list[object] | None:
    turns = given.get("turns") if isinstance(given, Mapping) else None
    return turns if isinstance(turns, list) else None


def _answer_rows(result: MatchResult, turn: int) -> list[FieldResult]:
    """The rows of turn ``turn``'s answer part (its steps' rows are not the update's)."""
    out: list[FieldResult] = []
    at = 0
    for part in result.parts:
        if part.name == "answer" and part.turn == turn:
            out += result.fields[at : at + part.rows]
        at += part.rows
    return out
