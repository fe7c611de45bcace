"""Generated code against the general path, on the shapes a file can choose (issue 55).

Three shapes that once made a code generator cost many times the work it saved:

- ``walk``: an expected value of 10 ordered arrays of 64 objects of 256 keys (128 known to
  the schema, 128 not), each object's keys in another order: a walk scorer per shape;
- ``fit``: ``jsonmatch score`` on one gold line ``{"k0": {}, ..., "k39999": {}}``: the
  dataset's fit test;
- ``conformance``: a schema of 60,000 properties, 20 answers checked against it.

Each is timed in a fresh process (the generators' budgets are per process), ``--repeats``
times with the generators as shipped and as many with the general path (the generator
off), alternating; the figures are min/median/max seconds of CPU (the machine may be
shared) and the ratio of the medians.
``python benchmarks/generated_budgets.py [--quick] [--repeats N]``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (a score run may hand
    its work to worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _walk(general: bool, quick: bool) -> float:
    from pytest_jsonmatch import match_json
    from pytest_jsonmatch.engine.walking import generated_scorers as compiled

    compiled.SPECIALISE = not general
    rng = random.Random(5)
    objects, arrays = (8, 4) if quick else (64, 10)
    known = [f"k{i}" for i in range(128)]
    keys = known + [f"u{i}" for i in range(128)]
    item = {"type": "object", "properties": {k: {"type": "string"} for k in known}}
    schema = {
        "type": "object",
        "properties": {
            f"a{j}": {"type": "array", "items": item, "x-eval-align": "ordered"}
            for j in range(arrays)
        },
    }
    expected = {}
    for j in range(arrays):
        rows = []
        for _ in range(objects):
            order = keys[:]
            rng.shuffle(order)
            rows.append({k: k for k in order})
        expected[f"a{j}"] = rows
    start = _cpu()
    score = match_json(expected, expected, schema=schema).score
    assert score == 1.0, score
    return _cpu() - start


def _fit(general: bool, quick: bool) -> float:
    from pytest_jsonmatch.cli import main
    from pytest_jsonmatch.dataset import fitting

    if general:
        fitting.MAX_CONSTANTS = -1
    width = 4_000 if quick else 40_000
    with tempfile.TemporaryDirectory() as folder:
        gold, pred = os.path.join(folder, "g.jsonl"), os.path.join(folder, "p.jsonl")
        line = json.dumps({f"k{i}": {} for i in range(width)})
        for path in (gold, pred):
            with open(path, "w") as fh:
                fh.write(line + "\n")
        out = os.path.join(folder, "out.json")
        start = _cpu()
        main(["score", gold, pred, "--format", "json", "--output", out])
        return _cpu() - start


def _conformance(general: bool, quick: bool) -> float:
    from pytest_jsonmatch.engine.schemas.conformance import validator_for

    width = 6_000 if quick else 60_000
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "minLength": 1} for i in range(width)},
    }
    answers = [{f"p{i}": "x" for i in range(j, width, 3)} for j in range(20)]
    start = _cpu()
    validator = validator_for(schema, generated=not general)
    for answer in answers:
        assert validator.check(answer).valid
    return _cpu() - start


CASES = {"walk": _walk, "fit": _fit, "conformance": _conformance}


def _child(case: str, general: bool, quick: bool) -> float:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, __file__, "--child", case, str(int(general)), str(int(quick))],
        capture_output=True,
        text=True,
        env=environ,
        check=True,
    )
    return float(done.stdout.split()[-1])


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        case, general, quick = argv[1], argv[2] == "1", argv[3] == "1"
        print(CASES[case](general, quick))
        return
    quick = "--quick" in argv
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 3
    for case in CASES:
        shipped: list[float] = []
        general: list[float] = []
        for _ in range(repeats):
            shipped.append(_child(case, False, quick))
            general.append(_child(case, True, quick))
        ratio = statistics.median(shipped) / statistics.median(general)
        row = {
            "case": case,
            "shipped_s": [
                round(min(shipped), 3),
                round(statistics.median(shipped), 3),
                round(max(shipped), 3),
            ],
            "general_s": [
                round(min(general), 3),
                round(statistics.median(general), 3),
                round(max(general), 3),
            ],
            "ratio_of_medians": round(ratio, 2),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
