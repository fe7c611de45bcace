"""A golden case's own fields labelled by a person (the case key ``judge_labels``): checked
where the case is read (cases/case_files.py), each pair read from the case and its output or
recording (calibration/case_labels.py), joined to the labels file's items in ``jsonmatch
calibrate --cases`` and in the pytest mode (session/judge_calibration.py), under a digest
that covers both.

Against a real OpenAI-compatible server on 127.0.0.1 (tests/helpers/judge_server.py) and
real case files, recordings and labels files in tmp_path."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

import pytest

from pytest_jsonmatch.calibration.calibration_file import read_calibration
from pytest_jsonmatch.calibration.case_labels import case_labels
from pytest_jsonmatch.calls.fingerprints import RecordSettings
from pytest_jsonmatch.calls.judge_calls import JudgeSetup, judge_setup_from_text
from pytest_jsonmatch.calls.recordings import recording_path, write_recording
from pytest_jsonmatch.cases.case_files import CaseFiles
from pytest_jsonmatch.cli import main
from pytest_jsonmatch.engine.core.errors import CaseFileError, ConfigError
from pytest_jsonmatch.session.judge_calibration import session_calibration
from tests.helpers.judge_server import JudgeServer, items_of

LABELS = (
    "- {field: summary, reference: red, produced: blue, human: different}\n"
    "- {field: summary, reference: late, produced: LATE, human: same}\n"
)
# three labelled fields: the judge says same to the listed pair "fragile" / "handle with care"
# (a person said different: a false accept) and to "two boxes" / "2 boxes" (a true pass),
# different to "ships Monday" / "on Monday" (a person said same: a false fail)
CASES = """\
cases:
  - id: given
    expected: {summary: two boxes, items: [{note: fragile}, {note: keep dry}]}
    actual: {summary: 2 boxes, items: [{note: handle with care}, {note: keep dry}]}
    judge_labels: {summary: same, "items[0].note": different}
  - id: recorded
    input: {order: 12}
    expected: {summary: ships Monday}
    judge_labels: {summary: same}
  - id: unlabelled
    expected: {summary: x}
    actual: {summary: y}
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A test root: a labels file, a golden folder of three cases, one case's recording."""
    (tmp_path / "labels.yaml").write_text(LABELS)
    golden = tmp_path / "golden"
    golden.mkdir()
    (golden / "orders.yaml").write_text(CASES)
    where = recording_path(golden / "orders.yaml", "recorded", 1, 1)
    write_recording(where, "recorded", {"order": 12}, 'Done: {"summary": "on Monday"}', 1)
    return tmp_path


class _Settings(NamedTuple):
    """The session's settings as session_calibration reads them."""

    given_judge: JudgeSetup | None
    rootpath: Path
    given_record: RecordSettings | None
    golden: tuple[Path, ...] = ()


def test_a_cases_labels_pair_its_expected_with_its_output_and_join_the_command(
    server: JudgeServer, suite: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    labels = case_labels([suite / "golden"], suite)
    assert [(x.id, x.field, x.reference, x.produced, x.human_same) for x in labels] == [
        ("golden/orders.yaml::given::items[0].note", "items[].note", "fragile",
         "handle with care", False),
        ("golden/orders.yaml::given::summary", "summary", "two boxes", "2 boxes", True),
        # an input case's pair: its recording, read as its comparison reads text
        ("golden/orders.yaml::recorded::summary", "summary", "ships Monday", "on Monday", True),
    ]  # fmt: skip
    monkeypatch.chdir(suite)
    judge = f"model=judge-1 endpoint={server.url}"
    argv = ["calibrate", "labels.yaml", "--judge", judge, "--cases", "golden", "--format", "json"]
    assert main(argv) == 0
    cal = json.loads(capsys.readouterr().out)
    assert (cal["labels"], cal["same"], cal["different"]) == (5, 3, 2)
    overall = cal["overall"]  # labels file: tn, tp; cases: fp, tp, fn
    assert (overall["tp"], overall["fp"], overall["tn"], overall["fn"]) == (2, 1, 1, 1)
    assert cal["fields"]["items[].note"]["fp"] == 1 and cal["case_folders"] == ["golden"]
    asked = {(ref, prod) for body in server.bodies for _, ref, prod in _items(body)}
    assert {("fragile", "handle with care"), ("ships Monday", "on Monday")} <= asked
    file_digest = "sha256:" + hashlib.sha256(LABELS.encode()).hexdigest()
    assert cal["labels_digest"] != file_digest
    assert read_calibration(suite / "labels.calibration.json").case_folders == ("golden",)
    # a case relabelled: another digest, other counts
    case_file = suite / "golden" / "orders.yaml"
    case_file.write_text(CASES.replace('"items[0].note": different', '"items[0].note": same'))
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["same"] == 4 and again["labels_digest"] not in (cal["labels_digest"], file_digest)


def _items(body: dict[str, object]) -> list[tuple[str, object, object]]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [item for message in messages for item in items_of(str(message["content"]))]


def test_the_pytest_mode_joins_the_golden_folders_labels_and_sees_them_change(
    server: JudgeServer, suite: Path
) -> None:
    golden = (suite / "golden",)
    measured = judge_setup_from_text(
        f"model=judge-1 endpoint={server.url} labels=labels.yaml calibration=j.calibration.json",
        "jsonmatch_judge",
        suite,
    )
    summary = session_calibration(_Settings(measured, suite, None, golden))
    assert summary is not None and (summary["labels"], summary["same"]) == (5, 3)
    assert read_calibration(suite / "j.calibration.json").case_folders == ("golden",)
    stored = judge_setup_from_text(
        f"model=judge-1 endpoint={server.url} calibration=j.calibration.json", "j", suite
    )
    read = session_calibration(_Settings(stored, suite, None, golden))
    assert read is not None and "stale" not in read  # the joined digest, recomputed
    # the recording under a label replaced (re-recorded): the stored measure is out of date
    where = recording_path(suite / "golden" / "orders.yaml", "recorded", 1, 1)
    write_recording(where, "recorded", {"order": 12}, '{"summary": "Tuesday"}', 1)
    read = session_calibration(_Settings(stored, suite, None, golden))
    assert read is not None and str(read.get("stale")).endswith(
        "labels.yaml' or the judge_labels of 'golden' changed since it was made"
    )


@pytest.mark.parametrize(
    ("labels", "said"),
    [
        ("{summary: maybe}", "judge_labels 'summary': the verdict is 'same' or 'different', "
         "not 'maybe'"),
        ("{sumary: same}", "judge_labels 'sumary': no such field in the case's expected value; "
         "did you mean 'summary'?"),
        ('{"items[5].note": same}', "judge_labels 'items[5].note': no such field in the "
         "case's expected value; did you mean 'items[0].note'?"),
        ("{items: different}", "judge_labels 'items': it holds a list; label one field of it "
         "(the judge decides one value)"),
        ("[summary]", "judge_labels must be a mapping of field paths to 'same' or "
         "'different', not a list"),
    ],
)  # fmt: skip
def test_a_wrong_judge_label_names_file_case_and_key(tmp_path: Path, labels: str, said: str):
    (tmp_path / "c.jsonmatch.yaml").write_text(
        "cases:\n  - id: one\n    expected: {summary: a, items: [{note: b}]}\n"
        f"    actual: {{summary: a}}\n    judge_labels: {labels}\n"
    )
    with pytest.raises(CaseFileError) as caught:
        CaseFiles(root=tmp_path).load(tmp_path / "c.jsonmatch.yaml")
    assert str(caught.value) == f"c.jsonmatch.yaml:5: case 'one': {said}"


def test_a_label_with_nothing_to_pair_names_the_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    (tmp_path / "labels.yaml").write_text(LABELS)
    (tmp_path / "a.jsonmatch.yaml").write_text(
        "id: short\nexpected: {summary: a, note: b}\nactual: {summary: a}\n"
        "judge_labels: {note: same}\n"
    )
    with pytest.raises(CaseFileError) as caught:
        case_labels([tmp_path], tmp_path)
    assert str(caught.value) == (
        "a.jsonmatch.yaml:1: case 'short': judge_labels 'note': the case's output has no such "
        "field (a missing field is never the judge's to decide)"
    )
    (tmp_path / "a.jsonmatch.yaml").write_text(
        "id: live\ninput: {q: 1}\nexpected: {summary: a}\njudge_labels: {summary: same}\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "labels.yaml", "--judge", "model=m", "--cases", "."]) == 2
    err = capsys.readouterr().err
    assert "a.jsonmatch.yaml:1: case 'live': judge_labels: no recorded output to label" in err


def test_a_labels_file_item_with_a_case_labels_id_stops_the_command(
    suite: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # the item would be counted beside the case's label, with the opposite verdict
    (suite / "labels.yaml").write_text(
        LABELS + "- {id: 'golden/orders.yaml::given::summary', field: summary, "
        "reference: two boxes, produced: 2 boxes, human: different}\n"
    )
    monkeypatch.chdir(suite)
    judge = "model=m endpoint=http://127.0.0.1:9/v1"  # (never asked: the ids are checked first)
    argv = ["calibrate", "labels.yaml", "--judge", judge, "--cases", "golden"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "jsonmatch: error: labels file 'labels.yaml': item 3 has the id "
        "'golden/orders.yaml::given::summary' of a field labelled in its case (judge_labels): "
        "each item's id is its own\n"
    )


def test_two_case_labels_with_one_id_are_refused(tmp_path: Path) -> None:
    from pytest_jsonmatch.calibration.case_labels import joined
    from pytest_jsonmatch.calibration.labels import Label, Labels

    # case 'a::b' labelling 'c', and case 'a' labelling the field 'b::c'
    twice = [
        Label("f.yaml::a::b::c", "c", 1, 1, True),
        Label("f.yaml::a::b::c", "b::c", 1, 2, False),
    ]
    with pytest.raises(ConfigError) as caught:
        joined(Labels(tmp_path / "l.yaml", "sha256:0", ()), twice)
    assert str(caught.value) == (
        "judge labels: two labelled fields of the cases have the id 'f.yaml::a::b::c' (a case "
        "id or a path holding '::'): each item's id is its own"
    )


@pytest.mark.parametrize(
    ("case", "said"),
    [
        (
            "expected: {summary: .nan}\nactual: {summary: x}\n",
            "the case's expected value holds nan at $, not a JSON number (NaN and Infinity are "
            "not JSON)",
        ),
        (
            "expected: {summary: x}\nactual: {summary: [1, .inf]}\n",
            "the case's output holds inf at [1], not a JSON number (NaN and Infinity are not JSON)",
        ),
    ],
)
def test_a_case_label_on_nan_or_an_infinity_is_refused(
    tmp_path: Path, case: str, said: str
) -> None:
    (tmp_path / "a.jsonmatch.yaml").write_text(f"id: one\n{case}judge_labels: {{summary: same}}\n")
    with pytest.raises(CaseFileError) as caught:
        case_labels([tmp_path], tmp_path)
    assert str(caught.value) == f"a.jsonmatch.yaml:1: case 'one': judge_labels 'summary': {said}"


def test_a_long_path_or_verdict_is_cut_in_the_message(tmp_path: Path) -> None:
    # a long key or verdict in a case file (5 MB alike) is not echoed whole into the error
    key = "k" * 50_000
    (tmp_path / "c.jsonmatch.yaml").write_text(  # (an explicit key: a long one)
        f"id: one\nexpected: {{summary: a}}\nactual: {{summary: a}}\n"
        f"judge_labels:\n  ? {key}\n  : same\n"
    )
    with pytest.raises(CaseFileError) as caught:
        CaseFiles(root=tmp_path).load(tmp_path / "c.jsonmatch.yaml")
    message = str(caught.value)
    assert len(message) < 1_300 and "... (cut: 50,002 characters in all)" in message
    (tmp_path / "c.jsonmatch.yaml").write_text(
        f"id: one\nexpected: {{summary: a}}\nactual: {{summary: a}}\n"
        f"judge_labels: {{summary: {key}}}\n"
    )
    with pytest.raises(CaseFileError) as caught:
        CaseFiles(root=tmp_path).load(tmp_path / "c.jsonmatch.yaml")
    message = str(caught.value)
    assert message.startswith(
        "c.jsonmatch.yaml:4: case 'one': judge_labels 'summary': the verdict is 'same' or "
        "'different', not 'kkk"
    ) and message.endswith("... (cut: 50,002 characters in all)")
