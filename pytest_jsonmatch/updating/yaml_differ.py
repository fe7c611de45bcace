"""The minimal edit of one expected value: its old nodes walked beside the new value, every
sub-value that did not change kept byte for byte (yaml_edit.py says what is kept and how)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..engine.core.values import json_equal  # equal as JSON: 1 is 1.0, True is not 1
from .yaml_nodes import (
    ALIAS,
    COLON,
    Style,
    content_end,
    dump,
    is_flow,
    is_mapping,
    is_scalar,
    is_sequence,
    items_of,
    pairs_of,
    plain_reads_back,
)

if TYPE_CHECKING:  # yaml is imported when a file is read, not before
    from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# One edit: the text from ``start`` to ``end`` replaced by the new text.
Edit = tuple[int, int, str]

# -- the minimal edit ----------------------------------------------------------------------------


class _Whole(Exception):
    """This collection cannot be edited piece by piece: its parent writes it anew."""


class Differ:
    """The edits that turn an old value's nodes into a new value, keeping what did not change.

    ``diff`` walks the old node, its value as read and the new value together; it returns the
    edits, or ``None`` when the node is to be written anew by its parent (a scalar that
    changed, a value that changes kind, a collection of which nothing stays)."""

    def __init__(self, text: str, style: Style) -> None:
        self.text = text
        self.style = style
        self.nl = style.newline

    # -- walking

    def diff(self, node: Node, old: object, new: object, depth: int = 0) -> list[Edit] | None:
        if json_equal(old, new):
            return []
        if depth > 100 or not _shares(old, new):
            return None
        try:
            if is_mapping(node) and isinstance(old, dict) and isinstance(new, dict):
                return self._mapping(node, old, new, depth)
            if is_sequence(node) and isinstance(old, list) and isinstance(new, list):
                return self._sequence(node, old, new, depth)
        except _Whole:
            return None
        return None

    def _child(
        self,
        node: Node,
        old: object,
        new: object,
        depth: int,
        *,
        key: Node | None = None,
        indent: int = 0,
        flow: bool = False,
    ) -> list[Edit]:
        edits = self.diff(node, old, new, depth + 1)
        if edits is not None:
            return edits
        return [self._anew(node, new, key=key, indent=indent, flow=flow)]

    def _mapping(
        self, node: MappingNode, old: dict[str, object], new: dict[str, object], depth: int
    ) -> list[Edit]:
        pairs = pairs_of(node)
        if any(not isinstance(k.value, str) or k.tag.endswith(":merge") for k, _ in pairs) or [
            k.value for k, _ in pairs
        ] != list(old):
            raise _Whole  # merged keys: the value read is not the pairs written
        elsewhere = self._elsewhere(node, [n for pair in pairs for n in pair])
        if any(id(key) in elsewhere for key, _ in pairs):
            raise _Whole
        flow = bool(node.flow_style)
        column = pairs[0][0].start_mark.column
        ends: dict[int, int] = {}  # where a value ends that is an alias (``key: *name``)
        edits: list[Edit] = []
        for key, child in pairs:
            if id(child) in elsewhere:
                alias = ALIAS.match(self.text, key.end_mark.index)
                if alias is None:
                    raise _Whole
                ends[id(key)] = alias.end(1)
                if key.value in new and not json_equal(old[key.value], new[key.value]):
                    edits.append(self._alias_anew(alias, new[key.value], key, flow))
            elif key.value in new:
                edits += self._child(
                    child, old[key.value], new[key.value], depth, key=key, indent=column, flow=flow
                )
        after, front = _placed(list(old), list(new))

        def end_of(key: Node, child: Node) -> int:
            return ends.get(id(key)) or content_end(self.text, child)

        if flow:
            if after or front or len(new) != len(old):
                return [self._flow_rebuild(node, edits, pairs, new, after, front, end_of)]
            return edits
        for key, child in pairs:
            if key.value not in new:
                edits.append(self._delete_lines(key.start_mark.index, end_of(key, child)))
        for key, child in pairs:
            if key.value in after:
                at = self._line_end(end_of(key, child))
                body = dump({k: new[k] for k in after[key.value]}, self.style, False, column)
                edits.append((at, at, f"{self.nl}{' ' * column}{body}"))
        if front:
            first = next(k for k, _ in pairs if k.value in new)
            at = first.start_mark.index
            body = dump({k: new[k] for k in front}, self.style, False, column)
            edits.append((at, at, f"{body}{self.nl}{' ' * column}"))
        return edits

    def _sequence(
        self, node: SequenceNode, old: list[object], new: list[object], depth: int
    ) -> list[Edit]:
        items = items_of(node)
        elsewhere = self._elsewhere(node, items)
        flow = bool(node.flow_style)
        prefix, suffix = _ends(old, new)
        middle_old, middle_new = len(old) - prefix - suffix, len(new) - prefix - suffix
        paired = min(middle_old, middle_new)
        column = node.start_mark.column if not flow else 0
        edits: list[Edit] = []
        pairs = [(i, i) for i in range(prefix + paired)] + [
            (len(old) - 1 - i, len(new) - 1 - i) for i in range(suffix)
        ]
        for i, j in pairs:
            if id(items[i]) in elsewhere:
                if not json_equal(old[i], new[j]):
                    raise _Whole
                continue
            edits += self._child(items[i], old[i], new[j], depth, indent=column, flow=flow)
        removed = list(range(prefix + paired, prefix + middle_old))
        added = new[prefix + paired : prefix + middle_new]
        if not removed and not added:
            return edits
        if elsewhere:
            raise _Whole
        if flow:
            return [self._flow_rebuild_list(node, edits, pairs, new)]
        if self.text[node.start_mark.index] != "-":
            raise _Whole
        dashes = [self._dash(node, items, i) for i in range(len(items))]
        for i in removed:
            edits.append(self._delete_lines(dashes[i], content_end(self.text, items[i])))
        if added:
            body = dump(added, self.style, False, column)
            at_index = prefix + paired - 1  # the kept item the new ones follow
            if at_index >= 0:
                at = self._line_end(content_end(self.text, items[at_index]))
                edits.append((at, at, f"{self.nl}{' ' * column}{body}"))
            else:  # before the first kept item
                at = dashes[prefix + middle_old]
                edits.append((at, at, f"{body}{self.nl}{' ' * column}"))
        return edits

    # -- writing pieces anew

    def _anew(self, node: Node, new: object, *, key: Node | None, indent: int, flow: bool) -> Edit:
        """The edit that writes ``node`` (the value of ``key``, or a list item) anew."""
        text, style = self.text, self.style
        start, end = node.start_mark.index, content_end(text, node)
        if is_scalar(node) and not isinstance(new, (dict, list)):
            written = self._scalar(node, new, flow, indent)
            if start == end and not flow:  # an empty value (``key:``): after a space
                return start, end, " " + written
            return start, end, written
        inline = flow or is_flow(node) or not isinstance(new, (dict, list)) or not new
        if key is None:  # a list item: block text starts where the item did
            return start, end, dump(new, style, inline, node.start_mark.column)
        on_key_line = node.start_mark.line == key.start_mark.line
        if inline and (on_key_line or flow):
            return start, end, dump(new, style, True, node.start_mark.column)
        colon = COLON.match(text, key.end_mark.index)
        if colon is None:
            raise _Whole
        if inline:
            return colon.end(), end, " " + dump(new, style, True, indent)
        if not on_key_line and (is_mapping(node) if isinstance(new, dict) else is_sequence(node)):
            return start, end, dump(new, style, False, node.start_mark.column)
        column = key.start_mark.column + (
            0 if isinstance(new, list) and not style.indented_lists else style.step
        )
        return colon.end(), end, f"{self.nl}{' ' * column}{dump(new, style, False, column)}"

    def _alias_anew(self, alias: re.Match[str], new: object, key: Node, flow: bool) -> Edit:
        """The edit that writes a value in place of the alias token that gave it."""
        if flow or not isinstance(new, (dict, list)) or not new:
            return alias.start(1), alias.end(1), dump(new, self.style, True, 0)
        colon = self.text.index(":", alias.start()) + 1
        column = key.start_mark.column + (
            0 if isinstance(new, list) and not self.style.indented_lists else self.style.step
        )
        return colon, alias.end(1), f"{self.nl}{' ' * column}{dump(new, self.style, False, column)}"

    def _scalar(self, node: ScalarNode, new: object, flow: bool, indent: int) -> str:
        """A changed scalar in the style the old one had: plain stays plain while the new text
        reads back as the same string, quoted keeps its quotes, a block scalar stays one."""
        if not isinstance(new, str):
            return dump(new, self.style, True, 0)
        old_style = node.style or ""
        if old_style in ("|", ">") and not flow:
            return dump(new, self.style, False, indent, quote=old_style)
        if "\n" in new or "\r" in new or old_style == '"':
            return dump(new, self.style, True, 0, quote='"')  # one line, breaks escaped
        if old_style == "'":
            return dump(new, self.style, True, 0, quote="'")
        if old_style == "" and plain_reads_back(new, flow):
            return new
        return dump(new, self.style, True, 0)

    def _flow_rebuild(
        self,
        node: MappingNode,
        edits: list[Edit],
        pairs: list[tuple[Node, Node]],
        new: dict[str, object],
        after: dict[str, list[str]],
        front: list[str],
        end_of: Callable[[Node, Node], int],
    ) -> Edit:
        """A flow mapping whose keys changed, written again from its kept pairs' text (with
        their edits) and the new pairs."""
        parts = [self._flow_pair(k, new[k]) for k in front]
        for key, child in pairs:
            if key.value in new:
                parts.append(_applied(self.text, edits, key.start_mark.index, end_of(key, child)))
                parts += [self._flow_pair(k, new[k]) for k in after.get(key.value, ())]
        return self._flow_span(node, "{", "}", parts)

    def _flow_rebuild_list(
        self, node: SequenceNode, edits: list[Edit], kept: list[tuple[int, int]], new: list[object]
    ) -> Edit:
        """A flow list whose length changed, written again from its kept items' text (with
        their edits) and the new items."""
        by_new = {j: i for i, j in kept}
        parts = []
        for j, value in enumerate(new):
            if j in by_new:
                item = items_of(node)[by_new[j]]
                parts.append(
                    _applied(self.text, edits, item.start_mark.index, content_end(self.text, item))
                )
            else:
                parts.append(dump(value, self.style, True, 0))
        return self._flow_span(node, "[", "]", parts)

    def _flow_span(self, node: Node, opening: str, closing: str, parts: list[str]) -> Edit:
        start = self.text.find(opening, node.start_mark.index, node.end_mark.index)
        if start < 0 or self.text[node.end_mark.index - 1] != closing:
            raise _Whole
        return start, node.end_mark.index, opening + ", ".join(parts) + closing

    def _flow_pair(self, key: str, value: object) -> str:
        return f"{dump(key, self.style, True, 0)}: {dump(value, self.style, True, 0)}"

    # -- lines

    def _line_start(self, index: int) -> int:
        start = self.text.rfind("\n", 0, index) + 1
        if self.text[start:index].strip():
            raise _Whole  # something else shares the line (``- key: value``)
        return start

    def _line_end(self, index: int) -> int:
        """Where the line holding ``index`` ends, before its line break (past a comment)."""
        end = self.text.find("\n", index)
        if end < 0:
            return len(self.text)
        return end - 1 if end > 0 and self.text[end - 1] == "\r" else end

    def _delete_lines(self, start: int, content_end: int) -> Edit:
        """The lines from ``start``'s to ``content_end``'s, line break included."""
        start = self._line_start(start)
        end = self.text.find("\n", content_end)
        if end >= 0:
            return start, end + 1, ""
        # the file's last line, without a final line break: the break before it goes
        before = self.text.rfind("\n", 0, start)
        if before < 0:
            raise _Whole
        if before > 0 and self.text[before - 1] == "\r":
            before -= 1
        return before, len(self.text), ""

    def _dash(self, node: SequenceNode, items: list[Node], i: int) -> int:
        """Where the dash of a block list's item ``i`` is."""
        if i == 0:
            return node.start_mark.index
        dash = self.text.rfind("-", content_end(self.text, items[i - 1]), items[i].start_mark.index)
        if dash < 0:
            raise _Whole
        return dash

    @staticmethod
    def _elsewhere(node: Node, children: list[Node]) -> set[int]:
        """The ids of the children not written in place, in order: an alias's node is the
        anchored one, whose text lies elsewhere (it may stay, not be edited here)."""
        last = node.start_mark.index - 1
        elsewhere = set()
        for child in children:
            if child.start_mark.index <= last or child.start_mark.index > node.end_mark.index:
                elsewhere.add(id(child))
            else:
                last = child.start_mark.index
        return elsewhere


def _placed(old: list[str], new: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Where the keys new in ``new`` go: after which kept key, or before them all (``front``)."""
    after: dict[str, list[str]] = {}
    front: list[str] = []
    previous = None
    old_keys = set(old)
    for key in new:
        if key in old_keys:
            previous = key
        elif previous is None:
            front.append(key)
        else:
            after.setdefault(previous, []).append(key)
    return after, front


def _ends(old: list[object], new: list[object]) -> tuple[int, int]:
    """How many items the lists share at their start and, after that, at their end."""
    prefix = 0
    while prefix < min(len(old), len(new)) and json_equal(old[prefix], new[prefix]):
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and json_equal(
        old[-1 - suffix], new[-1 - suffix]
    ):
        suffix += 1
    return prefix, suffix


def _shares(old: object, new: object) -> bool:
    """Whether anything of ``old`` stays in ``new`` (a value, at any depth, at its place)."""
    if json_equal(old, new):
        return True
    if isinstance(old, dict) and isinstance(new, dict):
        return any(_shares(old[k], new[k]) for k in old if k in new)
    if isinstance(old, list) and isinstance(new, list):
        prefix, suffix = _ends(old, new)
        if prefix or suffix:
            return True
        return any(_shares(a, b) for a, b in zip(old, new))
    return False


def _applied(text: str, edits: list[Edit], start: int, end: int) -> str:
    """``text[start:end]`` with the edits that lie inside it made."""
    out = text[start:end]
    for lo, hi, new in sorted(edits, reverse=True):
        if start <= lo and hi <= end:
            out = out[: lo - start] + new + out[hi - start :]
    return out
