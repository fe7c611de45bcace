"""The one table of gates (reporting/verdicts/gate_specs.py), pinned: every gate it declares reaches
the plugin (a key or word of jsonmatch_gates, or a line of jsonmatch_field_floors, read into
its ``GateSettings`` field, named in messages, recorded in run.settings and read back) and the
command line (the option of each command the table names, typed as its kind, read into the
same field; merge's override of the recorded text). A gate added to the table alone, in a
fresh interpreter, reaches the parsers of both."""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap

import pytest

from pytest_jsonmatch import ConfigError
from pytest_jsonmatch.cli.app import parser
from pytest_jsonmatch.cli.input_error import InputError
from pytest_jsonmatch.cli.merge import merged_gate_settings
from pytest_jsonmatch.cli.options import GATE_NAMES, gates_of
from pytest_jsonmatch.reporting.verdicts import gate_specs
from pytest_jsonmatch.reporting.verdicts.gate_settings import (
    RULE_NAMES,
    GateNames,
    GateSettings,
    gate_settings,
)
from pytest_jsonmatch.reporting.verdicts.gate_specs import GATES, GateSpec
from pytest_jsonmatch.reporting.verdicts.provenance import gate_texts
from pytest_jsonmatch.session import setting_parts as parts
from pytest_jsonmatch.session.setting_table import BY_NAME

from ..cli.run import ROOT

# a value of each kind, as text, and as the gate holds it
SAMPLE = {"score": ("0.25", 0.25), "cases": ("3", 3)}
COMMANDS = {"score": ("score",), "diff": ("diff",), "scoring": ("compare", "score")}


def _subparser(command: str) -> argparse.ArgumentParser:
    commands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[command]


def _args(command: str, *given: str) -> argparse.Namespace:
    positional = {"score": ["g", "p"], "diff": ["b", "n"], "compare": ["a", "e"], "merge": ["s"]}
    return _subparser(command).parse_args([*positional[command], *given])


def _plugin(text: str, floors: list[str] | None = None) -> tuple[parts.GateTexts, GateSettings]:
    texts = parts.parse_gate_texts([(text, "jsonmatch_gates")])
    return texts, parts.parse_gates(texts, floors or [])


def _held(gates: GateSettings, spec: GateSpec) -> object:
    return getattr(gates, spec.field)


@pytest.mark.parametrize("spec", GATES, ids=lambda s: s.key)
def test_every_gate_reaches_the_plugin(spec: GateSpec):
    if spec.setting == "gates":
        assert (spec.key in parts.GATE_KEYS) == spec.keyed
        assert all(parts.GATE_WORDS[word] == spec.key for word in spec.words)
    if spec.value in SAMPLE:
        text, value = SAMPLE[spec.value]
        if spec.setting == "gates":
            given = f"{spec.within}=0.1 {spec.key}={text}" if spec.within else f"{spec.key}={text}"
            assert _held(_plugin(given)[1], spec) == value
        # a value out of its range is refused, naming the setting and the key
        with pytest.raises(ConfigError) as refused:
            _plugin(f"{spec.key}=2" if spec.value == "score" else f"{spec.key}=-1")
        assert str(refused.value).startswith(f"jsonmatch_{spec.setting} {spec.within or spec.key}")
        assert spec.key in str(refused.value)
    elif spec.value == "choice":
        for word in spec.words:
            assert _held(_plugin(word)[1], spec) == word
    elif spec.value == "switch" and spec.setting == "gates":
        assert _plugin(spec.key)[0].switches[spec.key] is True
        assert _plugin(f"{spec.key}=no")[0].switches[spec.key] is False
    elif spec.value == "switch":  # a line of its setting
        assert _held(_plugin("", [spec.key])[1], spec) is True
    else:  # lines: the floors
        assert [f.pattern for f in _plugin("", ["total=0.5"])[1].floors] == ["total"]
    if spec.plugin_help:
        assert spec.plugin_help in BY_NAME["gates"].help


@pytest.mark.parametrize("spec", GATES, ids=lambda s: s.key)
def test_every_gate_reaches_the_command_line(spec: GateSpec):
    assert spec.helps, "a gate the command line does not offer"
    for command in (c for key in spec.helps for c in COMMANDS[key]):
        if spec.value in SAMPLE:
            text, value = SAMPLE[spec.value]
            given, wanted = [spec.flag, text], value
        elif spec.value == "choice":
            given, wanted = [spec.flag, spec.words[-1]], spec.words[-1]
        elif spec.value == "switch":
            given, wanted = [spec.flag], True
        else:
            given, wanted = [spec.flag, "total=0.5", spec.flag, "id=1.0"], ["total=0.5", "id=1.0"]
        args = _args(command, *given)
        assert getattr(args, spec.field) == wanted, command
        if spec.field in GateSettings._fields:
            held = _held(gates_of(args, "diff" if command == "diff" else "score"), spec)
            if spec.value == "lines":
                held = [f"{f.pattern}={f.score}" for f in held]
            assert held == wanted, command
        if spec.value in ("score", "cases", "choice"):  # out of range: a usage error
            with pytest.raises(InputError, match=spec.flag):
                _args(command, spec.flag, "2" if spec.value == "score" else "x")
        elif spec.value == "lines":  # read when the gates are: an input error naming it
            with pytest.raises(InputError, match=spec.flag):
                gates_of(_args(command, spec.flag, "no score"), "score")
    if spec.recorded:  # merge overrides what the shards recorded, as text
        value = ["total=0.5"] if spec.value == "lines" else SAMPLE[spec.value][0]
        given = [spec.flag, value[0]] if spec.value == "lines" else [spec.flag, value]
        args = _args("merge", *given)
        assert merged_gate_settings({}, args)[spec.key] == value  # type: ignore[literal-required]


def test_the_names_of_the_gates_come_from_the_table():
    named = {s.field: s for s in GATES if s.field in GateNames._fields}
    # strict_mode: the mode's strict word, as a reader writes it (derived from the mode's spec)
    assert set(named) == set(GateNames._fields) - {"strict_mode"}
    plugin = gate_settings(floor_lines=[], prefix="jsonmatch_", gate_prefix="jsonmatch_gates ")
    for field, spec in named.items():
        assert getattr(GATE_NAMES, field) == spec.flag
        assert getattr(RULE_NAMES, field) == (spec.rule or spec.field)
        assert getattr(plugin.names, field) == spec.setting_name("jsonmatch_", "jsonmatch_gates ")
    # the spellings messages and the docs use
    assert plugin.names.allow_regressions == "jsonmatch_gates max_case_drop allow"
    assert plugin.names.strict == "'strict' in jsonmatch_field_floors"
    assert plugin.names.strict_mode == "'strict' in jsonmatch_gates"
    assert (GATE_NAMES.strict_mode, RULE_NAMES.strict_mode) == ("--gate strict", "mode strict")
    assert GATE_NAMES.floors == "--field-floor" and RULE_NAMES.floors == "field floors"
    assert parts.GATE_KEYS == (
        "fail_under",
        "max_drop",
        "max_case_drop",
        "allow",
        "min_valid",
        "invalid_fails",
        "pass_k",
        "min_pass_hat_k",
        "min_pass_at_k",
        "max_pass_drop",
        "judge_ac1",
        "judge_kappa",
        "judge_false_accept",
        "judge_position",
    )
    assert list(parts.GATE_WORDS) == ["statistical", "strict", "invalid_fails"]


def test_every_recorded_gate_is_read_back_as_it_was():
    _, gates = _plugin(
        "fail_under=0.5 max_drop=0.1 strict max_case_drop=0.2 allow=2 min_valid=0.75 "
        "pass_k=3 min_pass_hat_k=0.5 min_pass_at_k=0.9 max_pass_drop=0.1 judge_ac1=0.6 "
        "judge_kappa=0.5 judge_false_accept=0.1 judge_position=0.8",
        ["total=0.5", "strict"],
    )
    recorded = gate_texts(gates)
    assert list(recorded) == [
        "max_drop",
        "fail_under",
        "field_floors",
        "max_case_drop",
        "min_valid",
        "pass_k",
        "min_pass_hat_k",
        "min_pass_at_k",
        "max_pass_drop",
        "judge_ac1",
        "judge_kappa",
        "judge_false_accept",
        "judge_position",
    ]
    assert recorded["max_case_drop"] == "0.2 allow=2" and recorded["max_drop"] == "0.1 strict"
    assert {s.key for s in gate_specs.recorded()} == set(recorded)
    again = gate_settings(
        texts={k: v for k, v in recorded.items() if isinstance(v, str)},
        floor_lines=recorded["field_floors"],
        prefix="jsonmatch_",
        gate_prefix="jsonmatch_gates ",
    )
    assert again == gates


NEW_GATE = """
from pytest_jsonmatch.reporting.verdicts import gate_specs

gate_specs.GATES += (
    gate_specs.GateSpec(
        key="max_error_share",
        field="max_error_share",
        value="score",
        flag="--max-error-share",
        metavar="SHARE",
        helps={"score": "exit 1 when more than SHARE of the cases could not be scored"},
        plugin_help="max_error_share=S (the share of cases not scored above S)",
    ),
)
gate_specs.BY_KEY["max_error_share"] = gate_specs.GATES[-1]

from pytest_jsonmatch import ConfigError
from pytest_jsonmatch.cli.app import parser
from pytest_jsonmatch.cli.input_error import InputError
from pytest_jsonmatch.cli.merge import merged_gate_settings
from pytest_jsonmatch.session.setting_table import BY_NAME
from pytest_jsonmatch.session import setting_parts as parts

texts = parts.parse_gate_texts([("fail_under=0.5 max_error_share=0.2", "jsonmatch_gates")])
assert texts.texts == {"fail_under": "0.5", "max_error_share": "0.2"}, texts
assert "max_error_share" in parts.GATE_KEYS
assert "max_error_share=S (the share" in BY_NAME["gates"].help
top = parser()
args = top.parse_args(["score", "g", "p", "--max-error-share", "0.2"])
assert args.max_error_share == 0.2
args = top.parse_args(["merge", "s.json", "--max-error-share", "0.3"])
assert merged_gate_settings({}, args) == {"max_error_share": "0.3"}
print("reached")
"""


def test_a_gate_added_to_the_table_alone_reaches_both_entry_points():
    # in a fresh interpreter: the table is read as every module loads, as a new line of
    # gate_specs.py would be; GateSettings then needs its field, and gates.py its judging
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(NEW_GATE)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "reached"
