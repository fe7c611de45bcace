"""What the gates say of a run (``decision_of``): an overall floor, per-field floors (each
held in its group's table), a largest drop against a baseline, and no case that got clearly
worse. Their settings are gate_settings.py's (its names are taken from here too).

Against a baseline there are two rules, side by side. **Per case**: a shared case whose
score dropped by more than ``max_case_drop`` (default: ``max_drop``) fails the run whatever
its threshold, unless at most ``allow_regressions`` cases did. **The mean**:
the default rule is statistical: the run fails when the mean drop over
the shared cases exceeds ``max_drop`` and its 95% interval lies wholly below zero; a drop
beyond ``max_drop`` that could be noise is a warning naming how many cases there were and
the smallest drop they could detect. Per field, the same rule holds with Holm's correction
across fields. ``strict`` keeps the point-estimate rule: any drop beyond ``max_drop`` fails.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ...engine.core.paths import nearest_paths
from ...engine.core.slotted import Slotted
from .gate_settings import Floor

# the settings, which the command line and the session take from here with the decision
from .gate_settings import GateSettings as GateSettings
from .gate_settings import gate_names as gate_names
from .gate_settings import gate_settings as gate_settings
from .gate_settings import parse_floors as parse_floors
from .gate_settings import parse_score as parse_score
from .gate_settings import with_fields as with_fields

if TYPE_CHECKING:  # the settings load with the session; what judges them, once it judges
    from ...engine.results.field_results import FieldAggregate
    from ..run_model.aggregate import Summary
    from ..run_model.report_types import GatesDict
    from .baseline import BaselineComparison, FieldDelta
    from .stats import PairedDifference


# The largest share of a run's counted cases that may go unscored (a reply with no JSON, a
# target or a judge that failed) for its gates to be judged as passed: past it the scores a
# gate passed would be those of the few cases that could be scored, or of zeros alike on both
# sides of a baseline. Above it every gate the run would have passed is a failure.
MAX_UNSCORED = 0.25


class GateDecision(Slotted):
    """What the gates said of a run: the failures that fail it, the warnings, the gates
    passed, and what the reports must show for every figure quoted."""

    __slots__ = (
        "failures",
        "warnings",
        "checked",
        "blocked",
        "quoted_cases",
        "quoted_fields",
        "not_judged",
    )

    failures: list[str]
    warnings: list[str]
    checked: list[str]  # the gates passed, in words
    # the cases a per-case gate failed, with that gate's setting: a report marks them
    blocked: list[tuple[str, str]]
    # the shared cases and the (group, field) rows a failure or a warning quotes: a report's
    # tables always show them, so that every number quoted is in a row
    quoted_cases: list[str]
    quoted_fields: list[tuple[str, str]]
    not_judged: str  # why no gate was judged (an update run): nothing failed, nothing passed

    def __init__(
        self,
        failures: list[str] | None = None,
        warnings: list[str] | None = None,
        checked: list[str] | None = None,
        blocked: list[tuple[str, str]] | None = None,
        quoted_cases: list[str] | None = None,
        quoted_fields: list[tuple[str, str]] | None = None,
        not_judged: str = "",
    ) -> None:
        self.failures = [] if failures is None else failures
        self.warnings = [] if warnings is None else warnings
        self.checked = [] if checked is None else checked
        self.blocked = [] if blocked is None else blocked
        self.quoted_cases = [] if quoted_cases is None else quoted_cases
        self.quoted_fields = [] if quoted_fields is None else quoted_fields
        self.not_judged = not_judged

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> GatesDict:
        out: GatesDict = {
            "passed": self.passed,
            "failures": list(self.failures),
            "warnings": list(self.warnings),
            "checked": list(self.checked),
        }
        if self.blocked:
            out["blocked"] = [{"case_id": case_id, "gate": gate} for case_id, gate in self.blocked]
        if self.not_judged:
            out["not_judged"] = self.not_judged
        if self.quoted_cases or self.quoted_fields:
            out["quoted"] = {
                "cases": list(self.quoted_cases),
                "fields": [{"group": g, "path": p} for g, p in self.quoted_fields],
            }
        return out


# -- judging ------------------------------------------------------------------------------------


def decision_of(
    summary: Summary,
    settings: GateSettings,
    baseline: BaselineComparison | None = None,
    label: str = "baseline",
    unscored: bool = True,
    baseline_path: str = "",
) -> GateDecision:
    """The run's gate decision: why it fails its gates, what to look at though it passes, and
    which gates it passed. Every number a message quotes is one a table of the report shows:
    the overall score, a field's row in its group's table, a shared case's two scores.
    ``label`` names what the run is held against in the words of a gate passed. A run whose
    cases went unscored beyond ``MAX_UNSCORED``, or that holds a comparison the judge left
    undecided, passes no gate (``unscored``: judged here; False: the caller judges it, once
    per target). A run that counted no case fails each gate it was given, that had nothing
    to hold (:func:`nothing_counted`; ``baseline_path``: the baseline given, which the caller
    compared nothing against)."""
    from .undecided_verdicts import undecided_failure

    decision = GateDecision()
    if summary.overall is None:
        nothing_counted(summary, settings, decision, baseline_path)
        return decision
    names = settings.names
    if settings.fail_under is not None:
        what = f"overall score {summary.overall:.4f}"
        hold_floor(what, summary.overall, settings.fail_under, names.fail_under, decision)
    _valid_shares(summary, settings, decision)
    _floors(summary, settings, decision)
    if baseline is not None:
        _baseline(baseline, settings, decision, label, summary.groups)
        _regressions(baseline, settings, decision)
    failure = unscored_failure(summary.errors, summary.count) if unscored else ""
    if failure:
        decision.checked.clear()
        decision.failures.insert(0, failure)
    undecided = undecided_failure(summary.undecided, summary.undecided_why) if unscored else ""
    if undecided:  # whatever share of the run it is: a judge's silence is no verdict
        decision.checked.clear()
        decision.failures.insert(0, undecided)
    return decision


def nothing_counted(
    summary: Summary, settings: GateSettings, decision: GateDecision, baseline_path: str = ""
) -> None:
    """The gates given a run that counted no case, each with nothing to hold: every case it
    compared quarantined or marked xfail, or no case compared at all. Each is a failure that
    says why and what would make a case count, as a pass^k floor with nothing to hold is
    (reliability_gates.py); in a run of part of the suite (``part_of_suite``) they are not
    held, and named in one warning, as field floors that match none of its fields are. The
    gates of repeated cases are judged by reliability_gates.py, as in any run."""
    given = _given_gates(settings, baseline_path)
    if not given:
        return
    quarantined = sum(1 for case in summary.cases.values() if case.quarantine is not None)
    xfailed, xpassed, spoiled = summary.xfailed, summary.xpassed, summary.spoiled
    if not settings.part_of_suite:
        why = uncounted_why(quarantined, xfailed, xpassed, spoiled)
        decision.failures += [f"{gate}: {why}: nothing to hold to it" for gate in given]
        return
    left_out = [f"{quarantined} quarantined"] if quarantined else []
    left_out += [f"{xfailed} xfailed", f"{xpassed} xpassed"] if xfailed or xpassed else []
    left_out += [f"{spoiled} spoiled by their simulated user"] if spoiled else []
    one = len(given) == 1
    decision.warnings.append(
        f"{len(given)} gate{'' if one else 's'} not held, as this run is part of the suite "
        f"({settings.part_of_suite}) and counted no case"
        + (f" ({', '.join(left_out)})" if left_out else "")
        + f": {', '.join(given)}"
    )


def _given_gates(settings: GateSettings, baseline_path: str) -> list[str]:
    """The gates that hold a run's counted cases, each named with its value as a message
    names it: the overall floor, the valid share, the field floors, the baseline's drops
    (``baseline_path``: the baseline given; empty: none)."""
    names = settings.names
    given = []
    if settings.fail_under is not None:
        given.append(f"{names.fail_under} {settings.fail_under:.4f}")
    if settings.min_valid is not None:
        given.append(f"{names.min_valid} {settings.min_valid:.4f}")
    if settings.floors:
        given.append(f"{names.floors} {', '.join(repr(f.text) for f in settings.floors)}")
    if baseline_path:
        given.append(
            f"{names.max_drop} {settings.max_drop:.4f} against the baseline {baseline_path}"
        )
    return given


def uncounted_why(quarantined: int, xfailed: int, xpassed: int, spoiled: int = 0) -> str:
    """Why a run counted no case, and what would make one count (``spoiled``: conversations
    their simulated user spoiled)."""
    if not xfailed and not xpassed and not spoiled:
        if not quarantined:
            return (
                "this run compared no case (none was collected: are the golden cases where "
                "the run looks?)"
            )
        return (
            f"every case of this run is quarantined ({quarantined} "
            f"case{'' if quarantined == 1 else 's'}; a gate holds a case again once its "
            f"quarantine ends)"
        )
    if spoiled and not xfailed and not xpassed and not quarantined:
        return (
            f"every case of this run is a conversation its simulated user spoiled ({spoiled}; "
            f"a gate holds a conversation whose simulated user kept to its instructions)"
        )
    marked = f"{xfailed} xfailed, {xpassed} xpassed"
    if not quarantined and not spoiled:
        return f"every case of this run is marked xfail ({marked}; a gate holds a case without the mark)"
    kinds = [f"{quarantined} quarantined"] if quarantined else []
    kinds += [marked] if xfailed or xpassed else []
    kinds += [f"{spoiled} spoiled by their simulated user"] if spoiled else []
    spoiling = ", nor a conversation its simulated user spoiled" if spoiled else ""
    return (
        f"no case of this run was counted ({', '.join(kinds)}; a gate holds a case that is "
        f"neither quarantined nor marked xfail{spoiling})"
    )


def unscored_failure(errors: int, count: int, whose: str = "") -> str:
    """Why no gate passes a run (or a target: ``whose``) whose counted cases went unscored
    beyond ``MAX_UNSCORED`` (empty: they did not)."""
    if not count or errors <= MAX_UNSCORED * count + 1e-9:
        return ""
    return (
        f"{whose}{errors} of {count} case{'' if count == 1 else 's'} could not be scored, "
        f"more than the {MAX_UNSCORED:.0%} a passing gate allows: no gate is judged as passed "
        f"on what was not scored"
    )


def _valid_shares(summary: Summary, settings: GateSettings, decision: GateDecision) -> None:
    """Per metric, the share of answers valid against their schema against ``min_valid``."""

    floor, name = settings.min_valid, settings.names.min_valid
    if floor is None:
        return
    tallies = {metric: tally for metric, tally in summary.metrics.items() if tally.checked}
    if not tallies and settings.part_of_suite:  # (the part may hold none of them)
        decision.warnings.append(
            f"1 gate not held, as this run is part of the suite ({settings.part_of_suite}) "
            f"and checked no answer against a schema: {name} {floor:.4f}"
        )
    elif not tallies:
        decision.warnings.append(
            f"{name} {floor:.4f}: no answer was checked against a schema "
            f"(give the comparisons a schema)"
        )
    for metric, tally in tallies.items():
        share = tally.valid / tally.checked
        what = (
            f"{metric}: valid share {share:.4f} ({tally.valid} of {tally.checked} answers "
            f"valid against their schema)"
        )
        hold_floor(what, share, floor, name, decision)


def hold_floor(what: str, value: float, floor: float, setting: str, decision: GateDecision) -> None:
    """A figure (``what``, in words) held to its floor: a failure below it (but for float
    noise), else a gate passed; ``setting`` names the floor's setting."""
    from ..run_model.aggregate import SCORE_EPSILON

    if value < floor - SCORE_EPSILON:
        decision.failures.append(f"{what} is below {setting} {floor:.4f}")
    else:
        decision.checked.append(f"{what} is at least {setting} {floor:.4f}")


def _scored(aggregate: FieldAggregate) -> bool:
    """Whether a field was ever scored (a field ignored everywhere has no mean to hold)."""
    return aggregate.scored > 0


def _floors(summary: Summary, settings: GateSettings, decision: GateDecision) -> None:
    from ..run_model.aggregate import SCORE_EPSILON

    names, groups = settings.names, summary.groups
    held = 0
    skipped: list[str] = []
    for floor in settings.floors:
        tables = {
            key: fields
            for key, fields in groups.items()
            if floor.group is None or key == floor.group
        }
        rows = [
            (key, path, aggregate)
            for key, fields in tables.items()
            for path, aggregate in fields.items()
            if _scored(aggregate) and floor.matches(path)
        ]
        if not rows and settings.part_of_suite:
            skipped.append(repr(floor.text))
            continue
        if not rows:
            _unmatched(floor, summary, tables, settings, decision)
            continue
        for key, path, aggregate in rows:
            mean = aggregate.mean_score
            if mean < floor.score - SCORE_EPSILON:
                named = "" if floor.pattern == path else f", floor {floor.text!r}"
                decision.failures.append(
                    f"field {path} ({key}): mean score {mean:.4f} is below "
                    f"its floor {floor.score:.4f}{named}"
                )
            else:
                held += 1
    if skipped:
        one = len(skipped) == 1
        decision.warnings.append(
            f"{names.floors}: {len(skipped)} floor{'' if one else 's'} not held, as this run "
            f"is part of the suite ({settings.part_of_suite}) and ran no field "
            f"{'it matches' if one else 'they match'}: {', '.join(skipped)}"
        )
    if settings.floors and held:
        decision.checked.append(
            f"{names.floors}: {held} field row{'' if held == 1 else 's'} "
            f"at or above {'its' if held == 1 else 'their'} floor"
        )


def _unmatched(
    floor: Floor,
    summary: Summary,
    tables: Mapping[str, Mapping[str, FieldAggregate]],
    settings: GateSettings,
    decision: GateDecision,
) -> None:
    """A floor that matched no scored field: a group or a path that is not the run's (a typo:
    the names meant are suggested), or a field of the run that no case scored (said why:
    no typo to suggest)."""
    groups = summary.groups
    unscored = _why_unscored(floor, summary, tables)
    if unscored:
        message = f"floor {floor.text!r} matched no scored field of this run: {unscored}"
    elif floor.group is not None and not tables:
        import difflib  # (here: only a floor that matched nothing reads it)

        close = difflib.get_close_matches(floor.group, list(groups), n=3, cutoff=0.5)
        hint = (
            f"; did you mean {' or '.join(map(repr, close))}?"
            if close
            else f"; the groups are {', '.join(map(repr, groups)) or '(none)'}"
        )
        message = f"floor {floor.text!r} names no group of this run{hint}"
    else:
        paths = sorted({path for fields in tables.values() for path in fields})
        close = nearest_paths(floor.pattern, paths)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        message = f"floor {floor.text!r} matched no scored field of this run{hint}"
    if settings.strict:
        decision.failures.append(message)
    else:
        decision.warnings.append(f"{message} ({settings.names.strict} fails the run)")


NAMED_CASES = 5  # the cases a message names before "and N more"


@functools.cache
def _undecided_at() -> re.Pattern[str]:
    """The end of an undecided comparison's message: the paths of its undecided fields
    (undecided_verdicts.undecided_message: "... at a.b, c[0].d, ...")."""
    return re.compile(r" at ([^()]*)$")


def _why_unscored(
    floor: Floor, summary: Summary, tables: Mapping[str, Mapping[str, FieldAggregate]]
) -> str:
    """Why the field ``floor`` names was scored by no case, where the run holds it (empty: it
    holds no such field): skipped or ignored wherever it occurred, or left undecided by the
    judge (its cases could not be scored)."""
    held = [
        (path, aggregate)
        for fields in tables.values()
        for path, aggregate in fields.items()
        if floor.matches(path)
    ]
    if held:
        never = sorted({path for path, _ in held})
        one = len(never) == 1
        how = (
            "left undecided by the judge"
            if any(aggregate.batch_error for _, aggregate in held)
            else "skipped or ignored"
        )
        return (
            f"{', '.join(never)} {'was' if one else 'were'} {how} wherever "
            f"{'it' if one else 'they'} occurred, so no case scored {'it' if one else 'them'}"
        )
    cases = [
        case.case_id
        for case in summary.cases.values()
        if case.undecided
        and (found := _undecided_at().search(case.error)) is not None
        and any(floor.matches_instance(path.strip()) for path in found[1].split(", "))
    ]
    if not cases:
        return ""
    return f"the judge left it undecided in {_cases_named(cases)}, so no case scored it"


def _cases_named(cases: Sequence[str]) -> str:
    """``3 cases (a, b, c)``: how many, and the first :data:`NAMED_CASES` of them."""
    shown = ", ".join(cases[:NAMED_CASES])
    more = f" and {len(cases) - NAMED_CASES} more" if len(cases) > NAMED_CASES else ""
    return f"{len(cases)} case{'' if len(cases) == 1 else 's'} ({shown}{more})"


def _baseline(
    comparison: BaselineComparison,
    settings: GateSettings,
    decision: GateDecision,
    label: str,
    groups: Mapping[str, Mapping[str, FieldAggregate]] | None = None,
) -> None:
    from ..run_model.aggregate import SCORE_EPSILON

    limit = settings.max_drop
    diff = comparison.difference
    failed = len(decision.failures)
    _overlap(comparison, decision, label)
    if comparison.shared and -diff.mean > limit + SCORE_EPSILON:
        assert comparison.before is not None and comparison.after is not None
        sides = (comparison.before, comparison.after)
        what = dropped_text("overall score", *sides, comparison.shared)
        rule_on_drop(what, diff.clearly_below_zero, diff, sides, limit, settings, decision)
    for delta in comparison.fields:
        d = delta.difference
        if -d.mean > limit + SCORE_EPSILON:
            sides = (delta.before, delta.after)
            what = dropped_text(f"field {delta.path} ({delta.group}): mean score", *sides, d.n)
            decision.quoted_fields.append((delta.group, delta.path))
            _quote(decision, delta.worse[:NAMED_CASES])
            clear = delta.significant and d.mean < 0
            # (a floor holds this run's tables: named against a baseline, not a reference)
            floor = _failing_floor(delta, limit, settings, groups) if label == "baseline" else ""
            rule_on_drop(what, clear, d, sides, limit, settings, decision, delta, floor)
    if comparison.shared and len(decision.failures) == failed:
        assert comparison.before is not None and comparison.after is not None
        what = f"{label} ({settings.mode}): mean change"
        held = held_text(what, comparison.before, comparison.after, comparison.shared)
        decision.checked.append(f"{held}, {settings.names.max_drop} {limit:.4f}")


def _overlap(comparison: BaselineComparison, decision: GateDecision, label: str) -> None:
    """Too few shared cases fail the run: a decision over the cases both runs hold says nothing
    of the others (case_matching.py, ``MIN_SHARED``)."""
    from .case_matching import MIN_SHARED

    # a case both hold that one could not score is shared, though not compared: the unscored
    # rule speaks for it (an outage must not read as a baseline that lacks the cases too)
    shared, compared = comparison.shared + len(comparison.unscored), comparison.compared
    if shared and (comparison.baseline.partial or shared >= MIN_SHARED * compared - 1e-9):
        return
    matching = comparison.matching
    base = "the baseline" if label == "baseline" else label
    name = f"{label} {comparison.baseline.path}" if label == "baseline" else label
    why = f": {matching.why(base)}" if matching is not None else ""
    if label == "baseline" and shared and matching is not None and matching.added:
        # a suite that grew past the rule: no setting lets the run pass it, so say what does
        why += (
            "; make a new baseline first: run the new cases without the change they test and "
            "keep that run's report (--jsonmatch-report=PATH) as the baseline, or add at most "
            f"{shared} cases at a time (docs/ci.md: a suite that more than doubles)"
        )
    decision.failures.append(
        f"{name} shares {shared} of this run's {compared} "
        f"case{'' if compared == 1 else 's'}, fewer than the {MIN_SHARED:.0%} a verdict "
        f"against it needs{why}"
    )


def _quote(decision: GateDecision, cases: Iterable[str]) -> None:
    """The cases a message quotes, each once, for the tables to show."""
    decision.quoted_cases.extend(c for c in cases if c not in decision.quoted_cases)


def printed_drop(before: float, after: float) -> str:
    """A drop as the tables print it: the printed before minus the printed after."""
    from .changes import printed_change

    return f"{-printed_change(before, after):.4f}"


def dropped_text(what: str, before: float, after: float, shared: int, cases: str = "case") -> str:
    """``overall score dropped by 0.0500 (0.9000 -> 0.8500 over 12 shared cases)``: a drop
    beyond its limit as every drop gate's message words it (``cases``: what was shared)."""
    return (
        f"{what} dropped by {printed_drop(before, after)} ({before:.4f} -> {after:.4f} over "
        f"{shared} shared {cases}{'' if shared == 1 else 's'})"
    )


def held_text(what: str, before: float, after: float, shared: int, cases: str = "case") -> str:
    """``baseline (statistical): mean change -0.0100 over 12 shared cases``: a drop within
    its limit as every drop gate passed words it (``cases``: what was shared)."""
    from .changes import change_text

    plural = "" if shared == 1 else "s"
    return f"{what} {change_text(before, after)} over {shared} shared {cases}{plural}"


def _regressions(
    comparison: BaselineComparison, settings: GateSettings, decision: GateDecision
) -> None:
    """A shared case that got clearly worse blocks the run, whatever its threshold, until
    someone accepts it (a new baseline, or ``allow_regressions``)."""
    from ..run_model.aggregate import SCORE_EPSILON

    names = settings.names
    limit = settings.case_drop_limit
    setting = names.max_case_drop if settings.max_case_drop is not None else names.max_drop
    dropped = [d for d in comparison.cases if -d.delta > limit + SCORE_EPSILON]
    allowed = settings.allow_regressions
    _quote(decision, [d.case_id for d in dropped])
    if len(dropped) > allowed:
        for d in dropped:
            where = f" ({d.where})" if d.where else ""
            decision.failures.append(
                f"case {d.case_id}{where} dropped from {d.before:.4f} to "
                f"{d.after:.4f}, by more than {setting} {limit:.4f}"
            )
            decision.blocked.append((d.case_id, setting))
        if allowed:
            decision.failures.append(
                f"{len(dropped)} cases dropped, more than {names.allow_regressions} {allowed}"
            )
    elif dropped:
        decision.warnings.append(
            f"{len(dropped)} case{'' if len(dropped) == 1 else 's'} dropped by "
            f"more than {setting} {limit:.4f}, allowed by "
            f"{names.allow_regressions} {allowed}: "
            f"{', '.join(d.case_id for d in dropped)}"
        )
        decision.checked.append(
            f"case regressions: {len(dropped)} of {comparison.shared} shared "
            f"cases dropped, {names.allow_regressions} {allowed}"
        )
    elif comparison.shared:
        decision.checked.append(
            f"case regressions: no shared case of {comparison.shared} dropped "
            f"by more than {setting} {limit:.4f}"
        )


def _failing_floor(
    delta: FieldDelta,
    limit: float,
    settings: GateSettings,
    groups: Mapping[str, Mapping[str, FieldAggregate]] | None,
) -> str:
    """A floor that would fail the field row ``delta`` names (its group's row of the run's
    field tables below it): the baseline's mean less ``limit``, to two decimals, in words
    (``jsonmatch_field_floors field_f1:sentiment=0.98``); empty where no such floor is
    above the row's mean."""
    from ..run_model.aggregate import SCORE_EPSILON

    aggregate = (groups or {}).get(delta.group, {}).get(delta.path)
    score = math.floor((delta.before - limit) * 100 + 1e-9) / 100
    if aggregate is None or aggregate.scored == 0:
        return ""
    if score <= aggregate.mean_score + SCORE_EPSILON:
        return ""
    return f"{settings.names.floors} {delta.group}:{delta.path}={score:.2f}"


def rule_on_drop(
    what: str,
    clear: bool,
    diff: PairedDifference,
    sides: tuple[float, float],
    limit: float,
    settings: GateSettings,
    decision: GateDecision,
    row: FieldDelta | None = None,
    floor: str = "",
) -> None:
    """A drop beyond ``max_drop``: a failure when the rule says it is real, else a warning
    that says which rule kept it from failing (the interval, or Holm's correction) and
    which setting would fail it (the strict rule; ``floor``, a field floor, in words). A
    field ``row`` names the cases it got worse in. ``sides`` are the scores before and after,
    whose printed difference the message's interval is printed around
    (changes.printed_interval)."""
    from .changes import interval_text, p_text

    names = settings.names
    beyond = f", more than {names.max_drop} {limit:.4f}"
    if row is not None and row.worse:
        beyond += f"; worse in {_cases_named(row.worse)}"
    if settings.mode == "strict":
        decision.failures.append(f"{what}{beyond}: {names.strict_mode} fails any drop beyond it")
    elif clear:
        interval = f"95% interval {interval_text(*sides, diff.mean, diff.low, diff.high)}"
        holm = (
            ""
            if row is None
            else f", Holm-adjusted p = {p_text(row.holm_p)} across {row.family} field rows"
        )
        decision.failures.append(f"{what}{beyond} ({interval}{holm})")
    else:
        fails = f"{names.strict_mode} fails it" + (
            f", and so does a floor {floor}" if floor else ""
        )
        decision.warnings.append(
            f"{what}{beyond}, but it may be noise: {_noise(diff, sides, row)}, so the "
            f"statistical rule passes it ({fails})"
        )


def _noise(diff: PairedDifference, sides: tuple[float, float], row: FieldDelta | None) -> str:
    """Why a drop is not counted as real, in the words of the rule that decided it."""
    from .changes import interval_text, p_text
    from .stats import ALPHA

    if diff.low is None or diff.high is None:
        return f"{diff.n} shared case{'' if diff.n == 1 else 's'} cannot tell"
    if diff.too_few:  # an interval as wide as the scores allow says nothing: say why instead
        return (
            f"{diff.n} shared cases are too few to tell a drop from noise (with their spread "
            f"no drop a score can make would be detected)"
        )
    printed = interval_text(*sides, diff.mean, diff.low, diff.high)
    if diff.high < 0.0 and row is not None:  # the interval excludes zero: Holm decided
        return (
            f"the 95% interval {printed} lies below zero "
            f"(p = {p_text(diff.p_value)}), yet Holm's correction across {row.family} field "
            f"rows raises p to {p_text(row.holm_p)}, above {ALPHA:.2f}"
        )
    interval = f"the 95% interval {printed} includes no change"
    if row is not None:  # a field row: its table shows the interval, not the detectable drop
        return interval
    return f"{interval}, and {diff.n} cases can only detect drops of {diff.detectable:.4f} or more"
