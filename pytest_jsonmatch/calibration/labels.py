"""A labels file: field pairs a person judged, read and checked.

YAML (``.yaml``, ``.yml``: a list, or a mapping whose ``labels`` key holds the list) or JSONL
(``.jsonl``: one item a line). Each item is a mapping::

    - id: order-12/summary        # optional; its 1-based position otherwise
      field: summary              # the field's path, as the judge's prompt shows it
      reference: two boxes, ships Monday
      produced: 2 boxes, Monday
      human: same                 # or: different

``reference`` and ``produced`` are any JSON values (text, usually). Anything else (another
key, a verdict other than ``same`` or ``different``, a missing key, a value holding NaN or an
infinity, which JSON has no form for, two items with one id) is a ConfigError naming the
file, the item (its line in YAML) and the key. The labels' digest is ``sha256:`` and the hex
digest of the file's bytes: a calibration records it, so that a changed file is seen.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.core.errors import ConfigError, value_kind
from ..engine.core.values import JsonValue
from ..engine.reading.safe_yaml import YamlNode, decode_text, line_of, parse_yaml
from ..engine.reading.user_files import read_regular

MAX_LABELS_BYTES = 64 * 2**20
VERDICTS = {"same": True, "different": False}
KEYS = ("id", "field", "reference", "produced", "human")


@dataclass(frozen=True)
class Label:
    """One field pair a person judged: ``human_same`` is their verdict (True: same)."""

    id: str
    field: str
    reference: JsonValue
    produced: JsonValue
    human_same: bool


@dataclass(frozen=True)
class Labels:
    """A labels file read: where it is, its digest, its items in order."""

    path: Path
    digest: str
    items: tuple[Label, ...]

    @property
    def same(self) -> int:
        return sum(label.human_same for label in self.items)


def read_labels(path: Path) -> Labels:
    """The labels file at ``path`` read and checked (module docstring)."""
    shown = str(path)
    raw = read_regular(path, "labels file", ConfigError, MAX_LABELS_BYTES)
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    text = decode_text(raw, shown, ConfigError)
    if path.suffix.lower() == ".jsonl":
        entries = _jsonl(text, shown)
    elif path.suffix.lower() in (".yaml", ".yml"):
        entries = _yaml(text, shown)
    else:
        raise ConfigError(
            f"labels file {shown!r}: name it .yaml, .yml or .jsonl (its format), not "
            f"{path.suffix or 'no suffix'!r}"
        )
    items = tuple(_label(entry, where, n) for n, (entry, where) in enumerate(entries, 1))
    _no_twice(items, shown)
    return Labels(path, digest, items)


def _jsonl(text: str, shown: str) -> list[tuple[object, str]]:
    """Each non-blank line's value, with where it is (``FILE:LINE``)."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{shown}:{number}"
        try:
            out.append((json.loads(line, parse_constant=_no_constant), where))
        except RecursionError:
            raise ConfigError(f"labels file {where}: the item nests too deeply to read") from None
        except ValueError as exc:
            raise ConfigError(f"labels file {where}: not a JSON value ({exc})") from None
    return out


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _yaml(text: str, shown: str) -> list[tuple[object, str]]:
    """The list's items, with where each is (``FILE:LINE``)."""
    value, root = parse_yaml(text, shown, ConfigError)
    nodes: list[YamlNode] = list(root.value) if isinstance(value, list) else []
    if isinstance(value, dict) and isinstance(value.get("labels"), list) and len(value) == 1:
        value = value["labels"]
        nodes = [v for k, v in root.value if k.value == "labels"][0].value
    if not isinstance(value, list):
        raise ConfigError(
            f"labels file {shown}:1: a list of labelled items (or a mapping with one key, "
            f"'labels', holding it), not {value_kind(value)}"
        )
    return [(entry, f"{shown}:{line_of(node)}") for entry, node in zip(value, nodes)]


def _label(entry: object, where: str, n: int) -> Label:
    """One item checked into a Label (``n``: its position, its id where it gives none)."""
    if not isinstance(entry, dict):
        raise ConfigError(f"labels file {where}: item {n} is {value_kind(entry)}, not a mapping")
    ident = entry.get("id", str(n))
    name = f"item {n}" if "id" not in entry else f"item {n} (id {value_kind(ident)})"
    extra = [k for k in entry if k not in KEYS]
    if extra:
        raise ConfigError(
            f"labels file {where}: {name}: unknown key {value_kind(extra[0])}; an item holds "
            f"{', '.join(KEYS)} (id optional)"
        )
    for key in KEYS[1:]:
        if key not in entry:
            raise ConfigError(f"labels file {where}: {name}: no {key!r}")
    checks: list[tuple[str, Any, bool]] = [
        ("id", ident, isinstance(ident, str) and ident != "" and ident.isprintable()),
        ("field", entry["field"], isinstance(entry["field"], str) and entry["field"] != ""),
        ("human", entry["human"], isinstance(entry["human"], str) and entry["human"] in VERDICTS),
    ]
    for key, value, good in checks:
        if not good:
            want = "'same' or 'different'" if key == "human" else "a non-empty line of text"
            raise ConfigError(
                f"labels file {where}: {name}: {key} must be {want}, not {value_kind(value)}"
            )
    for key in ("reference", "produced"):
        number = not_json(entry[key])
        if number:
            raise ConfigError(f"labels file {where}: {name}: {key} {number}")
    return Label(
        ident, entry["field"], entry["reference"], entry["produced"], VERDICTS[entry["human"]]
    )


def not_json(value: object) -> str:
    """Why ``value`` (a label's reference or produced value, as YAML reads it) is no JSON
    value: where it holds NaN or an infinity (YAML's ``.nan``, ``.inf``, ``1.0e+999``), which
    the judge's recording could only write as bare ``NaN``; empty: it holds none."""
    from ..engine.core.paths import display_path, index_segment, key_segment

    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return (
                f"holds {node!r} at {display_path(path)}, not a JSON number (NaN and Infinity "
                f"are not JSON)"
            )
        if isinstance(node, dict):
            stack.extend((v, key_segment(path, str(k))) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, index_segment(path, i)) for i, v in enumerate(node))
    return ""


def _no_twice(items: tuple[Label, ...], shown: str) -> None:
    seen: dict[str, int] = {}
    for n, label in enumerate(items, 1):
        if label.id in seen:
            raise ConfigError(
                f"labels file {shown!r}: item {n} has the id {value_kind(label.id)} of item "
                f"{seen[label.id]}: each item's id is its own"
            )
        seen[label.id] = n
