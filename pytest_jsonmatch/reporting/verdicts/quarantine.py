"""Quarantined cases: a case known to be unreliable runs and is reported, but no gate counts
it until a date.

The quarantine is a YAML file (``jsonmatch_quarantine``) holding a list of quarantined cases
``{case: ID, reason: TEXT, until: YYYY-MM-DD}``; ``case`` is a case id or a test's node id
(a named target's ``[name]`` left out covers every target). ``until`` is inclusive: the case
is quarantined through that day and gates again from the day after, when the summary says
the quarantined case expired. Today is the local date, or ``JSONMATCH_TODAY`` (for tests and for a CI
run that must be reproducible).

A quarantined comparison carries its quarantined case's reason and date (``Comparison.quarantine``):
that is the one place every gate reads, since a comparison that is not ``counted`` takes no
part in aggregates, floors, drops, pass^k or the valid share.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ...engine.core.errors import ConfigError

if TYPE_CHECKING:
    from ..run_model.aggregate import CaseResult
    from ..run_model.comparisons import Comparison
    from ..run_model.report_types import QuarantineRecordDict, RunInfo

SETTING = "jsonmatch_quarantine"
TODAY_VARIABLE = "JSONMATCH_TODAY"
MAX_QUARANTINE_BYTES = 2**20  # a list of cases: far below this
CASE_KEYS = ("case", "reason", "until")


@dataclass(frozen=True)
class QuarantinedCase:
    """One quarantined case: its id as written, why, and the last day it is quarantined."""

    case: str
    reason: str
    until: datetime.date
    where: str  # the file and its place there ('entry N'), as messages name it

    @property
    def mark(self) -> tuple[str, str]:
        """What a comparison it covers carries: (reason, until as YYYY-MM-DD)."""
        return self.reason, self.until.isoformat()


@dataclass(frozen=True)
class Quarantine:
    """The quarantined cases of one quarantine file, judged on ``today``; ``digest`` is the file's
    sha256 (a merged run's shards must have read the same file)."""

    cases: tuple[QuarantinedCase, ...]
    today: datetime.date
    digest: str = ""
    shown: str = ""  # the file as the setting gives it

    def _active(self) -> dict[str, QuarantinedCase]:
        return {e.case: e for e in self.cases if e.until >= self.today}

    def covers(self, nodeid: str, target: str = "") -> bool:
        """Whether an active quarantined case names the test ``nodeid`` (with or without the named
        ``target`` it ran)."""
        from ..run_model.comparisons import pair_id

        active = self._active()
        return nodeid in active or pair_id(nodeid, target) in active

    def mark(self, comparisons: Iterable[Comparison]) -> list[Comparison]:
        """``comparisons``, each one an active quarantined case names carrying its mark."""
        active = self._active()
        if not active:
            return list(comparisons)
        return [_marked(c, active) for c in comparisons]

    def record(self) -> QuarantineRecordDict:
        """What ``run.provenance`` records of it: the file as the setting gives it, its
        digest, the day it was judged on and what its expired cases say. Shards are one
        run only where this is the same (provenance.py); a merged run says the same."""
        return {
            "file": self.shown,
            "sha256": self.digest,
            "today": self.today.isoformat(),
            "expired": [
                f"quarantine expired on {e.until.isoformat()}: {e.case} gates again; "
                f"remove the entry or extend it ({e.where})"
                for e in self.cases
                if e.until < self.today
            ],
        }

    def unmatched(self, seen: Iterable[str], partial: bool) -> list[str]:
        """A line for each quarantined case that names no test of this run (``seen``: the node ids and
        case ids that ran; ``partial``: the run selected a part of the suite, so the case
        may simply not be in it)."""
        seen = set(seen)
        missing = "not collected in this run" if partial else "names no case"
        return [
            f"quarantine entry {e.case!r} {missing} ({e.where})"
            for e in self.cases
            if e.case not in seen
        ]


class _Session(Protocol):
    """What :func:`conclude_quarantine` reads of a pytest session's config."""

    @property
    def args_source(self) -> object: ...
    @property
    def option(self) -> object: ...


def conclude_quarantine(
    quarantine: Quarantine,
    run: RunInfo,
    comparisons: Sequence[Comparison],
    ran: Iterable[str],
    config: _Session,
    shard: bool,
) -> tuple[list[Comparison], list[str]]:
    """A session's quarantine at its end: recorded in ``run.provenance``, applied to every
    comparison (a dead xdist worker's too, which no test report carried), and a line for
    each quarantined case that names no test that ran (``ran``: node ids; ``shard``: the run is a
    shard of its suite)."""
    run.setdefault("provenance", {})["quarantine"] = quarantine.record()
    marked = quarantine.mark(comparisons)
    seen = set(ran)
    for c in marked:
        seen.update((c.case_id, c.nodeid, c.pair_id))
    return marked, quarantine.unmatched(seen, shard or partial_run(config))


def partial_run(config: _Session) -> bool:
    """Whether a session selected a part of its suite: paths given on its command line,
    ``-k``, ``-m`` or ``--deselect``."""
    option = config.option
    given = str(getattr(config.args_source, "name", "")) == "ARGS"
    chosen = (getattr(option, name, None) for name in ("keyword", "markexpr", "deselect"))
    return given or any(chosen)


def quarantine_lines(cases: Iterable[CaseResult], provenance: Mapping[str, object]) -> list[str]:
    """What a run's summary says of its quarantine: each quarantined case (it gates
    nothing), then each expired case ``run.provenance`` records (it gates again)."""
    out = [
        f"quarantined until {case.quarantine[1]}, gates nothing: {case.case_id} "
        f"({case.quarantine[0]})"
        for case in cases
        if case.quarantine is not None
    ]
    record = provenance.get("quarantine")
    expired = record.get("expired") if isinstance(record, Mapping) else None
    out += [str(line) for line in expired] if isinstance(expired, list) else []
    return out


def _marked(comparison: Comparison, active: Mapping[str, QuarantinedCase]) -> Comparison:
    for key in (comparison.case_id, comparison.nodeid, comparison.pair_id):
        quarantined = active.get(key)
        if quarantined is not None:
            return comparison.replace(quarantine=quarantined.mark)
    return comparison


def today() -> datetime.date:
    """The date quarantines are judged on: ``JSONMATCH_TODAY`` when set, else the local date."""
    given = os.environ.get(TODAY_VARIABLE, "").strip()
    if not given:
        return datetime.date.today()
    try:
        return datetime.date.fromisoformat(given)
    except ValueError:
        raise ConfigError(f"{TODAY_VARIABLE}: {given!r} is not a date YYYY-MM-DD") from None


class _Config(Protocol):
    """What :func:`quarantine_setting` reads of pytest's config."""

    @property
    def inipath(self) -> Path | None: ...
    @property
    def rootpath(self) -> Path: ...
    @property
    def invocation_params(self) -> _Invocation: ...


class _Invocation(Protocol):
    @property
    def dir(self) -> Path: ...


def quarantine_setting(text: str, name: str, config: _Config) -> Quarantine | None:
    """The quarantine file the setting ``name`` gives as ``text``: a flag's path from where
    pytest was started, the ini's from the ini file's folder (None: empty)."""
    shown = text.strip()
    if not shown:
        return None
    ini = config.inipath
    from_ini = name.startswith("jsonmatch_") and ini is not None
    base = ini.parent if from_ini and ini is not None else config.invocation_params.dir
    return load_quarantine(base / shown, shown, config.rootpath)


def load_quarantine(path: Path, shown: str, root: Path) -> Quarantine:
    """The quarantine file at ``path`` (``shown`` as messages name it), inside ``root``, read
    by the project's safe YAML loader; any mistake is one ConfigError naming the file and
    the quarantined case ("entry N": its place in the list)."""
    from ...engine.reading.safe_yaml import decode_text, parse_yaml
    from ...engine.reading.user_files import read_regular

    what = f"{SETTING}: {shown}"
    try:
        inside = path.resolve().is_relative_to(root.resolve())
    except OSError as exc:
        raise ConfigError(f"{what}: cannot read it: {exc.strerror or exc}") from None
    if not inside:
        raise ConfigError(f"{what}: the file is outside the test root {os.fspath(root)!r}")
    raw = read_regular(path, SETTING, ConfigError, MAX_QUARANTINE_BYTES, shown)
    data, _ = parse_yaml(decode_text(raw, shown, ConfigError), shown, ConfigError)
    if data is None:
        data = []
    if not isinstance(data, list):
        raise ConfigError(f"{what}: the file holds a list of entries {{{', '.join(CASE_KEYS)}}}")
    cases = tuple(_quarantined_case(item, f"{shown}, entry {n}") for n, item in enumerate(data, 1))
    seen: dict[str, str] = {}
    for quarantined in cases:
        if quarantined.case in seen:
            raise ConfigError(
                f"{SETTING}: {quarantined.where}: case {quarantined.case!r} is listed twice "
                f"(first at {seen[quarantined.case]})"
            )
        seen[quarantined.case] = quarantined.where
    return Quarantine(cases, today(), hashlib.sha256(raw).hexdigest(), shown)


def _quarantined_case(item: object, where: str) -> QuarantinedCase:
    """One quarantined case, checked: every key known, a case, a reason and a date."""
    what = f"{SETTING}: {where}"
    if not isinstance(item, dict):
        raise ConfigError(f"{what}: an entry is a mapping of {', '.join(CASE_KEYS)}")
    unknown = sorted(str(k) for k in item if k not in CASE_KEYS)
    if unknown:
        raise ConfigError(f"{what}: unknown key {unknown[0]!r}; known keys: {', '.join(CASE_KEYS)}")
    case, reason, until = item.get("case"), item.get("reason"), item.get("until")
    if not isinstance(case, str) or not case.strip():
        raise ConfigError(f"{what}: 'case' must name a case id or a test's node id")
    where = f"{where} ({case})"
    what = f"{SETTING}: {where}"
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigError(f"{what}: 'reason' must say why the case is quarantined")
    return QuarantinedCase(case.strip(), reason.strip(), _date(until, what), where)


def _date(value: object, what: str) -> datetime.date:
    """A quarantined case's ``until``: a date written YYYY-MM-DD."""
    if value is None:
        raise ConfigError(f"{what}: 'until' is missing: the last day it is quarantined, YYYY-MM-DD")
    try:
        if isinstance(value, str) and len(value) == 10:
            return datetime.date.fromisoformat(value)
    except ValueError:
        pass
    raise ConfigError(f"{what}: 'until' must be a date YYYY-MM-DD, not {value!r}")
