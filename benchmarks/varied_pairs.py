"""Varied small pairs: the load a test suite's assertions put on the engine.

Each pair is its own small shape (2 to 6 top-level fields, sometimes a nested object or a
short array of scalars or objects: 2 to 14 leaves), its keys written with a tag of their
own so that no two pairs, in one set or across sets, share a key, an object's shape or an
array's skeleton: whatever the engine keeps per shape is made afresh for every pair, as
for an assertion that runs once in a test session. The actual side is the expected one
with an extractor's damage (a typo, a changed number, a key dropped or added, an array's
elements reordered, a value of another type).

Each metric's pair is scored once, with options as an assertion gives them (a fresh
mapping, its values the pair's own objects), drawn in turn from a small set that both sides can express:
``structural_f1`` structeval's configuration keys, ``field_f1`` (ordered and Hungarian)
``ignore`` and ``fields`` on one of the pair's own keys (extract-eval's ``x-eval-skip``
and ``x-eval-compare`` on that property), ``json_similarity`` none (UiPath's evaluator
takes none that change a score).

The rows (``rows``) are the references section's (benchmarks/references.py): every run
scores a fresh set of pairs, both sides the same set, in ABBA order; each reference's
configuration (structeval's EvalConfig, extract-eval's annotated schema) is made
beforehand, not timed, and ours is read from the options inside the timing.
"""

from __future__ import annotations

import argparse
import copy
import random
import string
from collections.abc import Callable
from typing import Any

SIZE = 539  # pairs in a set at full size (the count)
KINDS = ("flat", "nested", "scalars", "objects", "mixed")
_NAMES = (
    "name",
    "city",
    "total",
    "count",
    "status",
    "email",
    "date",
    "price",
    "title",
    "active",
    "code",
    "note",
    "rating",
    "owner",
    "region",
    "tags",
    "items",
    "level",
    "vendor",
    "score",
)
_WORDS = ("acme", "north", "blue", "steel", "river", "paris", "lake", "omega", "paper", "delta")

# structural_f1's options, each with structeval's EvalConfig of the same meaning
_BINARY = {"evaluation_type": "binary"}
STRUCTURAL_OPTIONS: tuple[dict[str, Any], ...] = (
    {},
    {"string_evaluation_type": _BINARY},
    {"number_evaluation_type": _BINARY},
    {"array_matching_threshold": 0.4},
    {
        "number_evaluation_type": {
            "evaluation_type": "threshold",
            "evaluation_params": {"threshold": 10},
        }
    },
)
# field_f1's: none, one key ignored, one key's comparator or tolerance given
F1_OPTION_KINDS = ("none", "ignore", "exact", "tolerance", "none")


class _Keys:
    """Key names unique to one pair: a field name and the pair's own tag."""

    def __init__(self, rng: random.Random, tag: str) -> None:
        self.rng, self.tag, self.used = rng, tag, 0

    def __call__(self) -> str:
        self.used += 1
        return f"{self.rng.choice(_NAMES)}_{self.tag}{self.used}"


_KINDS = ("text", "text", "float", "int", "bool", "null")


def _scalar(rng: random.Random, kind: str | None = None) -> Any:
    """A value of ``kind`` (one drawn: text most often)."""
    kind = kind or rng.choice(_KINDS)
    if kind == "text":
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))
    if kind == "float":
        return round(rng.uniform(1, 500), 2)
    if kind == "int":
        return rng.randint(0, 100)
    if kind == "bool":
        return rng.random() < 0.5
    return None


def _flat(rng: random.Random, key: _Keys, lo: int, hi: int) -> dict[str, Any]:
    return {key(): _scalar(rng) for _ in range(rng.randint(lo, hi))}


def _expected(rng: random.Random, kind: str, key: _Keys) -> dict[str, Any]:
    doc = _flat(rng, key, 2, 5 if kind == "flat" else 3)
    if kind in ("nested", "mixed"):
        doc[key()] = _flat(rng, key, 2, 3)
    # (an array's elements, and a field across an array's objects, of one type: where the
    # types mix, extract-eval scores by the first one's, a documented difference)
    if kind in ("scalars", "mixed"):
        of = rng.choice(_KINDS[:-1])
        doc[key()] = [_scalar(rng, of) for _ in range(rng.randint(1, 4))]
    if kind in ("objects", "mixed"):
        fields = [(key(), rng.choice(_KINDS)) for _ in range(rng.randint(2, 3))]
        doc[key()] = [{f: _scalar(rng, of) for f, of in fields} for _ in range(rng.randint(1, 3))]
    return doc


def _typo(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text)) if text else 0
    return text[:i] + rng.choice(string.ascii_lowercase) + text[i + 1 :]


def _damaged(rng: random.Random, value: Any, key: _Keys, rate: float) -> Any:
    """A copy of ``value`` damaged at ``rate``: typos, numbers moved, keys dropped or added,
    arrays reordered, now and then a value of another type."""
    if isinstance(value, dict):
        out = {k: _damaged(rng, v, key, rate) for k, v in value.items() if rng.random() > rate / 3}
        if rng.random() < rate / 2:
            out[key()] = _scalar(rng)
        return out
    if isinstance(value, list):
        items = [_damaged(rng, v, key, rate) for v in value]
        if len(items) > 1 and rng.random() < rate:
            rng.shuffle(items)
        return items
    if rng.random() >= rate:
        return value
    if rng.random() < 0.1:  # another type (not a number's digits, nor a boolean for a
        # number: extract-eval takes those for the number, a documented difference)
        return 0 if isinstance(value, str) else "n/a"
    if isinstance(value, str):
        return _typo(rng, value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, float):
        return round(value * rng.uniform(0.9, 1.1), 2)
    if isinstance(value, int):
        return value + rng.randint(1, 20)
    return _scalar(rng)


class Pair:
    """One pair: both sides, and each metric's options (the reference's made from them)."""

    __slots__ = ("actual", "expected", "structural", "f1_kind", "f1_key", "f1_options")

    def __init__(self, rng: random.Random, index: int, tag: str) -> None:
        key = _Keys(rng, tag)
        self.expected = _expected(rng, KINDS[index % len(KINDS)], key)
        self.actual = _damaged(rng, copy.deepcopy(self.expected), key, 0.25)
        self.structural = copy.deepcopy(STRUCTURAL_OPTIONS[index % len(STRUCTURAL_OPTIONS)])
        self.f1_kind = F1_OPTION_KINDS[index % len(F1_OPTION_KINDS)]
        leaves = [k for k, v in self.expected.items() if not isinstance(v, (dict, list))]
        numbers = [k for k in leaves if type(self.expected[k]) in (int, float)]
        others = [k for k in leaves if k not in numbers]
        # (exact on a number is extract-eval's warning, logged at every call: it goes on a
        # string, a boolean or a null, whose default it is; a tolerance on a number)
        if self.f1_kind == "tolerance" and not numbers:
            self.f1_kind = "exact"
        if self.f1_kind == "exact" and not others:
            self.f1_kind = "tolerance"
        chosen = {"tolerance": numbers, "exact": others}.get(self.f1_kind, leaves)
        self.f1_key = chosen[0]
        self.f1_options = self._f1_options()

    def _f1_options(self) -> dict[str, Any]:
        if self.f1_kind == "ignore":
            return {"ignore": [self.f1_key]}
        if self.f1_kind == "exact":
            return {"fields": {self.f1_key: {"comparator": "exact"}}}
        if self.f1_kind == "tolerance":
            return {"fields": {self.f1_key: {"tolerance": 5}}}
        return {}

    def x_eval(self, schema: dict[str, Any]) -> dict[str, Any]:
        """extract-eval's annotated ``schema`` for this pair, with the ``field_f1`` options
        written into it as extract-eval's keys (the schema changed in place)."""
        node = schema["properties"][self.f1_key]
        if self.f1_kind == "ignore":
            node.pop("x-eval-compare", None)
            node["x-eval-skip"] = True
        elif self.f1_kind == "exact":
            node["x-eval-compare"] = "exact"
        elif self.f1_kind == "tolerance":
            node["x-eval-compare"] = {"numeric": {"tolerance": {"abs": 5}}}
        return schema


def pairs(n: int, seed: int) -> list[Pair]:
    """``n`` pairs of set ``seed``: every key tagged with the set and the pair, so that no
    shape recurs within the set or in another set."""
    rng = random.Random(seed)
    return [Pair(rng, i, f"s{seed}p{i}k") for i in range(n)]


# -- the rows ------------------------------------------------------------------------------


def rows(args: argparse.Namespace, make_row: Callable[..., Any]) -> list[Any]:
    """The four rows of the varied pairs, one per reference (INFO without a time where the
    reference is not installed)."""
    import references as refs

    from pytest_jsonmatch import match_json

    n = min(SIZE, args.ref_pairs)
    what = f"{n} varied small pairs, each its own shape, scored once"
    out: list[Any] = []

    def measured(
        case: str,
        baseline: str,
        ours: Callable[[Pair], float],
        theirs: Callable[[Pair, Any], float],
        prepare: Callable[[Pair], Any],
        about: str,
    ) -> Any:
        # an untimed set warms both sides up and checks their scores; every timed run then
        # scores a fresh set (seed 1, 2, ...), prepared for the reference beforehand
        check = pairs(n, 0)
        our_scores = [ours(p) for p in check]
        their_scores = [theirs(p, prepare(p)) for p in check]
        sets = [[(p, prepare(p)) for p in pairs(n, k + 1)] for k in range(args.runs)]
        mine: list[float] = []
        theirs_t: list[float] = []
        for k, one in enumerate(sets):

            def run_ours(one: list[tuple[Pair, Any]] = one) -> None:
                for p, _ in one:
                    ours(p)

            def run_theirs(one: list[tuple[Pair, Any]] = one) -> None:
                for p, prepared in one:
                    theirs(p, prepared)

            m, t = refs._abba(run_ours, run_theirs, 1) if k % 2 == 0 else _ba(run_ours, run_theirs)
            mine += m
            theirs_t += t
        note = refs._score_note(our_scores, their_scores, [(p.actual, p.expected) for p in check])
        note += f"; {about}"
        return refs._row(make_row, case, baseline, mine, theirs_t, n, refs.VARIED_TARGET, note)

    label = refs._label(refs.UIPATH, "JsonSimilarityEvaluator")
    case = f"json_similarity, {what}"
    if refs._installed(refs.UIPATH[0]):
        score, close = refs._uipath_scorer()
        out.append(
            measured(
                case,
                label,
                lambda p: match_json(p.actual, p.expected, metric="json_similarity").score,
                lambda p, _: score(p.actual, p.expected, None),
                lambda p: None,
                "its evaluate coroutine run on one reused event loop",
            )
        )
        close()
    else:
        out.append(refs._missing_row(make_row, case, label, refs.UIPATH[0]))

    label = refs._label(refs.STRUCTEVAL, "StructEvaluator.run")
    case = f"structural_f1, {what}"
    if refs._installed(refs.STRUCTEVAL[0]):
        from structeval import StructEvaluator
        from structeval.models.eval_config import EvalConfig

        default_threshold = StructEvaluator.DEFAULT_ARRAY_MATCHING_THRESHOLD

        out.append(
            measured(
                case,
                label,
                lambda p: (
                    match_json(p.actual, p.expected, metric="structural_f1", **p.structural).score
                ),
                lambda p, config: StructEvaluator.run(
                    p.actual, p.expected, configuration=config
                ).sum_metrics.f_score(1.0),
                # (structeval reads its threshold from any configuration given: its default)
                lambda p: (
                    EvalConfig.model_validate(
                        {"array_matching_threshold": default_threshold, **p.structural}
                    )
                    if p.structural
                    else None
                ),
                "options as structeval's configuration keys, its EvalConfig made beforehand",
            )
        )
    else:
        out.append(refs._missing_row(make_row, case, label, refs.STRUCTEVAL[0]))

    for align in (None, "hungarian"):
        suffix = " align=hungarian" if align else ""
        label = refs._label(refs.EXTRACT_EVAL, "evaluate" + (", hungarian" if align else ""))
        case = f"field_f1{suffix}, {what}"
        if not refs._installed(refs.EXTRACT_EVAL[0]):
            out.append(refs._missing_row(make_row, case, label, refs.EXTRACT_EVAL[0]))
            continue
        from struct_extract_eval import evaluate

        def prepare(p: Pair, align: str | None = align) -> dict[str, Any]:
            schema = p.x_eval(refs._extract_eval_schema([p.expected]))
            return refs._hungarian(schema) if align else schema

        def ours(p: Pair, align: str | None = align) -> float:
            if align:
                return match_json(
                    p.actual, p.expected, metric="field_f1", align=align, **p.f1_options
                ).score
            return match_json(p.actual, p.expected, metric="field_f1", **p.f1_options).score

        out.append(
            measured(
                case,
                label,
                ours,
                lambda p, schema: evaluate([p.expected], [p.actual], schema=schema).mean_f1,
                prepare,
                "ignore and fields as x-eval-skip and x-eval-compare in extract-eval's schema, "
                "inferred and annotated per pair beforehand, not timed; ours infers its own",
            )
        )
    return out


def _ba(ours: Callable[[], None], theirs: Callable[[], None]) -> tuple[list[float], list[float]]:
    """One run, ours first (the odd runs of references._abba)."""
    import references as refs

    mine = refs._timed(ours)
    return [mine], [refs._timed(theirs)]


def main(argv: list[str] | None = None) -> None:
    """The four varied rows alone (with ``--corpus N``, the corpus pair rows of
    references.py first), one JSON line a row with the load average: docs/performance.md's
    issue 99 figures, one process per source tree (``PYTHONPATH=TREE``), the trees in turn."""
    import json
    import os
    import sys

    import references as refs

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--runs", type=int, default=7, help="timed runs a row (default 7)")
    parser.add_argument("--pairs", type=int, default=SIZE, help=f"pairs a set (default {SIZE})")
    parser.add_argument("--corpus", type=int, default=0, help="corpus pairs (default: none)")
    args = parser.parse_args(argv)

    def row(section: str, case: str, ours: Any, baseline: str, theirs: Any, *rest: Any) -> Any:
        ratio, _target, status, runs, note = rest
        return {"case": case, "ours_s": ours, "theirs_s": theirs, "ratio": ratio, "note": note}

    found: list[Any] = []
    if args.corpus:
        corpus_args = argparse.Namespace(runs=args.runs, ref_pairs=args.corpus)
        found += refs.pair_rows(corpus_args, row)
    found += rows(argparse.Namespace(runs=args.runs, ref_pairs=args.pairs), row)
    load = os.getloadavg()
    for one in found:
        sys.stdout.write(json.dumps({**one, "load": [round(x, 2) for x in load]}) + "\n")


if __name__ == "__main__":
    main()
