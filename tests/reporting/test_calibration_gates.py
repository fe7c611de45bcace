"""The gates of the judge's calibration (reporting/verdicts/calibration_gates.py), read as a
session reads them (session/judge_calibration.py): a calibration file written by
``write_calibration`` in tmp_path, read back, summed up into ``run.provenance.calibration``
beside the run's judge, and judged by the gates of ``jsonmatch_gates``. A floor is held to
the interval's bound; a calibration too small, missing, or of another judge fails it; a
change of calibration is named between two runs and refused between shards."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest

from pytest_jsonmatch import CaseFileError, ConfigError
from pytest_jsonmatch.calibration.calibration_file import (
    Calibration,
    Consistency,
    Estimate,
    Figures,
    JudgeIdentity,
    write_calibration,
)
from pytest_jsonmatch.calls.judge_calls import CalibrationSetup, JudgeSetup, judge_setup_from_text
from pytest_jsonmatch.engine.judge import JudgeSettings, agreement
from pytest_jsonmatch.reporting.verdicts.calibration_gates import judge_calibration
from pytest_jsonmatch.reporting.verdicts.gates import GateDecision
from pytest_jsonmatch.reporting.verdicts.provenance import (
    joined_parts,
    judge_setup_provenance,
    provenance_changes,
)
from pytest_jsonmatch.session import setting_parts as parts
from pytest_jsonmatch.session.judge_calibration import session_calibration

JUDGE = JudgeSettings(model="judge-1")


class _Settings(NamedTuple):
    """The session's settings as session_calibration reads them."""

    given_judge: JudgeSetup | None
    rootpath: Path
    given_record: None = None
    golden: tuple[Path, ...] = ()


GATES = "jsonmatch_gates"


def _figures(same: int, different: int, false_accepts: int) -> Figures:
    # of the labels a person said same, 2 judged different; of those they said different,
    # ``false_accepts`` judged same: each figure as its counts give it (a file read back
    # refuses any other)
    fn, fp = min(2, same), min(false_accepts, different)
    counts = agreement.Counts(tp=same - fn, fp=fp, tn=different - fp, fn=fn)
    estimates = {k: Estimate(*v) for k, v in agreement.figures(counts).items()}
    return Figures(counts.n, *counts, **estimates)


def _calibration(
    judge: JudgeSettings = JUDGE,
    labels: tuple[int, int] = (22, 18),
    false_accepts: int = 1,
    position: bool = True,
) -> Calibration:
    """40 labels by default, 22 same (20 judged same) and 18 different (17 judged
    different): AC1 0.8508 (95% interval 0.6929 to 1), kappa 0.8492 (0.6517 to 1), a
    false-accept rate of 0.0556 (0 to 0.1818); 36 of the 40 held when swapped (0.8 to
    0.975)."""
    same, different = labels
    overall = _figures(same, different, false_accepts)
    n = same + different
    held = Consistency(n, n - n // 10, Estimate(*agreement.share(n - n // 10, n)), n)
    return Calibration(
        judge=JudgeIdentity(judge.model, judge.fingerprint, judge.max_tokens),
        labels_path="labels.yaml",
        labels_digest="sha256:" + "ab" * 32,
        labels=same + different,
        same=same,
        different=different,
        overall=overall,
        fields={"summary": overall},
        position=held if position else None,
        requests=4,
    )


def _provenance(tmp_path: Path, cal: Calibration | None, judge: JudgeSettings = JUDGE) -> dict:
    """``run.provenance`` of a session whose judge is ``judge`` and whose setting names the
    calibration file ``cal`` was written to (None: a file that is not there)."""
    if cal is not None:
        write_calibration(tmp_path / "judge.calibration.json", cal)
    setup = JudgeSetup(judge, calibration=CalibrationSetup(stored="judge.calibration.json"))
    summary = session_calibration(_Settings(setup, tmp_path))
    assert summary is not None
    return {
        "judge": judge.fingerprint,
        "judge_setup": judge_setup_provenance(
            model=judge.model,
            endpoint=judge.endpoint,
            prompt_file="",
            prompt=judge.prompt,
            max_tokens=judge.max_tokens,
        ),
        "calibration": summary,
    }


def _judged(provenance: dict, gates: str) -> GateDecision:
    texts = parts.parse_gate_texts([(gates, GATES)])
    verdict = GateDecision()
    judge_calibration(provenance, parts.parse_gates(texts, []), verdict)
    return verdict


def test_a_floor_is_held_to_the_bound_of_its_interval(tmp_path):
    provenance = _provenance(tmp_path, _calibration())
    # AC1 0.85 with its interval 0.69 to 1: a floor of 0.7 is below the point estimate
    # but above the lower bound, so it fails; the false-accept rate 0.056 has its upper bound
    # at 0.18, above a ceiling of 0.10: it fails too, though the point is under it
    verdict = _judged(provenance, "judge_ac1=0.7 judge_false_accept=0.1 judge_kappa=0.6")
    assert verdict.failures == [
        "judge AC1 lower bound 0.6929 (0.8508, 95% interval 0.6929 to 1.0000, 40 labels) is "
        "below jsonmatch_gates judge_ac1 0.7000",
        "judge false-accept rate upper bound 0.1818 (0.0556, 95% interval 0.0000 to 0.1818, "
        "40 labels) is above jsonmatch_gates judge_false_accept 0.1000",
    ]
    # kappa's lower bound 0.65 reaches 0.6
    assert verdict.checked == [
        "judge kappa lower bound 0.6517 (0.8492, 95% interval 0.6517 to 1.0000, 40 labels) is "
        "at least jsonmatch_gates judge_kappa 0.6000"
    ]
    verdict = _judged(provenance, "judge_ac1=0.69 judge_false_accept=0.19 judge_position=0.8")
    assert verdict.failures == [] and len(verdict.checked) == 3
    assert verdict.warnings == []


def test_a_calibration_too_small_to_say_anything_fails_each_floor(tmp_path):
    small = _calibration(labels=(7, 5))  # 12 labels, under the minimum of 20
    verdict = _judged(_provenance(tmp_path, small), "judge_ac1=0.1 judge_false_accept=1")
    assert verdict.failures == [
        f"jsonmatch_gates {name}: the calibration (judge.calibration.json) is too small to say "
        f"anything: 12 labels, fewer than the minimum of 20: nothing to hold to it"
        for name in ("judge_ac1 0.1000", "judge_false_accept 1.0000")
    ]
    one_class = _calibration(labels=(40, 0))
    verdict = _judged(_provenance(tmp_path, one_class), "judge_kappa=0")
    assert "no label says 'different'" in verdict.failures[0]
    assert verdict.checked == []


def test_no_calibration_fails_the_floor_saying_why(tmp_path):
    verdict = _judged(_provenance(tmp_path, None), "judge_ac1=0.5")
    assert verdict.failures == [
        "jsonmatch_gates judge_ac1 0.5000: no calibration file 'judge.calibration.json' "
        "(`jsonmatch calibrate` writes it): nothing to hold to it"
    ]
    verdict = _judged({"judge": JUDGE.fingerprint}, "judge_ac1=0.5")  # no key given at all
    assert verdict.failures[0].startswith(
        "jsonmatch_gates judge_ac1 0.5000: no calibration of the judge (give jsonmatch_judge "
        "labels=PATH"
    )
    # a calibration without the position check holds no position floor
    no_swap = _provenance(tmp_path, _calibration(position=False))
    assert "ran no position check" in _judged(no_swap, "judge_position=0.5").failures[0]


@pytest.mark.parametrize(
    "then, said",
    [
        (JudgeSettings(model="judge-0"), "model changed: 'judge-0' and 'judge-1'"),
        (JudgeSettings(model="judge-1", max_tokens=50), "token limit changed: 50 and None"),
        (JudgeSettings(model="judge-1", prompt="Judge these: {pairs}"), "prompt changed"),
    ],
    ids=["model", "tokens", "prompt"],
)
def test_a_calibration_of_another_judge_warns_and_fails_the_floors(tmp_path, then, said):
    provenance = _provenance(tmp_path, _calibration(judge=then))
    verdict = _judged(provenance, "judge_ac1=0.1")
    assert verdict.warnings == [
        f"the judge's calibration (judge.calibration.json) measured another judge than this "
        f"run's ({said}): re-run `jsonmatch calibrate`; the judge_* gates fail until then"
    ]
    assert verdict.failures == [
        f"jsonmatch_gates judge_ac1 0.1000: the calibration (judge.calibration.json) measured "
        f"another judge ({said}): nothing to hold to it"
    ]
    assert _judged(provenance, "").warnings == verdict.warnings  # said without a floor too


def test_a_stored_calibration_of_labels_changed_since_warns_and_fails_the_floors(tmp_path):
    labels = b"- {field: summary, reference: a, produced: A, human: same}\n"
    (tmp_path / "labels.yaml").write_bytes(labels)
    as_measured = replace(
        _calibration(), labels_digest="sha256:" + hashlib.sha256(labels).hexdigest()
    )
    verdict = _judged(_provenance(tmp_path, as_measured), "judge_ac1=0.5")
    assert verdict.warnings == [] and verdict.failures == []
    (tmp_path / "labels.yaml").write_bytes(
        labels + b"- {field: summary, reference: b, produced: c, human: different}\n"
    )
    verdict = _judged(_provenance(tmp_path, as_measured), "judge_ac1=0.5")
    assert verdict.warnings == [
        "the judge's calibration (judge.calibration.json) is out of date: its labels file "
        "'labels.yaml' changed since it was made: re-run `jsonmatch calibrate`; the judge_* "
        "gates fail until then"
    ]
    assert verdict.failures == [
        "jsonmatch_gates judge_ac1 0.5000: the calibration (judge.calibration.json) is out of "
        "date (its labels file 'labels.yaml' changed since it was made): nothing to hold to it"
    ]


def test_a_calibration_file_that_is_not_one_is_a_config_error_naming_it(tmp_path):
    (tmp_path / "judge.calibration.json").write_text('{"jsonmatch_calibration": 1}')
    setup = JudgeSetup(JUDGE, calibration=CalibrationSetup(stored="judge.calibration.json"))
    with pytest.raises(ConfigError, match=r"calibration file '.*judge\.calibration\.json'"):
        session_calibration(_Settings(setup, tmp_path))


def test_the_calibration_keys_of_the_judge_setting(tmp_path):
    setup = judge_setup_from_text(
        "model=judge-1 labels=l.yaml calibration=c.json swap=yes repeat=3",
        "jsonmatch_judge",
        tmp_path,
    )
    assert setup.calibration == CalibrationSetup("l.yaml", "c.json", swap=True, repeat=3)
    assert setup.judge.fingerprint == JUDGE.fingerprint  # the keys are not the judge's
    for text, said in (
        ("swap=yes", "swap is a check of a calibration made in the run: give labels=PATH"),
        ("labels=l.yaml repeat=1", "repeat must be a whole number from 2 to 20"),
        ("labels=l.yaml pad=maybe", "pad must be yes or no, not 'maybe'"),
    ):
        with pytest.raises(ConfigError, match=f"^jsonmatch_judge: {said}"):
            judge_setup_from_text(f"model=judge-1 {text}", "jsonmatch_judge", tmp_path)


def test_a_change_of_calibration_is_named_between_two_runs_and_refused_between_shards(tmp_path):
    before = _provenance(tmp_path, _calibration())
    after = _provenance(tmp_path, _calibration(false_accepts=3))
    assert provenance_changes(before, after) == [
        "judge calibration changed: AC1 0.8508 and 0.7538; kappa 0.8492 and 0.7462; "
        "false-accept rate 0.0556 and 0.1667"
    ]
    relabelled = _calibration()
    relabelled = replace(relabelled, labels_digest="sha256:" + "cd" * 32)
    changed = provenance_changes(before, _provenance(tmp_path, relabelled))
    assert changed == ["judge calibration changed: labels labels.yaml changed"]
    none = {k: v for k, v in before.items() if k != "calibration"}
    assert provenance_changes(none, before) == [
        "judge calibration changed: only the second run held one (judge.calibration.json)"
    ]
    with pytest.raises(ValueError, match="the shards ran different judge calibrations: a and b"):
        joined_parts([("a", before), ("b", after)])
    assert joined_parts([("a", before), ("b", before)])["calibration"] == before["calibration"]


@pytest.mark.parametrize("key", ["labels", "calibration"])
@pytest.mark.parametrize("name", ["../outside.json", "/tmp/jsonmatch-outside.json", "link.json"])
def test_a_calibration_path_outside_the_root_is_refused_before_any_read_or_write(
    tmp_path, key, name
):
    # an ini from a pull request names where the labels are read and the calibration is
    # written: both stay inside the root, a symlink out of it included
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.json").symlink_to(tmp_path / "elsewhere.json")
    given = {"labels": CalibrationSetup(labels=name), "calibration": CalibrationSetup(stored=name)}
    setup = JudgeSetup(JUDGE, calibration=given[key])
    with pytest.raises(CaseFileError, match=f"jsonmatch_judge's {key}= file .* outside the test"):
        session_calibration(_Settings(setup, root))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]
