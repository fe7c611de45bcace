"""UiPath's JSON Similarity: a similarity for every leaf of expected's tree (Levenshtein for
strings, relative difference for numbers, exact for the rest), arrays compared by index;
the score is the summed leaf similarity over expected's leaves (recall).

Its ``target_output_key`` option says which part of each side is compared. ``"*"`` (or
None) compares everything; a key, or a dotted path with ``[i]`` indices
(``"result.items[0].name"``), compares the value there on both sides; a list of such paths
compares ``{path: value}`` for the listed paths on both sides. Paths are read as UiPath
reads them: runs of characters other than ``.``, ``[`` and ``]`` are keys, ``[digits]`` an
index. A path missing on either side is a ParseError naming the path and the side.
"""

from __future__ import annotations

import re

from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig
from ..core.errors import ConfigError, ParseError, known_names, shown
from ..core.values import JsonValue
from .base import COMMON_OPTIONS, Metric, Options, type_policy

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def path_steps(path: str) -> list[str | int]:
    """``"items[0].name"`` -> ``["items", 0, "name"]`` (UiPath's reading)."""
    steps: list[str | int] = []
    for found in _TOKEN.finditer(path):
        key, index = found.groups()
        steps.append(int(index) if index is not None else key)
    if not steps:
        raise ConfigError(f"target_output_key {path!r} names no key")
    return steps


def resolve(value: JsonValue, path: str, side: str) -> JsonValue:
    """The value at ``path`` in ``value``; ParseError naming the path, the side and the step
    that fails when it is not there."""
    current = value
    walked = ""
    for step in path_steps(path):
        if isinstance(step, int):
            if type(current) is not list:
                raise ParseError(
                    f"target_output_key {path!r} is not found in {side}: "
                    f"{walked or '$'} is not an array"
                )
            if step >= len(current):
                raise ParseError(
                    f"target_output_key {path!r} is not found in {side}: {walked or '$'} "
                    f"has {len(current)} element(s), no [{step}]"
                )
            current = current[step]
            walked += f"[{step}]"
        else:
            if type(current) is not dict:
                raise ParseError(
                    f"target_output_key {path!r} is not found in {side}: "
                    f"{walked or '$'} is not an object"
                )
            if step not in current:
                at = f" at {walked}" if walked else ""
                raise ParseError(
                    f"target_output_key {path!r} is not found in {side}: no key {shown(step)}{at} "
                    f"(keys: {known_names(current)})"
                )
            current = current[step]
            walked = f"{walked}.{step}" if walked else step
    return current


def select(expected: JsonValue, actual: JsonValue, target: object) -> tuple[JsonValue, JsonValue]:
    """The parts of both sides ``target`` names (see the module's docstring)."""
    if target is None or target == "*":
        return expected, actual
    if isinstance(target, str):
        return resolve(expected, target, "expected"), resolve(actual, target, "actual")
    if isinstance(target, (list, tuple)) and target and all(isinstance(p, str) for p in target):
        return (
            {path: resolve(expected, path, "expected") for path in target},
            {path: resolve(actual, path, "actual") for path in target},
        )
    raise ConfigError(
        f"target_output_key must be '*', a key or path, or a list of paths, not {shown(target)}"
    )


def _target(
    expected: JsonValue, actual: JsonValue, options: Options
) -> tuple[JsonValue, JsonValue]:
    return select(expected, actual, options.get("target_output_key") if options else None)


def _targets(options: Options) -> bool:
    """Whether ``target_output_key`` takes a part of either side ("*" and None take both
    whole: ``select`` hands them back as they are)."""
    target = options.get("target_output_key")
    return not (target is None or (type(target) is str and target == "*"))


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    return WalkConfig(
        type_policy=type_policy(registry, "levenshtein", "relative"),
        count_extras=False,
        array_mode="index",
        registry=registry,
    )


JSON_SIMILARITY = Metric(
    "json_similarity",
    COMMON_OPTIONS | {"target_output_key"},
    _configure,
    target=_target,
    targets_when=_targets,
    rules_apart=True,
    description="UiPath JSON Similarity: leaf similarity over expected's tree",
)
