"""What a report records of how its run was made, and what differs between two runs' records.

``run.settings`` holds, as text the plugin reads back, each setting that decides a run's
scores and verdict: the gates (``fail_under``, ``field_floors``, ``max_drop``,
``max_case_drop``, ``min_valid``), the reference target and the named targets, the baseline,
the repeat rule and the case defaults (``metric``, ``threshold``, ``options``,
``invalid_fails``). ``jsonmatch merge`` judges the whole run of a split suite by them and
refuses shards whose settings differ.

``run.provenance`` holds what the scores were made from: the SHA-256 of each golden case
file the run scored (``golden``, paths from the root dir) and one digest over them all
(``golden_digest``); each target's recording fingerprint (``targets``: its code, the files
``jsonmatch_record`` names, the declared value, and a digest of the three); the LLM judge's
fingerprint (``judge``). A baseline, ``diff`` and ``compare-runs`` name what differs
("different prompt version", "different golden set", "different judge"): a warning, never a
failure, since holding a changed prompt to the last run is what a baseline is for.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from .gate_specs import recorded

if TYPE_CHECKING:
    from .gates import GateSettings
    from .shapes import JSONValue, ProvenanceDict, RunSettingsDict, TargetFingerprintDict
    from .versus import Limit, VersusSettings


def digest_of(value: object) -> str:
    """SHA-256 of ``value``'s canonical JSON (keys sorted)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# -- settings ----------------------------------------------------------------------------------


def gate_texts(gates: GateSettings) -> RunSettingsDict:
    """The gates as the text of their settings, which :func:`gates.gate_settings` reads back
    to the same settings (numbers written by ``repr``, exact): ``max_drop`` always, then each
    recorded gate of gate_specs.py that is set, in the table's order."""
    out: dict[str, object] = {"max_drop": f"{gates.max_drop!r} {gates.mode}"}
    for spec in recorded():
        text = _WRITTEN.get(spec.key, _plain)(gates, spec.field)
        if text and spec.key not in out:
            out[spec.key] = text
    return cast("RunSettingsDict", out)


def _plain(gates: GateSettings, field: str) -> str:
    value = getattr(gates, field)
    return "" if value is None else repr(value)


def _floors(gates: GateSettings, field: str) -> list[str]:
    floors = [f"{floor.text}={floor.score!r}" for floor in gates.floors]
    return floors + (["strict"] if gates.strict else [])


def _case_drop(gates: GateSettings, field: str) -> str:
    case = ([repr(gates.max_case_drop)] if gates.max_case_drop is not None else []) + (
        [f"allow={gates.allow_regressions}"] if gates.allow_regressions else []
    )
    return " ".join(case)


# the recorded gates whose text holds another gate's (gate_specs.py: ``within``)
_WRITTEN: dict[str, Callable[[GateSettings, str], str | list[str]]] = {
    "field_floors": _floors,
    "max_case_drop": _case_drop,
}


def _limit(limit: Limit, unit: str) -> str:
    return f"{limit.value!r}x" if limit.ratio else f"{limit.value!r}{unit}"


def reference_text(versus: VersusSettings) -> str:
    """The reference setting as ``parse_reference`` reads it back (empty: none)."""
    if not versus.reference:
        return ""
    limits = [
        f"{key}={_limit(limit, unit)}"
        for key, limit, unit in (
            ("latency_p95", versus.latency_p95, "s"),
            ("cost", versus.cost, ""),
            ("total_cost", versus.total_cost, ""),
        )
        if limit is not None
    ]
    return " ".join([versus.reference, *limits])


def settings_record(
    *,
    gates: GateSettings,
    versus: VersusSettings,
    targets: Sequence[str],
    baseline: str,
    repeat: str,
    defaults: Mapping[str, object],
) -> RunSettingsDict:
    """``run.settings`` (see the module docstring): ``baseline`` as given (empty: none),
    ``repeat`` as its setting's text, ``defaults`` the case defaults (metric, threshold,
    options, invalid_fails)."""
    out = gate_texts(gates)
    reference = reference_text(versus)
    if reference:
        out["reference"] = reference
    if targets:
        out["targets"] = list(targets)
    if baseline:
        out["baseline"] = baseline
    out["repeat"] = repeat
    out["defaults"] = json.dumps(
        dict(defaults), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return out


# the recorded gates that are keys of jsonmatch_gates, as a message names them
_SPELLED = {s.key: "gates " + s.key for s in recorded() if s.setting == "gates"}


def settings_differences(a: Mapping[str, object], b: Mapping[str, object]) -> list[str]:
    """The settings whose recorded text differs between two runs, each ``name: a, b``."""
    return [
        f"jsonmatch_{_SPELLED.get(key, key)}: {a.get(key)!r} and {b.get(key)!r}"
        for key in sorted(set(a) | set(b))
        if a.get(key) != b.get(key)
    ]


# -- provenance --------------------------------------------------------------------------------


def golden_record(files: Mapping[str, str]) -> ProvenanceDict:
    """The golden part of ``run.provenance`` from each case file's SHA-256 (none: empty)."""
    if not files:
        return {}
    ordered = dict(sorted(files.items()))
    return {"golden": ordered, "golden_digest": digest_of(ordered)}


def target_record(
    code: Mapping[str, str], files: Mapping[str, str], declared: JSONValue
) -> TargetFingerprintDict:
    """A target's recording fingerprint as ``run.provenance.targets`` holds it."""
    record: TargetFingerprintDict = {
        "code": dict(sorted(code.items())),
        "files": dict(sorted(files.items())),
        "declared": declared,
        "digest": "",
    }
    record["digest"] = digest_of({k: v for k, v in record.items() if k != "digest"})
    return record


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _changed(a: object, b: object) -> list[str]:
    """The keys of two ``{name: digest}`` mappings whose digests differ (in both)."""
    first, second = _mapping(a), _mapping(b)
    return sorted(str(k) for k in set(first) & set(second) if first[k] != second[k])


def _declared(fingerprint: Mapping[str, object]) -> str:
    """A fingerprint's declared value as canonical text (one a report cannot hold as JSON,
    too deep to write back, is a text of its own: it differs from any other)."""
    try:
        return json.dumps(fingerprint.get("declared"), sort_keys=True, default=str)
    except (RecursionError, ValueError, TypeError):
        return f"<unwritable {id(fingerprint)}>"


def _named(names: Sequence[str], most: int = 5) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def provenance_changes(before: object, after: object) -> list[str]:
    """What differs between two runs' ``run.provenance`` (read as they may be: a report from
    anywhere), one line each: a target's prompt version (its code, named files or declared
    value), the golden case files both ran, the judge. Nothing where either run records
    nothing of a part."""
    old, new = _mapping(before), _mapping(after)
    lines = []
    old_targets, new_targets = _mapping(old.get("targets")), _mapping(new.get("targets"))
    for name in sorted(set(old_targets) & set(new_targets), key=str):
        was, now = _mapping(old_targets[name]), _mapping(new_targets[name])
        if was.get("digest") == now.get("digest"):
            continue
        what = [f"code {n}" for n in _changed(was.get("code"), now.get("code"))]
        what += [f"file {n}" for n in _changed(was.get("files"), now.get("files"))]
        for key, label in (("code", "code"), ("files", "file")):
            added = set(_mapping(now.get(key))) ^ set(_mapping(was.get(key)))
            what += [f"{label} {n} (in one run only)" for n in sorted(map(str, added))]
        if _declared(was) != _declared(now):
            what.append("the declared fingerprint")
        whose = f"target {name}" if name else "the target"
        lines.append(f"different prompt version: {whose}: {_named(what) or 'its fingerprint'}")
    changed = _changed(old.get("golden"), new.get("golden"))
    if changed:
        lines.append(
            f"different golden set: {len(changed)} case file{'s' * (len(changed) > 1)} "
            f"differ{'s' * (len(changed) == 1)}: {_named(changed)}"
        )
    judges = old.get("judge"), new.get("judge")
    if all(isinstance(j, str) for j in judges) and judges[0] != judges[1]:
        lines.append(f"different judge: fingerprint {judges[0]} and {judges[1]}")
    return lines
