"""Room for deep values: the walk recurses once or twice per level of nesting, so a value
nested a few hundred levels deep needs more stack than Python gives a call by default.

:func:`call_with_depth` runs such a comparison in a thread of its own, with a stack and a
recursion limit sized to the depth (the door, intake.py, bounds the depth). Shallow values,
nearly all of them, run in the caller's thread as they are.
"""

from __future__ import annotations

import sys
from _thread import allocate_lock
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

T = TypeVar("T")

# How deeply a value may nest (the door, intake.py, refuses deeper). JSON text that
# ``json.loads`` can read stays well within it.
MAX_DEPTH = 2_000
# Up to this depth a comparison fits in the caller's stack under Python's default limit.
SHALLOW = 60
# Python frames one level of nesting may take (node -> array -> pairing -> pair scores -> a
# candidate walk -> node, ...), and a margin for the frames around the walk.
_FRAMES_PER_LEVEL = 12
_MARGIN = 1_000
# Bytes of C stack per Python frame to provide (generous: Python 3.10 runs each Python call
# on the C stack, and C-level recursion such as dict equality adds its own).
_STACK_PER_FRAME = 2_048
_MIN_STACK = 16 * 1024 * 1024

_LOCK = allocate_lock()  # (threading itself is imported by the one deep comparison)
_raised = 0  # comparisons running with the recursion limit raised
_saved_limit = 0


def call_with_depth(depth: int, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)``, with room for values nested ``depth`` levels deep."""
    if depth <= SHALLOW:
        return fn(*args)
    frames = depth * _FRAMES_PER_LEVEL + _MARGIN
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            box["error"] = exc

    import threading  # (only a value this deep runs in a thread of its own)

    _raise_limit(frames)
    try:
        with _LOCK:
            previous = threading.stack_size(max(_MIN_STACK, frames * _STACK_PER_FRAME))
            try:
                worker = threading.Thread(target=target, name="jsonmatch-deep", daemon=True)
                worker.start()
            finally:
                threading.stack_size(previous)
        worker.join()
    finally:
        _restore_limit()
    if "error" in box:
        raise cast(BaseException, box["error"])
    return cast(T, box["value"])


def _raise_limit(frames: int) -> None:
    global _raised, _saved_limit
    with _LOCK:
        if _raised == 0:
            _saved_limit = sys.getrecursionlimit()
        _raised += 1
        if sys.getrecursionlimit() < frames:
            sys.setrecursionlimit(frames)


def _restore_limit() -> None:
    global _raised
    with _LOCK:
        _raised -= 1
        if _raised == 0:
            sys.setrecursionlimit(_saved_limit)


def nesting(value: object, limit: int) -> int:
    """How many levels of mappings and lists ``value`` nests (0 for a scalar), counted
    without recursion; counting stops past ``limit``. Each container is counted once, so a
    value that holds itself (or shares a part) does not loop."""
    deepest = 0
    seen: set[int] = set()
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Iterable[object] = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        deepest = max(deepest, depth + 1)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def with_door_room(fn: Callable[[], T]) -> T:
    """``fn()``, run again with room for values nested as deep as the door takes (MAX_DEPTH)
    where it ran past the caller's stack: for the standard library's recursive
    writer and equality, on a value a model may nest 2,000 levels deep."""
    try:
        return fn()
    except RecursionError:
        return call_with_depth(MAX_DEPTH + 8, fn)


def deep_dumps(value: object, **options: Any) -> str:
    """``json.dumps(value, **options)`` at any depth the door takes."""
    import json

    return with_door_room(lambda: json.dumps(value, **options))
