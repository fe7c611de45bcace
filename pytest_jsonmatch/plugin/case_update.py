"""Rewriting the ``expected`` of golden cases inside their case file, byte for byte.

Only the text of each updated ``expected:`` value changes; every other byte of the file stays
as it was: comments, key order, quoting, flow or block style, blank lines, the other cases,
line endings, a missing final newline. The new value is written in the style the file
already uses (flow or block, its indentation, how it indents lists, its quotes), and the
result is read back before anything is written: it must hold exactly the new values where
the old ones were and nothing else changed, or the file is left alone with an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    edits = []
    for case_id, value in values.items():
        case = _case_node(root, case_id, default_id, display)
        edits.append(_edit(text, case, value, style))
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    _verify(out, data, values, display, default_id)
    return out


# -- finding things ----------------------------------------------------------------------------


def _case_node(root: Any, case_id: str, default_id: str, display: str) -> Any:
    keys = _keys(root)
    if "cases" not in keys:
        return root  # a file holding one case
    for item in keys["cases"][1].value:
        item_keys = _keys(item)
        if "id" in item_keys and _text(item_keys["id"][1]) == case_id:
            return item
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



def _edit(text: str, case: Any, value: Any, style: Style) -> tuple[int, int, str]:
    """(start, end, new text) that gives ``case`` the expected ``value``."""
    keys = _keys(case)
    if "expected" in keys:
        key, node = keys["expected"]
        if node.start_mark.index < key.end_mark.index:
            # an alias (``expected: *shared``): its node is the anchored one, elsewhere in the
            # file; the alias token is what this case wrote, and what is replaced
            alias = _ALIAS.match(text, key.end_mark.index)
            if alias is None:
                raise CaseFileError("cannot find the alias of the expected value to replace")
            return alias.start(1), alias.end(1), _dump(value, style, True, 0)
        start, end = node.start_mark.index, _content_end(text, node)
        flow = getattr(node, "flow_style", False) or node.id == "scalar"
        if not flow and value and node.start_mark.line == key.start_mark.line:
            # a block value after an anchor or a tag on the key's line: the new block goes
            # on the next lines (the anchor goes with the old value)
            column = key.start_mark.column + style.step
            start = len(text[:start].rstrip(" \t"))
            return start, end, f"{style.newline}{' ' * column}{_dump(value, style, False, column)}"
        return start, end, _dump(value, style, flow, node.start_mark.column)
    if getattr(case, "flow_style", False):
        close = case.end_mark.index - 1  # the closing brace
        before = text[:close].rstrip()
        separator = ", " if not before.endswith("{") else ""
        return len(before), len(before), f"{separator}expected: {_dump(value, style, True, 0)}"
    # a block case: a new last key, at the column of the case's keys
    column = case.value[0][0].start_mark.column
    end = _content_end(text, case)
    if style.flow or not value:
        new = f"expected: {_dump(value, style, True, column)}"
    else:
        body = _dump(value, style, False, column + style.step)
        new = f"expected:{style.newline}{' ' * (column + style.step)}{body}"
    return end, end, f"{style.newline}{' ' * column}{new}"


def _dump(value: Any, style: Style, flow: bool, column: int) -> str:
    """``value`` as YAML text starting at ``column`` (lines after the first indented to it)."""
    import yaml

    dumper = _dumper(style)
    out = yaml.dump(value, Dumper=dumper, default_flow_style=flow or not value,
                    sort_keys=False, allow_unicode=True, width=10**9 if flow else 100,
                    indent=style.step)
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
                return '"' if chosen == "'" and style.double_quotes else chosen

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
    (``file:line case-id``) and, per file that could not be updated, why."""
    from pathlib import Path

    from ..engine.reading.safe_yaml import read_text
    from ..reporting.atomic import write_atomic

    by_file: dict[str, list[Mapping[str, Any]]] = {}
    for update in updates:
        by_file.setdefault(str(update["path"]), []).append(update)
    done: list[str] = []
    errors: list[str] = []
    for path, wanted in sorted(by_file.items()):
        display = str(wanted[0]["display"])
        try:
            raw = Path(path).read_bytes()
            text = read_text(Path(path), display)
            new = rewrite(text, {str(u["case_id"]): u["value"] for u in wanted}, display,
                          str(wanted[0]["default_id"]))
            bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
            write_atomic(path, lambda fh: fh.write(bom + new), newline="")
        except CaseFileError as exc:
            errors.append(str(exc))
            continue
        except OSError as exc:  # a full disk, a read-only folder: name the file it was for
            errors.append(f"{display}: {exc.strerror or exc}")
            continue
        done += [f"{display}:{u['line']} {u['case_id']}" for u in sorted(wanted, key=lambda u: u["line"])]
    return done, errors
