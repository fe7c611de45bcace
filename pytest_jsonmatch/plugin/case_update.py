"""Rewriting the ``expected`` of golden cases inside their case file, byte for byte.

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

import hashlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..engine.core.errors import CaseFileError
from ..engine.reading.safe_yaml import parse_yaml


@dataclass(frozen=True)
class Style:
    """How a file writes YAML: flow or block expected values, the indentation step, whether a
    list under a key is indented, and which quotes it prefers."""

    flow: bool = False
    step: int = 2
    indented_lists: bool = True
    double_quotes: bool = False
    newline: str = "\n"


def rewrite(text: str, values: Mapping[str, Any], display: str, default_id: str) -> str:
    """``text`` with the expected value of each case in ``values`` (case id -> new value)
    replaced, or inserted where the case has none. ``default_id`` is the id of a file's
    single case when it gives none."""
    data, root = parse_yaml(text, display)
    style = _style(text, root)
    edits: list[tuple[int, int, str]] = []
    for case_id, value in values.items():
        case, old = _case_node(root, data, case_id, default_id, display)
        try:
            edits += _edit(text, case, old, value, style)
        except CaseFileError as exc:  # every failure names the file
            message = str(exc)
            raise CaseFileError(message if message.startswith(f"{display}:")
                                else f"{display}: {message}") from None
        except (ValueError, TypeError, LookupError, RecursionError) as exc:
            raise CaseFileError(f"{display}: cannot update case {case_id!r} ({exc}); "
                                f"left as it was") from exc
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    _verify(out, data, values, display, default_id)
    return out


# -- finding things ----------------------------------------------------------------------------


def _case_node(root: Any, data: Any, case_id: str, default_id: str, display: str) -> tuple[Any, Any]:
    """The case's node and its value as read."""
    keys = _keys(root)
    if "cases" not in keys:
        return root, data  # a file holding one case
    for index, item in enumerate(keys["cases"][1].value):
        item_keys = _keys(item)
        if "id" in item_keys and _text(item_keys["id"][1]) == case_id:
            cases = data.get("cases") if isinstance(data, Mapping) else None
            old = cases[index] if isinstance(cases, list) and index < len(cases) else None
            return item, old
    raise CaseFileError(f"{display}: no case {case_id!r} to update (was the file edited meanwhile?)")


def _keys(node: Any) -> dict[str, tuple[Any, Any]]:
    if getattr(node, "id", None) != "mapping":
        return {}
    return {k.value: (k, v) for k, v in node.value if isinstance(k.value, str)}


def _text(node: Any) -> str:
    return str(node.value) if node.id == "scalar" else ""


def _content_end(text: str, node: Any) -> int:
    """Where the node's own text ends: a block collection's end mark lies past the blank
    lines and comments after it, a block scalar's past its trailing line breaks."""
    if node.id == "scalar":
        end = node.end_mark.index
        if node.style in ("|", ">"):
            end = node.start_mark.index + len(text[node.start_mark.index:end].rstrip())
        return end
    if getattr(node, "flow_style", False):
        return node.end_mark.index
    start, end = node.start_mark.index, node.end_mark.index
    children = [n for pair in node.value for n in (pair if isinstance(pair, tuple) else (pair,))]
    inside = [c for c in children if start <= c.start_mark.index < end]
    if len(inside) == len(children):
        return max(_content_end(text, child) for child in children)
    # an alias among the children points elsewhere: scan back from the end mark instead
    return start + len(_strip_trailing(text[start:end]))


def _strip_trailing(text: str) -> str:
    """``text`` without trailing blank lines and comment lines."""
    lines = text.splitlines(keepends=True)
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "".join(lines).rstrip()


# -- the edit ----------------------------------------------------------------------------------

_ALIAS = re.compile(r"[ \t]*:[ \t]*(\*[^\s,\[\]{}]+)")
_COLON = re.compile(r"[ \t]*:")



def _edit(text: str, case: Any, old_case: Any, value: Any, style: Style) -> list[tuple[int, int, str]]:
    """The edits (start, end, new text) that give ``case`` the expected ``value``."""
    keys = _keys(case)
    if "expected" in keys:
        key, node = keys["expected"]
        if node.start_mark.index < key.end_mark.index:
            # an alias (``expected: *shared``): its node is the anchored one, elsewhere in the
            # file; the alias token is what this case wrote, and what is replaced
            alias = _ALIAS.match(text, key.end_mark.index)
            if alias is None:
                raise CaseFileError("cannot find the alias of the expected value to replace")
            return [(alias.start(1), alias.end(1), _dump(value, style, True, 0))]
        if isinstance(old_case, Mapping) and "expected" in old_case:
            try:
                edits = _Differ(text, style).diff(node, old_case["expected"], value)
            except (ValueError, LookupError, AttributeError, TypeError, RecursionError):
                edits = None  # a shape not foreseen: the value is written anew, as below
            if edits is not None:
                return _checked(edits)
        start, end = node.start_mark.index, _content_end(text, node)
        flow = getattr(node, "flow_style", False) or node.id == "scalar"
        if not flow and value and node.start_mark.line == key.start_mark.line:
            # a block value after an anchor or a tag on the key's line: the new block goes
            # on the next lines (the anchor goes with the old value)
            column = key.start_mark.column + style.step
            start = len(text[:start].rstrip(" \t"))
            return [(start, end, f"{style.newline}{' ' * column}{_dump(value, style, False, column)}")]
        return [(start, end, _dump(value, style, flow, node.start_mark.column))]
    if getattr(case, "flow_style", False):
        close = case.end_mark.index - 1  # the closing brace
        before = text[:close].rstrip()
        separator = ", " if not before.endswith("{") else ""
        return [(len(before), len(before), f"{separator}expected: {_dump(value, style, True, 0)}")]
    # a block case: a new last key, at the column of the case's keys
    column = case.value[0][0].start_mark.column
    end = _content_end(text, case)
    if style.flow or not value:
        new = f"expected: {_dump(value, style, True, column)}"
    else:
        body = _dump(value, style, False, column + style.step)
        new = f"expected:{style.newline}{' ' * (column + style.step)}{body}"
    return [(end, end, f"{style.newline}{' ' * column}{new}")]


def _checked(edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The edits, which must not overlap (an insertion may touch a replacement's end)."""
    ordered = sorted(edits)
    for (_, end, _), (start, _, _) in pairwise(ordered):
        if start < end:
            raise CaseFileError("the update's edits overlap; left as it was")
    return edits


# -- the minimal edit ----------------------------------------------------------------------------


class _Whole(Exception):
    """This collection cannot be edited piece by piece: its parent writes it anew."""


class _Differ:
    """The edits that turn an old value's nodes into a new value, keeping what did not change.

    ``diff`` walks the old node, its value as read and the new value together; it returns the
    edits, or ``None`` when the node is to be written anew by its parent (a scalar that
    changed, a value that changes kind, a collection of which nothing stays)."""

    def __init__(self, text: str, style: Style) -> None:
        self.text = text
        self.style = style
        self.nl = style.newline

    # -- walking

    def diff(self, node: Any, old: Any, new: Any, depth: int = 0) -> list[tuple[int, int, str]] | None:
        if _same(old, new):
            return []
        if depth > 100 or not _shares(old, new):
            return None
        try:
            if node.id == "mapping" and isinstance(old, dict) and isinstance(new, dict):
                return self._mapping(node, old, new, depth)
            if node.id == "sequence" and isinstance(old, list) and isinstance(new, list):
                return self._sequence(node, old, new, depth)
        except _Whole:
            return None
        return None

    def _child(self, node: Any, old: Any, new: Any, depth: int, *, key: Any = None,
               indent: int = 0, flow: bool = False) -> list[tuple[int, int, str]]:
        edits = self.diff(node, old, new, depth + 1)
        if edits is not None:
            return edits
        return [self._anew(node, new, key=key, indent=indent, flow=flow)]

    def _mapping(self, node: Any, old: dict[str, Any], new: dict[str, Any],
                 depth: int) -> list[tuple[int, int, str]]:
        pairs = node.value
        if any(not isinstance(k.value, str) or k.tag.endswith(":merge") for k, _ in pairs) \
                or [k.value for k, _ in pairs] != list(old):
            raise _Whole  # merged keys: the value read is not the pairs written
        elsewhere = self._elsewhere(node, [n for pair in pairs for n in pair])
        if any(id(key) in elsewhere for key, _ in pairs):
            raise _Whole
        flow = bool(node.flow_style)
        column = pairs[0][0].start_mark.column
        ends: dict[int, int] = {}  # where a value ends that is an alias (``key: *name``)
        edits: list[tuple[int, int, str]] = []
        for key, child in pairs:
            if id(child) in elsewhere:
                alias = _ALIAS.match(self.text, key.end_mark.index)
                if alias is None:
                    raise _Whole
                ends[id(key)] = alias.end(1)
                if key.value in new and not _same(old[key.value], new[key.value]):
                    edits.append(self._alias_anew(alias, new[key.value], key, flow))
            elif key.value in new:
                edits += self._child(child, old[key.value], new[key.value], depth, key=key,
                                     indent=column, flow=flow)
        after, front = _placed(list(old), list(new))

        def end_of(key: Any, child: Any) -> int:
            return ends.get(id(key)) or _content_end(self.text, child)

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
                body = _dump({k: new[k] for k in after[key.value]}, self.style, False, column)
                edits.append((at, at, f"{self.nl}{' ' * column}{body}"))
        if front:
            first = next(k for k, _ in pairs if k.value in new)
            at = first.start_mark.index
            body = _dump({k: new[k] for k in front}, self.style, False, column)
            edits.append((at, at, f"{body}{self.nl}{' ' * column}"))
        return edits

    def _sequence(self, node: Any, old: list[Any], new: list[Any],
                  depth: int) -> list[tuple[int, int, str]]:
        items = node.value
        elsewhere = self._elsewhere(node, items)
        flow = bool(node.flow_style)
        prefix, suffix = _ends(old, new)
        middle_old, middle_new = len(old) - prefix - suffix, len(new) - prefix - suffix
        paired = min(middle_old, middle_new)
        column = node.start_mark.column if not flow else 0
        edits: list[tuple[int, int, str]] = []
        pairs = [(i, i) for i in range(prefix + paired)] + \
                [(len(old) - 1 - i, len(new) - 1 - i) for i in range(suffix)]
        for i, j in pairs:
            if id(items[i]) in elsewhere:
                if not _same(old[i], new[j]):
                    raise _Whole
                continue
            edits += self._child(items[i], old[i], new[j], depth, indent=column, flow=flow)
        removed = list(range(prefix + paired, prefix + middle_old))
        added = new[prefix + paired: prefix + middle_new]
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
            edits.append(self._delete_lines(dashes[i], _content_end(self.text, items[i])))
        if added:
            body = _dump(added, self.style, False, column)
            at_index = prefix + paired - 1  # the kept item the new ones follow
            if at_index >= 0:
                at = self._line_end(_content_end(self.text, items[at_index]))
                edits.append((at, at, f"{self.nl}{' ' * column}{body}"))
            else:  # before the first kept item
                at = dashes[prefix + middle_old]
                edits.append((at, at, f"{body}{self.nl}{' ' * column}"))
        return edits

    # -- writing pieces anew

    def _anew(self, node: Any, new: Any, *, key: Any, indent: int, flow: bool) -> tuple[int, int, str]:
        """The edit that writes ``node`` (the value of ``key``, or a list item) anew."""
        text, style = self.text, self.style
        start, end = node.start_mark.index, _content_end(text, node)
        if node.id == "scalar" and not isinstance(new, (dict, list)):
            written = self._scalar(node, new, flow, indent)
            if start == end and not flow:  # an empty value (``key:``): after a space
                return start, end, " " + written
            return start, end, written
        inline = flow or getattr(node, "flow_style", False) or not isinstance(new, (dict, list)) \
            or not new
        if key is None:  # a list item: block text starts where the item did
            return start, end, _dump(new, style, inline, node.start_mark.column)
        on_key_line = node.start_mark.line == key.start_mark.line
        if inline and (on_key_line or flow):
            return start, end, _dump(new, style, True, node.start_mark.column)
        colon = _COLON.match(text, key.end_mark.index)
        if colon is None:
            raise _Whole
        if inline:
            return colon.end(), end, " " + _dump(new, style, True, indent)
        if not on_key_line and node.id == ("mapping" if isinstance(new, dict) else "sequence"):
            return start, end, _dump(new, style, False, node.start_mark.column)
        column = key.start_mark.column + (
            0 if isinstance(new, list) and not style.indented_lists else style.step)
        return colon.end(), end, f"{self.nl}{' ' * column}{_dump(new, style, False, column)}"

    def _alias_anew(self, alias: Any, new: Any, key: Any, flow: bool) -> tuple[int, int, str]:
        """The edit that writes a value in place of the alias token that gave it."""
        if flow or not isinstance(new, (dict, list)) or not new:
            return alias.start(1), alias.end(1), _dump(new, self.style, True, 0)
        colon = self.text.index(":", alias.start()) + 1
        column = key.start_mark.column + (
            0 if isinstance(new, list) and not self.style.indented_lists else self.style.step)
        return colon, alias.end(1), f"{self.nl}{' ' * column}{_dump(new, self.style, False, column)}"

    def _scalar(self, node: Any, new: Any, flow: bool, indent: int) -> str:
        """A changed scalar in the style the old one had: plain stays plain while the new text
        reads back as the same string, quoted keeps its quotes, a block scalar stays one."""
        if not isinstance(new, str):
            return _dump(new, self.style, True, 0)
        old_style = node.style or ""
        if old_style in ("|", ">") and not flow:
            return _dump(new, self.style, False, indent, quote=old_style)
        if "\n" in new or "\r" in new or old_style == '"':
            return _dump(new, self.style, True, 0, quote='"')  # one line, breaks escaped
        if old_style == "'":
            return _dump(new, self.style, True, 0, quote="'")
        if old_style == "" and _plain_reads_back(new, flow):
            return new
        return _dump(new, self.style, True, 0)

    def _flow_rebuild(self, node: Any, edits: list[tuple[int, int, str]], pairs: list[Any],
                      new: dict[str, Any], after: dict[str, list[str]], front: list[str],
                      end_of: Any) -> tuple[int, int, str]:
        """A flow mapping whose keys changed, written again from its kept pairs' text (with
        their edits) and the new pairs."""
        parts = [self._flow_pair(k, new[k]) for k in front]
        for key, child in pairs:
            if key.value in new:
                parts.append(_applied(self.text, edits, key.start_mark.index, end_of(key, child)))
                parts += [self._flow_pair(k, new[k]) for k in after.get(key.value, ())]
        return self._flow_span(node, "{", "}", parts)

    def _flow_rebuild_list(self, node: Any, edits: list[tuple[int, int, str]],
                           kept: list[tuple[int, int]], new: list[Any]) -> tuple[int, int, str]:
        """A flow list whose length changed, written again from its kept items' text (with
        their edits) and the new items."""
        by_new = {j: i for i, j in kept}
        parts = []
        for j, value in enumerate(new):
            if j in by_new:
                item = node.value[by_new[j]]
                parts.append(_applied(self.text, edits, item.start_mark.index,
                                      _content_end(self.text, item)))
            else:
                parts.append(_dump(value, self.style, True, 0))
        return self._flow_span(node, "[", "]", parts)

    def _flow_span(self, node: Any, opening: str, closing: str, parts: list[str]) -> tuple[int, int, str]:
        start = self.text.find(opening, node.start_mark.index, node.end_mark.index)
        if start < 0 or self.text[node.end_mark.index - 1] != closing:
            raise _Whole
        return start, node.end_mark.index, opening + ", ".join(parts) + closing

    def _flow_pair(self, key: str, value: Any) -> str:
        return f"{_dump(key, self.style, True, 0)}: {_dump(value, self.style, True, 0)}"

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

    def _delete_lines(self, start: int, content_end: int) -> tuple[int, int, str]:
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

    def _dash(self, node: Any, items: list[Any], i: int) -> int:
        """Where the dash of a block list's item ``i`` is."""
        if i == 0:
            return node.start_mark.index
        dash = self.text.rfind("-", _content_end(self.text, items[i - 1]), items[i].start_mark.index)
        if dash < 0:
            raise _Whole
        return dash

    @staticmethod
    def _elsewhere(node: Any, children: list[Any]) -> set[int]:
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


def _ends(old: list[Any], new: list[Any]) -> tuple[int, int]:
    """How many items the lists share at their start and, after that, at their end."""
    prefix = 0
    while prefix < min(len(old), len(new)) and _same(old[prefix], new[prefix]):
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and _same(old[-1 - suffix], new[-1 - suffix]):
        suffix += 1
    return prefix, suffix


def _shares(old: Any, new: Any) -> bool:
    """Whether anything of ``old`` stays in ``new`` (a value, at any depth, at its place)."""
    if _same(old, new):
        return True
    if isinstance(old, dict) and isinstance(new, dict):
        return any(_shares(old[k], new[k]) for k in old if k in new)
    if isinstance(old, list) and isinstance(new, list):
        prefix, suffix = _ends(old, new)
        if prefix or suffix:
            return True
        return any(_shares(a, b) for a, b in zip(old, new))
    return False


def _applied(text: str, edits: list[tuple[int, int, str]], start: int, end: int) -> str:
    """``text[start:end]`` with the edits that lie inside it made."""
    out = text[start:end]
    for lo, hi, new in sorted(edits, reverse=True):
        if start <= lo and hi <= end:
            out = out[:lo - start] + new + out[hi - start:]
    return out


def _plain_reads_back(value: str, flow: bool) -> bool:
    """Whether ``value`` written plain (in a block mapping or a flow list) reads back as
    itself: the case loader reads dates as the text they are, so ``2024-01-13`` does."""
    if not value or value != value.strip() or "\n" in value or "\r" in value:
        return False
    probes = [(f"[{value}]", [value]), (f"{{k: {value}}}", {"k": value})] if flow \
        else [(f"k: {value}", {"k": value}), (f"- {value}", [value])]
    for probe, wanted in probes:
        try:
            data, _ = parse_yaml(probe, "<probe>")
        except CaseFileError:
            return False
        if not _same(data, wanted):
            return False
    return True


def _dump(value: Any, style: Style, flow: bool, column: int, quote: str | None = None) -> str:
    """``value`` as YAML text starting at ``column`` (lines after the first indented to it);
    ``quote`` asks a string for that style (``'``, ``"``, ``|``, ``>``) where YAML allows it."""
    import yaml

    dumper = _dumper(style)
    out = yaml.dump(value, Dumper=dumper, default_flow_style=flow or not value,
                    sort_keys=False, allow_unicode=True, width=10**9 if flow else 100,
                    indent=style.step, default_style=quote)
    lines = out.rstrip("\n").split("\n")
    if lines and lines[-1] == "...":  # a lone scalar's document end marker
        lines = lines[:-1]
    return (style.newline + " " * column).join(lines)


_DUMPERS: dict[tuple[bool, bool], Any] = {}


def _dumper(style: Style) -> Any:
    key = (style.indented_lists, style.double_quotes)
    dumper = _DUMPERS.get(key)
    if dumper is None:
        import yaml

        class Dumper(yaml.SafeDumper):
            def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
                return super().increase_indent(flow, indentless and not style.indented_lists)

            def choose_scalar_style(self) -> Any:
                chosen = super().choose_scalar_style()
                asked = self.event.style == "'"  # a single-quoted string edited stays so
                return '"' if chosen == "'" and style.double_quotes and not asked else chosen

        dumper = _DUMPERS[key] = Dumper
    return dumper


# -- the file's style ----------------------------------------------------------------------------


def _style(text: str, root: Any) -> Style:
    expected_flow: list[bool] = []
    steps: list[int] = []
    lists: list[bool] = []
    quotes = {"'": 0, '"': 0}

    def visit(node: Any, depth: int = 0) -> None:
        if depth > 200:
            return
        if node.id == "scalar":
            if node.style in quotes:
                quotes[node.style] += 1
            return
        for pair in node.value:
            key, child = pair if isinstance(pair, tuple) else (None, pair)
            if key is not None and key.value == "expected" and child.id != "scalar":
                expected_flow.append(bool(child.flow_style))
            if key is not None and child.id in ("mapping", "sequence") and not child.flow_style \
                    and child.value:
                if child.id == "mapping":  # (the first key: an anchor may come before it)
                    steps.append(child.value[0][0].start_mark.column - key.start_mark.column)
                else:  # where the dash is: two columns before the first item
                    lists.append(child.value[0].start_mark.column - 2 > key.start_mark.column)
            visit(child, depth + 1)

    visit(root)
    good_steps = [s for s in steps if s > 0]
    return Style(flow=bool(expected_flow) and expected_flow[0],
                 step=min(good_steps) if good_steps else 2,
                 indented_lists=lists[0] if lists else True,
                 double_quotes=quotes['"'] > quotes["'"],
                 newline="\r\n" if "\r\n" in text else "\n")


# -- checking before writing ---------------------------------------------------------------------


def _verify(new_text: str, old_data: Any, values: Mapping[str, Any], display: str,
            default_id: str) -> None:
    """The rewritten file must read as the old one with exactly the new expected values."""
    try:
        new_data, _ = parse_yaml(new_text, display)
    except CaseFileError as exc:
        raise CaseFileError(f"{display}: the updated file would not read back ({exc}); "
                            f"left as it was") from None
    wanted = _with_values(old_data, values, default_id)
    if not _same(new_data, wanted):
        raise CaseFileError(f"{display}: the update would change more than the expected values "
                            f"(an anchor or alias shared with them?); left as it was")


def _with_values(data: Any, values: Mapping[str, Any], default_id: str) -> Any:
    if "cases" not in data:
        return {**data, "expected": values[str(data.get("id", default_id))]}
    cases = [dict(case, expected=values[str(case["id"])]) if str(case.get("id")) in values
             else case for case in data["cases"]]
    return {**data, "cases": cases}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON is, with types: True is not 1, 1 is 1.0, key order aside."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, Sequence) and not isinstance(a, str) and isinstance(b, Sequence) \
            and not isinstance(b, str):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b or (
        isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b)


def apply_updates(updates: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """Write every requested update, each file once (atomically). Returns the updated cases
    (``file:line case-id``) and, per file that could not be updated, why.

    A file is written only inside the test root (its path resolved, symlinks followed), and
    only when its bytes are still those the run read: another run (or an editor) that changed
    it meanwhile makes this update an error, never a silent overwrite. The check and the
    write happen under an exclusive lock on the file, so two runs updating it at once cannot
    both pass the check."""
    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for update in updates:
        by_file.setdefault(str(update["path"]), []).append(update)
    done: list[str] = []
    errors: list[str] = []
    for path, wanted in sorted(by_file.items()):
        display = str(wanted[0]["display"])
        try:
            _update_file(Path(path), wanted, display)
        except CaseFileError as exc:
            errors.append(str(exc))
            continue
        except OSError as exc:  # a full disk, a read-only folder: name the file it was for
            errors.append(f"{display}: {exc.strerror or exc}")
            continue
        done += [f"{display}:{u['line']} {u['case_id']}" for u in sorted(wanted, key=lambda u: u["line"])]
    return done, errors


def _update_file(path: Path, wanted: list[Mapping[str, Any]], display: str) -> None:
    from ..engine.reading.safe_yaml import read_text
    from ..reporting.atomic import write_atomic

    root = wanted[0].get("root")
    if root is not None:
        real, top = path.resolve(), Path(root).resolve()
        if not real.is_relative_to(top):
            raise CaseFileError(f"{display}: resolves to {real}, outside the test root {top} (a "
                                f"symlinked folder?): not updated; the plugin writes only inside "
                                f"the root")
    with _locked(path):
        raw = path.read_bytes()
        read = {u.get("sha256") for u in wanted} - {None, ""}
        if read and read != {hashlib.sha256(raw).hexdigest()}:
            raise CaseFileError(f"{display}: changed on disk since this run read it (another run "
                                f"or an editor?): not updated; run again to update it")
        text = read_text(path, display)
        new = rewrite(text, {str(u["case_id"]): u["value"] for u in wanted}, display,
                      str(wanted[0]["default_id"]))
        bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
        write_atomic(path, lambda fh: fh.write(bom + new), newline="")


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (where the platform has ``fcntl``) for as long as the
    block runs: two runs updating one file take turns, and the second sees the first's bytes."""
    try:
        import fcntl
    except ImportError:  # not on this platform: the digest check alone
        yield
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
