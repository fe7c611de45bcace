"""The judge's prompt: the default template, and the items to judge written into it as a
numbered list (each item's field path and both values, as JSON)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.values import JsonValue

PAIRS = "{pairs}"  # where a prompt template takes the numbered items

DEFAULT_PROMPT = """\
You are checking the output of an information-extraction system against a reference.
Each numbered item below names a field of a JSON record and gives two values for it: the
reference value and the value the system produced. Decide, item by item, whether the
produced value says the same thing as the reference.

Count as the same: different wording, word order, letter case, spacing or punctuation;
abbreviations and their expansions; synonyms; a paraphrase that keeps every fact.
Count as different: a changed fact, number, date, unit, name, quantity or qualifier; a
value that leaves out or adds something the field is about. If you are unsure, answer 0.
Use the field's name to judge what matters in it.

Items:
{pairs}

Answer with one JSON object and nothing else, in this form:
{"results": [1, 0, ...]}
with exactly one entry per item, in the order of the items: 1 for the same, 0 for
different.
"""


def field_path(path: str) -> str:
    """An instance path with its indices dropped (``items[2].note`` -> ``items[].note``):
    the field an item belongs to, which is what the judge needs to know of it."""
    return re.sub(r"\[-?\d+\]", "[]", path)


def _text(value: object) -> str:
    """A value as the prompt shows it: JSON, keys sorted, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Item:
    """One item to judge: its field path and both values after the field's transforms."""

    path: str
    expected: JsonValue
    actual: JsonValue

    @property
    def key(self) -> str:
        return f"{self.path}\x00{_text(self.expected)}\x00{_text(self.actual)}"


def render_items(items: Sequence[Item]) -> str:
    """The items as the prompt's numbered list."""
    return "\n".join(
        f"{n}. field {self_path}: reference {_text(i.expected)}; produced {_text(i.actual)}"
        for n, i in enumerate(items, start=1)
        for self_path in (json.dumps(i.path),)
    )


def render_prompt(template: str, items: Sequence[Item]) -> str:
    """The template with its ``{pairs}`` replaced by the items (no other brace is read, so
    a template's literal braces need no doubling)."""
    return template.replace(PAIRS, render_items(items))
