"""A fuzz driver for hostile option values, fast enough for 100,000 calls on a small machine.

Hypothesis (tests/engine/test_fuzz.py) shrinks and replays, which costs more than the calls
themselves; this driver draws each call from ``random.Random(f"{seed}:{index}")`` instead,
so that call ``index`` of a run is the same call whenever it is drawn again (``--show``
prints it, ``--only`` runs it alone). What it draws leans on what can hang a run or escape
the error family: numbers huge and tiny, NaN, the infinities, negatives, booleans and text
where a number belongs (in ``round_digits``' digits, tolerances, ``beta``, weights,
``min_score``, thresholds, structeval's parameters, schema keywords such as ``maxLength`` and
``multipleOf``), and patterns that backtrack catastrophically in ``pattern``,
``patternProperties``, ``propertyNames`` and ``jsonmatch_mask``, over strings made to
trigger them.

The calls run in a worker process; the parent reads the worker's CPU time from /proc and
kills it when one call has used ``--limit`` seconds of CPU (or ``--wall`` seconds by the
clock), counts a hang and starts a new worker at the next call. Each outcome is classified:
a result with every score in [0, 1], a ``JsonMatchError`` (and ``assert_json_match``'s own
``AssertionError`` of a failing score) are fine; any other exception, or a score outside
[0, 1], is *foreign*. Run it as ``python -m tests.fuzz.driver --pairs 100000 --seed 55``;
it prints counts and every finding with the index that reproduces it, and exits 1 when
there was any.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import selectors
import subprocess
import sys
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

# -- what is drawn ----------------------------------------------------------------------------

HOSTILE_PATTERNS = [
    "^(a+)+$",
    r"^(\w+\s?)*$",
    "^(a|aa)+$",
    "(a*)*b",
    "^(a|a?)+$",
    r"(x+x+)+y",
    "^([a-z]+)*[0-9]$",
    "(.*a){12}",
    "(unclosed",
    "a{99999999999999999999}",
    "(?<=a+)b",
    r"\p{Nope}",
    "",
    "^a",
]
HOSTILE_TEXTS = [
    "a" * 34 + "!",
    "a" * 100 + "!",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "x" * 40,
    "abcdefghijklmnopqrstuvwxyzabcdefgh",
    "word " * 20 + "!",
    "a" * 2000,
]
HOSTILE_NUMBERS: list[Any] = [
    0,
    -0.0,
    1,
    -1,
    2,
    0.5,
    1.0000001,
    -1e-9,
    5e-324,
    1e-300,
    1e300,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
    10**30,
    -(10**30),
    10**400,
    -(10**400),
    2**63,
    10**5000,
    400,
    -400,
    10_000,
    -10_000,
    10_001,
    -10_001,
    10**9,
    True,
    False,
    None,
    "1",
    "nan",
    [1],
    {"a": 1},
]
EDGE_NUMBERS: list[Any] = [
    1e308,
    1.7976931348623157e308,
    5e-324,
    1e-300,
    10**30,
    2**53 + 1,
    1e16,
    0.0,
    1.0,
    0.9999999999999999,
]
KEYS = ["a", "b", "id", "name", "sku", "items", "", "a.b", "é", "aaaa", "k0", "unit price"]
PATH_PATTERNS = [
    "a",
    "b",
    "*",
    "**",
    "items[*].sku",
    "items[]",
    "**.a",
    "a.b",
    "$",
    "a[0]",
    "[",
    "**." * 8 + "zzz",  # many double stars: exponential in a backtracking matcher
    "a[99999999999999999999]",
]
SCHEMA_TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
COMPARATORS = [
    "exact",
    "normalized",
    "numeric",
    "levenshtein",
    "jaccard",
    "relative",
    "threshold",
    "binary",
    "date",
    "fuzzy",
    "iou",
    "oneof",
    "cosine",
    "nope",
]
TRANSFORMS = [
    "lowercase",
    "strip",
    "normalize_whitespace",
    "sort_tokens",
    "strip_accents",
    "round_digits",
    "type_convert",
]
NUMERIC_SCHEMA_KEYWORDS = [
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minContains",
    "maxContains",
]
FUNCTIONS = (
    ["match_json"] * 8
    + ["evaluate_records"] * 3
    + ["assert_json_match"] * 3
    + ["validate_gold", "infer_schema", "annotate_schema", "mask", "setting", "setting"]
    + ["case_file"]
    + ["bfcl_value"] * 2
    + ["tool_pairing", "judge_reply"]
)
# BFCL's Java and JavaScript value readers: the pieces their patterns look for, and openings
# followed by long runs that make a backtracking reading of them take minutes
BFCL_TOKENS = [
    "new", " ", "\n", "ArrayList", "<", ">", "<>", "(", ")", "))", "()", "{", "}", "{{", "}}",
    "[", "]", ",", ", ", ":", "Arrays.asList(", "add(", 'put("', '",', '"', "'", "a", "1",
    "2L", "3.5f", "true", "HashMap", "new Array(", "[[", "], [", "'k': ", "b:",
]  # fmt: skip
BFCL_OPENINGS = [
    "new HashMap<>() {",
    "new HashMap<String, Integer>() {{ ",
    "new ArrayList<>() {{",
    "new ArrayList<>(Arrays.asList(",
    "new int[]{",
    "{",
    "[[a]",
    "new Array([1]",
    'put("',
    "add(",
]
BFCL_RUNS = [" ", "a", ",[a]", 'put("a",', "add(", "new HashMap<", "a:b, ", "\t\n", "}", "]"]
BFCL_TYPES = {
    "java": ["HashMap", "ArrayList", "Array", "String", "long", "float", "double", "integer",
             "boolean", "char", "Set", "any"],
    "javascript": ["dict", "array", "String", "integer", "float", "Bigint", "Boolean", "any"],
}  # fmt: skip
# the judge's reply: bodies of every shape, and texts a JSON reader may choke on
JUDGE_TEXTS = [
    '{"results": [1, 0, true, "1", "false", 0.5, null]}',
    '```json\n{"results": [1, 0]}\n```',
    '{"results": [1, 0, ',
    '{"results": "1"}',
    "[1, 0]",
    "",
    "```",
    '{"results": [' + "1, " * 5000,
    "[" * 100_000,
    '{"a":' * 50_000,
    '{"results": [' + "9" * 5000 + "]}",
    '{"results": [1e999, -0, NaN, Infinity]}',
    '"results": [1,,,,0',
    '{"results": [1, 0]}' + "\x00" * 10,
]
# Each setting that takes a number, as its text reaches the plugin (ini or flag) or the
# command line: (name, how the drawn text is placed in it)
SETTING_FORMS = [
    ("threshold", "{}"),
    ("max_cases", "{}"),
    ("calls", "concurrency={}"),
    ("calls", "retries={}"),
    ("calls", "timeout={}"),
    ("calls", "retry_budget={}"),
    ("calls", "rate={}/s"),
    ("calls", "rate={}/hour"),
    ("repeat", "{} majority"),
    ("judge", "model=m batch={}"),
    ("judge", "model=m max_tokens={}"),
    ("judge", "model=m price_in={}"),
    ("judge", "model=m timeout={}"),
    ("judge", "model=m concurrency={} rate={}/min"),
    ("otel", "cases flush={}"),
    ("fail_under", "{}"),
    ("field_floors", "items[].sku={}"),
    ("max_drop", "{} strict"),
    ("max_case_drop", "{} allow={}"),
    ("min_valid", "{}"),
    ("reference", "a latency_p95={}x cost={}"),
    ("reference", "a latency_p95={}s total_cost={}x"),
    ("shard", "{}/{}"),
    ("cli", "score g.jsonl p.jsonl --jobs {}"),
    ("cli", "score g.jsonl p.jsonl --threshold {} --fail-under {}"),
    ("cli", "score g.jsonl p.jsonl --allow-regressions {} --max-case-drop {}"),
    ("cli", "score g.jsonl p.jsonl --min-valid {} --max-drop {}"),
]
NUMBER_TEXTS = [
    "0",
    "1",
    "-1",
    "0.5",
    "1e400",
    "-1e30",
    "1" + "0" * 30,
    "9" * 5000,
    "nan",
    "inf",
    "-inf",
    "1e-400",
    "\u00b2",
    "\u0661",
    "1_000",
    "0x10",
    " 7 ",
    "",
    "1e-300",
    "1e300",
    "86400",
    "86401",
    "1000",
    "1001",
    "500",
    "501",
]


def toy_embedder(texts: list[str]) -> list[list[float]]:
    """Two dimensions from each string's characters: deterministic, offline."""
    return [[1.0 + sum(map(ord, t)) % 7, 1.0 + len(t) % 5] for t in texts]


class Draw:
    """The draws of one call, from its own seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, items: list[Any]) -> Any:
        return items[self.rng.randrange(len(items))]

    def number(self) -> Any:
        """A third from HOSTILE_NUMBERS, a third at the ends of the float range (valid where
        an option has no upper bound), a third ordinary."""
        roll = self.rng.random()
        if roll < 0.35:
            return self.pick(HOSTILE_NUMBERS)
        if roll < 0.65:
            return self.pick(EDGE_NUMBERS)
        if roll < 0.8:
            return self.rng.randint(0, 100)
        return self.rng.uniform(0, 10) * 10.0 ** self.rng.randint(-30, 30)

    def good_or_hostile(self, good: list[Any]) -> Any:
        return self.pick(good) if self.chance(0.4) else self.number()

    def text(self) -> str:
        roll = self.rng.random()
        if roll < 0.3:
            return str(self.pick(HOSTILE_TEXTS))
        if roll < 0.5:
            return str(self.pick(KEYS))
        n = self.rng.randint(0, 12)
        return "".join(self.pick(list('ab xyz!0é\\"{}')) for _ in range(n))

    def scalar(self) -> Any:
        roll = self.rng.random()
        if roll < 0.35:
            return self.text()
        if roll < 0.65:
            n = self.number()
            return n if isinstance(n, (int, float, str, type(None))) else 0
        if roll < 0.8:
            return self.rng.randint(-100, 100)
        if roll < 0.9:
            return self.pick([True, False, None])
        return round(self.rng.uniform(-1000, 1000), self.rng.randint(0, 6))

    def value(self, depth: int = 0) -> Any:
        roll = self.rng.random()
        if depth >= 3 or roll < 0.35:
            return self.scalar()
        if roll < 0.7:
            keys = {self.text() if self.chance(0.2) else self.pick(KEYS) for _ in range(4)}
            return {k: self.value(depth + 1) for k in list(keys)[: self.rng.randint(0, 4)]}
        return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]

    def obj(self) -> dict[str, Any]:
        keys = {self.pick(KEYS) for _ in range(self.rng.randint(0, 5))}
        return {k: self.value(1) for k in keys}

    def mutate(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.mutate(v) for k, v in value.items() if not self.chance(0.15)}
        if isinstance(value, list):
            out = [self.mutate(v) for v in value]
            self.rng.shuffle(out) if self.chance(0.3) else None
            return out
        return self.scalar() if self.chance(0.3) else value

    def pair(self) -> tuple[Any, Any]:
        expected = self.obj()
        actual = self.mutate(expected) if self.chance(0.6) else self.obj()
        if self.chance(0.1):
            try:
                text = json.dumps(actual, default=str)
            except ValueError:  # an integer past the digits Python writes
                text = "{}"
            actual = text if self.chance(0.5) else f"Sure: {text}"
        return actual, expected

    # options

    def comparator(self) -> Any:
        name = self.pick(COMPARATORS)
        if self.chance(0.3):
            return name
        params: dict[str, Any] = {}
        if name == "numeric":
            for key in ("abs", "rel"):
                if self.chance(0.6):
                    params[key] = self.number()
            if self.chance(0.2):
                params["tolerance"] = self.number()
        elif name in ("threshold",):
            for key in ("threshold", "weighting"):
                if self.chance(0.6):
                    params[key] = self.number()
        elif name == "relative":
            if self.chance(0.6):
                params[self.pick(["tolerance", "rel", "scale"])] = self.number()
        elif name == "fuzzy":
            if self.chance(0.6):
                params[self.pick(["threshold", "cutoff", "score_cutoff"])] = self.number()
        elif name == "oneof":
            params["values"] = [self.scalar() for _ in range(self.rng.randint(0, 3))]
        elif name == "date":
            params["formats"] = [self.pick(["%Y-%m-%d", "%d/%m/%Y", "%", "%Q", ""])]
        elif name == "cosine":
            params["embedder"] = toy_embedder
        elif self.chance(0.3):
            params[self.pick(["x", "threshold", "abs"])] = self.number()
        return {name: params}

    def transform(self) -> Any:
        def one() -> Any:
            name = self.pick(TRANSFORMS)
            if name == "round_digits":
                return {name: {"digits": self.good_or_hostile([0, 2, -2, 400, -400])}}
            if name == "type_convert":
                return {name: {"to": self.pick(["int", "float", "str", "bool", "date", 5])}}
            return name

        return one() if self.chance(0.5) else [one() for _ in range(self.rng.randint(1, 3))]

    def field_settings(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in self.rng.sample(
            ["comparator", "tolerance", "transform", "align", "skip", "min_score", "weight"],
            self.rng.randint(1, 3),
        ):
            if key == "comparator":
                out[key] = self.comparator()
            elif key == "tolerance":
                out[key] = (
                    self.number()
                    if self.chance(0.6)
                    else {"abs": self.number(), "rel": self.number()}
                )
            elif key == "transform":
                out[key] = self.transform()
            elif key == "align":
                out[key] = self.pick(
                    ["ordered", "hungarian", {"match_by": "key_field", "key": "id"}, 5]
                )
            elif key == "skip":
                out[key] = self.pick([True, False, "yes"])
            elif key == "min_score":
                out[key] = self.good_or_hostile([0.0, 0.5, 1.0])
            else:
                out[key] = self.good_or_hostile([0, 1, 3, 0.5])
        return out

    def schema_node(self, depth: int = 0) -> Any:
        roll = self.rng.random()
        if roll < 0.25:
            pattern = self.pick(HOSTILE_PATTERNS)
            return self.pick(
                [
                    {"type": "string", "pattern": pattern},
                    {"type": "object", "patternProperties": {pattern: {"type": "integer"}}},
                    {"type": "object", "propertyNames": {"pattern": pattern}},
                    {"type": "array", "items": {"type": "string", "pattern": pattern}},
                ]
            )
        kind = self.pick(SCHEMA_TYPES)
        node: dict[str, Any] = {"type": kind}
        if kind == "object" and depth < 3:
            node["properties"] = {
                self.pick(KEYS): self.schema_node(depth + 1) for _ in range(self.rng.randint(0, 3))
            }
            if self.chance(0.3):
                node["additionalProperties"] = self.pick([True, False, {"type": "string"}])
        if kind == "array" and depth < 3:
            node["items"] = self.schema_node(depth + 1)
        for _ in range(self.rng.randint(0, 2)):
            extra = self.pick(
                [*NUMERIC_SCHEMA_KEYWORDS, "x-eval-weight", "x-eval-compare", "x-eval-transform"]
            )
            if extra == "x-eval-compare":
                node[extra] = self.comparator()
            elif extra == "x-eval-transform":
                node[extra] = self.transform()
            else:
                node[extra] = self.number()
        return node

    def schema(self) -> Any:
        if self.chance(0.5):
            return {
                "type": "object",
                "properties": {
                    self.pick(KEYS): self.schema_node(1) for _ in range(self.rng.randint(1, 4))
                },
            }
        return self.schema_node()

    def evaluation_type(self) -> Any:
        kind = self.pick(["binary", "threshold", "jaccard", "cosine", "nope"])
        out: dict[str, Any] = {"evaluation_type": kind}
        if kind == "threshold" or self.chance(0.2):
            out["evaluation_params"] = {
                "threshold": self.number(),
                "difference_penalty_weighting": self.number(),
            }
        return out

    def options(self, metric: str, taken: frozenset[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in sorted(taken):
            if not self.chance(0.45):
                continue
            if name == "fields":
                out[name] = {
                    self.pick(PATH_PATTERNS): self.field_settings()
                    for _ in range(self.rng.randint(1, 3))
                }
            elif name == "schema":
                out[name] = self.schema()
            elif name == "ignore":
                out[name] = [self.pick(PATH_PATTERNS)]
            elif name == "align":
                out[name] = self.pick(
                    ["ordered", "hungarian", {"match_by": "key_field", "key": "id"}]
                )
            elif name == "embedder":
                out[name] = toy_embedder
            elif name in ("beta", "numeric_threshold", "numeric_weighting"):
                out[name] = self.good_or_hostile([1.0, 0.5, 2])
            elif name == "array_matching_threshold":
                out[name] = self.good_or_hostile([0.0, 0.5, 0.9])
            elif name.endswith("_evaluation_type"):
                out[name] = self.evaluation_type()
            elif name == "string_evaluator":
                out[name] = self.pick(["jaccard", "levenshtein", "exact", "cosine", 5])
            elif name == "truncated":
                out[name] = self.pick(["error", "close", 5])
            elif name == "conformance":
                out[name] = self.pick([True, False, None])
            elif name == "target_output_key":
                out[name] = self.pick(["*", "a", ["a", "b"], 5])
            elif name == "order":
                out[name] = self.pick([None, "any", "strict", 5])
            elif name == "tools":
                out[name] = [
                    {
                        "name": "f",
                        "parameters": {"type": "object", "properties": {"a": self.schema_node(1)}},
                    }
                ]
            else:
                out[name] = self.pick([None, "default", 5, self.number()])
        if "embedder" in taken:  # cosine's default model is a download: never in a fuzz run
            out["embedder"] = toy_embedder
        return out


@dataclass
class Call:
    """One call of the public API, drawn for (seed, index)."""

    function: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)

    def show(self, width: int = 1500) -> str:
        def short(v: Any) -> str:
            text = (
                repr(v)
                if not isinstance(v, int) or abs(v) < 10**50
                else f"<int of {len(str(abs(v)))} digits>"
            )
            return text if len(text) <= width else text[:width] + "..."

        parts = [short(a) for a in self.args] + [f"{k}={short(v)}" for k, v in self.kwargs.items()]
        return f"{self.function}({', '.join(parts)})"


def _text(number: Any) -> str:
    """A drawn number as a setting spells it (an integer past Python's 4,300 digits too)."""
    if isinstance(number, int) and abs(number) > 10**4000:
        return "-" * (number < 0) + "1" + "0" * 5000
    return str(number)


def draw_call(seed: int, index: int) -> Call:
    from pytest_jsonmatch import METRIC_NAMES, REGISTRY

    d = Draw(random.Random(f"{seed}:{index}"))
    function = d.pick(FUNCTIONS)
    metric = d.pick(sorted(METRIC_NAMES))
    taken = frozenset(REGISTRY.metric(metric).options)
    if function == "setting":
        name, form = d.pick(SETTING_FORMS)
        texts = [d.pick(NUMBER_TEXTS) if d.chance(0.8) else _text(d.number()) for _ in range(2)]
        return Call("setting", (name, form.format(*texts)))
    if function == "case_file":
        case: dict[str, Any] = {"id": "c", "expected": d.obj(), "actual": d.pair()[0]}
        for key in d.rng.sample(["threshold", "repeat", "options", "schema"], d.rng.randint(1, 3)):
            if key == "options":
                case[key] = d.options("field_f1", taken - {"embedder"})
            elif key == "schema":
                case[key] = d.schema()
            else:
                case[key] = d.number()
        return Call("case_file", (case,))
    if function == "bfcl_value":
        return _bfcl_value_call(d)
    if function == "tool_pairing":
        return _tool_pairing_call(d)
    if function == "judge_reply":
        return _judge_reply_call(d)
    if function == "mask":
        pattern = d.pick(HOSTILE_PATTERNS)
        return Call("mask", ([pattern], d.text() + d.pick(HOSTILE_TEXTS)))
    if function == "validate_gold":
        return Call(function, ([d.obj() for _ in range(d.rng.randint(1, 3))], d.schema()))
    if function == "infer_schema":
        return Call(function, ([d.obj() for _ in range(d.rng.randint(1, 3))],))
    if function == "annotate_schema":
        return Call(function, (d.schema(),))
    options = d.options(metric, taken)
    if metric == "tool_calls":
        calls = [{"name": "f", "arguments": {"a": d.scalar()}} for _ in range(d.rng.randint(0, 2))]
        pair: tuple[Any, Any] = (d.mutate(calls), calls)
    else:
        pair = d.pair()
        for side, pattern_key in ((0, "a"), (1, "a")):
            if d.chance(0.2) and isinstance(pair[side], dict):
                pair[side][pattern_key] = d.pick(HOSTILE_TEXTS)
                pair[side][d.pick(HOSTILE_TEXTS)] = 1
    if function == "evaluate_records":
        n = d.rng.randint(1, 3)
        pairs = [pair] + [d.pair() for _ in range(n - 1)]
        return Call(
            function, ([e for _, e in pairs], [a for a, _ in pairs]), {"metric": metric, **options}
        )
    if function == "assert_json_match":
        options["threshold"] = d.good_or_hostile([0.0, 0.5, 1.0])
    return Call(function, pair, {"metric": metric, **options})


def _bfcl_text(d: Draw) -> str:
    """A value as a model may write it in Java or JavaScript: token soup, or an opening and a
    long run of what makes a backtracking reader try every split."""
    if d.chance(0.4):
        return "".join(d.pick(BFCL_TOKENS) for _ in range(d.rng.randint(0, 30)))
    run = d.pick(BFCL_RUNS) * d.rng.choice([10, 300, 3000, 30_000])
    return d.pick(BFCL_OPENINGS) + run + (d.pick(BFCL_TOKENS) if d.chance(0.5) else "")


def _bfcl_value_call(d: Draw) -> Call:
    """One argument read by BFCL's Java or JavaScript converter, through ``tool_calls``."""
    language = d.pick(["java", "javascript"])
    declared = d.pick(BFCL_TYPES[language])
    spec: dict[str, Any] = {"type": declared, "description": ""}
    if declared in ("ArrayList", "Array", "array") and d.chance(0.8):
        spec["items"] = {"type": d.pick(BFCL_TYPES[language])}
    doc = {
        "name": "f",
        "parameters": {"type": "dict", "properties": {"a": spec}, "required": ["a"]},
    }
    expected = {"possible_answer": [{"f": {"a": [_bfcl_text(d)]}}], "function": [doc]}
    actual = [{"f": {"a": _bfcl_text(d)}}]
    options = {"metric": "tool_calls", "rules": "bfcl", "language": language}
    return Call("bfcl_value", (actual, expected), options)


def _tool_pairing_call(d: Draw) -> Call:
    """Many calls, of few or many functions, duplicated or hostile, to be paired."""
    names = [f"f{i}" for i in range(d.rng.choice([1, 2, 50, 5000]))]
    many = d.rng.choice([0, 1, 3, 250, 2000, 20_000])
    expected = [
        {"name": d.pick(names), "arguments": {"a": d.scalar()}}
        for _ in range(d.rng.randint(0, many))
    ]
    actual: list[Any] = [{d.pick(names): {"a": d.scalar()}} for _ in range(d.rng.randint(0, many))]
    if d.chance(0.3) and actual:
        actual += actual[: d.rng.randint(1, len(actual))]  # the same calls again
    if d.chance(0.2):
        actual.append(
            d.pick([{"": {}}, {"f0": "x"}, {"a": 1, "b": 2}, [], None, {d.pick(HOSTILE_TEXTS): {}}])
        )
    options: dict[str, Any] = {"metric": "tool_calls"}
    if d.chance(0.3):
        doc = {"name": "f0", "parameters": {"type": "dict", "properties": {}, "required": []}}
        answers = [{c["name"]: {"a": [c["arguments"]["a"]]}} for c in expected]
        options.update(rules="bfcl", category=d.pick(["parallel", "multiple", "simple"]))
        return Call(
            "tool_pairing", (actual, {"possible_answer": answers, "function": [doc]}), options
        )
    options["order"] = d.pick(["any", "strict"])
    return Call("tool_pairing", (actual, expected), options)


def _judge_reply_call(d: Draw) -> Call:
    """A judge server's response body, read into verdicts for some items."""
    text = d.pick(JUDGE_TEXTS) if d.chance(0.7) else d.text()
    choice: Any = {
        "message": {"content": text},
        "finish_reason": d.pick(["stop", "length", None, 3]),
    }
    body: Any = {
        "choices": [choice],
        "usage": {"prompt_tokens": d.scalar(), "completion_tokens": 2},
    }
    if d.chance(0.2):
        body = d.pick([{}, [], None, {"choices": []}, {"choices": [{"message": None}]}, text])
    elif d.chance(0.1):
        choice["message"]["content"] = d.pick([None, 1, ["x"], {"results": [1]}])
    return Call("judge_reply", (body, d.rng.choice([0, 1, 3, 100])))


# -- running one call -------------------------------------------------------------------------


def _unit(x: Any) -> bool:
    return isinstance(x, float) and not math.isnan(x) and 0.0 <= x <= 1.0


def scores_in_range(result: Any) -> str | None:
    """What is outside [0, 1] in a result, or None."""
    from pytest_jsonmatch import MatchResult, RunResult

    if isinstance(result, RunResult):
        for name in ("mean_score", "mean_precision", "mean_recall", "mean_f1"):
            if not _unit(getattr(result, name)):
                return f"{name} = {getattr(result, name)!r}"
        for record in result.records:
            bad = scores_in_range(record)
            if bad:
                return bad
        return None
    if isinstance(result, MatchResult):
        for name in ("score", "precision", "recall", "f1"):
            if not _unit(getattr(result, name)):
                return f"{name} = {getattr(result, name)!r}"
        for f in result.fields:
            if not _unit(f.score):
                return f"field {f.path!r} score {f.score!r}"
    return None


# the kinds of call drawn their own way that are a public function's calls
API_OF = {"bfcl_value": "match_json", "tool_pairing": "match_json"}


def run_call(call: Call) -> tuple[str, str]:
    """(kind, detail): kind is "ok", "error" (the family's), or "foreign"."""
    import pytest_jsonmatch as api
    from pytest_jsonmatch import JsonMatchError
    from pytest_jsonmatch.engine.core import masking

    try:
        if call.function == "mask":
            lines, text = call.args
            masking.declare(masking.mask_patterns(lines))
            try:
                masking.safe_reason(text)
            finally:
                masking.declare(())
            return "ok", ""
        if call.function == "setting":
            return run_setting(*call.args)
        if call.function == "case_file":
            return run_case_file(*call.args)
        if call.function == "judge_reply":
            return run_judge_reply(*call.args)
        function = API_OF.get(call.function, call.function)
        got = getattr(api, function)(*call.args, **call.kwargs)
    except JsonMatchError as exc:
        return "error", type(exc).__name__
    except AssertionError as exc:
        if call.function == "assert_json_match" and hasattr(exc, "result"):
            bad = scores_in_range(exc.result)
            return ("foreign", f"score outside [0, 1]: {bad}") if bad else ("ok", "failed")
        return "foreign", _describe(exc)
    except Exception as exc:  # noqa: BLE001 - classifying is the point
        return "foreign", _describe(exc)
    bad = scores_in_range(got)
    return ("foreign", f"score outside [0, 1]: {bad}") if bad else ("ok", "")


def run_judge_reply(body: Any, count: int) -> tuple[str, str]:
    """A judge's response body read as the semantic comparator reads it: each verdict 0.0 or
    1.0, or a reason text; anything else is foreign."""
    from pytest_jsonmatch.engine.judge.messages import reply_from_json
    from pytest_jsonmatch.engine.judge.verdicts import read_verdicts

    verdicts = read_verdicts(reply_from_json(body), count)
    if len(verdicts) != count:
        return "foreign", f"{len(verdicts)} verdicts for {count} items"
    for v in verdicts:
        if not (isinstance(v, str) or v in (0.0, 1.0)):
            return "foreign", f"verdict {v!r}"
    return "ok", ""


def run_setting(name: str, text: str) -> tuple[str, str]:
    """A setting's text read as the plugin or the command line reads it."""
    from pytest_jsonmatch import JsonMatchError
    from pytest_jsonmatch.cli.app import parser
    from pytest_jsonmatch.cli.input_error import InputError
    from pytest_jsonmatch.reporting.verdicts.gates import gate_settings
    from pytest_jsonmatch.reporting.verdicts.shards import parse_shard
    from pytest_jsonmatch.reporting.verdicts.versus import parse_reference
    from pytest_jsonmatch.session import setting_parts as parts

    what = "jsonmatch_" + name
    gates = {"fail_under": "", "floor_lines": (), "drop_parts": (), "case_parts": ()}
    readers = {
        "threshold": lambda: parts.parse_threshold(text, what),
        "max_cases": lambda: parts.parse_max_cases(text, what),
        "calls": lambda: parts.parse_calls([(text, what)]),
        "repeat": lambda: parts.parse_repeat([(text, what)]),
        "judge": lambda: parts.parse_judge(text, what, REPO),
        "otel": lambda: parts.parse_otel(text, what),
        "fail_under": lambda: gate_settings(**{**gates, "fail_under": text}, prefix="jsonmatch_"),
        "field_floors": lambda: gate_settings(
            **{**gates, "floor_lines": (text,)}, prefix="jsonmatch_"
        ),
        "max_drop": lambda: gate_settings(
            **{**gates, "drop_parts": ((text, what),)}, prefix="jsonmatch_"
        ),
        "max_case_drop": lambda: gate_settings(
            **{**gates, "case_parts": ((text, what),)}, prefix="jsonmatch_"
        ),
        "min_valid": lambda: gate_settings(**gates, prefix="jsonmatch_", min_valid=text),
        "reference": lambda: parse_reference(text, what),
        "shard": lambda: parse_shard(text, what),
        "cli": lambda: parser().parse_args(text.split()),
    }
    try:
        readers[name]()
    except (JsonMatchError, InputError) as exc:
        return "error", type(exc).__name__
    except Exception as exc:  # noqa: BLE001 - classifying is the point
        return "foreign", _describe(exc)
    return "ok", ""


def run_case_file(case: dict[str, Any]) -> tuple[str, str]:
    """A golden case file holding ``case`` (YAML, as a pull request may write it), loaded."""
    import tempfile

    import yaml

    from pytest_jsonmatch import JsonMatchError
    from pytest_jsonmatch.cases.case_files import CaseFiles

    try:
        text = yaml.safe_dump({"cases": [case]}, allow_unicode=True)
    except (ValueError, yaml.YAMLError):  # what YAML cannot write (a callable, 5,000 digits)
        return "ok", "not written"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.jsonmatch.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            CaseFiles(root=Path(folder)).load(path)
        except JsonMatchError as exc:
            return "error", type(exc).__name__
        except Exception as exc:  # noqa: BLE001 - classifying is the point
            return "foreign", _describe(exc)
    return "ok", ""


def _describe(exc: BaseException) -> str:
    where = traceback.extract_tb(exc.__traceback__)[-3:]
    frames = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(where))
    return f"{type(exc).__name__}: {str(exc)[:300]} at {frames}"


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the driver ends (a call that never ends would
    otherwise outlive a driver stopped by a timeout); elsewhere, nothing."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


def worker(seed: int, start: int, stop: int) -> None:
    """Runs calls start..stop-1, telling the parent on stdout when each begins and ends."""
    _die_with_parent()
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    # what the calls import on first use (the optimal pairing's solver): imported here, so that
    # no call's CPU time holds an import's
    import scipy.optimize  # noqa: F401

    out = sys.stdout
    spin_at = int(os.environ.get("FUZZ_SPIN_AT", "-1"))  # the watchdog's own test (below)
    for index in range(start, stop):
        call = draw_call(seed, index)
        out.write(f"S {index}\n")
        out.flush()
        while index == spin_at:  # a call that never ends, using CPU as a hang does
            pass
        began = time.process_time()
        kind, detail = run_call(call)
        cpu = time.process_time() - began
        out.write(json.dumps({"i": index, "kind": kind, "detail": detail, "cpu": cpu}) + "\n")
        out.flush()


# -- the parent: watchdog and counts ----------------------------------------------------------


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process (Linux /proc), 0 where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    findings: list[tuple[int, str, str]] = field(default_factory=list)
    slowest: list[tuple[float, int]] = field(default_factory=list)
    slow: int = 0  # calls over SLOW seconds of CPU


SLOW = 1.0


def _count(tally: Tally, report: dict[str, Any], start: int, began: float, progress: int) -> None:
    """One call's report added to the tally (and how far the run got, every ``progress``)."""
    tally.counts[report["kind"]] += 1
    if report["kind"] == "foreign":
        tally.findings.append((report["i"], "foreign", report["detail"]))
    if report["cpu"] > SLOW:
        tally.slow += 1
    tally.slowest = sorted([*tally.slowest, (report["cpu"], report["i"])])[-5:]
    done = report["i"] + 1 - start
    if progress and done % progress == 0:
        print(
            f"[fuzz] {done} calls, {time.monotonic() - began:.0f} s, {dict(tally.counts)}, "
            f"hangs {tally.counts['hang']}",
            file=sys.stderr,
            flush=True,
        )


def drive(
    seed: int, pairs: int, start: int = 0, limit: float = 5.0, wall: float = 60.0, progress: int = 0
) -> Tally:
    """Run calls start..start+pairs in workers under the watchdog; the tally."""
    tally = Tally()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    stop = start + pairs
    nxt = start
    began_all = time.monotonic()
    while nxt < stop:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.driver", "--worker", str(seed), str(nxt), str(stop)],
            stdout=subprocess.PIPE,
            stderr=None if os.environ.get("FUZZ_WORKER_STDERR") else subprocess.DEVNULL,
            cwd=REPO,
            env=env,
            bufsize=0,
        )
        assert proc.stdout is not None
        # The pipe is read raw and split here: a buffered reader may hold the line that
        # starts a call while select() says nothing is left to read, and the watchdog would
        # never start for that call.
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
        try:
            nxt = _watch(proc, sel, tally, (start, stop), (limit, wall), began_all, progress)
        finally:
            if proc.poll() is None:  # stopped from outside: the worker goes too
                proc.kill()
                proc.wait()
            sel.close()
            proc.stdout.close()
    return tally


def _watch(
    proc: subprocess.Popen[bytes],
    sel: selectors.BaseSelector,
    tally: Tally,
    span: tuple[int, int],
    bounds: tuple[float, float],
    began: float,
    progress: int,
) -> int:
    """Read one worker's reports until it ends or one of its calls hangs; the next call."""
    (start, stop), (limit, wall) = span, bounds
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    current: int | None = None
    cpu_at = wall_at = 0.0
    pending = b""
    while True:
        if sel.select(timeout=0.2):
            data = os.read(fd, 1 << 16)
            if not data:  # the worker ended
                proc.wait()
                if current is not None:  # inside a call: a crash
                    tally.counts["foreign"] += 1
                    tally.findings.append(
                        (current, "foreign", f"worker died (exit {proc.returncode})")
                    )
                    return current + 1
                if proc.returncode != 0:
                    raise RuntimeError(f"the fuzz worker failed (exit {proc.returncode})")
                return stop
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                if line.startswith(b"S "):
                    current = int(line.split()[1])
                    cpu_at, wall_at = _cpu_seconds(proc.pid), time.monotonic()
                else:
                    current = None
                    _count(tally, json.loads(line), start, began, progress)
            continue
        if current is None:
            continue
        used = _cpu_seconds(proc.pid) - cpu_at
        if used > limit or time.monotonic() - wall_at > wall:
            proc.kill()
            proc.wait()
            tally.counts["hang"] += 1
            tally.findings.append((current, "hang", f"over {limit:g} s of CPU ({used:.1f} s used)"))
            return current + 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=55)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--limit", type=float, default=5.0, help="CPU seconds a call may take")
    parser.add_argument("--wall", type=float, default=60.0, help="seconds by the clock")
    parser.add_argument("--progress", type=int, default=0, help="say how far every N calls")
    parser.add_argument("--show", type=int, help="print call N of the seed and stop")
    parser.add_argument("--only", type=int, help="run call N of the seed here, and say how")
    parser.add_argument("--worker", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    if args.show is not None:
        print(draw_call(args.seed, args.show).show())
        return 0
    if args.only is not None:
        call = draw_call(args.seed, args.only)
        print(call.show())
        began = time.process_time()
        print(run_call(call), f"{time.process_time() - began:.3f} s")
        return 0
    began = time.monotonic()
    tally = drive(args.seed, args.pairs, args.start, args.limit, args.wall, args.progress)
    elapsed = time.monotonic() - began
    print(
        f"seed {args.seed}, calls {args.start}..{args.start + args.pairs - 1}: "
        f"{dict(sorted(tally.counts.items()))}; hangs {tally.counts['hang']}, "
        f"foreign {tally.counts['foreign']}; over {SLOW:g} s of CPU: {tally.slow}; "
        f"slowest {[(round(c, 3), i) for c, i in reversed(tally.slowest)]}; {elapsed:.0f} s"
    )
    for index, kind, detail in tally.findings:
        print(f"  {kind} at --only {index}: {detail}")
    return 1 if tally.findings else 0


if __name__ == "__main__":
    sys.exit(main())
