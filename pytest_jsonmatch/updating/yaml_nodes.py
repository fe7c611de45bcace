"""The YAML node tree of a case file as the editor sees it (keys, where a node's text ends),
the file's own style read from it (flow or block, indentation, quotes) and new values
written in that style."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine.core.errors import CaseFileError
from ..engine.core.values import json_equal
from ..engine.reading.safe_yaml import parse_yaml

if TYPE_CHECKING:  # yaml is imported when a file is read, not before
    from typing import TypeGuard

    import yaml
    from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# ``key: *alias`` after a key: the alias token; and the colon after a key
ALIAS = re.compile(r"[ \t]*:[ \t]*(\*[^\s,\[\]{}]+)")
COLON = re.compile(r"[ \t]*:")


@dataclass(frozen=True)
class Style:
    """How a file writes YAML: flow or block expected values, the indentation step, whether a
    list under a key is indented, and which quotes it prefers."""

    flow: bool = False
    step: int = 2
    indented_lists: bool = True
    double_quotes: bool = False
    newline: str = "\n"


# What kind a node is, told by the ``id`` PyYAML gives each node class (``scalar``,
# ``sequence``, ``mapping``): an isinstance check would import yaml.nodes here.


def is_scalar(node: Node) -> TypeGuard[ScalarNode]:
    return getattr(node, "id", None) == "scalar"


def is_sequence(node: Node) -> TypeGuard[SequenceNode]:
    return getattr(node, "id", None) == "sequence"


def is_mapping(node: Node) -> TypeGuard[MappingNode]:
    return getattr(node, "id", None) == "mapping"


def is_flow(node: Node) -> bool:
    """Whether ``node`` is a collection written in flow style (``{...}``, ``[...]``)."""
    return bool(getattr(node, "flow_style", False))


def pairs_of(node: MappingNode) -> list[tuple[Node, Node]]:
    """A mapping node's (key, value) nodes."""
    pairs: list[tuple[Node, Node]] = node.value
    return pairs


def items_of(node: SequenceNode) -> list[Node]:
    """A sequence node's item nodes."""
    items: list[Node] = node.value
    return items


def node_keys(node: Node) -> dict[str, tuple[Node, Node]]:
    if not is_mapping(node):
        return {}
    return {k.value: (k, v) for k, v in pairs_of(node) if isinstance(k.value, str)}


def scalar_text(node: Node) -> str:
    return str(node.value) if is_scalar(node) else ""


def content_end(text: str, node: Node) -> int:
    """Where the node's own text ends: a block collection's end mark lies past the blank
    lines and comments after it, a block scalar's past its trailing line breaks."""
    if is_scalar(node):
        end = node.end_mark.index
        if node.style in ("|", ">"):
            end = node.start_mark.index + len(text[node.start_mark.index : end].rstrip())
        return end
    if is_flow(node):
        return node.end_mark.index
    start, end = node.start_mark.index, node.end_mark.index
    children: list[Node] = [
        n for pair in node.value for n in (pair if isinstance(pair, tuple) else (pair,))
    ]
    inside = [c for c in children if start <= c.start_mark.index < end]
    if len(inside) == len(children):
        return max(content_end(text, child) for child in children)
    # an alias among the children points elsewhere: scan back from the end mark instead
    return start + len(strip_trailing(text[start:end]))


def strip_trailing(text: str) -> str:
    """``text`` without trailing blank lines and comment lines."""
    lines = text.splitlines(keepends=True)
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "".join(lines).rstrip()


def plain_reads_back(value: str, flow: bool) -> bool:
    """Whether ``value`` written plain (in a block mapping or a flow list) reads back as
    itself: the case loader reads dates as the text they are, so ``2024-01-13`` does."""
    if not value or value != value.strip() or "\n" in value or "\r" in value:
        return False
    probes = (
        [(f"[{value}]", [value]), (f"{{k: {value}}}", {"k": value})]
        if flow
        else [(f"k: {value}", {"k": value}), (f"- {value}", [value])]
    )
    for probe, wanted in probes:
        try:
            data, _ = parse_yaml(probe, "<probe>")
        except CaseFileError:
            return False
        if not json_equal(data, wanted):
            return False
    return True


def dump(value: object, style: Style, flow: bool, column: int, quote: str | None = None) -> str:
    """``value`` as YAML text starting at ``column`` (lines after the first indented to it);
    ``quote`` asks a string for that style (``'``, ``"``, ``|``, ``>``) where YAML allows it."""
    import yaml

    dumper = style_dumper(style)
    out = yaml.dump(
        value,
        Dumper=dumper,
        default_flow_style=flow or not value,
        sort_keys=False,
        allow_unicode=True,
        width=10**9 if flow else 100,
        indent=style.step,
        default_style=quote,
    )
    lines = out.rstrip("\n").split("\n")
    if lines and lines[-1] == "...":  # a lone scalar's document end marker
        lines = lines[:-1]
    return (style.newline + " " * column).join(lines)


_DUMPERS: dict[tuple[bool, bool], type[yaml.SafeDumper]] = {}


def style_dumper(style: Style) -> type[yaml.SafeDumper]:
    key = (style.indented_lists, style.double_quotes)
    dumper = _DUMPERS.get(key)
    if dumper is None:
        import yaml

        class Dumper(yaml.SafeDumper):
            def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
                return super().increase_indent(flow, indentless and not style.indented_lists)

            def choose_scalar_style(self) -> str:
                chosen = super().choose_scalar_style()
                asked = (
                    getattr(self.event, "style", None) == "'"
                )  # a single-quoted string edited stays so
                return '"' if chosen == "'" and style.double_quotes and not asked else chosen

        dumper = _DUMPERS[key] = Dumper
    return dumper


# -- the file's style ----------------------------------------------------------------------------


def file_style(text: str, root: Node) -> Style:
    """How the file ``text`` (read into ``root``) writes YAML: its first case's expected
    value flow or block, its smallest indentation step, its lists under a key indented or
    not, the quotes it uses most, its line breaks."""
    expected_flow: list[bool] = []
    steps: list[int] = []
    lists: list[bool] = []
    quotes = {"'": 0, '"': 0}

    def visit(node: Node, depth: int = 0) -> None:
        if depth > 200:
            return
        if is_scalar(node):
            if node.style in quotes:
                quotes[node.style] += 1
            return
        for pair in node.value:
            key: Node | None
            child: Node
            key, child = pair if isinstance(pair, tuple) else (None, pair)
            if key is not None and key.value == "expected" and not is_scalar(child):
                expected_flow.append(is_flow(child))
            if (
                key is not None
                and (is_mapping(child) or is_sequence(child))
                and not is_flow(child)
                and child.value
            ):
                if is_mapping(child):  # (the first key: an anchor may come before it)
                    steps.append(pairs_of(child)[0][0].start_mark.column - key.start_mark.column)
                else:  # where the dash is: two columns before the first item
                    lists.append(child.value[0].start_mark.column - 2 > key.start_mark.column)
            visit(child, depth + 1)

    visit(root)
    good_steps = [s for s in steps if s > 0]
    return Style(
        flow=bool(expected_flow) and expected_flow[0],
        step=min(good_steps) if good_steps else 2,
        indented_lists=lists[0] if lists else True,
        double_quotes=quotes['"'] > quotes["'"],
        newline="\r\n" if "\r\n" in text else "\n",
    )
