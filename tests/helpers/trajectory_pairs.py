"""Seeded trajectory pairs and the message shapes agentevals reads, shared by the agentevals
parity test (tests/engine/trajectories/test_agentevals_parity.py) and the agents benchmark
(benchmarks/agents.py).

A run is a list of messages, each ``("user" | "tool" | "answer", None)`` or ``("calls",
[calls])``, a call ``(name, arguments)``; ``messages`` draws one, ``mutated`` changes a copy
a little (the run compared with it), and ``openai``, ``anthropic`` and ``langchain`` write a
run in each framework's shape. Nothing here imports agentevals or pytest.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

NAMES = ("search", "book")
VALUES = {"q": ("a", "b"), "n": (0, 1, 2)}

Call = tuple[str, dict[str, object]]
Message = tuple[str, list[Call] | None]


def _arguments(rng: random.Random) -> dict[str, object]:
    return {k: rng.choice(v) for k, v in VALUES.items() if rng.random() < 0.6}


def calls(rng: random.Random, count: int) -> list[Call]:
    return [(rng.choice(NAMES), _arguments(rng)) for _ in range(count)]


def messages(rng: random.Random) -> list[Message]:
    """A user message, one or two steps of one to three calls each with their tool results,
    and (seven times in ten) a final answer."""
    out: list[Message] = [("user", None)]
    for _ in range(rng.randint(1, 2)):
        out.append(("calls", calls(rng, rng.randint(1, 3))))
        out.append(("tool", None))
    if rng.random() < 0.7:
        out.append(("answer", None))
    return out


def mutated(rng: random.Random, original: list[Message]) -> list[Message]:
    """The expected run changed a little: calls reordered, arguments dropped or changed,
    calls added or removed, a step removed."""
    out: list[Message] = []
    for kind, step in original:
        if kind == "calls":
            assert step is not None
            step = [(name, dict(args)) for name, args in step]
            rng.shuffle(step)
            for _, args in step:
                if args and rng.random() < 0.3:
                    del args[rng.choice(sorted(args))]
                if rng.random() < 0.3:
                    key = rng.choice(sorted(VALUES))
                    args[key] = rng.choice(VALUES[key])
            if rng.random() < 0.25:
                step.append(calls(rng, 1)[0])
            if len(step) > 1 and rng.random() < 0.2:
                step.pop()
        out.append((kind, step))
    if len(out) > 2 and rng.random() < 0.15:
        del out[rng.randrange(1, len(out))]
    return out


# -- the shapes ----------------------------------------------------------------------------


def openai(run: list[Message]) -> list[dict]:
    out = []
    for kind, step in run:
        if kind == "calls":
            assert step is not None
            out.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                        for n, a in step
                    ],
                }
            )
        else:
            out.append({"role": "assistant" if kind == "answer" else kind, "content": "x"})
    return out


def anthropic(run: list[Message]) -> list[dict]:
    out = []
    for i, (kind, step) in enumerate(run):
        if kind == "calls":
            assert step is not None
            blocks = [{"type": "text", "text": "thinking"}] + [
                {"type": "tool_use", "id": f"t{i}_{j}", "name": n, "input": a}
                for j, (n, a) in enumerate(step)
            ]
            out.append({"role": "assistant", "content": blocks})
        elif kind == "tool":
            result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "r"}
            out.append({"role": "user", "content": [result]})
        else:
            out.append({"role": "assistant" if kind == "answer" else kind, "content": "x"})
    return out


def langchain(run: list[Message]) -> dict:
    out = []
    for i, (kind, step) in enumerate(run):
        if kind == "calls":
            assert step is not None
            out.append(
                {
                    "type": "ai",
                    "content": "",
                    "tool_calls": [
                        {"name": n, "args": a, "id": f"c{i}{j}", "type": "tool_call"}
                        for j, (n, a) in enumerate(step)
                    ],
                }
            )
        elif kind == "tool":
            out.append({"type": "tool", "content": "r", "tool_call_id": f"c{i}"})
        else:
            out.append({"type": "ai" if kind == "answer" else "human", "content": "x"})
    return {"messages": out}


SHAPES: tuple[Callable[[list[Message]], object], ...] = (openai, anthropic, langchain)
