"""Rewriting the ``expected`` of golden cases inside their case file, byte for byte (the
minimal edit of one value is yaml_differ.py's; nodes and styles are yaml_nodes.py's).

An update edits the old value's YAML nodes, not its text as a whole: the new value is walked
alongside the old node tree, and every sub-value that did not change (as JSON: ``1`` is
``1.0``; a plain ``2024-01-13`` is the string it reads as) keeps its bytes, its quotes and any
comment beside it, an alias (``*name``) included. Only what changed is written: a changed
scalar in the quotes it had (a plain one stays plain while it reads back as itself), a key
added to a mapping at its indentation, after the key it follows in the new value, a removed
key's lines, a list's added or removed items (the items the old and new lists share at their
start and end are kept, the others paired in order and edited). A flow mapping or list whose
keys or length change is written again from its kept pieces. A mapping or list of which
nothing stays, and a value that changes kind, is written anew. Everything outside the edits
stays as it was: comments, key order, blank lines, the other cases, line endings, a missing
final newline. New text follows the style the file already uses (flow or block, its
indentation, how it indents lists, the quotes it prefers where a string needs quotes). The
result is read back before anything is written: it must hold exactly the new values where the
old ones were and nothing else changed, or the file is left alone with an error naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, cast

from ..engine.core.errors import CaseFileError
from ..engine.core.values import json_equal  # equal as JSON: 1 is 1.0, True is not 1
from ..engine.reading.safe_yaml import parse_yaml
from .yaml_differ import Differ, Edit
from .yaml_nodes import (
    ALIAS,
    Style,
    content_end,
    dump,
    file_style,
    is_flow,
    is_scalar,
    node_keys,
    scalar_text,
)

if TYPE_CHECKING:  # yaml is imported when a file is read, not before
    from yaml.nodes import Node


def rewrite(
    text: str,
    values: Mapping[str, object],
    display: str,
    default_id: str,
    keys: Mapping[str, str] | None = None,
) -> str:
    """``text`` with the expected value of each case in ``values`` (case id -> new value)
    replaced, or inserted where the case has none; a case in ``keys`` (case id -> key) has
    that key's value replaced instead (a conversation's ``conversation``: its turns'
    answers). ``default_id`` is the id of a file's single case when it gives none."""
    keyed = {case_id: ((keys or {}).get(case_id, "expected"), v) for case_id, v in values.items()}
    root: Node
    data, root = parse_yaml(text, display)
    style = file_style(text, root)
    edits: list[Edit] = []
    for case_id, (key, value) in keyed.items():
        case, old = _case_node(root, data, case_id, default_id, display)
        try:
            edits += _edit(text, case, old, key, value, style)
        except CaseFileError as exc:  # every failure names the file
            message = str(exc)
            raise CaseFileError(
                message if message.startswith(f"{display}:") else f"{display}: {message}"
            ) from None
        except (ValueError, TypeError, LookupError, RecursionError) as exc:
            raise CaseFileError(
                f"{display}: cannot update case {case_id!r} ({exc}); left as it was"
            ) from exc
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    _verify(out, cast("Mapping[str, object]", data), keyed, display, default_id)
    return out


# -- finding things ----------------------------------------------------------------------------


def _case_node(
    root: Node, data: object, case_id: str, default_id: str, display: str
) -> tuple[Node, object]:
    """The case's node and its value as read."""
    keys = node_keys(root)
    if "cases" not in keys:
        return root, data  # a file holding one case
    for index, item in enumerate(keys["cases"][1].value):
        item_keys = node_keys(item)
        if "id" in item_keys and scalar_text(item_keys["id"][1]) == case_id:
            cases = data.get("cases") if isinstance(data, Mapping) else None
            old = cases[index] if isinstance(cases, list) and index < len(cases) else None
            return item, old
    raise CaseFileError(
        f"{display}: no case {case_id!r} to update (was the file edited meanwhile?)"
    )


# -- the edit ----------------------------------------------------------------------------------


def _edit(
    text: str, case: Node, old_case: object, name: str, value: object, style: Style
) -> list[Edit]:
    """The edits (start, end, new text) that give ``case``'s key ``name`` the ``value``."""
    keys = node_keys(case)
    if name in keys:
        key, node = keys[name]
        old = old_case.get(name, _NOTHING) if isinstance(old_case, Mapping) else _NOTHING
        return _replaced(text, key, node, old, value, style)
    if name != "expected":  # (a conversation's turns are in its case: never added)
        raise CaseFileError(f"the case has no {name} to update (was the file edited meanwhile?)")
    return _added(text, case, value, style)


_NOTHING = object()  # a case that had no expected value to diff against


def _replaced(
    text: str, key: Node, node: Node, old: object, value: object, style: Style
) -> list[Edit]:
    """The edits that replace the expected value ``node`` (of ``key``) with ``value``: the
    alias token where the case wrote one, else a diff of the ``old`` value's lines where it
    can be made, else the value written anew."""
    if node.start_mark.index < key.end_mark.index:
        # an alias (``expected: *shared``): its node is the anchored one, elsewhere in the
        # file; the alias token is what this case wrote, and what is replaced
        alias = ALIAS.match(text, key.end_mark.index)
        if alias is None:
            raise CaseFileError("cannot find the alias of the expected value to replace")
        return [(alias.start(1), alias.end(1), dump(value, style, True, 0))]
    if old is not _NOTHING:
        try:
            edits = Differ(text, style).diff(node, old, value)
        except (ValueError, LookupError, AttributeError, TypeError, RecursionError):
            edits = None  # a shape not foreseen: the value is written anew, as below
        if edits is not None:
            return _checked(edits)
    start, end = node.start_mark.index, content_end(text, node)
    flow = is_flow(node) or is_scalar(node)
    if not flow and value and node.start_mark.line == key.start_mark.line:
        # a block value after an anchor or a tag on the key's line: the new block goes
        # on the next lines (the anchor goes with the old value)
        column = key.start_mark.column + style.step
        start = len(text[:start].rstrip(" \t"))
        return [(start, end, f"{style.newline}{' ' * column}{dump(value, style, False, column)}")]
    return [(start, end, dump(value, style, flow, node.start_mark.column))]


def _added(text: str, case: Node, value: object, style: Style) -> list[Edit]:
    """The edit that adds an expected ``value`` to a case without one: a last key of a flow
    mapping, or a new last line of a block one, at the column of the case's keys."""
    if is_flow(case):
        close = case.end_mark.index - 1  # the closing brace
        before = text[:close].rstrip()
        separator = ", " if not before.endswith("{") else ""
        return [(len(before), len(before), f"{separator}expected: {dump(value, style, True, 0)}")]
    column = case.value[0][0].start_mark.column
    end = content_end(text, case)
    if style.flow or not value:
        new = f"expected: {dump(value, style, True, column)}"
    else:
        body = dump(value, style, False, column + style.step)
        new = f"expected:{style.newline}{' ' * (column + style.step)}{body}"
    return [(end, end, f"{style.newline}{' ' * column}{new}")]


def _checked(edits: list[Edit]) -> list[Edit]:
    """The edits, which must not overlap (an insertion may touch a replacement's end)."""
    ordered = sorted(edits)
    for (_, end, _), (start, _, _) in pairwise(ordered):
        if start < end:
            raise CaseFileError("the update's edits overlap; left as it was")
    return edits


# -- checking before writing ---------------------------------------------------------------------


def _verify(
    new_text: str,
    old_data: Mapping[str, object],
    values: Mapping[str, tuple[str, object]],
    display: str,
    default_id: str,
) -> None:
    """The rewritten file must read as the old one with exactly the new values."""
    try:
        new_data, _ = parse_yaml(new_text, display)
    except CaseFileError as exc:
        raise CaseFileError(
            f"{display}: the updated file would not read back ({exc}); left as it was"
        ) from None
    wanted = _with_values(old_data, values, default_id)
    if not json_equal(new_data, wanted):
        raise CaseFileError(
            f"{display}: the update would change more than the expected values "
            f"(an anchor or alias shared with them?); left as it was"
        )


def _with_values(
    data: Mapping[str, object], values: Mapping[str, tuple[str, object]], default_id: str
) -> dict[str, object]:
    if "cases" not in data:
        key, value = values[str(data.get("id", default_id))]
        return {**data, key: value}
    # 'cases' as read from a case file: a list of mappings
    cases = [
        {**case, values[str(case["id"])][0]: values[str(case["id"])][1]}
        if str(case.get("id")) in values
        else case
        for case in cast("list[Mapping[str, object]]", data["cases"])
    ]
    return {**data, "cases": cases}
