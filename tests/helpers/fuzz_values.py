"""Hypothesis strategies for the fuzz harness (tests/engine/test_fuzz.py).

Three families:

- *values*: what a user can pass as actual or expected. JSON values of every type; keys that
  are not strings; integers far beyond the float range and extreme floats; NaN and the
  infinities; numpy scalars and small arrays; subclasses of float, int, str, dict and list;
  tuples, sets, bytes and other objects; values that contain themselves; deep nesting (100
  to 2,100 levels, rare); large inputs (up to a few MB, rare); and text forms (JSON text,
  bytes, and for the actual side the JSON inside prose or a Markdown fence).
- *options*: random option sets for each metric, drawn from the option names the metric
  really takes (``REGISTRY.metric(name).options``), with valid and invalid values.
- *cases*: one call of the public API, ready to run, whose ``repr`` stays short however deep
  or cyclic its arguments are (hypothesis prints it when a property fails).

``ACCEPTED`` values and ``equal_keeping_options`` are the subset the engine must accept and
with which a value compared with itself must score 1.0.

The helpers at the end (``snapshot``, ``reordered``, ``clone``, ``to_json_text``, ``show``)
walk values of any depth and with cycles; the tests use them to check the properties.
"""

from __future__ import annotations

import collections
import contextlib
import datetime
import decimal
import enum
import fractions
import functools
import json
import math
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from pytest_jsonmatch import METRIC_NAMES, REGISTRY

REPO = Path(__file__).resolve().parents[2]
METRICS = tuple(METRIC_NAMES)


# -- user-defined types a caller may pass -------------------------------------------------------


class FloatSub(float):
    pass


class IntSub(int):
    pass


class StrSub(str):
    pass


class DictSub(dict):
    pass


class ListSub(list):
    pass


class Colour(str, enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


class Plain(enum.Enum):  # not a str or int: not JSON
    A = 1


class ReadOnlyMapping(Mapping):
    """A Mapping that is not a dict."""

    def __init__(self, data: dict) -> None:
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"ReadOnlyMapping({self._data!r})"


def weighted(*pairs: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """One of the strategies, chosen with the given weights (shrinks towards the first)."""
    total = sum(w for w, _ in pairs)

    @st.composite
    def pick(draw: Any) -> Any:
        n = draw(st.integers(0, total - 1))
        for w, strategy in pairs:
            if n < w:
                return draw(strategy)
            n -= w
        raise AssertionError("unreachable")

    return pick()


# -- scalars ----------------------------------------------------------------------------------

PLAIN_KEYS = st.one_of(
    st.sampled_from(
        [
            "a",
            "b",
            "id",
            "name",
            "sku",
            "items",
            "",
            " ",
            "a.b",
            "[0]",
            "*",
            "**",
            "$",
            "é",
            "e\u0301",
            "unit price",
            '"',
            "\\",
            "0",
            "null",
            "key_field",
        ]
    ),
    st.text(max_size=6),
)
SPECIAL_TEXT = st.sampled_from(
    [
        "",
        " ",
        "  a  b ",
        "\t\n",
        "A\u0301",
        "Á",
        "ß",
        "SS",
        "İ",
        "ﬁ",
        "{",
        "}",
        "[",
        '"',
        "\\",
        '{"a": 1}',
        "```json\n{}\n```",
        "1e400",
        "-1e400",
        "NaN",
        "nan",
        "inf",
        "-0",
        " 42 ",
        "4.2",
        "true",
        "True",
        "1",
        "0",
        "2024-03-09",
        "09/03/2024",
        "20240309",
        "2024-02-30",
        "9999-12-31T23:59:59",
        "\x00",
        "\ud800",
        "\U0001f600",
        "a" * 300,
        "a" * 100 + "!",  # what a catastrophic schema pattern (HOSTILE_PATTERNS) backtracks on
    ]
)
TEXT = st.one_of(st.text(max_size=12), SPECIAL_TEXT)
SMALL_INTS = st.integers(min_value=-(10**20), max_value=10**20)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
EXTREME_FLOATS = st.sampled_from(
    [
        0.0,
        -0.0,
        1e-13,
        -1e-13,
        5e-324,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        -1.7976931348623157e308,
        1e16,
        9007199254740993.0,
        0.1,
        1.0,
    ]
)
# integers beyond the float range: JSON numbers all the same (json.loads reads them)
HUGE_INTS = st.one_of(
    st.sampled_from([10**309, -(10**400), 2**1024, 2**1024 + 1, -(2**1100), 10**4000]),
    st.integers(min_value=-(10**600), max_value=10**600),
)
# beyond Python's default limit of 4,300 digits for int <-> str conversions
# (st.just, not st.sampled_from: hypothesis before 6.9x writes out a sampled_from's repr when
# it is built, and an integer of 5,000 digits has none)
VERY_HUGE_INTS = st.one_of(st.just(10**5000), st.just(-(10**5000)))
NUMBERS = weighted((6, SMALL_INTS), (6, FLOATS), (3, EXTREME_FLOATS), (2, HUGE_INTS))
JSON_SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)

NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])

NUMPY_SCALARS_FINITE = st.one_of(
    st.booleans().map(np.bool_),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.integers(-128, 127).map(np.int8),
    st.sampled_from([np.uint64(2**64 - 1), np.uint8(255), np.int32(-(2**31))]),
    FLOATS.map(np.float64),
    st.floats(width=32, allow_nan=False, allow_infinity=False).map(np.float32),
    st.sampled_from([np.float16(1.5), np.float64(1.7976931348623157e308), np.float64(-0.0)]),
)
NUMPY_SCALARS_ODD = st.sampled_from(
    [
        np.float64("nan"),
        np.float64("inf"),
        np.float64("-inf"),
        np.float32("nan"),
        np.str_("x"),
        np.bytes_(b"x"),
        np.complex128(1 + 2j),
        np.datetime64("2024-03-09"),
        np.timedelta64(1, "D"),
        np.void(b"\x00"),
    ]
)


def _array(kind: str, items: list) -> np.ndarray:
    if kind == "2d":
        n = len(items) // 2 * 2
        return np.array(items[:n], dtype=float).reshape(-1, 2) if n else np.zeros((0, 2))
    if kind == "0d":
        return np.array(items[0] if items else 0)
    if kind == "empty":
        return np.array([])
    if kind == "bool":
        return np.array([bool(x) for x in items], dtype=bool)
    if kind == "int":
        return np.array([int(x) % 1000 for x in items], dtype=np.int64)
    if kind == "object":
        return np.array(items + [None], dtype=object)
    return np.array(items, dtype=float)


NUMPY_ARRAYS_FINITE = st.builds(
    _array,
    st.sampled_from(["float", "int", "bool", "2d", "0d", "empty"]),
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=5),
)
NUMPY_ARRAYS_ODD = st.one_of(
    st.builds(_array, st.just("float"), st.lists(st.floats(), min_size=1, max_size=4)),
    st.builds(_array, st.just("object"), st.lists(st.floats(allow_nan=False), max_size=3)),
    st.sampled_from(
        [
            np.array(["a", "b"]),
            np.array([1 + 1j]),
            np.zeros((2, 0, 2)),
            np.array(["2024-03-09"], dtype="datetime64[D]"),
            np.ma.masked_array([1.0, 2.0], mask=[False, True]),
        ]
    ),
)

SUBCLASS_SCALARS = st.one_of(
    FLOATS.map(FloatSub),
    SMALL_INTS.map(IntSub),
    TEXT.map(StrSub),
    st.sampled_from([Colour.RED, Size.BIG]),
)

# values a JSON document cannot hold: the engine must refuse them with a ParseError
NOT_JSON = st.one_of(
    NON_FINITE,
    NON_FINITE.map(FloatSub),
    NUMPY_SCALARS_ODD,
    NUMPY_ARRAYS_ODD,
    VERY_HUGE_INTS,
    st.sampled_from(
        [
            b"",
            b"x",
            bytearray(b"ab"),
            b"\xff",
            memoryview(b"mv"),
            set(),
            {1, 2},
            frozenset({"a"}),
            datetime.date(2024, 5, 3),
            datetime.datetime(2024, 5, 3, 12, 0),
            decimal.Decimal("1.5"),
            decimal.Decimal("NaN"),
            fractions.Fraction(1, 3),
            1 + 2j,
            object(),
            Plain.A,
            range(3),
            Ellipsis,
            type,
            len,
            collections.deque([1, 2]),
        ]
    ),
)

# -- containers -------------------------------------------------------------------------------

ODD_KEYS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(
        [
            None,
            True,
            False,
            (1, 2),
            (),
            1.5,
            math.nan,
            b"k",
            10**400,
            frozenset({1}),
            ("a", ("b",)),
            Plain.A,
        ]
    ),
    TEXT.map(StrSub),
    st.sampled_from([Colour.RED, Size.BIG]),
)


@functools.cache
def _pydantic_class() -> Any:
    try:
        import pydantic
    except ImportError:  # the test extra brings it; without it, plain dicts are drawn
        return None

    class Model(pydantic.BaseModel):
        v: Any = None

    return Model


def pydantic_instance(value: Any) -> Any:
    """A pydantic model instance holding ``value`` (the engine dumps models as JSON)."""
    model = _pydantic_class()
    return {"v": value} if model is None else model(v=value)


def _json_containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.lists(children, max_size=4), st.dictionaries(PLAIN_KEYS, children, max_size=4)
    )


def _accepted_containers(children: st.SearchStrategy) -> st.SearchStrategy:
    """Containers the door turns into JSON (tuples become arrays, other mappings objects)."""
    return weighted(
        (6, st.lists(children, max_size=4)),
        (6, st.dictionaries(PLAIN_KEYS, children, max_size=4)),
        (1, st.lists(children, max_size=3).map(tuple)),
        (1, st.lists(children, max_size=3).map(ListSub)),
        (1, st.dictionaries(PLAIN_KEYS, children, max_size=3).map(DictSub)),
        (1, st.dictionaries(PLAIN_KEYS, children, max_size=3).map(collections.OrderedDict)),
        (1, st.dictionaries(PLAIN_KEYS, children, max_size=3).map(types.MappingProxyType)),
        (1, st.dictionaries(PLAIN_KEYS, children, max_size=3).map(ReadOnlyMapping)),
        (1, st.dictionaries(PLAIN_KEYS.map(StrSub), children, max_size=3)),
    )


def _any_containers(children: st.SearchStrategy) -> st.SearchStrategy:
    return weighted(
        (16, _accepted_containers(children)),
        (1, st.dictionaries(ODD_KEYS, children, min_size=1, max_size=3)),
        (1, st.dictionaries(st.one_of(PLAIN_KEYS, ODD_KEYS), children, min_size=1, max_size=3)),
        (1, st.sets(st.one_of(st.integers(-3, 3), TEXT), max_size=3)),
        (1, children.map(pydantic_instance)),
    )


JSON_VALUES = st.recursive(JSON_SCALARS, _json_containers, max_leaves=12)

ACCEPTED_LEAVES = weighted(
    (10, JSON_SCALARS), (2, SUBCLASS_SCALARS), (2, NUMPY_SCALARS_FINITE), (1, NUMPY_ARRAYS_FINITE)
)
ACCEPTED_TREES = st.recursive(ACCEPTED_LEAVES, _accepted_containers, max_leaves=12)

ANY_LEAVES = weighted(
    (12, JSON_SCALARS),
    (2, SUBCLASS_SCALARS),
    (2, NUMPY_SCALARS_FINITE),
    (1, NUMPY_ARRAYS_FINITE),
    (2, NOT_JSON),
)
ANY_TREES = st.recursive(ANY_LEAVES, _any_containers, max_leaves=12)


# -- deep, cyclic and large values --------------------------------------------------------------


def make_deep(depth: int, kind: str, leaf: Any, key: str = "a") -> Any:
    """A value nested ``depth`` levels: objects, arrays, both in turn, or tuples."""
    value = leaf
    for level in range(depth):
        if kind == "dict" or (kind == "mixed" and level % 2):
            value = {key: value}
        elif kind == "pair":  # arrays of two elements at every level (array pairing at depth)
            value = [value, level]
        elif kind == "tuple":
            value = (value,)
        else:
            value = [value]
    return value


def make_deep_text(depth: int, kind: str) -> str:
    """JSON text nested ``depth`` levels (json.dumps cannot write it: too deep)."""
    if kind == "dict":
        return '{"a": ' * depth + "1" + "}" * depth
    return '{"a": ' + "[" * depth + "1" + "]" * depth + "}"


DEPTHS = weighted((6, st.integers(100, 1000)), (1, st.integers(1000, 2100)))
DEEP = st.builds(
    make_deep,
    DEPTHS,
    st.sampled_from(["dict", "list", "mixed", "pair", "tuple"]),
    st.one_of(st.none(), st.integers(0, 3), st.just("x"), st.just({}), st.just([])),
    st.sampled_from(["a", "b", "a.b", ""]),
)
DEEP_ACCEPTED = st.builds(
    make_deep,
    st.integers(100, 1000),
    st.sampled_from(["dict", "list", "mixed", "pair", "tuple"]),
    st.sampled_from([None, 0, 1, "x", True]),
)


def make_cyclic(base: Any, where: str) -> Any:
    """``base`` put in a container that holds itself, directly or one level down."""
    if where == "list":
        outer: Any = [base]
        outer.append(outer)
    elif where == "dict":
        outer = {"v": base}
        outer["self"] = outer
    elif where == "two":  # a -> b -> a
        a: dict = {"v": base}
        a["b"] = {"back": a}
        outer = a
    elif where == "dictsub":
        outer = DictSub(v=base)
        outer["loop"] = [outer]
    else:  # a shared (not cyclic) child: the same list twice is a DAG, still JSON
        shared = [base]
        outer = {"x": shared, "y": shared}
    return outer


CYCLIC = st.builds(make_cyclic, JSON_VALUES, st.sampled_from(["list", "dict", "two", "dictsub"]))
SHARED = st.builds(make_cyclic, JSON_VALUES, st.just("shared"))


def make_big(kind: str, n: int, seed: int) -> Any:
    """A large value (up to a few MB), cheap to build: the size comes from ``n``."""
    letters = "abcdefghij klmnop"
    if kind == "string":
        return {"text": "".join(letters[(i * 7 + seed) % len(letters)] for i in range(n * 20))}
    if kind == "wide":
        return {f"k{i}": i + seed for i in range(n)}
    if kind == "numbers":
        return {"xs": [(i * 37 + seed) % 1001 for i in range(n)]}
    if kind == "floats":
        return {"xs": [i * 1.5 + seed for i in range(n)]}
    if kind == "records":
        return {
            "items": [
                {"sku": f"s{(i + seed) % n}", "qty": i % 7, "name": f"item {i % 13}"}
                for i in range(n // 10)
            ]
        }
    return {"words": [f"w{(i * 3 + seed) % 997} x" for i in range(n // 10)]}


BIG = st.builds(
    make_big,
    st.sampled_from(["string", "wide", "numbers", "floats", "records", "words"]),
    st.integers(1000, 50_000),
    st.integers(0, 3),
)


# -- top-level forms: what each side may be -------------------------------------------------------

PROSE = [
    ("Sure! Here it is:\n", "\nAnything else?"),
    ("```json\n", "\n```"),
    ("```\n", "\n```"),
    ("Result: ", " (as requested)"),
    ("", ""),
    ("  \n", "\n\t "),
]


def in_prose(text: str, form: int) -> str:
    before, after = PROSE[form % len(PROSE)]
    return before + text + after


@st.composite
def text_forms(draw: Any, values: st.SearchStrategy, actual_side: bool) -> Any:
    """A value written as JSON text or UTF-8 bytes; for the actual side, inside prose too."""
    value = draw(values)
    text = to_json_text(value)
    if text is None:
        return value
    how = draw(st.sampled_from(["text", "bytes", "prose", "prose", "twice", "broken"]))
    if how == "bytes":
        return text.encode("utf-8", "surrogatepass")
    if how == "prose" and actual_side:
        return in_prose(text, draw(st.integers(0, len(PROSE) - 1)))
    if how == "twice":
        return text + " " + text
    if how == "broken":
        return text[: draw(st.integers(0, max(0, len(text) - 1)))]
    return text


RAW_TEXTS = st.one_of(
    st.text(max_size=60),
    st.binary(max_size=40),
    st.sampled_from(
        [
            '{"price": NaN}',
            '{"a": Infinity}',
            '{"a": 1, "a": 2}',
            "{" * 3000,
            "[" * 3000,
            '{"a": ' + "[" * 5000,
            "",
            "null",
            "[]",
            "5",
            '"s"',
            b"\xef\xbb\xbf{}",
            "\ufeff{}",
            "{}",
        ]
    ),
)


def side(actual_side: bool) -> st.SearchStrategy:
    """Anything a caller may pass as one side of a comparison."""
    return weighted(
        (12, st.dictionaries(PLAIN_KEYS, ACCEPTED_TREES, max_size=5)),
        (6, st.dictionaries(PLAIN_KEYS, ANY_TREES, max_size=5)),
        (3, st.lists(ACCEPTED_TREES, max_size=4)),
        (2, st.lists(ANY_TREES, max_size=4)),
        (4, text_forms(st.dictionaries(PLAIN_KEYS, JSON_VALUES, max_size=5), actual_side)),
        (2, text_forms(st.lists(JSON_VALUES, max_size=3), actual_side)),
        (2, ANY_TREES),
        (2, RAW_TEXTS),
        (2, DEEP),
        (1, st.builds(make_deep_text, DEPTHS, st.sampled_from(["dict", "list"]))),
        (2, CYCLIC),
        (1, SHARED),
        (1, BIG),
    )


ACTUAL = side(actual_side=True)
EXPECTED = side(actual_side=False)


def _near_scalar(v: Any, rng: Any) -> Any:
    """A scalar close to ``v``, or of another type (what a model gets slightly wrong)."""
    roll = rng.randrange(10)
    if roll == 0:
        return rng.choice([None, True, False, 0, 1, "", "1", 1.0, [], {}])
    if isinstance(v, bool) or v is None:
        return rng.choice([not v, 0, 1, "true", None])
    if isinstance(v, (int, float)):
        try:
            with np.errstate(all="ignore"):
                return rng.choice(
                    [
                        v + 1,
                        v * (1 + 1e-4),
                        -v,
                        v + 1e-4,
                        v * 10 ** rng.randrange(1, 5),
                        float(v) if roll % 2 else v,
                        str(v)[:50],
                    ]
                )
        except (OverflowError, ValueError):
            return 0
    if isinstance(v, str):
        if not v:
            return rng.choice([" ", "a", None])
        i = rng.randrange(len(v))
        return rng.choice(
            [
                v.upper(),
                v[:i] + v[i + 1 :],
                v + " x",
                v[::-1],
                " ".join(reversed(v.split())),
                v.strip(),
                v[:i] + "e\u0301" + v[i:],
            ]
        )
    return v


def mutate(value: Any, seed: int, rate: float) -> Any:
    """A copy of ``value`` with some leaves changed, keys dropped or added, and array
    elements dropped, duplicated or reordered: a near copy, as a model's answer is."""
    rng = __import__("random").Random(seed)

    def walk(v: Any, depth: int) -> Any:
        if depth > 60:
            return v
        if isinstance(v, Mapping):
            out = {}
            for k, x in v.items():
                if rng.random() < rate / 2:
                    continue  # dropped
                out[k] = walk(x, depth + 1)
            if rng.random() < rate / 2:
                out[rng.choice(["extra", "a", "id", "note"])] = _near_scalar("x", rng)
            return out
        if isinstance(v, (list, tuple)) and not isinstance(v, np.ndarray):
            items = [walk(x, depth + 1) for x in v]
            if items and rng.random() < rate:
                rng.shuffle(items)
            if items and rng.random() < rate / 2:
                items.pop(rng.randrange(len(items)))
            if items and rng.random() < rate / 2:
                items.append(items[rng.randrange(len(items))])
            return items
        return _near_scalar(v, rng) if rng.random() < rate else v

    with deep_recursion():
        return walk(value, 0)


@st.composite
def related_pairs(draw: Any) -> tuple[Any, Any]:
    """(actual, expected): expected an accepted value, actual a near copy of it."""
    expected = draw(
        st.one_of(
            st.dictionaries(PLAIN_KEYS, ACCEPTED_TREES, min_size=1, max_size=6),
            st.lists(ACCEPTED_TREES, min_size=1, max_size=5),
        )
    )
    actual = mutate(
        expected, draw(st.integers(0, 2**32)), draw(st.sampled_from([0.0, 0.1, 0.3, 0.7]))
    )
    if draw(st.integers(0, 5)) == 0:
        text = to_json_text(plain(actual))
        if text is not None:
            actual = in_prose(text, draw(st.integers(0, len(PROSE) - 1)))
    return actual, expected


PAIRS = weighted((3, related_pairs()), (2, st.tuples(ACTUAL, EXPECTED)))


# values the engine must accept, for self-comparison: objects (every metric) and arrays
ACCEPTED_OBJECTS = weighted(
    (20, st.dictionaries(PLAIN_KEYS, ACCEPTED_TREES, max_size=5)),
    (3, st.dictionaries(PLAIN_KEYS, JSON_VALUES, max_size=5).map(DictSub)),
    (2, st.builds(lambda v: {"deep": v}, DEEP_ACCEPTED)),
    (1, SHARED),
    (1, BIG),
)
ACCEPTED_ARRAYS = st.lists(ACCEPTED_TREES, max_size=4)


# -- options ----------------------------------------------------------------------------------

HUGE = 10**400
BAD_NUMBERS = st.one_of(
    st.sampled_from(
        [
            math.nan,
            math.inf,
            -math.inf,
            -1,
            -1e-9,
            HUGE,
            -HUGE,
            "0.5",
            "x",
            None,
            True,
            [],
            {},
            np.float64("nan"),
            1 + 1j,
        ]
    ),
    VERY_HUGE_INTS,
)

PATTERN_PARTS = st.sampled_from(
    [
        "a",
        "b",
        "id",
        "sku",
        "items",
        "*",
        "**",
        "[*]",
        "[]",
        "[0]",
        "[1]",
        '["a.b"]',
        '["unit price"]',
        "x",
    ]
)


@st.composite
def patterns(draw: Any, valid: bool = False) -> str:
    """A path pattern: ``items[*].sku``, ``**.a``, ``$``...; when not ``valid``, now and
    then one that cannot be read."""
    if not valid and draw(st.integers(0, 9)) == 0:
        return draw(
            st.sampled_from(
                [
                    "$",
                    "**",
                    "*",
                    "",
                    "items[x",
                    "a..b",
                    "[",
                    "]",
                    "**.**.**",
                    "a.**.b",
                    "*.*",
                    '["',
                    "a[-1]",
                    "a[99999999999999999999]",
                ]
            )
        )
    parts = draw(st.lists(PATTERN_PARTS, min_size=1, max_size=4))
    out = ""
    for part in parts:
        if part.startswith("[") or not out:
            out += part
        else:
            out += "." + part
    return out


EXPONENTIAL_IGNORE = "**." * 8 + "zzz"

IGNORE_VALID = st.one_of(st.lists(patterns(valid=True), max_size=3), patterns(valid=True))
IGNORE_INVALID = st.one_of(
    st.sampled_from(
        [
            5,
            None,
            [5],
            [None],
            {"a": 1},
            [["a"]],
            b"a",
            [b"a"],
            1.5,
            True,
            [EXPONENTIAL_IGNORE],
            ("a",),
            {"a"},
        ]
    ),
    st.lists(st.one_of(patterns(), st.integers()), min_size=1, max_size=3),
)


def toy_embedder(texts: list) -> list:
    """A deterministic embedder: two dimensions from the characters of each string."""
    out = []
    for text in texts:
        s = sum(ord(c) for c in text)
        out.append([1.0 + (s % 7), 1.0 + (len(text) % 5)])
    return out


def nan_embedder(texts: list) -> list:
    return [[math.nan, 1.0] for _ in texts]


def zero_embedder(texts: list) -> list:
    return [[0.0, 0.0] for _ in texts]


def short_embedder(texts: list) -> list:
    return [[1.0, 0.0]]


def raising_embedder(texts: list) -> list:
    raise RuntimeError("model server unreachable")


def huge_embedder(texts: list) -> list:
    return [[1e308, 1e308] for _ in texts]


def object_embedder(texts: list) -> Any:
    return np.array([["a", "b"] for _ in texts], dtype=object)


EMBEDDERS_VALID = st.sampled_from([toy_embedder])
EMBEDDERS_ANY = st.one_of(
    st.sampled_from(
        [
            toy_embedder,
            nan_embedder,
            zero_embedder,
            short_embedder,
            raising_embedder,
            huge_embedder,
            object_embedder,
        ]
    ),
    st.sampled_from(
        [
            "bert",
            "sentence-transformers:no-such-model",
            "",
            5,
            None,
            ["x"],
            "sentence-transformers:",
            "wordllama:x",
        ]
    ),
)


def _comparator_params() -> dict[str, tuple[st.SearchStrategy, st.SearchStrategy]]:
    """Per comparator: (valid params that keep equal values equal, any params)."""
    positive = st.floats(min_value=1e-300, max_value=1e300)
    nonneg = st.floats(min_value=0.0, max_value=1e300)
    num_or_bad = st.one_of(nonneg, BAD_NUMBERS)
    return {
        "numeric": (
            st.fixed_dictionaries(
                {}, optional={"abs": nonneg, "rel": nonneg, "coerce": st.booleans()}
            ),
            st.fixed_dictionaries(
                {},
                optional={
                    "abs": num_or_bad,
                    "rel": num_or_bad,
                    "coerce": st.one_of(st.booleans(), BAD_NUMBERS),
                    "tolerance": st.one_of(
                        num_or_bad,
                        st.fixed_dictionaries({}, optional={"abs": num_or_bad, "rel": num_or_bad}),
                    ),
                    "absolute": st.just(1),
                },
            ),
        ),
        "threshold": (
            st.fixed_dictionaries({}, optional={"threshold": positive, "weighting": nonneg}),
            st.fixed_dictionaries({}, optional={"threshold": num_or_bad, "weighting": num_or_bad}),
        ),
        "oneof": (
            st.nothing(),  # oneof ignores expected: it does not keep equal values equal
            st.fixed_dictionaries(
                {},
                optional={
                    "values": st.one_of(
                        st.lists(JSON_SCALARS, max_size=3),
                        st.sampled_from([None, 5, "abc", {"a": 1}]),
                        st.lists(NOT_JSON, max_size=2),
                    )
                },
            ),
        ),
        "date": (
            st.fixed_dictionaries(
                {},
                optional={
                    "formats": st.lists(
                        st.sampled_from(["%d/%m/%Y", "%Y-%m-%d", "%m/%d/%Y", "%d.%m.%y", "%Y"]),
                        max_size=3,
                    )
                },
            ),
            st.fixed_dictionaries(
                {},
                optional={
                    "formats": st.one_of(
                        st.lists(
                            st.sampled_from(["Y-m-d", "%", "%Q", "", "%d/%m/%Y", "%%"]), max_size=3
                        ),
                        st.sampled_from([None, 5, "%Y", [5], [None]]),
                    )
                },
            ),
        ),
        "cosine": (
            st.fixed_dictionaries({"embedder": EMBEDDERS_VALID}),
            st.fixed_dictionaries({}, optional={"embedder": EMBEDDERS_ANY}),
        ),
    }


COMPARATOR_PARAMS = _comparator_params()
EQUAL_KEEPING_COMPARATORS = (
    "exact",
    "normalized",
    "numeric",
    "levenshtein",
    "jaccard",
    "relative",
    "threshold",
    "binary",
    "date",
    "cosine",
)


@st.composite
def comparator_specs(draw: Any, valid: bool) -> Any:
    """A comparator spec: a name or {name: params}."""
    if valid:
        name = draw(
            st.sampled_from(
                [n for n in EQUAL_KEEPING_COMPARATORS if n in REGISTRY.comparator_names]
            )
        )
    else:
        name = draw(
            st.one_of(
                st.sampled_from(sorted(REGISTRY.comparator_names)),
                st.sampled_from(["fuzzy", "", "EXACT", "numeric ", 5, None]),
            )
        )
    if not isinstance(name, str):
        return name
    valid_params, any_params = COMPARATOR_PARAMS.get(name, (st.just({}), st.just({"x": 1})))
    if name == "cosine" and valid:
        return {name: draw(valid_params)}
    form = draw(st.integers(0, 3))
    if form == 0:
        return name
    if valid:
        return {name: draw(valid_params)}
    if form == 3:
        return {name: draw(st.sampled_from([None, 5, "x", [1]]))}
    return {name: draw(any_params)}


DIGITS_VALID = st.integers(-20, 20)
DIGITS_ANY = st.one_of(
    st.integers(-(10**9), 10**9),
    st.integers(-10_001, 10_001),  # round_digits' range, -10,000 to 10,000, and just past it
    st.sampled_from(
        [-(10**8), 10**8, -(10**30), 10**30, 10**400, -(10**400), 2**63, 1.5, math.nan, "2"]
        + [None, True]
    ),
)


@st.composite
def transform_specs(draw: Any, valid: bool) -> Any:
    """One transform spec, or a list of them."""

    def one() -> Any:
        names = sorted(REGISTRY.transform_names)
        if not valid:
            names += ["uppercase", "", "LOWERCASE"]
        name = draw(st.sampled_from(names))
        if name == "round_digits":
            params = draw(
                st.fixed_dictionaries(
                    {}, optional={"digits": DIGITS_VALID if valid else DIGITS_ANY}
                )
            )
        elif name == "type_convert":
            to = st.sampled_from(["str", "int", "float", "bool"])
            params = {
                "to": draw(
                    to if valid else st.one_of(to, st.sampled_from(["date", None, 5, "INT", ""]))
                )
            }
        else:
            params = {} if valid else draw(st.sampled_from([{}, {"x": 1}, None]))
        if draw(st.booleans()) and params == {}:
            return name
        return {name: params}

    if not valid and draw(st.integers(0, 9)) == 0:
        return draw(
            st.sampled_from([5, None, [5], {"a": "b"}, [[]], {"strip": {}, "lowercase": {}}])
        )
    if draw(st.booleans()):
        return one()
    return [one() for _ in range(draw(st.integers(0, 3)))]


ALIGN_VALID = st.one_of(
    st.sampled_from(["ordered", "hungarian"]),
    st.builds(lambda k: {"match_by": "key_field", "key": k}, PLAIN_KEYS),
)
ALIGN_EQUAL_KEEPING = st.sampled_from(["ordered", "hungarian"])
ALIGN_INVALID = st.sampled_from(
    [
        "by_magic",
        "",
        5,
        None,
        {"match_by": "key_field"},
        {"match_by": "key_field", "key": 5},
        {"match_by": "nope"},
        {"match_by": "key_field", "key": None},
        ["ordered"],
        {"match_by": "key_field", "key": "id", "extra": 1},
        "HUNGARIAN",
    ]
)


@st.composite
def field_settings(draw: Any, valid: bool) -> Any:
    """The settings of one ``fields`` pattern."""
    if not valid and draw(st.integers(0, 9)) == 0:
        return draw(
            st.sampled_from(
                ["exact", 5, None, [], {"minscore": 1}, {"comparator": "exact", "tolerance": 1}]
            )
        )
    out: dict[str, Any] = {}
    keys = draw(
        st.lists(
            st.sampled_from(
                ["comparator", "tolerance", "transform", "align", "skip", "min_score", "weight"]
            ),
            max_size=3,
            unique=True,
        )
    )
    if valid and "comparator" in keys and "tolerance" in keys:
        keys.remove("tolerance")
    nonneg = st.floats(min_value=0.0, max_value=1e300)
    for key in keys:
        if key == "comparator":
            out[key] = draw(comparator_specs(valid))
        elif key == "tolerance":
            tol = st.one_of(
                nonneg, st.fixed_dictionaries({}, optional={"abs": nonneg, "rel": nonneg})
            )
            out[key] = draw(tol if valid else st.one_of(tol, BAD_NUMBERS))
        elif key == "transform":
            out[key] = draw(transform_specs(valid))
        elif key == "align":
            out[key] = draw(ALIGN_EQUAL_KEEPING if valid else st.one_of(ALIGN_VALID, ALIGN_INVALID))
        elif key == "skip":
            out[key] = draw(
                st.booleans()
                if valid
                else st.one_of(st.booleans(), st.sampled_from(["yes", 1, None, "false"]))
            )
        elif key == "min_score":
            unit = st.floats(0.0, 1.0)
            out[key] = draw(unit if valid else st.one_of(unit, BAD_NUMBERS, st.just(2)))
        elif key == "weight":
            out[key] = draw(
                st.one_of(nonneg, st.sampled_from([0, 1, 3, 1e308, 5e-324]))
                if valid
                else st.one_of(nonneg, BAD_NUMBERS)
            )
    if not valid and draw(st.integers(0, 5)) == 0:
        out[draw(st.sampled_from(["minscore", "Comparator", "x-eval-compare", ""]))] = 1
    return out


def fields_option(valid: bool) -> st.SearchStrategy:
    good = st.dictionaries(patterns(valid), field_settings(valid), max_size=3)
    if valid:
        return good
    return st.one_of(good, st.sampled_from([5, None, [], "a", {5: {}}, {None: {}}, {("a",): {}}]))


# -- eval schemas -----------------------------------------------------------------------------

SCHEMA_TYPES_VALID = st.sampled_from(
    ["null", "boolean", "integer", "number", "string", "array", "object"]
)
SCHEMA_TYPES_ANY = st.one_of(
    SCHEMA_TYPES_VALID,
    st.sampled_from(
        [
            "str",
            "int",
            "",
            None,
            5,
            ["number", "null"],
            ["string", "integer"],
            [],
            ["nope"],
            {"type": "string"},
        ]
    ),
)


# Patterns that backtrack catastrophically (issue 55): "^(a+)+$" and "^(\w+\s?)*$" blow up
# in Python's re, "^(a|aa)+$" in the regex package too; each is searched under a time budget.
HOSTILE_PATTERNS = ["^(a+)+$", r"^(\w+\s?)*$", "^(a|aa)+$", "(a*)*b", "(unclosed"]
HOSTILE_PATTERN_NODES = [
    node
    for pattern in HOSTILE_PATTERNS
    for node in (
        {"type": "string", "pattern": pattern},
        {"type": "object", "patternProperties": {pattern: {"type": "integer"}}},
        {"type": "object", "propertyNames": {"pattern": pattern}},
        {"type": "array", "items": {"type": "string", "pattern": pattern}},
    )
]


@st.composite
def schema_nodes(draw: Any, depth: int = 0) -> Any:
    """A small eval schema node: valid ones mostly, malformed ones sometimes."""
    roll = draw(st.integers(0, 19))
    if roll == 0:
        return draw(
            st.sampled_from(
                [
                    True,
                    False,
                    None,
                    5,
                    "string",
                    [],
                    {"$ref": "#"},
                    {"$ref": "#/$defs/missing"},
                    {"$ref": "other.json"},
                    {"$ref": "https://example.invalid/s.json"},
                    {"$ref": 5},
                    {"allOf": [{"type": "string"}, {"type": "integer"}]},
                    {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    {"oneOf": [{"type": "object"}, {"type": "object"}]},
                    {"type": "object", "patternProperties": {"^a": {}}},
                    {"enum": ["a", "b"]},
                    {"type": "string", "x-eval-comapre": "x"},
                    {"type": "string", "x-override-evaluator": "exact"},
                    {"$ref": "#/$defs/loop", "$defs": {"loop": {"$ref": "#/$defs/loop"}}},
                    *HOSTILE_PATTERN_NODES,
                ]
            )
        )
    kind = draw(SCHEMA_TYPES_VALID if roll < 14 else SCHEMA_TYPES_ANY)
    node: dict[str, Any] = {"type": kind}
    if kind == "object" and depth < 3:
        node["properties"] = draw(st.dictionaries(PLAIN_KEYS, schema_nodes(depth + 1), max_size=3))
        if draw(st.booleans()):
            node["additionalProperties"] = draw(
                st.sampled_from([True, False, {}, {"type": "string"}])
            )
    if kind == "array" and depth < 3:
        node["items"] = draw(schema_nodes(depth + 1))
        if draw(st.integers(0, 3)) == 0:
            node["x-eval-align"] = draw(st.one_of(ALIGN_VALID, ALIGN_INVALID))
    extras = draw(
        st.lists(
            st.sampled_from(
                [
                    "x-eval-compare",
                    "x-eval-transform",
                    "x-eval-skip",
                    "x-eval-weight",
                    "x-eval-align",
                    "description",
                ]
            ),
            max_size=2,
            unique=True,
        )
    )
    for key in extras:
        bad = roll >= 16
        if key == "x-eval-compare":
            node[key] = draw(comparator_specs(valid=not bad))
        elif key == "x-eval-transform":
            node[key] = draw(transform_specs(valid=not bad))
        elif key == "x-eval-skip":
            node[key] = draw(st.booleans() if not bad else st.sampled_from(["yes", 1, None]))
        elif key == "x-eval-weight":
            node[key] = draw(st.floats(0, 10) if not bad else BAD_NUMBERS)
        elif key == "x-eval-align":
            node[key] = draw(st.one_of(ALIGN_VALID, ALIGN_INVALID))
        else:
            node[key] = "a field"
    return node


def _pydantic_model() -> Any:
    try:
        import pydantic
    except ImportError:
        return {"type": "object"}

    class Invoice(pydantic.BaseModel):
        vendor: str = ""
        total: float = 0.0
        tags: list[str] = []

    return Invoice


SCHEMA_FILES = sorted(str(p) for p in (REPO / "example_suite" / "schemas").glob("*"))
SCHEMA_PATHS = st.sampled_from(
    SCHEMA_FILES
    + [
        str(REPO / "pyproject.toml"),
        str(REPO / "README.md"),
        "/no/such/schema.json",
        "",
        "schemas/missing.json",
        "/dev/null",
    ]
)
SCHEMA_DIRECTORY = str(REPO / "example_suite" / "schemas")  # a known failure: IsADirectoryError

SCHEMAS_ANY = weighted(
    (12, schema_nodes()),
    (
        2,
        st.builds(
            lambda props: {"type": "object", "properties": props},
            st.dictionaries(PLAIN_KEYS, schema_nodes(1), max_size=4),
        ),
    ),
    (2, SCHEMA_PATHS),
    (1, st.builds(Path, SCHEMA_PATHS)),
    (1, st.sampled_from([None, 5, [], "x", b"{}", SCHEMA_DIRECTORY])),
    (1, st.builds(_pydantic_model)),
)


# -- structeval's options ----------------------------------------------------------------------

EVAL_TYPES = {
    "string_evaluation_type": ["jaccard", "binary", "cosine"],
    "boolean_evaluation_type": ["binary"],
    "integer_evaluation_type": ["binary", "threshold"],
    "float_evaluation_type": ["threshold", "binary"],
    "number_evaluation_type": ["threshold", "binary"],
}


@st.composite
def evaluation_types(draw: Any, option: str, valid: bool) -> Any:
    kinds = EVAL_TYPES.get(option, ["binary"])
    if not valid and draw(st.integers(0, 4)) == 0:
        return draw(
            st.sampled_from(
                [
                    "binary",
                    None,
                    5,
                    {},
                    {"evaluation_type": "jaccard"},
                    {"evaluation_type": "threshold"},
                    {"evaluation_params": {}},
                    {"evaluation_type": "cosine", "evaluation_params": {"x": 1}},
                ]
            )
        )
    kind = draw(st.sampled_from(kinds if valid else kinds + ["levenshtein", "nope"]))
    out: dict[str, Any] = {"evaluation_type": kind}
    if kind == "threshold":
        positive = st.floats(min_value=1e-300, max_value=1e300)
        params = {
            "threshold": draw(positive if valid else st.one_of(positive, BAD_NUMBERS, st.just(0)))
        }
        if draw(st.booleans()):
            nonneg = st.floats(0.0, 1e300)
            params["difference_penalty_weighting"] = draw(
                nonneg if valid else st.one_of(nonneg, BAD_NUMBERS)
            )
        out["evaluation_params"] = params
    elif kind == "cosine":  # the model comes from the embedder option (a toy one when valid)
        if not valid and draw(st.booleans()):
            out["evaluation_params"] = {"embedding_model": draw(st.sampled_from(["nope", 5, None]))}
    elif draw(st.booleans()):
        out["evaluation_params"] = {} if valid else draw(st.sampled_from([{}, {"x": 1}, None, 5]))
    return out


TARGET_KEYS_ANY = st.one_of(
    st.just("*"),
    PLAIN_KEYS,
    st.sampled_from(
        [
            "result.items[0].name",
            "a[0]",
            "a.b.c",
            "a[",
            "[0]",
            "a[-1]",
            "a[99999999999999999999]",
            5,
            None,
            [],
            [5],
            ["a", "a"],
            b"a",
            {"a": 1},
        ]
    ),
    st.lists(PLAIN_KEYS, max_size=3),
)


@functools.cache
def option_strategies(metric: str, valid: bool) -> dict[str, st.SearchStrategy]:
    """Per option name the metric takes: a strategy of its values, valid ones only or any."""
    positive = st.floats(min_value=1e-300, max_value=1e300)
    nonneg = st.floats(min_value=0.0, max_value=1e300)
    below_one = st.floats(min_value=0.0, max_value=1.0, exclude_max=True)
    common: dict[str, st.SearchStrategy] = {
        "ignore": IGNORE_VALID if valid else st.one_of(IGNORE_VALID, IGNORE_INVALID),
        "fields": fields_option(valid),
        "align": ALIGN_EQUAL_KEEPING if valid else st.one_of(ALIGN_VALID, ALIGN_INVALID),
        "embedder": EMBEDDERS_VALID if valid else EMBEDDERS_ANY,
        "post_process": st.lists(
            st.sampled_from(
                ["reclassify_nulls", "propagate_batch_errors", lambda results: results]
            ),
            max_size=2,
        )
        if valid
        else st.one_of(
            st.lists(
                st.sampled_from(
                    [
                        "reclassify_nulls",
                        "propagate_batch_errors",
                        "nope",
                        lambda results: results,
                        lambda results: None,
                        5,
                    ]
                ),
                max_size=2,
            ),
            st.sampled_from(["reclassify_nulls", None, 5, len]),
        ),
        "target_output_key": st.just("*") if valid else TARGET_KEYS_ANY,
        # tool_calls's own: under the default rules, the BFCL ones left out
        "order": st.sampled_from([None, "any", "strict"]) if valid else ANY_TREES,
        "rules": st.sampled_from([None, "default"]) if valid else ANY_TREES,
        "tools": st.none() if valid else ANY_TREES,
        "category": st.none() if valid else ANY_TREES,
        "language": st.none() if valid else ANY_TREES,
        "underscore_to_dot": st.none() if valid else ANY_TREES,
        # trajectory's own (every mode and argument mode keeps a run equal to itself at 1.0)
        "mode": st.sampled_from([None, "strict", "unordered", "subset", "superset"])
        if valid
        else ANY_TREES,
        "args": st.sampled_from([None, "exact", "ignore", "subset", "superset"])
        if valid
        else ANY_TREES,
        "pairing": st.sampled_from([None, "optimal", "agentevals"]) if valid else ANY_TREES,
        "tool_args": st.sampled_from([None, {"f": ["x"]}, {"f": "ignore"}, {"f": {"x": "exact"}}])
        if valid
        else ANY_TREES,
        "string_evaluator": st.sampled_from(["jaccard", "levenshtein", "exact", "binary"])
        if valid
        else st.one_of(
            st.sampled_from(sorted(REGISTRY.comparator_names)),
            st.sampled_from(["cosinus", "", 5, None, {"numeric": {}}]),
        ),
        "numeric_threshold": positive if valid else st.one_of(positive, BAD_NUMBERS, st.just(0)),
        "numeric_weighting": nonneg if valid else st.one_of(nonneg, BAD_NUMBERS),
        "array_matching_threshold": below_one
        if valid
        else st.one_of(st.floats(0.0, 1.0), BAD_NUMBERS, st.just(2)),
        "beta": positive if valid else st.one_of(positive, BAD_NUMBERS, st.just(0)),
        "truncated": st.sampled_from(["error", "close"])
        if valid
        else st.sampled_from(["error", "close", "Close", "", None, 5, True, ["close"]]),
        "conformance": st.sampled_from([True, False, None])
        if valid
        else st.one_of(st.sampled_from([True, False, None]), ANY_TREES),
    }
    for name in EVAL_TYPES:
        common[name] = evaluation_types(name, valid)
    if not valid:
        common["schema"] = SCHEMAS_ANY
    taken = REGISTRY.metric(metric).options
    # an option added to the engine later still gets fuzzed, with values of every kind
    return {
        name: common.get(name, ANY_TREES)
        for name in sorted(taken)
        if valid is False or name != "schema"
    }


@st.composite
def options_for(draw: Any, metric: str) -> dict[str, Any]:
    """A random option set for ``metric``: each option valid three times in four, else a
    value of any kind; sometimes an unknown name."""
    good, anything = option_strategies(metric, valid=True), option_strategies(metric, valid=False)
    names = draw(st.lists(st.sampled_from(sorted(anything)), max_size=4, unique=True))
    out = {}
    for name in names:
        broad = {"align": ALIGN_VALID, "schema": SCHEMAS_ANY}.get(name, good.get(name))
        out[name] = draw(broad if broad is not None and draw(st.integers(0, 3)) else anything[name])
    if draw(st.integers(0, 14)) == 0:
        other = sorted(
            set().union(*(REGISTRY.metric(m).options for m in METRICS)) | {"treshold", ""}
        )
        out[draw(st.sampled_from(other))] = draw(st.sampled_from([1, "x", None]))
    return out


@st.composite
def equal_keeping_options(draw: Any, metric: str, value: Any) -> dict[str, Any]:
    """Valid options with which a value compared with itself scores 1.0."""
    table = option_strategies(metric, valid=True)
    names = draw(st.lists(st.sampled_from(sorted(table)), max_size=3, unique=True))
    out = {name: draw(table[name]) for name in names}
    if "target_output_key" in table and isinstance(value, Mapping) and draw(st.booleans()):
        keys = [k for k in value if isinstance(k, str) and k.isidentifier()]
        if keys:
            chosen = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=2, unique=True))
            out["target_output_key"] = chosen[0] if draw(st.booleans()) else chosen
    if draw(st.integers(0, 4)) == 0:
        out["schema"] = draw(st.sampled_from(["inferred", "annotated"]))  # made by the test
    # documented as conflicting: one spelling of each setting
    if "string_evaluator" in out:
        out.pop("string_evaluation_type", None)
    if "numeric_threshold" in out or "numeric_weighting" in out:
        out.pop("number_evaluation_type", None)
    if "string_evaluation_type" in out:
        out.setdefault("embedder", toy_embedder)
    return out


THRESHOLDS = st.one_of(
    st.none(),
    st.floats(0.0, 1.0),
    st.sampled_from([0, 1, 0.5]),
    BAD_NUMBERS,
    st.just(2),
    st.just(1.0000001),
)
TYPE_DEFAULTS = st.one_of(
    st.none(),
    st.dictionaries(
        st.one_of(SCHEMA_TYPES_VALID, st.sampled_from(["str", "int", ""])),
        comparator_specs(valid=False),
        max_size=2,
    ),
    st.sampled_from([5, "string", [], {"string": None}]),
)


# -- cases: one call of the public API -----------------------------------------------------------


@dataclass
class Case:
    """One call: ``function(*args, **kwargs)``. Its repr is bounded, whatever the values."""

    function: str
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"{self.function}({', '.join(parts)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis's printer
        printer.text(repr(self))


METRIC = st.sampled_from(METRICS)


@st.composite
def match_cases(draw: Any, metric: str | None = None) -> Case:
    metric = metric or draw(METRIC)
    return Case("match_json", draw(PAIRS), {"metric": metric, **draw(options_for(metric))})


@st.composite
def record_cases(draw: Any, metric: str | None = None) -> Case:
    metric = metric or draw(METRIC)
    n = draw(st.integers(0, 3))
    pairs = [draw(PAIRS) for _ in range(n)]
    expected = [e for _, e in pairs]
    actual = [a for a, _ in pairs]
    roll = draw(st.integers(0, 19))
    if roll == 0:
        actual = actual + [{}]  # lengths differ
    elif roll == 1:
        expected, actual = tuple(expected), tuple(actual)
    elif roll == 2:
        expected = draw(st.sampled_from([None, 5, {"a": 1}, "[]", b"", np.array([{}])]))
    return Case(
        "evaluate_records", (expected, actual), {"metric": metric, **draw(options_for(metric))}
    )


@st.composite
def assert_cases(draw: Any, metric: str | None = None) -> Case:
    metric = metric or draw(METRIC)
    kwargs: dict[str, Any] = {"metric": metric}
    threshold = draw(THRESHOLDS)
    if threshold is not None or draw(st.booleans()):
        kwargs["threshold"] = threshold
    return Case("assert_json_match", draw(PAIRS), {**kwargs, **draw(options_for(metric))})


def _tool_calls_as(form: str, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """Calls in one of the forms models give them (reading/agent_messages.py)."""
    if form == "bfcl":
        return [{name: args} for name, args in calls]
    if form == "plain":
        return [{"name": name, "arguments": args} for name, args in calls]
    if form == "anthropic":
        blocks = [
            {"type": "tool_use", "id": f"t{i}", "name": n, "input": a}
            for i, (n, a) in enumerate(calls)
        ]
        return {"role": "assistant", "content": [{"type": "text", "text": "ok"}, *blocks]}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    }


# an agent's tool calls, for the tool_calls metric: a few calls of a few functions (repeats
# too), their arguments any JSON, in every form the metric reads
TOOL_CALL_VALUES = st.builds(
    _tool_calls_as,
    st.sampled_from(["bfcl", "plain", "anthropic", "openai"]),
    st.lists(
        st.tuples(
            st.sampled_from(["get_weather", "f", "math.sqrt", "a b"]),
            st.dictionaries(PLAIN_KEYS, JSON_VALUES, max_size=3),
        ),
        max_size=3,
    ),
)


def _run_as(form: str, steps: list[tuple[str, Any]]) -> Any:
    """A run of steps (a message of calls, a tool result, an answer) in one of the forms
    agents record it (reading/agent_messages.py)."""
    out: list[Any] = []
    for kind, calls in steps:
        if kind == "calls":
            message = _tool_calls_as("anthropic" if form == "anthropic" else "openai", calls)
            if form == "langchain":
                message = {
                    "type": "ai",
                    "content": "",
                    "tool_calls": [
                        {"name": n, "args": a, "id": "1", "type": "tool_call"} for n, a in calls
                    ],
                }
            out.append(message if form != "plain" else None)
            if form == "plain":
                out[-1:] = [{"name": n, "arguments": a} for n, a in calls]
        elif kind == "result":
            out.append({"result": "r"} if form == "plain" else {"role": "tool", "content": "r"})
        else:
            out.append(
                {"answer": "a"} if form == "plain" else {"role": "assistant", "content": "a"}
            )
    return {"messages": out} if form == "langchain" else out


# an agent's run, for the trajectory metric: a few steps, the calls as above
TRAJECTORY_VALUES = st.builds(
    _run_as,
    st.sampled_from(["plain", "anthropic", "openai", "langchain"]),
    st.lists(
        st.one_of(
            st.tuples(
                st.just("calls"),
                st.lists(
                    st.tuples(
                        st.sampled_from(["f", "g", "a b"]),
                        st.dictionaries(PLAIN_KEYS, JSON_VALUES, max_size=3),
                    ),
                    min_size=1,
                    max_size=2,
                ),
            ),
            st.tuples(st.sampled_from(["result", "answer"]), st.none()),
        ),
        max_size=4,
    ),
)


@st.composite
def self_cases(draw: Any, metric: str | None = None) -> Case:
    metric = metric or draw(METRIC)
    arrays_too = REGISTRY.metric(metric).allow_array
    if metric == "tool_calls":  # (its values are calls; other JSON is none, a ParseError)
        value = draw(TOOL_CALL_VALUES)
        options = draw(equal_keeping_options(metric, value))
        options.pop("schema", None)  # (it takes no schema: a call's schema is its tool's)
        return Case("match_json", (value, value), {"metric": metric, **options})
    if metric == "trajectory":  # (its values are runs; other JSON is none, a ParseError)
        value = draw(TRAJECTORY_VALUES)
        options = draw(equal_keeping_options(metric, value))
        options.pop("schema", None)  # (it takes no schema: a step's fields are its calls)
        return Case("match_json", (value, value), {"metric": metric, **options})
    value = draw(st.one_of(ACCEPTED_OBJECTS, ACCEPTED_ARRAYS) if arrays_too else ACCEPTED_OBJECTS)
    return Case(
        "match_json",
        (value, value),
        {"metric": metric, **draw(equal_keeping_options(metric, value))},
    )


INSTANCES = weighted(
    (
        10,
        st.lists(
            st.one_of(st.dictionaries(PLAIN_KEYS, ANY_TREES, max_size=4), ANY_TREES), max_size=3
        ),
    ),
    (3, st.lists(st.dictionaries(PLAIN_KEYS, JSON_VALUES, max_size=4), min_size=1, max_size=3)),
    (1, st.lists(st.one_of(DEEP, CYCLIC), min_size=1, max_size=2)),
    (1, st.sampled_from([None, 5, "abc", {"a": 1}, b"", iter([])])),
)


@st.composite
def schema_cases(draw: Any) -> Case:
    which = draw(st.sampled_from(["annotate_schema", "infer_schema", "validate_gold"]))
    if which == "annotate_schema":
        args: tuple = (draw(SCHEMAS_ANY),)
        type_defaults = draw(TYPE_DEFAULTS)
        return Case(which, args, {} if type_defaults is None else {"type_defaults": type_defaults})
    if which == "infer_schema":
        return Case(which, (draw(INSTANCES),))
    gold = draw(st.one_of(INSTANCES, ANY_TREES, st.dictionaries(PLAIN_KEYS, ANY_TREES, max_size=4)))
    return Case(which, (gold, draw(SCHEMAS_ANY)))


# -- walking values of any depth, with cycles -----------------------------------------------------------


@contextlib.contextmanager
def deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """Room for this module's own recursive walks over values up to a few thousand levels
    deep (Python 3.11+ calls between Python functions do not use the C stack)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _scalar_token(value: Any) -> Any:
    kind = type(value).__qualname__
    if isinstance(value, bool) or value is None:
        return (kind, value)
    if isinstance(value, int):
        return (kind, hex(value))  # hex has no digit limit
    if isinstance(value, float):
        return (kind, float(value).hex())
    if isinstance(value, (str, bytes)):
        return (kind, value)
    if isinstance(value, np.ndarray):
        try:
            return (
                kind,
                value.dtype.str,
                value.shape,
                value.tobytes() if value.dtype != object else repr(value.tolist()),
            )
        except Exception:  # noqa: BLE001 - a token must always come out
            return (kind, id(value))
    if isinstance(value, np.generic):
        return (kind, value.tobytes() if value.dtype != object else id(value))
    try:
        return (kind, repr(value)[:200])
    except Exception:  # noqa: BLE001
        return (kind, id(value))


def snapshot(value: Any) -> list:
    """A flat, typed record of everything ``value`` holds, for comparing before and after a
    call: container types, lengths, keys and every scalar with its exact type; a container
    met a second time (a cycle, or a shared child) is recorded by its first position."""
    out: list = []
    seen: dict[int, int] = {}
    keep: list = []  # keeps the objects alive so that ids are not reused

    def walk(v: Any) -> None:
        if isinstance(v, (dict, list, tuple, set, frozenset, collections.deque)) or (
            isinstance(v, Mapping)
        ):
            if id(v) in seen:
                out.append(("ref", seen[id(v)]))
                return
            seen[id(v)] = len(out)
            keep.append(v)
            out.append((type(v).__qualname__, len(v)))
            if isinstance(v, Mapping):
                for k in list(v.keys()):
                    walk(k)
                    walk(v[k])
            else:
                for x in list(v):
                    walk(x)
            return
        if (
            hasattr(v, "__dict__")
            and not isinstance(v, (type, types.FunctionType))
            and hasattr(type(v), "model_fields")
        ):  # a pydantic model instance
            out.append((type(v).__qualname__, "model"))
            walk(dict(vars(v)))
            return
        out.append(_scalar_token(v))

    with deep_recursion():
        walk(value)
    return out


def has_cycle(value: Any) -> bool:
    on_path: set[int] = set()

    def walk(v: Any) -> bool:
        if not isinstance(v, (dict, list, tuple, Mapping)):
            return False
        if id(v) in on_path:
            return True
        on_path.add(id(v))
        items = list(v.values()) if isinstance(v, Mapping) else list(v)
        found = any(walk(x) for x in items)
        on_path.discard(id(v))
        return found

    with deep_recursion():
        return walk(value)


def _rebuild_mapping(v: Mapping, items: list) -> Any:
    if isinstance(v, types.MappingProxyType):
        return types.MappingProxyType(dict(items))
    if isinstance(v, ReadOnlyMapping):
        return ReadOnlyMapping(dict(items))
    return type(v)(items)


def reordered(value: Any, order: Callable[[list], list]) -> Any:
    """A copy of ``value`` in which the keys of every mapping, at any depth, come in the order
    ``order`` gives them (a reversal, a shuffle); arrays keep their order. No cycles."""

    def walk(v: Any) -> Any:
        if isinstance(v, Mapping):
            return _rebuild_mapping(v, order([(k, walk(x)) for k, x in v.items()]))
        if isinstance(v, (list, tuple)) and not isinstance(v, np.ndarray):
            items = [walk(x) for x in v]
            return type(v)(items) if type(v) in (list, tuple, ListSub) else items
        return v

    with deep_recursion():
        return walk(value)


def clone(value: Any) -> Any:
    """An independent copy (no container shared with ``value``), keeping types. No cycles."""
    return reordered(value, lambda items: items)


def plain(value: Any) -> Any:
    """``value`` as plain JSON data (what the engine's door makes of accepted values)."""

    def walk(v: Any) -> Any:
        if isinstance(v, Mapping):
            return {str(k): walk(x) for k, x in v.items()}
        if isinstance(v, np.ndarray):
            return walk(v.tolist())
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, int):
            return int(v)
        if isinstance(v, float):
            return float(v)
        if isinstance(v, str):
            return str(v)
        return v

    with deep_recursion():
        return walk(value)


def to_json_text(value: Any) -> str | None:
    """``value`` written as JSON text, at any depth; None when it is not plain JSON (or holds
    an integer too long for Python to write in decimal)."""
    pieces: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            pieces.append("{")
            for i, (k, x) in enumerate(v.items()):
                if not isinstance(k, str):
                    raise TypeError
                pieces.append((", " if i else "") + json.dumps(k) + ": ")
                walk(x)
            pieces.append("}")
        elif isinstance(v, list):
            pieces.append("[")
            for i, x in enumerate(v):
                if i:
                    pieces.append(", ")
                walk(x)
            pieces.append("]")
        elif (
            v is None
            or isinstance(v, (bool, int, str))
            or (isinstance(v, float) and math.isfinite(v))
        ):
            pieces.append(json.dumps(v))
        else:
            raise TypeError

    try:
        with deep_recursion():
            walk(value)
    except (TypeError, ValueError, RecursionError):
        return None
    return "".join(pieces)


def one_type_per_array(value: Any) -> bool:
    """Whether plain JSON ``value`` holds one JSON type (integers and floats apart) at each
    place of its schema, nulls aside: then the schema inferred from it fits it. A place is
    a path with array indices folded, as infer_schema pools every element of an array (and
    of every array at that place) into one ``items`` node."""
    kinds: dict[tuple, set] = {}

    def tag(v: Any) -> str:
        if isinstance(v, bool):
            return "boolean"
        if isinstance(v, int):
            return "integer"
        return type(v).__name__

    stack: list[tuple[Any, tuple]] = [(value, ())]
    while stack:
        v, place = stack.pop()
        if v is None:
            continue
        kinds.setdefault(place, set()).add(tag(v))
        if isinstance(v, dict):
            stack.extend((x, place + ("." + k,)) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, place + ("[]",)) for x in v)
    return all(len(tags) == 1 for tags in kinds.values())


def nesting(value: Any) -> int:
    """How many levels of containers ``value`` holds (cycles counted once)."""
    best = 0
    stack = [(value, 1)]
    seen: set[int] = set()
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list, tuple, Mapping)) and id(v) not in seen:
            seen.add(id(v))
            best = max(best, d)
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, Mapping) else v))
    return best


def show(value: Any, width: int = 400) -> str:
    """A short repr of any value: cut at depth 6, 6 elements per container and 60 characters
    per string; cycles as ``<cycle>``; the nesting depth of deep values is said."""
    on_path: set[int] = set()

    def walk(v: Any, depth: int) -> str:
        if isinstance(v, (dict, list, tuple, Mapping, set, frozenset)) and not isinstance(v, str):
            if id(v) in on_path:
                return "<cycle>"
            if depth >= 6:
                return f"<{type(v).__name__} nested {nesting(v)} more levels>"
            on_path.add(id(v))
            try:
                if isinstance(v, Mapping):
                    items = [
                        f"{walk(k, depth + 1)}: {walk(x, depth + 1)}"
                        for k, x in list(v.items())[:6]
                    ]
                    body = "{" + ", ".join(items) + (", ..." if len(v) > 6 else "") + "}"
                else:
                    items = [walk(x, depth + 1) for x in list(v)[:6]]
                    body = "[" + ", ".join(items) + (", ..." if len(v) > 6 else "") + "]"
            finally:
                on_path.discard(id(v))
            if type(v) in (dict, list):
                return body
            return f"{type(v).__name__}({body})"
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10**30:
            return f"<{'-' if v < 0 else ''}int ~10**{int(abs(v).bit_length() * 0.30103)}>"
        if isinstance(v, (str, bytes)) and len(v) > 60:
            return f"{v[:60]!r}...<{len(v)} long>"
        try:
            text = repr(v)
        except Exception:  # noqa: BLE001
            text = f"<{type(v).__name__}>"
        return text if len(text) <= 100 else text[:100] + "..."

    out = walk(value, 0)
    return out if len(out) <= width else out[:width] + "..."


def exact_repr(value: Any) -> str:
    """``repr(value)`` with Python's limits on the digits of an integer's text and on
    recursion lifted: the fuzz values hold integers of any length and values nested as deep
    as the reader accepts (valid JSON, kept exactly), whose text the tests compare. The
    engine walks such values without recursion; ``repr`` recurses once a level, and under
    pytest and hypothesis on CPython 3.10 a 1,000-level value passes the default limit."""
    import sys

    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    setter = getattr(sys, "set_int_max_str_digits", None)
    depth = sys.getrecursionlimit()
    if setter is not None:
        setter(0)
    sys.setrecursionlimit(max(depth, 20_000))
    try:
        return repr(value)
    finally:
        sys.setrecursionlimit(depth)
        if setter is not None:
            setter(limit)
