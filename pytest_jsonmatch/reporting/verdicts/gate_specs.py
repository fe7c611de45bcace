"""The gates the plugin and the command line share, declared once (``GATES``): each gate's
key, the ``GateSettings`` field it sets, the kind of its value (and so its range), its
command-line option and the help of each command that offers it, its part of the plugin's
help, and how messages name it. Both entry points derive from this table:

- the plugin: the keys and words of ``jsonmatch_gates`` (session/setting_parts.py), its
  help (plugin/settings.py), the names its gates' messages give (gates.gate_settings), what
  ``run.settings`` records of them (provenance.py);
- the command line: the options of ``score``, ``diff`` and ``compare`` (typed: a score in
  [0, 1], a whole number of cases, a choice, a switch, lines), ``merge``'s overrides of the
  recorded settings (as text), and the names messages give (cli/options.py).

A gate ``within`` another is written in that gate's text (``max_case_drop=D allow=N`` is
recorded as ``max_case_drop: "D allow=N"``; the mode words ride on ``max_drop``). The module
imports only the base of its record (engine/core/slotted.py): the plugin reads it at every
start-up, for its help.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from ...engine.core.slotted import Slotted

GATE_MODES = ("statistical", "strict")
PREFIX = "jsonmatch_"  # of every ini setting of the plugin

Value = Literal["score", "cases", "choice", "switch", "lines"]
# score: a number in [0, 1]; cases: a whole number of cases from 0; choice: one of ``words``;
# switch: on when named (the plugin: a word, or KEY=yes|no); lines: one floor a line
SCORE_COMMANDS = ("score", "diff", "scoring")  # "scoring": compare's and score's own options


class GateSpec(Slotted):
    """One gate of the table. (Slotted, not a NamedTuple: made at every start-up, and read
    only by its fields' names.)"""

    __slots__ = (
        "key",
        "field",
        "value",
        "flag",
        "helps",
        "metavar",
        "default",
        "setting",
        "within",
        "words",
        "keyed",
        "plugin_help",
        "name",
        "rule",
        "merge",
        "merge_help",
    )

    def __init__(
        self,
        *,
        key: str,  # its key in jsonmatch_gates and run.settings (or the setting's name)
        field: str,  # the GateSettings field it sets (invalid_fails: the case defaults')
        value: Value,
        flag: str,  # the command line's option
        helps: Mapping[str, str],  # the option's help, per command that offers it
        metavar: str | None = None,
        default: float | int | str | bool | None = None,  # the option's, where not given
        setting: str = "gates",  # the plugin's setting: gates (a key, a word), or its own
        within: str = "",  # the gate whose text it is written in
        words: tuple[str, ...] = (),  # words of jsonmatch_gates that set it
        keyed: bool = True,  # KEY=VALUE of its setting
        plugin_help: str = "",  # its part of jsonmatch_gates' help
        name: str = "",  # how the plugin's messages name it ({gates}, {prefix}); "": derived
        rule: str = "",  # how a message names it where no setting is named; "": its field
        merge: str = "",  # jsonmatch merge's option's metavar (its recorded text); "": none
        merge_help: str = "",  # "": "as jsonmatch_gates KEY="
    ) -> None:
        self.key, self.field, self.value, self.flag, self.helps = key, field, value, flag, helps
        self.metavar, self.default, self.setting, self.within = metavar, default, setting, within
        self.words, self.keyed, self.plugin_help, self.name = words, keyed, plugin_help, name
        self.rule, self.merge, self.merge_help = rule, merge, merge_help

    def setting_name(self, prefix: str, gates: str) -> str:
        """How a message of the plugin names it (``jsonmatch_gates max_case_drop allow``)."""
        if self.name:
            return self.name.format(prefix=prefix, gates=gates)
        if self.setting != "gates":
            return prefix + self.key
        return f"{gates}{self.within} {self.key}" if self.within else gates + self.key

    @property
    def recorded(self) -> bool:
        """Whether run.settings holds it under its own key (merge can override it)."""
        return not self.within and self.value != "switch"


_DROP = "with a baseline: a shared case whose score dropped by more than D fails the run, "
GATES: tuple[GateSpec, ...] = (
    GateSpec(
        key="fail_under",
        field="fail_under",
        value="score",
        flag="--fail-under",
        metavar="SCORE",
        helps={"score": "exit 1 when the overall score is below SCORE"},
        plugin_help="fail_under=S (the overall score, errors counted as 0, below S)",
        merge="SCORE",
    ),
    GateSpec(
        key="max_drop",
        field="max_drop",
        value="score",
        flag="--max-drop",
        metavar="D",
        default=0.0,
        helps={
            "score": "with --baseline: exit 1 when the score dropped by more than D and not "
            "by chance (default 0)",
            "diff": "the largest drop allowed (default 0)",
        },
        plugin_help="max_drop=D then statistical (the default: when the 95% interval is "
        "below zero too) or strict (against a baseline or the reference: the overall or a "
        "field's mean score dropped by more than D, default 0)",
        merge="D [strict]",
    ),
    GateSpec(
        key="mode",
        field="mode",
        value="choice",
        flag="--gate",
        default="statistical",
        helps={
            "score": "how a baseline drop fails: statistical (default) or strict",
            "diff": "statistical (default): a drop fails only when it is not chance; "
            "strict: any drop beyond D fails",
        },
        within="max_drop",
        words=GATE_MODES,
        keyed=False,
    ),
    GateSpec(
        key="field_floors",
        field="floors",
        value="lines",
        flag="--field-floor",
        metavar="[GROUP:]PATTERN=SCORE",
        helps={
            "score": "exit 1 when a matching field's mean score is below SCORE in any field "
            "table (or in GROUP's, e.g. field_f1:total=0.9); repeatable"
        },
        setting="field_floors",
        rule="field floors",
        merge="LINE",
        merge_help="as jsonmatch_field_floors (given once or more: replaces the shards' floors)",
    ),
    GateSpec(
        key="strict",
        field="strict",
        value="switch",
        flag="--strict",
        helps={
            "score": "exit 1 when a --field-floor matches no field (a typo, usually) instead "
            "of warning; the plugin's line 'strict' in jsonmatch_field_floors"
        },
        setting="field_floors",
        within="field_floors",
        name="'strict' in {prefix}field_floors",
    ),
    GateSpec(
        key="max_case_drop",
        field="max_case_drop",
        value="score",
        flag="--max-case-drop",
        metavar="D",
        helps=dict.fromkeys(
            ("score", "diff"), _DROP + "whatever its threshold (default: --max-drop)"
        ),
        plugin_help="max_case_drop=D and allow=N (a shared case dropped by more than D; N such "
        "cases pass with a warning)",
        merge="D [allow=N]",
    ),
    GateSpec(
        key="allow",
        field="allow_regressions",
        value="cases",
        flag="--allow-regressions",
        metavar="N",
        default=0,
        helps=dict.fromkeys(
            ("score", "diff"), "with a baseline: up to N such cases only warn (default 0)"
        ),
        within="max_case_drop",
    ),
    GateSpec(
        key="min_valid",
        field="min_valid",
        value="score",
        flag="--min-valid",
        metavar="SHARE",
        helps={
            "score": "exit 1 when, for a metric, the share of answers valid against the "
            "schema is below SHARE (the plugin's jsonmatch_gates min_valid=)"
        },
        plugin_help="min_valid=S (a metric's share of answers valid against their schema below S)",
        merge="SHARE",
    ),
    GateSpec(
        key="invalid_fails",
        field="invalid_fails",
        value="switch",
        flag="--invalid-fails",
        helps={
            "scoring": "a case whose answer breaks its schema fails, whatever its score "
            "(the plugin's jsonmatch_gates invalid_fails)"
        },
        words=("invalid_fails",),
        plugin_help="invalid_fails makes a comparison whose answer breaks its schema fail",
    ),
    # repeated cases as a reliability measure (reliability.py): k, two floors, a baseline drop
    GateSpec(
        key="pass_k",
        field="pass_k",
        value="cases",
        flag="--pass-k",
        metavar="K",
        helps={
            "diff": "the k of pass^k and pass@k over repeated cases (default, or 0: the fewest "
            "runs of a repeated case)"
        },
        plugin_help="pass_k=K (the k of pass^k and pass@k over repeated cases; 0 or unset: "
        "the fewest runs of a repeated case)",
        merge="K",
    ),
    GateSpec(
        key="min_pass_hat_k",
        field="min_pass_hat_k",
        value="score",
        flag="--min-pass-hat-k",
        metavar="SCORE",
        helps={
            "diff": "exit 1 when pass^k (all k runs pass) over the repeated cases is below SCORE"
        },
        plugin_help="min_pass_hat_k=S (pass^k, every one of k runs passing, over the repeated "
        "cases below S)",
        merge="SCORE",
    ),
    GateSpec(
        key="min_pass_at_k",
        field="min_pass_at_k",
        value="score",
        flag="--min-pass-at-k",
        metavar="SCORE",
        helps={
            "diff": "exit 1 when pass@k (one of k runs passes) over the repeated cases is "
            "below SCORE"
        },
        plugin_help="min_pass_at_k=S (pass@k, one of k runs passing, below S)",
        merge="SCORE",
    ),
    GateSpec(
        key="max_pass_drop",
        field="max_pass_drop",
        value="score",
        flag="--max-pass-drop",
        metavar="D",
        helps={
            "diff": "exit 1 when pass^k or pass@k dropped by more than D over the shared "
            "repeated cases, and not by chance (as --max-drop)"
        },
        plugin_help="max_pass_drop=D (against a baseline: pass^k or pass@k over the shared "
        "repeated cases dropped by more than D, judged as max_drop)",
        merge="D",
    ),
    # the judge's calibration against human labels (calibration_gates.py): each floor held
    # to the bound of its 95% interval, in the run's calibration (judge labels=/calibration=)
    GateSpec(
        key="judge_ac1",
        field="judge_ac1",
        value="score",
        flag="--judge-ac1",
        metavar="X",
        helps={
            "diff": "exit 1 when the new report's judge calibration has a lower bound of Gwet's AC1 below X"
        },
        plugin_help="judge_ac1=X (the judge's calibration: the lower bound of Gwet's AC1 "
        "against the human labels below X)",
        merge="X",
    ),
    GateSpec(
        key="judge_kappa",
        field="judge_kappa",
        value="score",
        flag="--judge-kappa",
        metavar="X",
        helps={
            "diff": "exit 1 when the new report's judge calibration has a lower bound of Cohen's kappa below X"
        },
        plugin_help="judge_kappa=X (the lower bound of Cohen's kappa below X)",
        merge="X",
    ),
    GateSpec(
        key="judge_false_accept",
        field="judge_false_accept",
        value="score",
        flag="--judge-false-accept",
        metavar="X",
        helps={
            "diff": "exit 1 when the new report's judge calibration has an upper bound of the false-accept rate above X"
        },
        plugin_help="judge_false_accept=X (the upper bound of the judge's false-accept rate, "
        "'same' where the person said 'different', above X)",
        merge="X",
    ),
    GateSpec(
        key="judge_position",
        field="judge_position",
        value="score",
        flag="--judge-position",
        metavar="X",
        helps={
            "diff": "exit 1 when the new report's judge calibration has a lower bound of position consistency below X"
        },
        plugin_help="judge_position=X (the lower bound of position consistency, the verdict "
        "kept with the two texts swapped, below X)",
        merge="X",
    ),
)
BY_KEY = {spec.key: spec for spec in GATES}


def gate_keys() -> tuple[str, ...]:
    """The keys of jsonmatch_gates (``KEY=VALUE``), in the table's order."""
    return tuple(s.key for s in GATES if s.setting == "gates" and s.keyed)


def gate_words() -> dict[str, str]:
    """The plain words of jsonmatch_gates, each with the gate it sets."""
    return {word: s.key for s in GATES if s.setting == "gates" for word in s.words}


def offered_by(command: str) -> tuple[GateSpec, ...]:
    """The gates whose option ``command`` offers (score, diff, scoring), in order."""
    return tuple(s for s in GATES if command in s.helps)


def recorded() -> tuple[GateSpec, ...]:
    """The gates run.settings records under their own keys, in the table's order."""
    return tuple(s for s in GATES if s.recorded)


def plugin_help() -> str:
    """jsonmatch_gates' help: each gate's part, the switches last."""
    parts = [s.plugin_help for s in GATES if s.plugin_help and s.value != "switch"]
    switches = [s.plugin_help for s in GATES if s.plugin_help and s.value == "switch"]
    return "; ".join(["fail the session by its scores: " + ", ".join(parts), *switches])
