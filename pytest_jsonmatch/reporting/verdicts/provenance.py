"""What a report records of how its run was made, and what differs between two runs' records.

``run.settings`` holds, as text the plugin reads back, each setting that decides a run's
scores and verdict: the gates (``fail_under``, ``field_floors``, ``max_drop``,
``max_case_drop``, ``min_valid``), the reference target and the named targets, the baseline,
the repeat rule and the case defaults (``metric``, ``threshold``, ``options``,
``invalid_fails``). ``jsonmatch merge`` judges the whole run of a split suite by them and
refuses shards whose settings differ.

``run.provenance`` holds what the scores were made from: the SHA-256 of each golden case
file the run scored, of the bytes its cases were read from (``golden``, paths from the root
dir) and one digest over them all (``golden_digest``); the SHA-256 of each folder's
``jsonmatch.yaml`` that set defaults for those files (``folder_settings``); of each schema
file a comparison was made with, ``$ref``'d files included (``schemas``); each target's
recording fingerprint (``targets``: its code, the files ``jsonmatch_record`` names, the
declared value, and a digest of the three); the LLM judge's fingerprint (``judge``) and
what it is made of (``judge_setup``: model, endpoint without credentials, prompt template
and its SHA-256, token limit; never the key); the judge's calibration the run was gated on
(``calibration``: session/judge_calibration.py). A baseline, ``diff`` and ``compare-runs``
name what differs ("different prompt version", "different golden set", "folder settings
changed", "schema changed", "different judge", "judge prompt changed", "judge calibration
changed"): a warning, never a
failure, since holding a changed prompt to the last run is what a baseline is for. A part
one run records and the other (an older report) does not is said to be unknown.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast
from urllib.parse import urlsplit, urlunsplit

from .gate_specs import recorded

if TYPE_CHECKING:
    from ..run_model.report_types import (
        JSONValue,
        JudgeSetupDict,
        ProvenanceDict,
        RunSettingsDict,
        TargetFingerprintDict,
    )
    from .gates import GateSettings
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


def settings_provenance(
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


def golden_provenance(files: Mapping[str, str]) -> ProvenanceDict:
    """The golden part of ``run.provenance`` from each case file's SHA-256 (none: empty)."""
    if not files:
        return {}
    ordered = dict(sorted(files.items()))
    return {"golden": ordered, "golden_digest": digest_of(ordered)}


def target_provenance(
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


def judge_setup_provenance(
    *, model: str, endpoint: str, prompt_file: str, prompt: str, max_tokens: int | None
) -> JudgeSetupDict:
    """What the judge is made of as ``run.provenance.judge_setup`` holds it: its model, its
    endpoint with any user, password, query or fragment left out (where a key could hide),
    its prompt template's file (empty: the default template) and the SHA-256 of the text
    read from it, its token limit."""
    return {
        "model": model,
        "endpoint": endpoint_shown(endpoint),
        "prompt_file": prompt_file,
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest(),
        "max_tokens": max_tokens,
    }


def endpoint_shown(endpoint: str) -> str:
    """An endpoint's scheme, host, port and path: never its user, password or query."""
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # a URL that cannot be taken apart is not kept at all
        return "<unreadable endpoint>"
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


# the parts of run.provenance that map files to their SHA-256, as a change names them
FILE_PARTS = (("folder_settings", "folder settings"), ("schemas", "schema"))


def joined_parts(shards: Sequence[tuple[str, Mapping[str, object]]]) -> ProvenanceDict:
    """The folder settings, schemas and judge setup of one run from its shards' provenance
    (``(path, run.provenance)`` each): a file recorded by two shards must have one digest,
    the judge one setup. Otherwise a ValueError naming the part, the file and the shards."""
    out: dict[str, object] = {}
    for key, label in FILE_PARTS:
        joined: dict[str, tuple[str, str]] = {}  # file -> (digest, shard)
        for path, provenance in shards:
            for name, digest in _mapping(provenance.get(key)).items():
                seen = joined.setdefault(name, (str(digest), path))
                if seen[0] != digest:
                    raise ValueError(
                        f"the shards ran different {label}{'s' * (key == 'schemas')}: "
                        f"{name} differs between {seen[1]} and {path}"
                    )
        if any(key in provenance for _, provenance in shards):
            out[key] = {name: digest for name, (digest, _) in sorted(joined.items())}
    setups = [(path, p["judge_setup"]) for path, p in shards if "judge_setup" in p]
    for path, setup in setups[1:]:
        said = _judge_changes(setups[0][1], setup)
        if said:
            raise ValueError(
                f"the shards ran different judges: {setups[0][0]} and {path}: " + "; ".join(said)
            )
    if setups:
        out["judge_setup"] = setups[0][1]
    for key, differ in _ALIKE.items():
        record = _one_alike(shards, key, differ)
        if record is not None:
            out[key] = record
    return cast("ProvenanceDict", out)


def _one_alike(
    shards: Sequence[tuple[str, Mapping[str, object]]],
    key: str,
    differ: Callable[[str, object, str, object], str],
) -> object:
    """The record under ``key`` every shard holds alike (None: no shard holds one); shards
    that differ (or of which only some hold one) are a ValueError saying how (``differ``):
    the merged run would otherwise rest on whichever shard came first."""
    first_path, first = shards[0][0], shards[0][1].get(key)
    for path, provenance in shards[1:]:
        record = provenance.get(key)
        if record != first:
            raise ValueError(differ(first_path, first, path, record))
    return first


def _offline_differ(first_path: str, first: object, path: str, record: object) -> str:
    """Shards under different network blocks: the merged run could not say it reached no
    other host."""
    return (
        f"the shards ran with different network blocks: {first_path} "
        f"({_offline_shown(first)}) and {path} ({_offline_shown(record)})"
    )


def _offline_shown(record: object) -> str:
    """A shard's network block in words, its hosts as JSON (escaped: read from a file)."""
    if record is None:
        return "not offline"
    allowed = _mapping(record).get("allowed")
    return f"offline, allowed: {json.dumps(allowed if isinstance(allowed, list) else [])}"


def _calibration_differ(first_path: str, first: object, path: str, record: object) -> str:
    """Shards under different judge calibrations: their judge_* gates would disagree."""
    said = _calibration_changes(first, record) or ["in one shard only"]
    return f"the shards ran different judge calibrations: {first_path} and {path}: " + "; ".join(
        said
    )


def _quarantine_differ(first_path: str, first: object, path: str, record: object) -> str:
    """Shards that read different quarantine files, or judged their dates on different
    days: their cases would gate by different rules."""
    return (
        f"the shards ran different quarantines: {first_path} and {path} "
        f"({_quarantine_shown(first)} and {_quarantine_shown(record)})"
    )


def _quarantine_shown(record: object) -> str:
    if not isinstance(record, Mapping):
        return "none"
    return f"{record.get('file')} sha256 {str(record.get('sha256'))[:12]} on {record.get('today')}"


# the records merge keeps when every shard holds them alike, in the order it checks them
_ALIKE: dict[str, Callable[[str, object, str, object], str]] = {
    "quarantine": _quarantine_differ,
    "calibration": _calibration_differ,
    "offline": _offline_differ,
}


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
    lines += _file_changes(old, new)
    judges = old.get("judge"), new.get("judge")
    if all(isinstance(j, str) for j in judges) and judges[0] != judges[1]:
        lines.append(f"different judge: fingerprint {judges[0]} and {judges[1]}")
    if "judge_setup" in old and "judge_setup" in new:
        lines += _judge_changes(old["judge_setup"], new["judge_setup"])
    said = _calibration_changes(old.get("calibration"), new.get("calibration"))
    if said:
        lines.append("judge calibration changed: " + "; ".join(said))
    return lines + _unknown(old, new)


# the calibration's figures a change names (calibration_gates.py holds the run to them)
_CALIBRATION_FIGURES = (
    ("ac1", "AC1"),
    ("kappa", "kappa"),
    ("false_accept_rate", "false-accept rate"),
    ("position", "position consistency"),
)


def _calibration_changes(before: object, after: object) -> list[str]:
    """What differs between two runs' judge calibrations (``run.provenance.calibration``):
    one run gated on one and the other not, its file, the judge it measured, the labels
    (their digest), each figure's value. Empty: the same, or neither held one."""
    if before is None and after is None:
        return []
    if before is None or after is None:
        held = _mapping(after if before is None else before)
        which = "the second" if before is None else "the first"
        return [f"only {which} run held one ({held.get('file') or 'measured in the run'})"]
    was, now = _mapping(before), _mapping(after)
    lines = [
        f"{words} {was.get(key)!r} and {now.get(key)!r}"
        for key, words in (
            ("file", "file"),
            ("made", "made"),
            ("missing", "missing"),
            ("stale", "out of date"),
        )
        if was.get(key) != now.get(key)
    ]
    judges = (
        _mapping(was.get("judge")).get("fingerprint"),
        _mapping(now.get("judge")).get("fingerprint"),
    )
    if judges[0] != judges[1]:
        lines.append(f"judge fingerprint {judges[0]} and {judges[1]}")
    if was.get("labels_digest") != now.get("labels_digest"):
        lines.append(f"labels {now.get('labels_path') or was.get('labels_path')} changed")
    for key, words in _CALIBRATION_FIGURES:
        values = (_mapping(was.get(key)).get("value"), _mapping(now.get(key)).get("value"))
        if values[0] != values[1]:
            lines.append(f"{words} {_figure(values[0])} and {_figure(values[1])}")
    return lines


def _figure(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) else "none"


def _file_changes(old: Mapping[str, object], new: Mapping[str, object]) -> list[str]:
    """A line for each file part whose files differ: those both runs read, and a folder's
    settings file one run had and the other not where both scored a case file below it."""
    lines = []
    for key, label in FILE_PARTS:
        changed = _changed(old.get(key), new.get(key))
        if changed:
            lines.append(f"{label} changed: {_named(changed)}")
    if "folder_settings" in old and "folder_settings" in new:
        was, now = _mapping(old["folder_settings"]), _mapping(new["folder_settings"])
        both = set(_mapping(old.get("golden"))) & set(_mapping(new.get("golden")))
        for names, what in ((set(now) - set(was), "added"), (set(was) - set(now), "removed")):
            under = sorted(n for n in map(str, names) if _holds_any(n, both))
            if under:
                lines.append(f"folder settings {what}: {_named(under)}")
    return lines


def _holds_any(settings_file: str, files: set[str]) -> bool:
    """Whether the folder of ``settings_file`` (a path from the root dir) holds any of
    ``files``: the settings file applies to them."""
    folder = settings_file.rpartition("/")[0]
    return any(not folder or f.startswith(folder + "/") for f in files)


def _judge_changes(before: object, after: object) -> list[str]:
    """A line for each part of the judge's setup that differs between two runs."""
    was, now = _mapping(before), _mapping(after)
    lines = []
    if was.get("prompt_sha256") != now.get("prompt_sha256"):
        names = [str(s.get("prompt_file") or "the default template") for s in (was, now)]
        shown = names[1] if names[0] == names[1] else " and ".join(names)
        lines.append(f"judge prompt changed: {shown}")
    for key in ("model", "endpoint", "max_tokens"):
        if was.get(key) != now.get(key):
            lines.append(f"judge {key} changed: {was.get(key)!r} and {now.get(key)!r}")
    return lines


def _unknown(old: Mapping[str, object], new: Mapping[str, object]) -> list[str]:
    """The parts one run records and the other does not, where both record what they come
    with (golden case files, a judge): a report of an older plugin. Unknown, not changed."""
    parts = [
        label
        for key, label, beside in (
            ("folder_settings", "folder settings", "golden"),
            ("schemas", "schemas", "golden"),
            ("judge_setup", "judge setup", "judge"),
        )
        if beside in old and beside in new and (key in old) != (key in new)
    ]
    if not parts:
        return []
    return [
        f"unknown whether the {', '.join(parts)} changed: one run records "
        f"{'them' if len(parts) > 1 else 'it'} and the other not (an older report)"
    ]
