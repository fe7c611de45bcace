"""The names the docs list (comparators, transforms, metrics) are the registry's.

Error messages quoted in the docs are compared with the messages the code gives today, and
the prose list of built-in comparators in docs/schemas.md with the registry: a comparator,
transform or metric added or renamed without its docs fails here, naming the page and line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_jsonmatch import match_json
from pytest_jsonmatch.engine.core.errors import ConfigError

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(DOCS.glob("*.md")) + [DOCS.parent / "README.md"]


def _message(**options: object) -> str:
    with pytest.raises(ConfigError) as caught:
        match_json({"a": 1}, {"a": 1}, **options)  # type: ignore[arg-type]
    return str(caught.value)


def _listed(kind: str, message: str) -> list[str]:
    found = re.search(rf"known {kind}: ([a-z0-9_, ]+)", message)
    assert found, message
    return [name.strip() for name in found[1].split(",")]


KNOWN = {
    "comparators": lambda: _listed(
        "comparators", _message(fields={"a": {"comparator": "soundex"}})
    ),
    "transforms": lambda: _listed("transforms", _message(fields={"a": {"transform": "upper"}})),
    "metrics": lambda: _listed("metrics", _message(metric="f1")),
}


@pytest.mark.parametrize("kind", sorted(KNOWN))
def test_every_list_of_names_the_docs_quote_is_the_codes(kind: str) -> None:
    names = KNOWN[kind]()
    quoted = []
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for found in re.finditer(rf"known {kind}: ([a-z0-9_, ]+)", line):
                listed = [name.strip() for name in found[1].split(",") if name.strip()]
                quoted.append((f"{page.name}:{number}", listed))
    assert quoted, f"no page quotes the known {kind}"
    wrong = [(where, listed) for where, listed in quoted if listed != names]
    assert wrong == [], f"the code lists {names}"


def test_the_built_in_comparators_named_in_schemas_md_are_the_registrys() -> None:
    text = (DOCS / "schemas.md").read_text(encoding="utf-8")
    start = text.index("The built-in comparators are")
    sentence = text[start : text.index("\n\n", start)]
    # each name is the first code span of its item: `fuzzy` (..., `{"fuzzy": ...}`) counts once
    named = set(re.findall(r"(?:are|,|and)\s+`([a-z_0-9]+)`", sentence))
    assert named == set(KNOWN["comparators"]())
