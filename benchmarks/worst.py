"""The worst cases a user can hit: large arrays, long strings, deep nesting.

Each case runs in a process of its own (``python worst.py CASE SIZE METRIC OPTIONS``), which
builds its input, compares a small input of the same kind to warm up imports and caches,
then times one comparison
and reports the time, its own peak memory (ru_maxrss: the whole process, imports
included) and the score. A family of cases (one shape, one metric, growing sizes) also gets
a growth exponent: the slope of log(time) against log(size), 1 for linear, 2 for quadratic.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import resource
import string
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import corpus  # noqa: E402

PAIRING = {"structural_f1": {}, "field_f1": {"align": "hungarian"}}
METRICS = ("field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1")


# -- inputs ------------------------------------------------------------------------------------


def shuffled_strings(n: int, seed: int = 3) -> tuple[Any, Any]:
    """``n`` random strings (8 to 30 letters and spaces); actual shuffled, 20% with a typo."""
    rng = random.Random(seed)
    items = ["".join(rng.choices(string.ascii_lowercase + " ", k=rng.randint(8, 30)))
             for _ in range(n)]
    changed = [corpus._typo(rng, s) if rng.random() < 0.2 else s for s in items]
    rng.shuffle(changed)
    return {"items": changed}, {"items": items}


def repeated_objects(n: int, seed: int = 3) -> tuple[Any, Any]:
    """The *objects* case with one expected element in twenty replaced by a copy of another:
    pairings that swap two equal elements tie, and only the dense method settles a tie."""
    actual, expected = corpus.damaged_shuffle(n)
    rng = random.Random(seed)
    items = expected["items"]
    for _ in range(n // 20):
        items[rng.randrange(n)] = copy.deepcopy(items[rng.randrange(n)])
    return actual, expected


def long_string(size: int, related: bool, seed: int = 5) -> tuple[Any, Any]:
    """One string field of ``size`` characters; actual the same with 1% of its characters
    replaced, or (``related`` false) another random string of the same length."""
    rng = random.Random(seed)
    text = "".join(rng.choices(string.ascii_letters + " ", k=size))
    if not related:
        return {"t": "".join(rng.choices(string.ascii_letters + " ", k=size))}, {"t": text}
    chars = list(text)
    for _ in range(size // 100):
        chars[rng.randrange(size)] = rng.choice(string.ascii_letters)
    return {"t": "".join(chars)}, {"t": text}


def deep(shape: str, depth: int) -> tuple[Any, Any]:
    """JSON text nested ``depth`` levels, one leaf different at the bottom: ``objects``
    and ``arrays`` (one inside the other) hold the same two leaves at every depth, so every
    metric's score is the same at every depth; ``array pairs`` hold two elements at every
    level (the nested array and a number), the case where Hungarian alignment scores
    candidate pairs by walking them."""
    if shape == "objects":
        def build(last: str) -> str:
            return '{"a": ' * depth + f'{{"x": 1, "y": "{last}"}}' + "}" * depth
    elif shape == "arrays":
        def build(last: str) -> str:
            return '{"r": ' + "[" * depth + f'1, "{last}"' + "]" * depth + "}"
    else:
        def build(last: str) -> str:
            return '{"r": ' + "[" * depth + f'1, "{last}"' + ", 3]" * depth + "}"
    return build("q"), build("p")


CASES = {
    "objects": lambda size: corpus.damaged_shuffle(size),
    "strings": shuffled_strings,
    "repeated objects": repeated_objects,
    "near string": lambda size: long_string(size, True),
    "unrelated string": lambda size: long_string(size, False),
    "deep objects": lambda size: deep("objects", size),
    "deep arrays": lambda size: deep("arrays", size),
    "deep array pairs": lambda size: deep("array pairs", size),
}
# a size small enough to warm up each case with (imports, caches) before it is timed
WARM_UP = {"objects": 60, "strings": 60, "repeated objects": 60, "near string": 1000, "unrelated string": 1000,
           "deep objects": 3, "deep arrays": 3, "deep array pairs": 3}


def child(case: str, size: int, metric: str, options: dict[str, Any]) -> None:
    from pytest_jsonmatch import match_json

    match_json(*CASES[case](WARM_UP[case]), metric=metric, **options)
    actual, expected = CASES[case](size)
    t0 = time.perf_counter()
    result = match_json(actual, expected, metric=metric, **options)
    elapsed = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    print(json.dumps({"time_s": elapsed, "peak_bytes": peak, "score": result.score}))


def run_case(case: str, size: int, metric: str, options: dict[str, Any], timeout: float
             ) -> dict[str, Any]:
    """One case in a fresh process: its time, peak memory and score (or why it failed)."""
    cmd = [sys.executable, os.path.abspath(__file__), case, str(size), metric, json.dumps(options)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def growth(sizes: list[int], times: list[float]) -> float | None:
    """Least-squares slope of log(time) against log(size)."""
    points = [(math.log(s), math.log(t)) for s, t in zip(sizes, times) if t > 0]
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else None


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4]))
