"""The table of numeric ranges in docs/metrics.md, held to what the code accepts.

Each row names an option, where it is given, and its range (``[a, b]``, ``(a, ∞)``, *whole*
for whole numbers). For every option of every row this test gives the value at each end of
the range (accepted), the value just past each end (refused: the next float, or the next
whole number), and NaN, the infinities and numbers far outside (refused). The check is the
real reader of the option: ``match_json`` for metric options, the case file loader, the
plugin's setting parsers, the command line's argument parser. A row without a probe here,
or a probe without a row, fails the test, so the table and the code cannot drift apart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_jsonmatch import JsonMatchError, assert_json_match, match_json
from pytest_jsonmatch.cases.case_files import CaseFiles
from pytest_jsonmatch.cli.app import parser
from pytest_jsonmatch.cli.input_error import InputError
from pytest_jsonmatch.reporting.verdicts.gates import gate_settings
from pytest_jsonmatch.reporting.verdicts.shards import parse_shard
from pytest_jsonmatch.reporting.verdicts.versus import parse_reference
from pytest_jsonmatch.session import setting_parts as parts

REPO = Path(__file__).resolve().parents[2]
LARGEST = 1.7976931348623157e308  # the largest float: what "∞" accepts at its end
A, E = {"a": 5, "b": "x"}, {"a": 5, "b": "y"}
REFUSED = (JsonMatchError, InputError)

Probe = Callable[[Any], object]


def _text(v: Any) -> str:
    """A number as a setting spells it: shortest round-trip form for a float."""
    return repr(v) if isinstance(v, float) else str(v)


def _field(settings: Callable[[Any], dict[str, Any]]) -> Probe:
    return lambda v: match_json(A, E, fields={"a": settings(v)})


def _sf1(option: str) -> Probe:
    return lambda v: match_json(A, E, metric="structural_f1", **{option: v})


def _evaluation(param: str) -> Probe:
    def probe(v: Any) -> object:
        params = {"threshold": 1.0, param: v}
        kind = {"evaluation_type": "threshold", "evaluation_params": params}
        return match_json(A, E, metric="structural_f1", number_evaluation_type=kind)

    return probe


def _case_file(key: str, tmp: Path) -> Probe:
    def probe(v: Any) -> object:
        path = tmp / "c.jsonmatch.yaml"
        case = {"id": "c", "actual": {"a": 1}, "expected": {"a": 1}, key: v}
        path.write_text(yaml.safe_dump({"cases": [case]}), encoding="utf-8")
        return CaseFiles(root=tmp).load(path)

    return probe


GATES: dict[str, Any] = {"fail_under": "", "floor_lines": (), "drop_parts": (), "case_parts": ()}


def _gates(form: str) -> Probe:
    """A key of jsonmatch_gates, read as the plugin reads the setting."""
    return lambda v: parts.parse_gates(
        parts.parse_gate_texts([(form.format(_text(v)), "jsonmatch_gates")]), []
    )


def _gate(**given: Any) -> Probe:
    ((key, form),) = given.items()

    def probe(v: Any) -> object:
        text = form.format(_text(v))
        value = (
            ((text, "x"),)
            if key in ("drop_parts", "case_parts")
            else ((text,) if key == "floor_lines" else text)
        )
        if key == "min_valid":
            return gate_settings(**GATES, prefix="jsonmatch_", min_valid=text)
        return gate_settings(**{**GATES, key: value}, prefix="jsonmatch_")

    return probe


def _calls(form: str) -> Probe:
    return lambda v: parts.parse_calls([(form.format(_text(v)), "jsonmatch_calls")])


def _judge(form: str) -> Probe:
    return lambda v: parts.parse_judge("model=m " + form.format(_text(v)), "jsonmatch_judge", REPO)


def _cli(*argv: str) -> Probe:
    return lambda v: parser().parse_args([*argv, _text(v)])


def _max_keys(monkeypatch: pytest.MonkeyPatch) -> Probe:
    from pytest_jsonmatch.engine.reading import intake

    def probe(v: Any) -> object:
        monkeypatch.setenv("JSONMATCH_MAX_KEYS", _text(v))
        return intake._max_keys()

    return probe


def probes(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], list[Probe]]:
    """Per row (its option and where cells, as written), a probe of each option it names."""
    score = ("score", "g.jsonl", "p.jsonl")
    return {
        ("`digits`", "the `round_digits` transform (`fields`, `x-eval-transform`)"): [
            _field(lambda v: {"transform": {"round_digits": {"digits": v}}})
        ],
        ("`weight`", "`fields`"): [_field(lambda v: {"weight": v})],
        ("`x-eval-weight`", "eval schema"): [
            lambda v: match_json(
                A,
                E,
                schema={
                    "type": "object",
                    "properties": {"a": {"type": "integer", "x-eval-weight": v}},
                },
            )
        ],
        ("`min_score`", "`fields`"): [_field(lambda v: {"min_score": v})],
        ("`tolerance`", "`fields` (`numeric`'s, a number or `{abs, rel}`)"): [
            _field(lambda v: {"tolerance": v}),
            _field(lambda v: {"tolerance": {"abs": v}}),
            _field(lambda v: {"tolerance": {"rel": v}}),
        ],
        ("`abs`, `rel`", "the `numeric` comparator"): [
            _field(lambda v: {"comparator": {"numeric": {"abs": v}}}),
            _field(lambda v: {"comparator": {"numeric": {"rel": v}}}),
        ],
        ("`threshold`", "the `threshold` comparator"): [
            _field(lambda v: {"comparator": {"threshold": {"threshold": v}}})
        ],
        ("`weighting`", "the `threshold` comparator"): [
            _field(lambda v: {"comparator": {"threshold": {"weighting": v}}})
        ],
        ("`beta`", "`structural_f1`"): [_sf1("beta")],
        (
            "`numeric_threshold`",
            "`structural_f1`; `evaluation_params.threshold` of a `*_evaluation_type`",
        ): [_sf1("numeric_threshold"), _evaluation("threshold")],
        (
            "`numeric_weighting`",
            "`structural_f1`; `evaluation_params.difference_penalty_weighting` of a `*_evaluation_type`",
        ): [_sf1("numeric_weighting"), _evaluation("difference_penalty_weighting")],
        ("`array_matching_threshold`", "`structural_f1`"): [_sf1("array_matching_threshold")],
        ("`threshold`", "`assert_json_match`, a case's `threshold:`"): [
            lambda v: assert_json_match(A, A, threshold=v),
            _case_file("threshold", tmp),
        ],
        ("`repeat`", "a case's `repeat:`"): [_case_file("repeat", tmp)],
        ("`jsonmatch_threshold`", "ini, `--jsonmatch-threshold`"): [
            lambda v: parts.parse_threshold(_text(v), "jsonmatch_threshold")
        ],
        ("`fail_under`, `min_valid`", "`jsonmatch_gates`, `--jsonmatch-gates`"): [
            _gates("fail_under={}"),
            _gates("min_valid={}"),
        ],
        ("`jsonmatch_field_floors` score", "ini"): [_gate(floor_lines="items[].sku={}")],
        ("`max_drop` `D`, `max_case_drop` `D`", "`jsonmatch_gates`, `--jsonmatch-gates`"): [
            _gates("max_drop={}"),
            _gates("max_case_drop={}"),
        ],
        ("`allow` `N`", "`jsonmatch_gates`, `--jsonmatch-gates`"): [
            _gates("max_case_drop=0.1 allow={}")
        ],
        (
            "`min_pass_hat_k`, `min_pass_at_k`, `max_pass_drop`",
            "`jsonmatch_gates`, `--jsonmatch-gates`",
        ): [_gates("min_pass_hat_k={}"), _gates("min_pass_at_k={}"), _gates("max_pass_drop={}")],
        ("`pass_k` `K`", "`jsonmatch_gates`, `--jsonmatch-gates`"): [_gates("pass_k={}")],
        ("`max_cases`", "`jsonmatch_golden`"): [
            lambda v: parts.golden_keys([f"max_cases={_text(v)}"], "jsonmatch_golden")
        ],
        ("`jsonmatch_repeat` `N`", "ini, `--jsonmatch-repeat`"): [
            lambda v: parts.parse_repeat([(_text(v), "jsonmatch_repeat")])
        ],
        ("`concurrency`", "`jsonmatch_calls`, a target's line, `jsonmatch_judge`"): [
            _calls("concurrency={}"),
            _judge("concurrency={}"),
        ],
        ("`retries`", "`jsonmatch_calls`, a target's line, `jsonmatch_judge`"): [
            _calls("retries={}"),
            _judge("retries={}"),
        ],
        ("`timeout`, `retry_budget` (seconds)", "`jsonmatch_calls`, a target's line"): [
            _calls("timeout={}"),
            _calls("retry_budget={}"),
        ],
        (
            "`rate` (calls an hour, written `N/s`, `N/min` or `N/hour`)",
            "`jsonmatch_calls`, a target's line, `jsonmatch_judge`",
        ): [_calls("rate={}/hour"), _judge("rate={}/hour")],
        ("`batch`", "`jsonmatch_judge`, `--judge`"): [_judge("batch={}")],
        ("`max_tokens`", "`jsonmatch_judge`, `--judge`"): [_judge("max_tokens={}")],
        ("`price_in`, `price_out` (per million tokens)", "`jsonmatch_judge`, `--judge`"): [
            _judge("price_in={}"),
            _judge("price_out={}"),
        ],
        ("`timeout` (seconds)", "`jsonmatch_judge`, `--judge`"): [_judge("timeout={}")],
        ("`flush` (seconds)", "`jsonmatch_otel`"): [
            lambda v: parts.parse_otel(f"cases flush={_text(v)}", "jsonmatch_otel")
        ],
        ("`latency_p95` ratio (`1.2x`), `cost` ratio", "`jsonmatch_reference`"): [
            lambda v: parse_reference(f"a latency_p95={_text(v)}x"),
            lambda v: parse_reference(f"a cost={_text(v)}x"),
        ],
        ("`cost`, `total_cost` (money)", "`jsonmatch_reference`"): [
            lambda v: parse_reference(f"a cost={_text(v)}"),
            lambda v: parse_reference(f"a total_cost={_text(v)}"),
        ],
        ("`N` of `i/N`", "`jsonmatch_shard`"): [
            lambda v: parse_shard(f"1/{_text(v)}", "jsonmatch_shard")
        ],
        ("`JSONMATCH_MAX_KEYS`", "the environment"): [_max_keys(monkeypatch)],
        (
            "`--threshold`, `--fail-under`, `--max-drop`, `--max-case-drop`, `--min-valid`",
            "`jsonmatch score`, `compare`, `diff`, `merge` (which reads them as the ini settings)",
        ): [
            _cli(*score, "--threshold"),
            _cli("compare", "a.json", "e.json", "--threshold"),
            _cli(*score, "--fail-under"),
            _cli(*score, "--max-drop"),
            _cli("diff", "b.json", "n.json", "--max-drop"),
            _cli(*score, "--max-case-drop"),
            _cli(*score, "--min-valid"),
        ],
        ("`--allow-regressions`", "`jsonmatch score`, `diff`"): [
            _cli(*score, "--allow-regressions"),
            _cli("diff", "b.json", "n.json", "--allow-regressions"),
        ],
        ("`--jobs`", "`jsonmatch score`"): [_cli(*score, "--jobs")],
    }


def table() -> list[tuple[str, str, str]]:
    """(option, where, range) of each row of the table of ranges."""
    text = (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")
    start = text.index("**Ranges of the numeric options.**")
    head = text.index("| option | where | range |", start)
    rows = []
    for line in text[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        assert len(cells) == 3, line
        rows.append((cells[0], cells[1], cells[2]))
    return rows


RANGE = re.compile(r"^(whole )?`([\[(])(-?[0-9.]+), (-?[0-9.]+|∞)([\])])`")


def values(range_cell: str) -> tuple[list[Any], list[Any]]:
    """(accepted, refused) values for a range: each end and just past it."""
    found = RANGE.match(range_cell)
    assert found, f"a range the test cannot read: {range_cell!r}"
    whole, low_bracket, low_text, high_text, high_bracket = found.groups()
    low = int(low_text) if whole else float(low_text)
    high = math.inf if high_text == "∞" else int(high_text) if whole else float(high_text)
    accepted: list[Any] = []
    refused: list[Any] = [math.nan, -math.inf, math.inf, -(10**30)]
    if whole:
        assert low_bracket == "[" and high_bracket == "]"
        accepted += [low, high]
        refused += [low - 1, high + 1, 10**30, float(low), "1" + "0" * 5000, "\u00b2"]
    else:
        if low_bracket == "[":
            accepted.append(low)
            refused.append(math.nextafter(low, -math.inf))
        else:
            accepted.append(math.nextafter(low, math.inf))
            refused.append(low)
        if high == math.inf:
            accepted += [LARGEST, 10**30]
            refused.append(10**400)  # an integer past the float range
        elif high_bracket == "]":
            accepted.append(high)
            refused += [math.nextafter(high, math.inf), 10**30]
        else:
            accepted.append(math.nextafter(high, -math.inf))
            refused.append(high)
    return accepted, refused


def test_every_row_of_the_table_has_a_probe_and_every_probe_a_row(tmp_path, monkeypatch):
    rows = {(option, where) for option, where, _ in table()}
    known = set(probes(tmp_path, monkeypatch))
    assert rows - known == set(), "rows of docs/metrics.md's table of ranges without a probe"
    assert known - rows == set(), "probes without a row in docs/metrics.md's table of ranges"


@pytest.mark.parametrize(("option", "where", "cell"), table(), ids=lambda x: x[:40])
def test_each_option_accepts_its_range_and_refuses_just_past_it(
    tmp_path, monkeypatch, option, where, cell
):
    accepted, refused = values(cell)
    for probe in probes(tmp_path, monkeypatch)[(option, where)]:
        for value in accepted:
            try:
                probe(value)
            except REFUSED as exc:
                pytest.fail(f"{option} ({where}) refused {value!r}, inside {cell}: {exc}")
        for value in refused:
            shown = f"{value[:12]}..." if isinstance(value, str) else repr(value)
            with pytest.raises(REFUSED) as raised:
                probe(value)
            message = str(raised.value)
            assert any(name in message for name in _names(option + where)), (
                f"{option} ({where}) refused {shown} without naming it: {message}"
            )


def _names(cells: str) -> set[str]:
    """The names a refusal may call an option by: each name quoted in its row's option and
    where cells, and its parts (``max_cases`` of ``jsonmatch_max_cases``, ``jobs`` of
    ``--jobs``, ``threshold`` of ``evaluation_params.threshold``, ``abs`` of ``{abs, rel}``)."""
    names = set()
    for token in re.findall(r"`([^`]+)`", cells):
        names |= {token, token.removeprefix("jsonmatch_").split("=")[0], token.lstrip("-")}
        names |= {part for part in re.split(r"[^\w-]+", token) if len(part) > 1}
    return names
