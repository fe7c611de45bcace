"""Shards: one suite split over several runs (CI jobs), each writing its own report, and the
reports merged back into the run of the whole suite.

A shard's report is stamped ``run.shard = {"index": i, "count": N}`` (1-based); a shard
judges no gate (its cases are a part of the suite). :func:`merge_shards` checks that the
reports given are the N shards of one run (each once, no case in two, the same plugin
version, commit, grouping, settings, golden set, prompt versions and judge) and gives their
comparisons, from which ``conclude`` builds the whole run's report and verdict."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ...engine.core.errors import ConfigError
from ...engine.core.numbers import whole_in
from ..run_model.aggregate import REPEAT_RULES
from ..run_model.comparisons import Comparison
from ..run_model.report_types import ProvenanceDict, Report, RunInfo, TargetFingerprintDict
from .provenance import golden_provenance, joined_parts, provenance_changes, settings_differences
from .shard_checks import (
    CaseFileReader,
    OwnRepeats,
    ShardError,
    by_case,
    check_cases,
    check_comparisons,
    check_runs,
)

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


def shard_of(
    given: tuple[int, int] | None, splits: object, group: object
) -> tuple[int, int] | None:
    """The shard a run is: pytest-split's ``--group i`` of ``--splits N`` (when both are
    given; pytest-split checks their range) or the ``jsonmatch_shard`` setting (``given``);
    ConfigError when both say, and differ."""
    if type(splits) is not int or type(group) is not int:
        return given
    if given is not None and given != (group, splits):
        raise ConfigError(
            f"jsonmatch_shard {given[0]}/{given[1]} and pytest-split's --splits {splits} "
            f"--group {group} name different shards: give one of them"
        )
    return group, splits


def shard_not_decided(index: int, count: int) -> str:
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


def merge_shards(
    shards: Sequence[tuple[str, Report]],
    partial: bool = False,
    root: str = ".",
    read_case_file: CaseFileReader | None = None,
) -> Merged:
    """The comparisons of the run the ``shards`` (path, report) are parts of. Refused
    (:class:`ShardError`): a report without a shard stamp, shards of different counts, a
    shard given twice, a missing shard (unless ``partial``), a case in two shards, reports
    of different plugin versions, commits, grouping, settings (``run.settings``), golden
    sets, prompt versions or judges (``run.provenance``). The merged run holds the shards'
    settings and their provenance joined. Each shard is held to itself first
    (shard_checks.py: its scores, statuses and runs re-derived, its case files read from
    ``root``, the directory the merge runs in, by ``read_case_file``)."""
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
    _same(shards, "grouping (jsonmatch_report's group_by=)", lambda r: r["group_by"])
    _same_settings(shards)
    provenance = _provenance(shards)
    missing = [i for i in range(1, count + 1) if i not in stamps]
    if missing and not partial:
        raise ShardError(
            f"shard{'s' * (len(missing) > 1)} {', '.join(map(str, missing))} of {count} "
            f"missing (given: {', '.join(stamps[i] for i in sorted(stamps))}); "
            f"--partial merges the shards given, as a partial run"
        )
    comparisons: list[Comparison] = []
    seen: dict[str, str] = {}  # case id -> the shard that ran it
    why: list[str] = []
    for path, report in sorted(shards, key=lambda s: s[1]["run"]["shard"]["index"]):
        if report["run"].get("complete") is False:
            why.append(f"{path} stopped early ({report['run'].get('stopped', '')})")
        mine = [Comparison.from_dict(data) for data in report["comparisons"]]
        cases = by_case(mine)
        for case_id in cases:
            if case_id in seen:
                raise ShardError(f"case {case_id} is in two shards: {seen[case_id]} and {path}")
            seen[case_id] = path
        _held_to_itself(path, report, mine, cases, root, read_case_file)
        comparisons.extend(mine)
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
    if "settings" in first:
        run["settings"] = first["settings"]
    if provenance:
        run["provenance"] = provenance
    return Merged(comparisons, shards[0][1]["group_by"], run, "; ".join(why) or None)


def _held_to_itself(
    path: str,
    report: Report,
    comparisons: list[Comparison],
    cases: dict[str, list[Comparison]],
    root: str,
    read_case_file: CaseFileReader | None,
) -> None:
    """A shard's report re-derived from itself (shard_checks.py): each comparison's figures
    from its rows, each case's runs from the run's settings, each case's status from its
    runs."""
    run = report["run"]
    settings: dict[str, object] = dict(run.get("settings", {}))
    golden = run.get("provenance", {}).get("golden", {})
    check_comparisons(path, comparisons)
    own = OwnRepeats(root, path, settings, golden, read_case_file)
    check_runs(path, cases, settings, own, complete=run.get("complete") is not False)
    check_cases(path, report["cases"], cases, _rule(str(settings.get("repeat", ""))))  # type: ignore[arg-type]


def _rule(repeat: str) -> str:
    """The repeat rule of ``run.settings.repeat`` (``[N] RULE``; ``mean`` when none)."""
    words = repeat.split()
    return words[-1] if words and words[-1] in REPEAT_RULES else "mean"


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


def _same_settings(shards: Sequence[tuple[str, Report]]) -> None:
    """Refused unless every shard ran with the settings the first did (``run.settings``):
    the two shards and each setting that differs."""
    first_path, first = shards[0][0], shards[0][1]["run"].get("settings")
    for path, report in shards[1:]:
        mine = report["run"].get("settings")
        if mine == first:
            continue
        if mine is None or first is None:
            which = path if mine is None else first_path
            raise ShardError(
                f"the shards are of different settings: {which} records none (written by "
                f"an older plugin?), {first_path if mine is None else path} does"
            )
        raise ShardError(
            f"the shards are of different settings: {first_path} and {path} differ in "
            + "; ".join(settings_differences(first, mine))
        )


def _provenance(shards: Sequence[tuple[str, Report]]) -> ProvenanceDict:
    """The whole run's provenance from its shards': the golden case files of them all (a
    file scored by two shards must be the same file), each target's fingerprint and the
    judge's (the same in every shard that records it). Refused, naming the shards and what
    differs: different golden sets, prompt versions or judges."""
    golden: dict[str, tuple[str, str]] = {}  # file -> (digest, shard)
    targets: dict[str, tuple[TargetFingerprintDict, str]] = {}
    judge: tuple[str, str] | None = None
    for path, report in shards:
        provenance = report["run"].get("provenance", {})
        for name, digest in provenance.get("golden", {}).items():
            seen = golden.setdefault(name, (digest, path))
            if seen[0] != digest:
                raise ShardError(
                    f"the shards ran different golden sets: case file {name} differs "
                    f"between {seen[1]} and {path}"
                )
        for name, made in provenance.get("targets", {}).items():
            had = targets.setdefault(name, (made, path))
            if had[0]["digest"] != made["digest"]:
                said = provenance_changes({"targets": {name: had[0]}}, {"targets": {name: made}})
                raise ShardError(
                    f"the shards ran different prompt versions: {had[1]} and {path}: "
                    + "; ".join(said)
                )
        if "judge" in provenance:
            if judge is not None and judge[0] != provenance["judge"]:
                raise ShardError(
                    f"the shards ran different judges: fingerprint {judge[0]} in {judge[1]}, "
                    f"{provenance['judge']} in {path}"
                )
            judge = provenance["judge"], path
    out = golden_provenance({name: digest for name, (digest, _) in golden.items()})
    try:  # the folder settings, schemas and judge setup, one for the whole run
        out.update(
            joined_parts([(path, report["run"].get("provenance", {})) for path, report in shards])
        )
    except ValueError as exc:
        raise ShardError(str(exc)) from None
    if targets:
        out["targets"] = {name: made for name, (made, _) in sorted(targets.items())}
    if judge is not None:
        out["judge"] = judge[0]
    return out
