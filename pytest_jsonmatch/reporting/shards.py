"""Shards: one suite split over several runs (CI jobs), each writing its own report, and the
reports merged back into the run of the whole suite.

A shard's report is stamped ``run.shard = {"index": i, "count": N}`` (1-based); a shard
judges no gate (its cases are a part of the suite). :func:`merge_shards` checks that the
reports given are the N shards of one run (each once, no case in two, the same plugin
version, commit and grouping) and gives their comparisons, from which ``conclude`` builds
the whole run's report and verdict."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..engine.core.errors import ConfigError, JsonMatchError
from ..engine.core.numbers import whole_in
from .records import Comparison
from .shapes import Report, RunInfo


class ShardError(JsonMatchError):
    """Shard reports that are not the shards of one run (named, with what differs)."""


MAX_SHARDS = 10_000  # shards of one suite: far above any CI matrix
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str, where: str) -> tuple[int, int]:
    """``i/N`` (shard i of N, 1 <= i <= N) from the setting ``where`` names."""
    found = _SHARD.fullmatch(text)
    if found is None:
        raise ConfigError(f"{where}: {text!r} is not a shard 'i/N' (e.g. 2/4)")
    index, count = whole_in(found[1], 1, MAX_SHARDS), whole_in(found[2], 1, MAX_SHARDS)
    if count is None:
        raise ConfigError(
            f"{where}: {text[:40]!r}: N must be a whole number from 1 to {MAX_SHARDS}"
        )
    if index is None or not index <= count:
        raise ConfigError(f"{where}: shard {found[1][:20]}/{count}: i must be between 1 and N")
    return index, count


def shard_not_judged(index: int, count: int) -> str:
    """Why a shard's run judges no gate."""
    return (
        f"this run is shard {index} of {count}, a part of the suite; merge the shards' reports "
        f"with jsonmatch merge to judge the whole run"
    )


class Merged(NamedTuple):
    """The shards' comparisons, as one run's; ``stopped``: why the merged run is partial
    (shards missing or stopped early), None when it is whole."""

    comparisons: list[Comparison]
    group_by: str
    run: RunInfo
    stopped: str | None


def _identity(comparison: Comparison) -> tuple[str, int]:
    """What makes a comparison one of its run: a case appears in one shard only."""
    return comparison.case_id, comparison.repeat


def merge_shards(shards: Sequence[tuple[str, Report]], partial: bool = False) -> Merged:
    """The comparisons of the run the ``shards`` (path, report) are parts of. Refused
    (:class:`ShardError`): a report without a shard stamp, shards of different counts, a
    shard given twice, a missing shard (unless ``partial``), a case in two shards, reports
    of different plugin versions, commits or grouping."""
    if not shards:
        raise ShardError("no shard reports given")
    stamps: dict[int, str] = {}
    counts: dict[int, list[str]] = {}
    for path, report in shards:
        shard = report["run"].get("shard")
        if shard is None:
            raise ShardError(f"{path}: not a shard's report (no run.shard; see jsonmatch_shard)")
        index, count = shard["index"], shard["count"]
        counts.setdefault(count, []).append(path)
        if index in stamps:
            raise ShardError(f"shard {index} given twice: {stamps[index]} and {path}")
        stamps[index] = path
    if len(counts) > 1:
        said = "; ".join(f"{n} in {', '.join(paths)}" for n, paths in sorted(counts.items()))
        raise ShardError(f"the shards are of different splits (shard counts: {said})")
    (count,) = counts
    _same(shards, "plugin versions", lambda r: r["run"].get("plugin_version"))
    _same(shards, "commits", lambda r: r["run"].get("git_commit"))
    _same(shards, "grouping (jsonmatch_group_by)", lambda r: r["group_by"])
    missing = [i for i in range(1, count + 1) if i not in stamps]
    if missing and not partial:
        raise ShardError(
            f"shard{'s' * (len(missing) > 1)} {', '.join(map(str, missing))} of {count} "
            f"missing (given: {', '.join(stamps[i] for i in sorted(stamps))}); "
            f"--partial merges the shards given, as a partial run"
        )
    comparisons: list[Comparison] = []
    seen: dict[tuple[str, int], str] = {}
    why: list[str] = []
    for path, report in sorted(shards, key=lambda s: s[1]["run"]["shard"]["index"]):
        if report["run"].get("complete") is False:
            why.append(f"{path} stopped early ({report['run'].get('stopped', '')})")
        mine: set[tuple[str, int]] = set()
        for data in report["comparisons"]:
            comparison = Comparison.from_dict(data)
            ident = _identity(comparison)
            if ident in seen and ident not in mine:
                raise ShardError(
                    f"case {comparison.case_id} is in two shards: {seen[ident]} and {path}"
                )
            seen[ident] = path
            mine.add(ident)
            comparisons.append(comparison)
    if missing:
        why.insert(
            0, f"shard{'s' * (len(missing) > 1)} {', '.join(map(str, missing))} of {count} missing"
        )
    first = shards[0][1]["run"]
    run: RunInfo = {}
    if "plugin_version" in first:
        run["plugin_version"] = first["plugin_version"]
    if "python" in first:
        run["python"] = first["python"]
    if "git_commit" in first:
        run["git_commit"] = first["git_commit"]
    run["shards"] = count
    return Merged(comparisons, shards[0][1]["group_by"], run, "; ".join(why) or None)


def _same(
    shards: Sequence[tuple[str, Report]], what: str, value: Callable[[Report], object]
) -> None:
    """Refused unless every shard has the same ``value``: the shards and each one's."""
    seen: dict[str, list[str]] = {}
    for path, report in shards:
        seen.setdefault(repr(value(report)), []).append(path)
    if len(seen) > 1:
        said = "; ".join(f"{v} in {', '.join(paths)}" for v, paths in seen.items())
        raise ShardError(f"the shards are of different {what}: {said}")
