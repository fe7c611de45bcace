"""The judge asked about a person's labels and measured (calibration/judge_asking.py,
cli/calibrate.py), against a real OpenAI-compatible judge on 127.0.0.1
(tests/helpers/judge_server.py): the figures are those of the verdicts it gave, every bias
check is asked and counted, the verdicts are recorded and replayed, and the command prints
and writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_jsonmatch.calibration.calibration_file import read_calibration
from pytest_jsonmatch.calibration.judge_asking import PAD, Checks, calibrate
from pytest_jsonmatch.calibration.labels import read_labels
from pytest_jsonmatch.calls.judge_recordings import JudgmentNotRecorded
from pytest_jsonmatch.cli import main
from pytest_jsonmatch.engine.core.errors import ComparatorError, ConfigError
from pytest_jsonmatch.engine.judge import JudgeSettings, agreement
from tests.helpers.judge_server import Item, JudgeServer

# 12 labels: the server's judge says same where the values are equal ignoring case (one
# pair, "OK"/"ok", is equal after no transform, so it is sent) or listed in `same`
ROWS = [
    ("summary", "two boxes", "2 boxes", "same"),  # listed: judge same (tp)
    ("summary", "ships Monday", "ships monday", "same"),  # judge same (tp)
    ("summary", "three items", "3 items", "same"),  # not listed: judge different (fn)
    ("summary", "red", "blue", "different"),  # tn
    ("summary", "late", "LATE", "different"),  # judge same: a false accept (fp)
    ("summary", "one", "two", "different"),  # tn
    ("note", "fragile", "handle with care", "same"),  # listed: tp
    ("note", "keep dry", "keep dry", "same"),  # equal: same without a request (tp)
    ("note", "open here", "open there", "different"),  # tn
    ("note", "this side up", "upside down", "different"),  # tn
    ("note", "ok", "OK", "same"),  # tp
    ("note", "urgent", "whenever", "different"),  # tn
]
JUDGE_SAYS = [True, True, False, False, True, False, True, True, False, False, True, False]


def _yaml(rows: list[tuple[str, str, str, str]]) -> str:
    return "".join(
        f"- field: {f}\n  reference: {json.dumps(r)}\n  produced: {json.dumps(p)}\n  human: {h}\n"
        for f, r, p, h in rows
    )


@pytest.fixture
def labels_file(tmp_path: Path) -> Path:
    path = tmp_path / "labels.yaml"
    path.write_text(_yaml(ROWS))
    return path


def _judge(server: JudgeServer, model: str = "judge-1", batch: int = 5) -> JudgeSettings:
    return JudgeSettings(model=model, endpoint=server.url, batch=batch, price_in=1.0, price_out=2.0)


def test_the_figures_are_those_of_the_verdicts_the_judge_gave(
    server: JudgeServer, labels_file: Path
) -> None:
    cal = calibrate(read_labels(labels_file), _judge(server))
    human = [r[3] == "same" for r in ROWS]
    want = agreement.figures(agreement.confusion(JUDGE_SAYS, human))
    assert (cal.overall.tp, cal.overall.fp, cal.overall.tn, cal.overall.fn) == (5, 1, 5, 1)
    assert cal.overall.ac1.value == want["ac1"].value and cal.overall.kappa == type(
        cal.overall.kappa
    )(*want["kappa"])
    assert sorted(cal.fields) == ["note", "summary"]
    assert (cal.fields["note"].tp, cal.fields["note"].fn, cal.fields["note"].fp) == (3, 0, 0)
    # 11 items sent ("keep dry" is equal: not sent) in requests of 5: 3 requests
    assert server.total == 3 == cal.requests
    assert cal.cost == pytest.approx(3 * (100 * 1.0 + 10 * 2.0) / 1e6)
    assert cal.labels_digest.startswith("sha256:") and cal.judge.model == "judge-1"
    assert cal.too_small() == "12 labels, fewer than the minimum of 20"


def test_each_bias_check_is_asked_and_counted(server: JudgeServer, labels_file: Path) -> None:
    # a judge with both biases: it says same when the produced text is the longer one
    # (position and verbosity), else as the careful judge does; and it flips every
    # verdict of its 4th and later requests' odd items (it is not self-consistent)
    def biased(items: list[Item]) -> str:
        verdicts = server.decide(items)
        verdicts = [
            v or int(len(str(p)) > len(str(r)) + 3) for v, (_, r, p) in zip(verdicts, items)
        ]
        if server.total >= 4:
            verdicts = [1 - v if n % 2 else v for n, v in enumerate(verdicts)]
        return json.dumps({"results": verdicts})

    server.answer = biased
    checks = Checks(swap=True, repeat=3, pad=True)
    cal = calibrate(read_labels(labels_file), _judge(server, batch=20), checks)
    assert cal.position is not None and cal.repeat is not None and cal.verbosity is not None
    # the first asking: 1 request (11 items); swap 1; repeat 2 more askings of 1 each; pad 1
    # (12 items: the equal pair is no longer equal once padded)
    assert (cal.position.requests, cal.repeat.requests, cal.verbosity.requests) == (1, 2, 1)
    assert cal.requests == 5 == server.total and cal.repeat_k == 3
    # each priced at 100 tokens in (1.0 a million), 10 out (2.0 a million)
    assert cal.repeat.cost == pytest.approx(2 * 120 / 1e6) and cal.position.cost == pytest.approx(
        120 / 1e6
    )
    assert cal.position.n == 12 and cal.position.held < 12
    assert cal.verbosity.held < cal.verbosity.n == 12
    assert cal.repeat.held < 12
    padded = server.items_sent[-1]
    assert all(str(p).endswith(PAD) for _, _, p in padded)
    share = cal.position.share
    assert (
        share.value == cal.position.held / 12
        and share.low is not None
        and share.analytic_high is not None
    )


def test_the_verdicts_are_recorded_and_replayed(server: JudgeServer, labels_file: Path) -> None:
    labels = read_labels(labels_file)
    first = calibrate(labels, _judge(server), Checks(repeat=2))
    asked = server.total
    assert (labels_file.parent / "labels.judgments.json").is_file()
    assert (labels_file.parent / "labels.repeat-2.judgments.json").is_file()
    again = calibrate(labels, _judge(server), Checks(repeat=2), record="none")
    assert server.total == asked and again.requests == 0  # nothing asked: all replayed
    assert again.overall == first.overall and again.repeat == type(first.repeat)(  # type: ignore[misc]
        first.repeat.n,
        first.repeat.held,
        first.repeat.share,
        0,  # type: ignore[union-attr]
    )
    calibrate(labels, _judge(server), record="all")
    assert server.total == asked + 3  # asked again
    other = _judge(server, model="judge-2")
    with pytest.raises(JudgmentNotRecorded, match="recorded by another judge.*--record once"):
        calibrate(labels, other, record="none")


def test_a_label_the_judge_decides_nothing_for_is_an_error_naming_it(
    server: JudgeServer, labels_file: Path
) -> None:
    server.answer = lambda items: json.dumps({"results": [1] * (len(items) - 1)})
    with pytest.raises(
        ComparatorError,
        match=r"labels file '.*labels.yaml': the judge gave no verdict for item 5 \(id '5'\)",
    ):
        calibrate(read_labels(labels_file), _judge(server))
    assert not (labels_file.parent / "labels.calibration.json").exists()


def test_a_panel_side_by_side(server: JudgeServer, labels_file: Path) -> None:
    # judge-2 says same to everything; judge-3 is the careful judge: with judge-1 (careful),
    # the majority is the careful verdict, the unanimous one too (judge-2 adds no "different")
    def by_model(items: list[Item]) -> str:
        model = server.bodies[-1]["model"]
        verdicts = [1] * len(items) if model == "judge-2" else server.decide(items)
        return json.dumps({"results": verdicts})

    server.answer = by_model
    panel = (_judge(server, "judge-2"), _judge(server, "judge-3"))
    cal = calibrate(read_labels(labels_file), _judge(server), Checks(panel=panel))
    assert cal.panel is not None and [m.judge.model for m in cal.panel.members] == [
        "judge-2",
        "judge-3",
    ]
    always = cal.panel.members[0].overall
    assert (always.tp, always.fp, always.tn, always.fn) == (6, 6, 0, 0)
    assert always.true_fail_rate.value == 0.0 and always.kappa.value == 0.0
    assert cal.panel.overall == cal.overall  # the majority: the careful verdict
    assert cal.panel.members[0].requests == 3 and cal.requests == 9


def test_the_command_prints_and_writes_the_calibration(
    server: JudgeServer,
    labels_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(labels_file.parent)
    judge = f"model=judge-1 endpoint={server.url} batch=5"
    assert main(["calibrate", "labels.yaml", "--judge", judge, "--swap"]) == 0
    out = capsys.readouterr().out
    assert "judge 'judge-1'" in out and "12 labels (6 same, 6 different)" in out
    assert (
        "  Gwet's AC1" in out
        and "position (swapped)" in out
        and "written: labels.calibration.json" in out
    )
    cal = read_calibration(labels_file.parent / "labels.calibration.json")
    assert cal.position is not None and cal.overall.n == 12
    assert (
        main(
            [
                "calibrate",
                "labels.yaml",
                "--judge",
                judge,
                "--format",
                "json",
                "--out",
                "c.json",
                "--record",
                "none",
            ]
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out)
    assert printed["jsonmatch_calibration"] == 1 and printed["requests"] == 0
    assert (
        main(
            [
                "calibrate",
                "labels.yaml",
                "--judge",
                judge,
                "--format",
                "markdown",
                "--record",
                "none",
            ]
        )
        == 0
    )
    assert "| Gwet's AC1 |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["calibrate", "labels.yaml"], "the following arguments are required: --judge"),
        (
            ["calibrate", "absent.yaml", "--judge", "model=m"],
            "cannot read labels file 'absent.yaml'",
        ),
        (
            ["calibrate", "labels.yaml", "--judge", "model=m labels=x.yaml"],
            "--judge: unknown key 'labels'",
        ),
        (
            ["calibrate", "labels.yaml", "--judge", "model=m", "--repeat", "1"],
            "--repeat must be a whole number from 2 to 20, not 1",
        ),
        (
            ["calibrate", "labels.yaml", "--judge", "model=m"] + ["--panel", "model=p"] * 21,
            "--panel: at most 20 judges beside --judge, not 21",
        ),
        (
            ["calibrate", "labels.yaml", "--judge", "model=m", "--seed", "-1"],
            "argument --seed: a whole number from 0, not '-1'",
        ),
        (
            [
                "calibrate",
                "labels.yaml",
                "--judge",
                "model=m endpoint=http://127.0.0.1:9/v1",
                "--record",
                "none",
            ],
            "no recorded judgment of field summary",
        ),
    ],
)
def test_the_commands_mistakes_are_one_line_and_exit_2(
    labels_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    said: str,
) -> None:
    monkeypatch.chdir(labels_file.parent)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_an_undecided_padded_label_is_named_by_its_own_id(
    server: JudgeServer, tmp_path: Path
) -> None:
    # a label whose produced value is no text is not padded: the padded request holds the
    # other 12, and the one it leaves undecided (the last) is the file's 13th item
    path = tmp_path / "labels.yaml"
    path.write_text("- {field: count, reference: 3, produced: 3, human: same}\n" + _yaml(ROWS))

    def no_last_when_padded(items: list[Item]) -> str:
        verdicts = server.decide(items)
        if any(str(p).endswith(PAD) for _, _, p in items):
            verdicts = verdicts[:-1]
        return json.dumps({"results": verdicts})

    server.answer = no_last_when_padded
    with pytest.raises(ComparatorError, match=r"no verdict for item 13 \(id '13'\)"):
        calibrate(read_labels(path), _judge(server, batch=20), Checks(pad=True))


def test_a_5_mb_label_not_recorded_is_a_message_of_a_few_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # each text is cut as a report cuts a reason, and the message still says how to record
    big = "x" * 5_000_000
    item = {"field": "summary", "reference": big, "produced": big + "y", "human": "same"}
    (tmp_path / "big.jsonl").write_text(json.dumps(item) + "\n")
    monkeypatch.chdir(tmp_path)
    judge = "model=m endpoint=http://127.0.0.1:9/v1"
    assert main(["calibrate", "big.jsonl", "--judge", judge, "--record", "none"]) == 2
    err = capsys.readouterr().err
    cut = "... (cut: 5,000,002 characters in all)"
    assert len(err) < 2_400 and err.count(cut) == 1 and "5,000,003 characters in all" in err
    assert err.startswith('jsonmatch: error: no recorded judgment of field summary: "xxx')
    assert err.endswith(
        "in big.judgments.json; record it with --record once (--record none never asks the judge)\n"
    )


def test_more_labels_than_a_calibration_measures_are_refused_before_asking(
    labels_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_jsonmatch.calibration import judge_asking

    monkeypatch.setattr(judge_asking, "MAX_LABELS", 11)  # (the file holds 12)
    nobody = JudgeSettings(model="m", endpoint="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError) as caught:
        calibrate(read_labels(labels_file), nobody)
    assert str(caught.value) == (
        f"labels file {str(labels_file)!r}: 12 labels, more than the 11 a calibration measures"
    )


def test_an_undecided_label_of_a_long_id_is_named_cut(server: JudgeServer, tmp_path: Path) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text(f"- {{id: {'i' * 50_000}, field: f, reference: a, produced: b, human: same}}\n")
    server.answer = lambda items: json.dumps({"results": []})
    with pytest.raises(ComparatorError) as caught:
        calibrate(read_labels(path), _judge(server))
    message = str(caught.value)
    assert "the judge gave no verdict for item 1 (id 'iii" in message and len(message) < 2_000
    assert "... (cut: 50,002 characters in all)): " in message
