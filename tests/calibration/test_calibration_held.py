"""A stored calibration is held to itself when it is read (calibration/calibration_file.py):
every figure is worked out again from the counts beside it and a file that says otherwise is
refused naming the figure; the counts must hold together; the minimum of labels and the
bootstrap's resamples are the project's; its labels file and case folders lie in the test
root, checked before either is opened. Each refusal is a ConfigError naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_jsonmatch.calibration.calibration_file import (
    Calibration,
    Consistency,
    Estimate,
    Figures,
    JudgeIdentity,
    PanelMember,
    PanelResult,
    read_calibration,
    write_calibration,
)
from pytest_jsonmatch.calls.judge_calls import CalibrationSetup, JudgeSetup
from pytest_jsonmatch.engine.core.errors import CaseFileError, ConfigError
from pytest_jsonmatch.engine.judge import JudgeSettings
from pytest_jsonmatch.engine.judge.agreement import Counts, figures, share
from pytest_jsonmatch.session.judge_calibration import session_calibration

JUDGE = JudgeSettings(model="judge-1")


def _figures(tp: int, fp: int, tn: int, fn: int, seed: int = 0) -> Figures:
    estimates = {k: Estimate(*v) for k, v in figures(Counts(tp, fp, tn, fn), seed).items()}
    return Figures(tp + fp + tn + fn, tp, fp, tn, fn, **estimates)


def _calibration(seed: int = 0) -> Calibration:
    """docs/judge.md's 24 labels (13 same, 11 different): tp 10, fp 4, tn 7, fn 3, AC1 0.4256
    (95% interval 0.0849 to 0.7604), kappa 0.4085, a false-accept rate of 0.3636; two
    fields, a panel of one further judge, every label held when swapped."""
    identity = JudgeIdentity(JUDGE.model, JUDGE.fingerprint, None)
    held = Consistency(24, 24, Estimate(*share(24, 24, seed)), 2)
    return Calibration(
        judge=identity,
        labels_path="labels.yaml",
        labels_digest="sha256:" + "ab" * 32,
        labels=24,
        same=13,
        different=11,
        overall=_figures(10, 4, 7, 3, seed),
        fields={"note": _figures(4, 3, 3, 2, seed), "summary": _figures(6, 1, 4, 1, seed)},
        position=held,
        panel=PanelResult(
            "majority",
            (PanelMember(identity, _figures(12, 2, 9, 1, seed), 2),),
            _figures(11, 3, 8, 2, seed),
        ),
        requests=4,
        seed=seed,
    )


def _stored(tmp_path: Path, change: Any = None, cal: Calibration | None = None) -> Path:
    path = tmp_path / "c.json"
    write_calibration(path, cal or _calibration())
    if change is not None:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    return path


def _refused(path: Path, root: Path | None = None) -> str:
    with pytest.raises(ConfigError) as caught:
        read_calibration(path, root)
    message = str(caught.value)
    assert message.startswith(f"calibration file {str(path)!r} cannot be used: ")
    assert message.endswith("; run `jsonmatch calibrate` again")
    return message.split(" cannot be used: ", 1)[1].rsplit("; run `jsonmatch", 1)[0]


def test_a_calibration_is_read_back_with_every_figure_its_counts_give(tmp_path: Path) -> None:
    assert read_calibration(_stored(tmp_path)) == _calibration()
    assert read_calibration(_stored(tmp_path, cal=_calibration(seed=7))).seed == 7  # --seed 7


def _set(where: str, value: object) -> Any:
    """A change that sets the value at ``where`` (keys and indices, dotted)."""

    def change(data: dict[str, Any]) -> None:
        *path, last = where.split(".")
        for key in path:
            data = data[int(key)] if key.isdigit() else data[key]  # type: ignore[index]
        data[last] = value

    return change


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("overall.ac1.value", 0.9, "overall.ac1 is 0.9, not 0.4256 as its counts give"),
        # the bound a floor is held to: the bootstrap's, redrawn from the seed
        ("overall.ac1.low", 0.65, "overall.ac1.low is 0.65, not 0.0849 as its counts give"),
        (
            "overall.false_accept_rate.high",
            0.1,
            "overall.false_accept_rate.high is 0.1, not 0.6667 as its counts give",
        ),
        (
            "overall.kappa.analytic_low",
            0.5,
            "overall.kappa.analytic_low is 0.5, not 0.0422 as its counts give",
        ),
        ("overall.true_fail_rate.value", None, "overall.true_fail_rate is null, not 0.6364"),
        ("fields.note.ac1.value", 0.8, "fields['note'].ac1 is 0.8, not 0.1724 as its counts give"),
        (
            "panel.members.0.overall.kappa.low",
            0.9,
            "panel.members[0].overall.kappa.low is 0.9, not 0.4418",
        ),
        ("panel.overall.agreement.value", 1, "panel.overall.agreement is 1.0, not 0.7917"),
        ("position.share.low", 0.5, "position.share.low is 0.5, not 1.0 as its counts give"),
    ],
)
def test_a_figure_that_its_counts_do_not_give_is_refused_naming_it(
    tmp_path: Path, where: str, value: object, said: str
) -> None:
    assert said in _refused(_stored(tmp_path, _set(where, value)))


def test_figures_raised_by_hand_no_longer_pass_a_floor(tmp_path: Path) -> None:
    # AC1, kappa and the false-accept rate raised, the counts, fingerprint and digest as
    # they were: the session that reads it (jsonmatch_gates judge_ac1=0.6) stops, naming
    # the first figure its counts do not give
    def raised(data: dict[str, Any]) -> None:
        overall = data["overall"]
        overall["ac1"].update(value=0.9, low=0.8, high=0.95)
        overall["kappa"].update(value=0.88, low=0.75, high=0.95)
        overall["false_accept_rate"].update(value=0.02, low=0.0, high=0.05)

    _stored(tmp_path, raised)
    setup = JudgeSetup(JUDGE, calibration=CalibrationSetup(stored="c.json"))
    with pytest.raises(ConfigError) as caught:
        session_calibration(_Session(setup, tmp_path))
    assert "cannot be used: overall.kappa is 0.88, not 0.4085 as its counts give;" in str(
        caught.value
    )


def test_only_float_rounding_is_forgiven(tmp_path: Path) -> None:
    value = _calibration().overall.ac1.value
    assert value is not None
    near = _set("overall.ac1.value", value * (1 + 1e-12))
    assert read_calibration(_stored(tmp_path, near)).overall.ac1.value == value * (1 + 1e-12)
    far = _set("overall.ac1.value", value + 1e-6)
    said = f"overall.ac1 is {value + 1e-6!r}, not {value!r} as its counts give"
    assert _refused(_stored(tmp_path, far)) == said
    # a negative zero is zero: the bootstrap's lower bound of a rate no resample raised
    minus = _set("fields.summary.false_accept_rate.low", -0.0)
    assert read_calibration(_stored(tmp_path, minus)) == _calibration()


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        ("min_labels", 1, "min_labels is 1, below the project's minimum of 20 labels"),
        ("resamples", 5, "resamples is 5, not the project's 2000"),
        ("seed", -1, "seed is -1, below 0"),
        ("overall.n", 25, "overall.n is 25, not tp + fp + tn + fn"),
        ("labels", 23, "labels is 23, not same + different (13 + 11)"),
        ("overall.tp", 11, "overall.n is 24, not tp + fp + tn + fn"),
        ("overall.tp", True, "overall.tp is True"),
        ("overall.tp", 10.0, "overall.tp is 10.0"),
        ("overall.tp", -0.0, "overall.tp is -0.0"),
        ("overall.n", 10**18, "overall.n is more than 100,000 (the most labels a calibration"),
        ("position.n", 25, "position.n is 25, not labels (24): each label is asked"),
        ("position.requests", False, "position.requests is False"),
        ("repeat_k", 3, "repeat_k is 3 and repeat is None: both or neither"),
        ("panel.rule", "loudest", "panel.rule is 'loudest', not one of majority, unanimous"),
        ("panel.members", [], "panel.members holds 0 judges, not 1 to 20 (the judges beside"),
        ("fields.note.n", 0, "fields['note'].n is 0, not tp + fp + tn + fn"),
        ("fields", {}, "fields is empty, and 24 labels have a field each"),
        ("judge.max_tokens", True, "judge.max_tokens is True"),
    ],
)
def test_counts_that_do_not_hold_together_are_refused(
    tmp_path: Path, where: str, value: object, said: str
) -> None:
    assert said in _refused(_stored(tmp_path, _set(where, value)))


def test_counts_moved_between_cells_are_refused(tmp_path: Path) -> None:
    # one false fail made a true pass overall: n and same as they were, the fields not
    def moved(data: dict[str, Any]) -> None:
        data["overall"].update(tp=11, fn=2)

    said = "the fields' tp add up to 10, not overall.tp (11)"
    assert _refused(_stored(tmp_path, moved)) == said

    # the panel's two false fails made true passes: its figures are those of other counts
    def panel_moved(data: dict[str, Any]) -> None:
        data["panel"]["overall"].update(tp=13, fn=0)

    said = "panel.overall.agreement is 0.7917, not 0.875 as its counts give"
    assert _refused(_stored(tmp_path, panel_moved)) == said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"jsonmatch_calibration": 1, "jsonmatch_calibration": 1}', "duplicate key"),
        ('{"jsonmatch_calibration": true}', "no 'jsonmatch_calibration': 1 at its top (found True"),
        ('{"jsonmatch_calibration": 1.0}', "no 'jsonmatch_calibration': 1 at its top (found 1.0)"),
        ('{"jsonmatch_calibration": 1, "seed": ' + "9" * 5000 + "}", "not JSON (Exceeds the"),
        ('{"jsonmatch_calibration": 1, "seed": Infinity}', "Infinity is not a JSON number"),
    ],
)  # fmt: skip
def test_json_a_reviewer_would_read_otherwise_is_refused(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    assert said in _refused(path)


def test_a_key_given_twice_is_refused_where_the_parser_would_keep_the_last(
    tmp_path: Path,
) -> None:
    # a diff shows the first "overall"; a plain JSON parser keeps the second, forged one
    path = _stored(tmp_path)
    text = path.read_text()
    forged = '{\n "overall": {"n": 0},' + text.lstrip("{")
    path.write_text(forged)
    assert _refused(path) == "not JSON (duplicate key 'overall')"


class _Session(NamedTuple):
    """The session's settings as session_calibration reads them."""

    given_judge: JudgeSetup | None
    rootpath: Path
    given_record: None = None
    golden: tuple[Path, ...] = ()


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("labels_path", "../secret.yaml"),
        ("labels_path", "SECRET"),  # an absolute path out of the root
        ("labels_path", "link.yaml"),  # a symlink inside the root, pointing out
        ("case_folders", "../secret"),
    ],
)
def test_a_labels_path_or_case_folder_out_of_the_root_is_refused_before_it_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, name: str
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    secret = tmp_path / "secret.yaml"
    secret.write_text("- {field: a, reference: b, produced: c, human: same}\n")
    (tmp_path / "secret").mkdir()
    (root / "link.yaml").symlink_to(secret)
    name = str(secret) if name == "SECRET" else name
    value: object = [name] if key == "case_folders" else name
    _stored(root, _set(key, value))
    opened: list[str] = []
    from pytest_jsonmatch.engine.reading import user_files

    real = user_files.read_regular

    def spy(path: Any, *args: Any, **kwargs: Any) -> bytes:
        opened.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(user_files, "read_regular", spy)
    setup = JudgeSetup(JUDGE, calibration=CalibrationSetup(stored="c.json"))
    with pytest.raises(ConfigError) as caught:
        session_calibration(_Session(setup, root))
    where = f"{key}[0]" if key == "case_folders" else key
    resolved = (root / name).resolve()
    assert (
        f"cannot be used: {where} {name!r} resolves to {str(resolved)!r}, outside the test root "
        f"{root.resolve()} (a symlink?): refused; the plugin reads only inside the root;"
    ) in str(caught.value)
    assert opened == [str(root / "c.json")]  # the calibration file alone


def test_a_labels_path_holding_a_nul_is_refused(tmp_path: Path) -> None:
    path = _stored(tmp_path, _set("labels_path", "a\x00b"))
    assert _refused(path, tmp_path) == "labels_path 'a\\x00b' holds a NUL character: no path"
    assert read_calibration(path).labels_path == "a\x00b"  # (no root: the path is not opened)


def test_a_minimum_above_the_projects_is_kept(tmp_path: Path) -> None:
    cal = read_calibration(_stored(tmp_path, _set("min_labels", 30)))
    assert cal.too_small() == "24 labels, fewer than the minimum of 30"


def test_a_field_of_no_labels_and_a_panel_past_its_bound_are_refused(tmp_path: Path) -> None:
    # each would cost a redrawn bootstrap: their number is bounded by the labels and --panel
    def empty_field(data: dict[str, Any]) -> None:
        data["fields"]["none"] = json.loads(json.dumps(data["fields"]["note"]))
        data["fields"]["none"].update(n=0, tp=0, fp=0, tn=0, fn=0)

    said = "fields['none'].n is 0: a field is there for its labels"
    assert _refused(_stored(tmp_path, empty_field)) == said

    def crowded(data: dict[str, Any]) -> None:
        data["panel"]["members"] *= 21

    said = "panel.members holds 21 judges, not 1 to 20 (the judges beside the first)"
    assert _refused(_stored(tmp_path, crowded)) == said


def test_a_long_field_name_is_cut_in_the_message(tmp_path: Path) -> None:
    def renamed(data: dict[str, Any]) -> None:
        data["fields"]["n" * 50_000] = data["fields"].pop("note")
        data["fields"]["n" * 50_000]["ac1"]["value"] = 0.9

    said = _refused(_stored(tmp_path, renamed))
    assert said.startswith("fields['nnn") and len(said) < 1_200
    assert "... (cut: 50,002 characters in all)].ac1 is 0.9, not 0.1724 as its counts give" in said


def test_a_symlink_loop_or_a_nul_in_a_setting_is_an_error_naming_it(tmp_path: Path) -> None:
    # (Path.resolve raised RuntimeError on a loop: an internal error, not the setting's)
    (tmp_path / "l.yaml").symlink_to("m.yaml")
    (tmp_path / "m.yaml").symlink_to("l.yaml")
    measured = JudgeSetup(JUDGE, calibration=CalibrationSetup(labels="l.yaml"))
    with pytest.raises(ConfigError, match=r"^cannot read labels file '.*l\.yaml': Too many levels"):
        session_calibration(_Session(measured, tmp_path))
    stored = JudgeSetup(JUDGE, calibration=CalibrationSetup(stored="l.yaml"))
    assert session_calibration(_Session(stored, tmp_path)) == {
        "file": "l.yaml",
        "made": "stored",
        "missing": "no calibration file 'l.yaml' (`jsonmatch calibrate` writes it)",
    }
    nul = JudgeSetup(JUDGE, calibration=CalibrationSetup(stored="c\x00.json"))
    with pytest.raises(CaseFileError) as caught:
        session_calibration(_Session(nul, tmp_path))
    assert str(caught.value) == (
        "jsonmatch_judge's calibration= file 'c\\x00.json' holds a NUL character: no path"
    )
