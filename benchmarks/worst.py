"""The worst cases a user can hit: large arrays, long strings, deep nesting.

Each case runs in a process of its own (``python worst.py CASE SIZE METRIC OPTIONS``), which
builds its input, compares a small input of the same kind to warm up imports and caches,
then times one comparison
and reports the time, its own peak memory (ru_maxrss: the whole process, imports
included) and the score. A family of cases (one shape, one metric, growing sizes) also gets
a growth exponent: the slope of log(time) against log(size), 1 for linear, 2 for quadratic.

A quick run (run.py --quick, the smoke test's) forks each case from the benchmark's own
process instead (:func:`run_case_forked`), its imports made once, there: a fresh
interpreter costs half a second of imports per case, most of a quick run. The peak then
includes what the benchmark's process held when it forked; a quick run checks the script,
not the figures.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import resource
import select
import signal
import string
import subprocess
import sys
import time
import traceback
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import corpus

PAIRING = {"structural_f1": {}, "field_f1": {"align": "hungarian"}}
METRICS = ("field_match", "field_match_normalized", "json_similarity", "structural_f1", "field_f1")


# -- inputs ------------------------------------------------------------------------------------


def shuffled_strings(n: int, seed: int = 3) -> tuple[Any, Any]:
    """``n`` random strings (8 to 30 letters and spaces); actual shuffled, 20% with a typo."""
    rng = random.Random(seed)
    items = [
        "".join(rng.choices(string.ascii_lowercase + " ", k=rng.randint(8, 30))) for _ in range(n)
    ]
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
    candidate pairs by walking them; ``differing arrays`` hold one element at every level
    and one leaf at the bottom, different (every candidate pair scores 0: both elements are
    lone at every level)."""
    if shape == "objects":

        def build(last: str) -> str:
            return '{"a": ' * depth + f'{{"x": 1, "y": "{last}"}}' + "}" * depth
    elif shape == "differing arrays":

        def build(last: str) -> str:
            return '{"r": ' + "[" * depth + f'"{last}"' + "]" * depth + "}"
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
    "deep differing arrays": lambda size: deep("differing arrays", size),
}
# a size small enough to warm up each case with (imports, caches) before it is timed
WARM_UP = {
    "objects": 60,
    "strings": 60,
    "repeated objects": 60,
    "near string": 1000,
    "unrelated string": 1000,
    "deep objects": 3,
    "deep arrays": 3,
    "deep array pairs": 3,
    "deep differing arrays": 3,
}


def measure(case: str, size: int, metric: str, options: dict[str, Any]) -> dict[str, Any]:
    """The case's time, the process's peak memory and the score, in this process."""
    from pytest_jsonmatch import match_json

    match_json(*CASES[case](WARM_UP[case]), metric=metric, **options)
    actual, expected = CASES[case](size)
    t0 = time.perf_counter()
    result = match_json(actual, expected, metric=metric, **options)
    elapsed = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return {"time_s": elapsed, "peak_bytes": peak, "score": result.score}


def child(case: str, size: int, metric: str, options: dict[str, Any]) -> None:
    print(json.dumps(measure(case, size, metric, options)))


def run_case(
    case: str, size: int, metric: str, options: dict[str, Any], timeout: float
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


def warm_up() -> None:
    """Make in this process the imports every case needs (NumPy, SciPy, RapidFuzz, the
    engine), so that the processes :func:`run_case_forked` forks start with them."""
    from pytest_jsonmatch import match_json

    for case in CASES:
        for metric, options in (("json_similarity", {}), *PAIRING.items()):
            match_json(*CASES[case](WARM_UP[case]), metric=metric, **options)


def run_case_forked(
    case: str, size: int, metric: str, options: dict[str, Any], timeout: float
) -> dict[str, Any]:
    """As :func:`run_case`, in a process forked from this one (after :func:`warm_up`): no
    interpreter to start, no imports to make; the peak memory includes what this process
    held. Where there is no fork, :func:`run_case`."""
    if not hasattr(os, "fork"):
        return run_case(case, size, metric, options, timeout)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, write the answer, leave without running the parent's code
        status = 1
        try:
            os.close(read_end)
            try:
                found = measure(case, size, metric, options)
            except Exception as exc:  # noqa: BLE001 (what run_case reports: the error's last line)
                found = {"error": traceback.format_exception_only(type(exc), exc)[-1].strip()[:200]}
            with os.fdopen(write_end, "w") as out:
                out.write(json.dumps(found))
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    deadline = time.monotonic() + timeout
    chunks = []
    with os.fdopen(read_end, "rb") as answer:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([answer], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"error": f"over {timeout:g} s"}
            chunk = os.read(answer.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return {"error": f"the forked case failed (wait status {status})"}
    return json.loads(b"".join(chunks))


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
