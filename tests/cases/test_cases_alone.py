"""The golden-case stages (pytest_jsonmatch/cases/ and calls/) used as a library: case files
read, outputs produced live, recorded and replayed, repeats judged, expected values rewritten
in place, targets imported. No pytester, no pytest configuration: files under ``tmp_path`` and
plain calls, to show that the stages stand on their own (and never import pytest)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import pytest_jsonmatch.cases as cases_package
from pytest_jsonmatch.calls.call_figures import CallFigures, TargetResult
from pytest_jsonmatch.calls.call_settings import CallSettings
from pytest_jsonmatch.calls.case_outputs import Outputs
from pytest_jsonmatch.calls.live_calls import LiveCalls
from pytest_jsonmatch.calls.produced import Produced
from pytest_jsonmatch.calls.recordings import input_digest
from pytest_jsonmatch.calls.targets import NO_TARGET, import_target
from pytest_jsonmatch.cases import marks
from pytest_jsonmatch.cases.case_files import CaseFiles, GoldenCase
from pytest_jsonmatch.cases.repeats import RepeatSettings
from pytest_jsonmatch.engine.core.errors import CaseFileError
from pytest_jsonmatch.updating.updates import CaseUpdate, apply_updates

TWO_CASES = """\
# two cases, under the folder's defaults
cases:
  - id: first
    input: {name: Ada}
    expected: {hello: Ada}
  - id: second
    actual: {a: 2}
    expected: {a: 2}
    threshold: 0.5
    options: {ignore: [b]}
"""
FOLDER_DEFAULTS = (
    "metric: structural_f1\nthreshold: 0.8\noptions: {ignore: [x], numeric_threshold: 0.1}\n"
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _input_case(tmp_path: Path, **changes: object) -> GoldenCase:
    case = GoldenCase(
        id="greet",
        path=tmp_path / "greet.jsonmatch.yaml",
        line=1,
        input={"name": "Ada"},
        expected={"hello": "Ada"},
        source="input",
    )
    return case.replace(**changes)


def _outputs(tmp_path: Path, record: str, target) -> Outputs:
    calls = LiveCalls(settings=CallSettings(), target=target)
    return Outputs(record=record, root=tmp_path, calls=calls)


def _greeter(called: list[str]):
    """A plain target that counts its calls."""

    def target(case, awaited):
        called.append(case.id)
        return {"hello": case.input["name"]}

    return target


def _no_latency(produced: Produced) -> Produced:
    """``produced`` with its call's wall time (which varies) left out, to compare the rest."""
    assert produced.call is not None and produced.call.latency_s >= 0
    return produced.replace(call=replace(produced.call, latency_s=None))


# -- case files -------------------------------------------------------------------------------


def test_a_file_of_two_cases_takes_its_folders_defaults(tmp_path):
    _write(tmp_path / "suite" / "jsonmatch.yaml", FOLDER_DEFAULTS)
    path = _write(tmp_path / "suite" / "two.jsonmatch.yaml", TWO_CASES)
    first, second = CaseFiles(root=tmp_path).load(path)
    # each case's line is its list item's: 3 and 6 (line 1 is the comment)
    assert (first.id, first.line, first.source) == ("first", 3, "input")
    assert (second.id, second.line, second.source) == ("second", 6, "actual")
    assert (first.input, second.actual) == ({"name": "Ada"}, {"a": 2})
    assert (first.metric, first.threshold) == ("structural_f1", 0.8)  # both from the folder
    assert (second.metric, second.threshold) == ("structural_f1", 0.5)  # its own threshold wins
    # options merge key by key: the case's ignore adds to the folder's, the tolerance stays
    assert first.options == {"ignore": ["x"], "numeric_threshold": 0.1}
    assert second.options == {"ignore": ["x", "b"], "numeric_threshold": 0.1}
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert first.file_sha256 == second.file_sha256 == digest
    assert first.path == second.path == path


def test_which_files_are_case_files(tmp_path):
    files = CaseFiles(root=tmp_path, golden_dirs=(tmp_path / "golden",))
    assert files.is_case_file(tmp_path / "anywhere" / "x.jsonmatch.yaml")
    assert files.is_case_file(tmp_path / "golden" / "deeper" / "plain.yaml")
    assert not files.is_case_file(tmp_path / "elsewhere" / "plain.yaml")  # not a golden dir
    assert not files.is_case_file(tmp_path / "golden" / "jsonmatch.yaml")  # folder defaults
    assert not files.is_case_file(tmp_path / "golden" / "notes.txt")


def test_a_file_is_shown_from_the_root_where_it_lies_under_it(tmp_path):
    files = CaseFiles(root=tmp_path / "root")
    assert files.display(tmp_path / "root" / "a" / "b.yaml") == "a/b.yaml"
    # a sibling whose name starts as the root's does is not under it
    assert files.display(tmp_path / "rooted" / "b.yaml") == str(tmp_path / "rooted" / "b.yaml")
    assert files.display(tmp_path / "b.yaml") == str(tmp_path / "b.yaml")
    assert files.display(Path("relative/b.yaml")) == "relative/b.yaml"


def test_a_mistake_is_one_error_naming_the_file_from_the_root_and_its_line(tmp_path):
    path = _write(
        tmp_path / "suite" / "bad.jsonmatch.yaml",
        "cases:\n  - id: a\n    actual: {a: 1}\n    expectd: {a: 1}\n",
    )
    files = CaseFiles(root=tmp_path)
    assert files.display(path) == "suite/bad.jsonmatch.yaml"
    with pytest.raises(CaseFileError) as caught:
        files.load(path)
    # the typo is on line 4; the file is shown from the test root
    assert str(caught.value).startswith(
        "suite/bad.jsonmatch.yaml:4: case 'a': unknown key "
        "'expectd' (did you mean 'expected'?); known keys: "
    )


def test_marks_are_plain_data_and_a_string_condition_is_refused():
    assert marks.marks_from(
        ["slow", {"xfail": {"reason": "flaky", "strict": True}}, {"skipif": [False]}]
    ) == (
        marks.MarkSpec("slow", (), {}),
        marks.MarkSpec("xfail", (), {"reason": "flaky", "strict": True}),
        marks.MarkSpec("skipif", (False,), {}),
    )  # a list: the positional arguments
    with pytest.raises(marks.MarkError) as caught:
        marks.marks_from({"skipif": "sys.platform == 'win32'"})
    assert str(caught.value) == (
        "mark 'skipif': condition must be true or false (pytest would run "
        "a string condition as Python), not \"sys.platform == 'win32'\""
    )


# -- outputs: live calls ---------------------------------------------------------------------


def test_record_off_calls_a_plain_target_once_per_produce(tmp_path):
    called: list[str] = []
    outputs = _outputs(tmp_path, "off", _greeter(called))
    produced = outputs.produce(_input_case(tmp_path), ("greet", 0))
    assert called == ["greet"]
    # (the case's input comes with its output: the reports show it beside the fields)
    assert _no_latency(produced) == Produced(
        output={"hello": "Ada"}, input={"name": "Ada"}, source="live", call=CallFigures(attempts=1)
    )


def test_a_target_result_carries_its_usage_into_the_call(tmp_path):
    def target(case, awaited):
        return TargetResult(output={"hello": "Ada"}, input_tokens=3, cost=0.5)

    produced = _outputs(tmp_path, "off", target).produce(_input_case(tmp_path), "k")
    assert _no_latency(produced) == Produced(
        output={"hello": "Ada"},
        input={"name": "Ada"},
        source="live",
        call=CallFigures(attempts=1, input_tokens=3, output_tokens=None, cost=0.5),
    )


def test_a_target_that_raises_gives_the_error_with_a_failed_call(tmp_path):
    boom = ValueError("the model is down")

    def target(case, awaited):
        raise boom

    produced = _outputs(tmp_path, "off", target).produce(_input_case(tmp_path), "k")
    assert produced.error is boom and produced.output is None and produced.source == "live"
    assert _no_latency(produced).call == CallFigures(attempts=1, failed=True)


@pytest.mark.parametrize("opened", [True, False], ids=["runner-open", "runner-closed"])
def test_an_async_target_runs_on_the_runners_event_loop(tmp_path, opened):
    where: list[str] = []

    async def answer(name: str) -> dict[str, str]:
        await asyncio.sleep(0)
        where.append(threading.current_thread().name)
        return {"hello": name}

    def target(case, awaited):  # hands its coroutine to ``awaited``, as targets.Awaited says
        return awaited(answer(case.input["name"]))

    calls, case = LiveCalls(settings=CallSettings(), target=target), _input_case(tmp_path)
    if opened:
        calls.open()
        try:
            calls.submit("greet", case)
            assert calls.submitted("greet")
            done = calls.take("greet", case)
        finally:
            calls.close()
    else:
        done = calls.take("greet", case)  # closed: one call made then and there
    assert not calls.is_open
    assert (done.value, done.error, done.figures.attempts) == ({"hello": "Ada"}, None, 1)
    assert where == ["jsonmatch-event-loop"]


# -- outputs: recordings ---------------------------------------------------------------------


def test_record_once_records_then_replays_and_re_records_a_stale_input(tmp_path):
    called: list[str] = []
    outputs, case = _outputs(tmp_path, "once", _greeter(called)), _input_case(tmp_path)
    path = tmp_path / "__recordings__" / "greet.jsonmatch.yaml" / "greet.json"
    assert outputs.recording_of(case, 0, 1) == path
    assert outputs.needs_call(case, 0, 1)

    first = outputs.produce(case, "k")
    assert (first.source, first.recording, first.output, called) == (
        "live",
        "recorded",
        {"hello": "Ada"},
        ["greet"],
    )
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert (saved["case_id"], saved["repeat"], saved["output"]) == ("greet", 0, {"hello": "Ada"})
    assert saved["input_sha256"] == input_digest({"name": "Ada"})
    assert not outputs.needs_call(case, 0, 1)

    again = outputs.produce(case, "k")  # replayed: the target is not called
    assert again == Produced(
        output={"hello": "Ada"}, input={"name": "Ada"}, source="replayed", call=first.call
    )
    assert called == ["greet"]

    changed = case.replace(input={"name": "Grace"})  # the input changed since: stale
    assert outputs.needs_call(changed, 0, 1)
    fresh = outputs.produce(changed, "k2")
    assert (fresh.source, fresh.recording, fresh.output) == ("live", "stale", {"hello": "Grace"})
    assert called == ["greet", "greet"]
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["input_sha256"] == input_digest({"name": "Grace"})


def test_record_none_without_a_recording_names_the_missing_file(tmp_path):
    called: list[str] = []
    produced = _outputs(tmp_path, "none", _greeter(called)).produce(_input_case(tmp_path), "k")
    assert isinstance(produced.error, CaseFileError)
    assert str(produced.error) == (
        "no recording of this case "
        "(__recordings__/greet.jsonmatch.yaml/greet.json): "
        "record it with --jsonmatch-record=once"
    )
    assert (produced.source, produced.call, called) == ("live", None, [])  # nothing called


# -- repeats ---------------------------------------------------------------------------------


def test_how_many_runs_a_case_gets(tmp_path):
    repeats = RepeatSettings(count=3, rule="majority")
    assert repeats.runs_of(_input_case(tmp_path)) == 3
    assert repeats.runs_of(_input_case(tmp_path, repeat=5)) == 5  # the case's own repeat wins
    assert repeats.runs_of(_input_case(tmp_path, source="actual", actual={"a": 1})) == 1
    assert RepeatSettings().runs_of(_input_case(tmp_path)) == 1


@pytest.mark.parametrize(
    ("scores", "threshold", "mean", "every", "majority"),
    [
        # mean 2.25 / 3 = 0.75 meets 0.75; 0.5 misses it; 2 of 3 runs meet it
        ([1.0, 0.5, 0.75], 0.75, True, False, True),
        # mean 1.75 / 3 = 0.583 < 0.6; 1 of 3 runs meets it
        ([1.0, 0.25, 0.5], 0.6, False, False, False),
        # every run meets 0.7 (0.7 itself included)
        ([0.9, 0.8, 0.7], 0.7, True, True, True),
        # mean 0.5 + 0.5 + 0.875 = 1.875 / 3 = 0.625 meets 0.6, yet only 1 of 3 runs does
        ([0.5, 0.5, 0.875], 0.6, True, False, False),
    ],
)
def test_when_repeated_runs_pass(scores, threshold, mean, every, majority):
    assert RepeatSettings(rule="mean").passes(scores, threshold) is mean
    assert RepeatSettings(rule="all").passes(scores, threshold) is every
    assert RepeatSettings(rule="majority").passes(scores, threshold) is majority


# -- updates ---------------------------------------------------------------------------------

TO_UPDATE = """\
# keep me: a comment before the cases
cases:
  - id: first
    actual: {a: 1}
    expected: {a: 1}   # first's expected, untouched
  - id: second
    actual: {a: 2}
    expected:
      a: 3   # the wrong value
"""


def test_an_update_writes_only_over_the_bytes_read_and_keeps_every_other_byte(tmp_path):
    path = _write(tmp_path / "upd.jsonmatch.yaml", TO_UPDATE)
    update = CaseUpdate(
        path=str(path),
        display="upd.jsonmatch.yaml",
        case_id="second",
        line=6,
        value={"a": 2},
        default_id="upd",
        sha256="0" * 64,
        root=str(tmp_path),
    )
    # a digest that is not the file's bytes: refused, the file left as it was
    assert apply_updates([update]) == (
        [],
        [
            "upd.jsonmatch.yaml: changed on disk since this run read it (another run or an "
            "editor?): not updated; run again to update it"
        ],
    )
    assert path.read_bytes() == TO_UPDATE.encode("utf-8")
    # the digest the load read: one value rewritten, the comments kept byte for byte
    digest = CaseFiles(root=tmp_path).load(path)[1].file_sha256
    done = apply_updates([replace(update, sha256=digest)])
    assert done == (["upd.jsonmatch.yaml:6 second"], [])
    assert path.read_bytes() == TO_UPDATE.replace("a: 3", "a: 2").encode("utf-8")
    assert [c.expected for c in CaseFiles(root=tmp_path).load(path)] == [{"a": 1}, {"a": 2}]


# -- targets ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", NO_TARGET),
        ("json.dumps", "jsonmatch_target 'json.dumps' must look like package.module:function"),
        (
            "no_such_module_for_jsonmatch:run",
            "jsonmatch_target 'no_such_module_for_jsonmatch:run': cannot import "
            "'no_such_module_for_jsonmatch' (is its folder on sys.path? the ini option pythonpath = . "
            "adds the root)",
        ),
        (
            "json:no_such_function",
            "jsonmatch_target 'json:no_such_function': module 'json' has no 'no_such_function'",
        ),
        ("math:pi", "jsonmatch_target 'math:pi' is not callable"),
    ],
)
def test_a_target_that_cannot_be_imported_says_why(spec, message):
    with pytest.raises(CaseFileError, match=f"^{re.escape(message)}$"):
        import_target(spec)


def test_a_good_target_spec_gives_the_function():
    assert import_target("json:dumps") is json.dumps


# -- no pytest -------------------------------------------------------------------------------


def test_importing_every_module_of_the_golden_case_stages_imports_no_pytest():
    # the stages plugin/ builds on (case files, calls, telemetry, the session's plumbing) are
    # usable as a library: importing every module of them loads no pytest
    stages = ("cases", "calls", "telemetry", "session")
    root = Path(cases_package.__file__).parent.parent
    expected = sorted(
        f"pytest_jsonmatch.{stage}.{p.stem}"
        for stage in stages
        for p in (root / stage).glob("*.py")
        if p.stem != "__init__"
    )
    code = (
        "import importlib, pkgutil, sys\n"
        "names = []\n"
        f"for stage in {stages!r}:\n"
        "    c = importlib.import_module('pytest_jsonmatch.' + stage)\n"
        "    names += [m.name for m in pkgutil.walk_packages(c.__path__, c.__name__ + '.')]\n"
        "names.sort()\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest'))\n"
        "print(names, loaded)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(expected) >= 29  # the globs found the stages' modules
    assert proc.stdout.strip() == f"{expected} []"


def test_a_folder_option_its_metric_does_not_take_is_an_error_of_the_file(tmp_path):
    # checked when the file is read, once: not one failure per case when they are scored
    _write(tmp_path / "suite" / "jsonmatch.yaml", "options: {numeric_tolerance: 0.1}\n")
    path = _write(tmp_path / "suite" / "two.jsonmatch.yaml", TWO_CASES)
    with pytest.raises(CaseFileError) as caught:
        CaseFiles(root=tmp_path).load(path)
    assert str(caught.value).startswith(
        "suite/jsonmatch.yaml:1: options for every case: unknown option 'numeric_tolerance' "
        "for metric 'field_f1'"
    )
