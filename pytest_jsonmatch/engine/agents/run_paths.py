"""A run's ``ignore`` and ``fields``, given in the paths its field table shows, each sent to
the part it names (docs/metrics.md, "An agent's run: answer, trajectory, state").

``state.flights`` names the end state's ``flights`` (the state is scored from its own root:
it gets ``flights``), ``run[].search_flights.date`` a row of the trajectory, and any other
path the answer's field of that path. A pattern that opens with ``**`` names a field at any
depth of every part. ``state`` and ``run`` head a part's paths only where the run gives that
part (an answer may have a key ``state`` when no end state is expected); where both are
given, the answer may not (agent_scorers.py's ``_check_keys``).

The trajectory metric makes its rows itself and takes no ``ignore`` nor ``fields``: a rule
under ``run`` is laid over its rows once scored. ``ignore`` (or ``skip``) makes a row skipped
(it counts nowhere, and the part's score is recomputed from the rows left); ``min_score``
makes a row scored below it a floor failure. The arguments' own rules are ``run_options``'
(``args``, ``tool_args``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..configuring.walk_config import unit_number
from ..core.errors import ConfigError
from ..core.paths import PathPattern
from ..results.field_results import (
    SCORE_EPSILON,
    SKIPPED,
    FieldResult,
    FloorFailure,
    f_beta,
    precision_recall,
)

PARTS = ("run", "state")
# what a ``fields`` entry under ``run`` may set: the trajectory's rows are made, not walked
RUN_FIELD_KEYS = frozenset({"skip", "min_score"})


class RunRule(NamedTuple):
    """A rule laid over the trajectory's rows: ``skip`` them, or hold them to ``min_score``."""

    pattern: PathPattern
    skip: bool
    min_score: float | None


class PartPaths(NamedTuple):
    """The options of the answer and of the state, each with the paths of its part (relative
    to its root), and the rules over the trajectory's rows (at their paths in the table)."""

    answer: dict[str, object]
    state: dict[str, object]
    run: tuple[RunRule, ...]


def split_paths(options: Mapping[str, object], parts: frozenset[str]) -> PartPaths:
    """``options``' ``ignore`` and ``fields`` split among the answer, the state and the run
    (``parts``: those the run gives). Where either is not of its type, the answer and the
    state get them as given: their reading names the mistake."""
    ignore, fields = options.get("ignore"), options.get("fields", {})
    patterns = [ignore] if isinstance(ignore, str) else [] if ignore is None else ignore
    if not (
        isinstance(patterns, (list, tuple))
        and all(isinstance(p, str) for p in patterns)
        and isinstance(fields, Mapping)
        and all(isinstance(p, str) for p in fields)
    ):
        return PartPaths(dict(options), dict(options), ())
    by_part: dict[str, tuple[list[str], dict[str, object]]] = {"": ([], {}), "state": ([], {})}
    run: list[RunRule] = []
    for pattern in patterns:
        for part, within in _parts_of(pattern, parts, "ignore"):
            if part == "run":
                run.append(RunRule(PathPattern(pattern), True, None))
            else:
                by_part[part][0].append(within)
    for pattern, settings in fields.items():
        for part, within in _parts_of(pattern, parts, "fields"):
            rule = _run_rule(pattern, settings, within.startswith("**")) if part == "run" else None
            if rule is not None:
                run.append(rule)
            elif part != "run":
                by_part[part][1][within] = settings
    return PartPaths(
        _with_paths(options, *by_part[""]), _with_paths(options, *by_part["state"]), tuple(run)
    )


def _parts_of(pattern: str, parts: frozenset[str], option: str) -> list[tuple[str, str]]:
    """Each part ``pattern`` names, with the pattern within that part ("": the answer)."""
    if pattern.startswith("**"):
        return [("", pattern), *((part, pattern) for part in PARTS if part in parts)]
    for part in PARTS:
        if part not in parts or not pattern.startswith(part):
            continue
        rest = pattern[len(part) :]
        if not rest:
            whole = "trajectory" if part == "run" else "end state"
            raise ConfigError(
                f"{option} {pattern!r} names the whole {whole}: name a field within it "
                f"({part}.NAME), or leave expected_{part} out"
            )
        if rest[0] in ".[":
            return [(part, rest[1:] if rest[0] == "." else rest)]
    return [("", pattern)]


def _run_rule(pattern: str, settings: object, lenient: bool) -> RunRule | None:
    """A ``fields`` entry under ``run`` as a rule over the trajectory's rows. ``lenient``
    (a ``**`` pattern, meant for every part): None where it sets what rows cannot take,
    rather than an error."""
    if not isinstance(settings, Mapping):
        raise ConfigError(f"fields[{pattern!r}] must be a mapping of settings, not {settings!r}")
    other = sorted(set(settings) - RUN_FIELD_KEYS)
    if other and lenient:
        return None
    if other:
        raise ConfigError(
            f"fields[{pattern!r}]: the run's steps are scored by the trajectory metric, whose "
            f"rows take {' and '.join(sorted(RUN_FIELD_KEYS))}, not {', '.join(map(repr, other))} "
            f"(the arguments' rules are run_options' args and tool_args)"
        )
    skip = settings.get("skip", False)
    if not isinstance(skip, bool):
        raise ConfigError(f"fields[{pattern!r}]: skip must be true or false")
    floor = settings.get("min_score")
    return RunRule(
        PathPattern(pattern),
        skip,
        None if floor is None else unit_number(floor, f"fields[{pattern!r}]: min_score"),
    )


def _with_paths(
    options: Mapping[str, object], ignore: list[str], fields: dict[str, object]
) -> dict[str, object]:
    """``options`` with ``ignore`` and ``fields`` replaced by one part's (left out when it
    has none)."""
    out = {k: v for k, v in options.items() if k not in ("ignore", "fields")}
    if ignore:
        out["ignore"] = ignore
    if fields:
        out["fields"] = fields
    return out


def ruled_rows(
    rows: list[FieldResult], score: float, rules: tuple[RunRule, ...]
) -> tuple[list[FieldResult], float, list[FloorFailure]]:
    """The trajectory's rows (at their paths in the table) with ``rules`` laid over them:
    the rows a skip rule names skipped, the part's score recomputed from the rows left (its
    headline, F1, as the metric computes it); and the rows scored below a ``min_score``."""
    if not rules:
        return rows, score, []
    out: list[FieldResult] = []
    floors: list[FloorFailure] = []
    for row in rows:
        named = [rule for rule in rules if rule.pattern.matches(row.path)]
        if any(rule.skip for rule in named) and row.status != SKIPPED:
            out.append(row._replace(status=SKIPPED, score=0.0, reason="ignored"))
            continue
        out.append(row)
        for rule in named:
            least = rule.min_score
            if least is not None and row.status != SKIPPED and row.score < least - SCORE_EPSILON:
                floors.append(FloorFailure(row.path, least, row.score))
    if out != rows:
        score = f_beta(*precision_recall(out))
    return out, score, floors


def placed(field: FieldResult, prefix: str, folded: str) -> FieldResult:
    """``field`` with its paths under ``prefix`` and its field path under ``folded``."""
    return field._replace(
        path=under(prefix, field.path),
        field_path=under(folded, field.field_path),
        actual_path=None if field.actual_path is None else under(prefix, field.actual_path),
    )


def under(prefix: str, path: str) -> str:
    """``path`` below ``prefix`` (an index segment joins it without a dot)."""
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"
