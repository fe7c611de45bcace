"""The judge measured in a pytest session, the mode for CI (session/judge_calibration.py
through plugin/hooks.py): ``jsonmatch_judge ... labels=PATH`` asks the judge about a person's
labels once, in the controller, its verdicts recorded under the session's record mode, and
``jsonmatch_gates judge_*`` hold the run to that fresh measure; the JSON report carries it,
and ``jsonmatch diff`` holds a saved report to it and names a change of it.

Against a real OpenAI-compatible server on 127.0.0.1 (tests/helpers/judge_server.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from pytest_jsonmatch.calibration.calibration_file import read_calibration
from pytest_jsonmatch.calls.fingerprints import RecordSettings
from pytest_jsonmatch.calls.judge_calls import JudgeSetup, judge_setup_from_text
from pytest_jsonmatch.cli.app import main
from pytest_jsonmatch.engine.judge import JudgeSettings
from pytest_jsonmatch.session.judge_calibration import session_calibration
from tests.helpers.http_models import serving
from tests.helpers.judge_server import JudgeServer
from tests.helpers.plugin_cases import ARGS, write


class _Settings(NamedTuple):
    """The session's settings as session_calibration reads them."""

    given_judge: JudgeSetup | None
    rootpath: Path
    given_record: RecordSettings | None
    golden: tuple[Path, ...] = ()


@pytest.fixture
def server():
    srv = JudgeServer()
    with serving(srv):
        yield srv


def _labels() -> str:
    """24 labels, 12 a person judged the same and 12 different. The server says "same" where
    the two values are equal ignoring case, or where ``same`` lists them: of the 12 same, 10
    differ only in case (judged same) and 2 are paraphrases (judged different: 2 false
    fails); of the 12 different, one is listed (judged same: 1 false accept)."""
    rows = [(f"Box {n}", f"box {n}", "same") for n in range(10)]
    rows += [("two boxes", "2 boxes", "same"), ("Monday", "on Monday", "same")]
    rows += [(f"Box {n}", f"box {n + 1}", "different") for n in range(11)]
    rows += [("three boxes", "four boxes", "different")]
    return "".join(
        f"- {{field: summary, reference: {ref!r}, produced: {prod!r}, human: {human}}}\n"
        for ref, prod, human in rows
    )


def test_a_session_measures_its_judge_and_is_gated_on_the_bounds(pytester, server, capsys):
    server.same.add(frozenset(("three boxes", "four boxes")))  # the false accept
    write(pytester, "labels.yaml", _labels())
    write(
        pytester,
        "pytest.ini",
        f"[pytest]\njsonmatch_judge = model=judge-1 endpoint={server.url} labels=labels.yaml "
        f"swap=yes calibration=judge.calibration.json\njsonmatch_gates = judge_ac1=0.9 judge_false_accept=0.5 judge_position=0.5\n",
    )
    write(
        pytester,
        "test_a.py",
        "from pytest_jsonmatch import assert_json_match\n\n"
        "def test_a():\n    assert_json_match({'a': 1}, {'a': 1})\n",
    )
    # a collection alone asks the judge nothing
    pytester.runpytest_inprocess(*ARGS, "--collect-only", "--jsonmatch-record=once")
    assert server.total == 0
    result = pytester.runpytest_inprocess(
        *ARGS, "--jsonmatch-report=report.json", "--jsonmatch-record=once"
    )
    report = json.loads((pytester.path / "report.json").read_text())
    cal = report["run"]["provenance"]["calibration"]
    assert (cal["made"], cal["file"], cal["labels"], cal["same"], cal["different"]) == (
        "in the run",
        "judge.calibration.json",
        24,
        12,
        12,
    )
    assert cal["judge"]["fingerprint"] == JudgeSettings(model="judge-1").fingerprint
    assert cal["too_small"] is None and cal["labels_digest"].startswith("sha256:")
    # tp = 10, fn = 2, fp = 1, tn = 11: agreement 21/24; the judge says same 11/24, the
    # person 12/24, q = 23/48, chance 2q(1 - q) = 1150/2304; AC1 = (21/24 - 1150/2304) /
    # (1 - 1150/2304) = 866/1154; false-accept rate 1/12; every verdict held when swapped
    assert cal["ac1"]["value"] == pytest.approx(866 / 1154)
    assert cal["false_accept_rate"]["value"] == pytest.approx(1 / 12)
    assert cal["position"] == {"value": 1.0, "low": 1.0, "high": 1.0}
    # 24 items in requests of 20, asked, then swapped: 4 requests, recorded beside the labels
    assert cal["requests"] == server.total == 4
    assert (pytester.path / "labels.judgments.json").is_file()
    # labels win over a stored calibration: the fresh one is written where calibration= says
    written = read_calibration(pytester.path / "judge.calibration.json")
    assert written.overall.ac1.value == cal["ac1"]["value"] and cal["labels_path"] == "labels.yaml"
    low, high = cal["ac1"]["low"], cal["ac1"]["high"]
    failure = (
        f"judge AC1 lower bound {low:.4f} (0.7504, 95% interval {low:.4f} to {high:.4f}, 24 "
        f"labels) is below jsonmatch_gates judge_ac1 0.9000"
    )
    assert report["gates"]["failures"] == [failure]
    assert [line.split(" is ")[-1] for line in report["gates"]["checked"]] == [
        "at most jsonmatch_gates judge_false_accept 0.5000",
        "at least jsonmatch_gates judge_position 0.5000",
    ]
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED: jsonmatch gates: 1 failure", f"  {failure}"])

    # replayed under record mode none (as CI runs it): the same figures, no request
    setup = judge_setup_from_text(
        f"model=judge-1 endpoint={server.url} labels=labels.yaml swap=yes", "j", pytester.path
    )
    replayed = session_calibration(_Settings(setup, pytester.path, RecordSettings(mode="none")))
    assert replayed is not None and server.total == 4 and replayed["requests"] == 0
    assert (replayed["ac1"], replayed["position"]) == (cal["ac1"], cal["position"])

    # jsonmatch diff: the new report held to its calibration, a change of it named
    capsys.readouterr()
    changed = json.loads(json.dumps(report))
    changed["run"]["provenance"]["calibration"]["labels_digest"] = "sha256:" + "0" * 64
    (pytester.path / "changed.json").write_text(json.dumps(changed))
    base, new = str(pytester.path / "changed.json"), str(pytester.path / "report.json")
    assert main(["diff", base, new, "--judge-false-accept", "0.01"]) == 1
    out = capsys.readouterr().out
    assert (
        "warning: judge calibration changed: labels labels.yaml changed" in out
        and "--judge-false-accept 0.0100" in out
    )
