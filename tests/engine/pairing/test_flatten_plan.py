"""field_f1's columns (engine/pairing/columns.py) read from the plan a schema node keeps
(``_plan``: each key's column, or why the element needs a walk) are the columns the
general loop makes, key by key, for any elements and any schema."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_jsonmatch.engine.configuring.walk_config import schema_node
from pytest_jsonmatch.engine.core.errors import JsonMatchError
from pytest_jsonmatch.engine.metrics import REGISTRY
from pytest_jsonmatch.engine.pairing.columns import Unknown, f1_columns
from pytest_jsonmatch.engine.schemas.eval_schema import infer_node
from tests.helpers import fuzz_values as fv
from tests.helpers.sweeps import sweep

SETTINGS = sweep(60)


def shown(columns: Any) -> str:
    """Columns as exact text (a stand-in for an unknown field by what it holds)."""
    if columns is None:
        return "None"
    cols, sizes = columns
    return repr(
        (
            {
                rel: (index, [("Unknown", v.value) if type(v) is Unknown else v for v in values])
                for rel, (index, values) in cols.items()
            },
            sizes,
        )
    )


def never(rel: str) -> bool:
    """An ``ignore`` rule that names nothing: the general loop, skipping no field."""
    return False


ELEMENTS = st.lists(
    st.one_of(st.dictionaries(fv.PLAIN_KEYS, fv.ACCEPTED_TREES, max_size=5), fv.ACCEPTED_TREES),
    max_size=5,
)


@SETTINGS
@given(elements=ELEMENTS, schema=fv.schema_nodes(), side=st.sampled_from(["expected", "actual"]))
def test_planned_columns_are_the_general_loops(elements: list[Any], schema: Any, side: str) -> None:
    try:
        node = schema_node(schema, REGISTRY, None)
    except JsonMatchError:
        return  # a malformed schema is refused before any pairing
    for items in (node, node.items, *(node.properties or {}).values()):
        if items is not None:
            first = shown(f1_columns(elements, items, side))
            assert shown(f1_columns(elements, items, side, never)) == first
            assert shown(f1_columns(elements, items, side)) == first  # the plan, kept


KEYS = st.sampled_from(["a", "b", "c", "unit price"])
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(-1, 1),
    st.text(max_size=2),
    st.lists(st.integers(0, 1), max_size=2),
    st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 1), max_size=2),
)
OBJECTS = st.lists(st.dictionaries(KEYS, VALUES, max_size=4), min_size=1, max_size=4)


@SETTINGS
@given(
    gold=OBJECTS,
    elements=st.lists(st.one_of(st.dictionaries(KEYS, VALUES, max_size=4), VALUES), max_size=4),
    side=st.sampled_from(["expected", "actual"]),
)
def test_planned_columns_under_a_schema_inferred_from_other_elements(
    gold: list[Any], elements: list[Any], side: str
) -> None:
    """Keys the schema does not know, containers where it has a leaf and the reverse, on
    either side: the plan answers as the general loop does."""
    items = infer_node(gold, REGISTRY)
    assert shown(f1_columns(elements, items, side)) == shown(
        f1_columns(elements, items, side, never)
    )


def test_what_the_plan_decides() -> None:
    """Worked by hand: a key the schema does not know stops the expected side (the walk
    skips it) and stands as Unknown on the actual side; a container under a leaf without a
    comparator of its own needs a walk; an object field needs a walk."""
    items = infer_node([{"a": "s", "b": 1}], REGISTRY)
    assert f1_columns([{"a": "x", "zz": 1}], items, "expected") is None
    found = f1_columns([{"a": "x", "zz": 1}], items, "actual")
    assert found is not None and type(found[0]["zz"][1][0]) is Unknown
    assert f1_columns([{"a": {"x": 1}}], items, "actual") is None
    nested = infer_node([{"a": {"x": 1}}], REGISTRY)
    assert f1_columns([{"a": {"x": 1}}], nested, "expected") is None
    assert (
        shown(f1_columns([{"b": 2, "a": "y"}], items, "expected"))
        == "({'b': ([0], [2]), 'a': ([0], ['y'])}, [2])"
    )
