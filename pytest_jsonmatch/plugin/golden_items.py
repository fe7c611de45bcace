"""Golden case files as pytest items. Everything about a case that is not pytest is another
stage's: reading it and its repeats are cases/'s, its updates updating/'s, producing its
output (the case's own, a live call, a recording) is calls/'s, scoring it and sending the
outcome to the session is session/'s. An item only asks for them, through the session's :class:`GoldenSession`, which
``start_golden_session`` puts in the config's stash when the first case file is collected
(golden_session.py).

One case, as its item runs: each run's output is produced (calls/case_outputs.py), scored and
sent through the channel (session/assertion.py's ``compare_and_send``), and the runs' verdict
(cases/repeats.py for several) decides whether the test fails, or (with
``--jsonmatch-update``) whether the case's expected value is rewritten.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest

from ..cases.case_files import NO_EXPECTED, CaseFiles, GoldenCase
from ..cases.conversation_cases import ConversationExpectations
from ..cases.marks import FieldsExpectedToFail, field_xfail, fields_expected_to_fail, pytest_marks
from ..cases.typos import PathWarning, SharedPaths, case_typos
from ..engine.core.errors import JsonMatchError, safe_text
from ..session.channel import Channel
from ..session.outcome import Outcome
from .settings import Settings

if TYPE_CHECKING:
    from ..calls.case_outputs import Outputs
    from ..calls.produced import Produced
    from ..engine.results.field_results import MatchResult
    from ..session.judge_ahead import JudgeAhead
    from ..updating.update_fields import Hold
    from ..updating.updates import CaseUpdate


@dataclass(frozen=True, kw_only=True)
class GoldenSession:
    """What golden items need of their session: settings, case files, where outputs come
    from, where comparisons go, where case updates are asked for."""

    settings: Settings
    cases: CaseFiles
    outputs: Outputs
    channel: Channel
    ask_update: Callable[[CaseUpdate], None]
    judge_ahead: JudgeAhead | None = None  # cases judged ahead of their tests
    shared_paths: SharedPaths = field(default_factory=SharedPaths)  # a folder's paths, all cases


GOLDEN_SESSION = pytest.StashKey[GoldenSession]()


class GoldenFile(pytest.File):
    """A YAML case file; each case becomes a :class:`GoldenItem`."""

    def collect(self) -> Iterator[GoldenItem]:
        golden = self.config.stash[GOLDEN_SESSION]
        names = [t.name for t in golden.settings.targets]
        for case in golden.cases.load(self.path):
            if case.source == "input" and names:  # once per named target: ``case[name]``
                for name in names:
                    yield GoldenItem.from_parent(
                        self, name=f"{case.id}[{name}]", case=case, target=name
                    )
            else:
                yield GoldenItem.from_parent(self, name=case.id, case=case)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: object = None
    ) -> str:
        if isinstance(excinfo.value, JsonMatchError):
            return str(excinfo.value)  # the whole report (escaped); a traceback adds nothing
        return safe_text(str(super().repr_failure(excinfo)))


def expected_failure(
    expected: FieldsExpectedToFail,
    passed: bool,
    results: list[tuple[MatchResult, float]],
    failure: Callable[[], AssertionError] | None,
) -> None:
    """A case whose xfail names fields: xfailed when it failed at those only, failed with
    ``failure`` and the mark's words when at another too (cases/marks.py's field_xfail);
    ``failure`` None (a case just rewritten): xfailed or left as it is."""
    verdict, why = field_xfail(expected, passed, (r for r, _ in results))
    if verdict == "xfail":
        pytest.xfail(why)
    if failure is None:
        return
    if verdict == "fail" and passed:  # strict, and the named fields matched: failed as
        raise AssertionError(f"[XPASS(strict)] {why}")  # pytest fails a strict XPASS
    if verdict == "fail":
        raise AssertionError(f"{failure()}\n{why}")


def _mark(name: str, args: tuple[object, ...], kwargs: dict[str, object]) -> pytest.MarkDecorator:
    decorator: pytest.MarkDecorator = getattr(pytest.mark, name)
    return decorator(*args, **kwargs) if args or kwargs else decorator


class GoldenItem(pytest.Item):
    """One golden case: produce the actual output, then score and record it."""

    def __init__(self, *, case: GoldenCase, target: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.case, self.target = case, target
        self._attempts = ""  # " (N attempts)" after a call that failed
        # the session's, shared by every case (started before the first case file is read)
        self.golden: GoldenSession = self.config.stash[GOLDEN_SESSION]
        for spec in pytest_marks(case.marks):  # (an xfail naming fields: runtest decides it)
            self.add_marker(_mark(spec.name, spec.args, dict(spec.kwargs)))

    def repeat_count(self) -> int:
        """How many times the case's target runs: only ``input`` cases repeat."""
        return self.golden.settings.repeat.runs_of(self.case)

    def runtest(self) -> None:
        settings = self.golden.settings
        runs = self.repeat_count()
        outputs: list[object] = []
        results: list[tuple[MatchResult, float]] = []
        for repeat in range(runs):
            output, scored = self._run_once(repeat, runs)
            outputs.append(output)
            results += scored
        gates = settings.gates
        strict = gates.names.strict if gates.strict else ""  # (a typo fails the case then)
        for said in case_typos(
            self.case, outputs, [r for r, _ in results], self.golden.shared_paths, strict
        ):
            shown = self.golden.cases.display(self.path)  # (warned at the case's line)
            warnings.warn_explicit(said, PathWarning, shown, self.case.line)
        passed = self._passed(results)
        # with named targets, one target's outputs update the cases: the reference's
        updating = self.target in ("", settings.updating_target)
        held = not (self._quarantined() or self.config.option.runxfail)
        expected = fields_expected_to_fail(self.case.marks) if held else None
        asked = self._updates(updating, passed, results)
        update = self._update(outputs[0], results) if asked else None
        if update is not None:  # (then an xfail naming the fields it failed at still xfails it)
            self.golden.ask_update(update)
        # rewritten, it passes; reviewed, or all of it held by an xfail, its outcome stands
        reviewed = settings.update is not None and settings.update.review
        updated = update is not None and update.writes and not reviewed
        if expected is not None:
            failure = None if updated else lambda: self._failure(results, runs)
            expected_failure(expected, passed, results, failure)
        if not passed and not self._quarantined() and not updated:
            raise self._failure(results, runs)

    def _run_once(self, repeat: int, runs: int) -> tuple[object, list[tuple[MatchResult, float]]]:
        """Run ``repeat`` of ``runs``: its output, and its score and threshold (none for a case
        without an expected value, --jsonmatch-update=create); a run whose output could not
        be produced is recorded as an error and its error raised."""
        from ..engine.schemas.loading import references_confined_to
        from ..session.assertion import compare_and_send

        case, golden = self.case, self.golden
        produced = golden.outputs.produce(case, (self.nodeid, repeat), repeat, runs, self.target)
        if produced.error is not None:
            self._unproduced(produced, repeat)
        ahead = golden.judge_ahead.claim((self.nodeid, repeat)) if golden.judge_ahead else None
        if case.expected is NO_EXPECTED:
            return produced.output, []
        folders = [golden.settings.rootpath, *golden.settings.schema_dirs]
        with references_confined_to(folders, "jsonmatch_golden's schema_dirs"):
            scored = compare_and_send(
                produced,
                case.expected,
                case.metric,
                case.threshold,
                case.options,
                golden.channel,
                repeat=repeat,
                ahead=ahead,
                case=self.nodeid,
                scorer=case.scorer,
            )
        return produced.output, [scored]

    def _unproduced(self, produced: Produced, repeat: int) -> NoReturn:
        """Record a run whose output could not be produced (attempted and not scored: it
        counts, as an error; SystemExit too), then raise its error. Ctrl-C is not recorded:
        it stops the run."""
        assert produced.error is not None
        from ..engine.agents.simulated_user import spoils
        from ..engine.core.masking import one_line

        self._attempts = produced.attempts_note
        spoiled = spoils(produced.error)
        if not isinstance(produced.error, KeyboardInterrupt):
            case, defaults = self.case, self.golden.channel.defaults
            name = case.metric or defaults.metric
            self.golden.channel.send(
                Outcome.of(
                    produced,
                    metric=case.scorer.label(name, case.expected),
                    threshold=case.threshold if case.threshold is not None else defaults.threshold,
                    repeat=repeat,
                    error=one_line(produced.error) + self._attempts,
                    spoiled=spoiled,
                )
            )
        if spoiled:  # neither the agent's pass nor its failure: pytest's word for "not tested"
            pytest.skip(one_line(produced.error))
        raise produced.error

    def _updates(
        self, updating: bool, passed: bool, results: list[tuple[MatchResult, float]]
    ) -> bool:
        """Whether the case's expected value is to be rewritten: it has none (the updating
        target's run), it failed under "fix", or under "all" it does not score 1.0 (an output
        spelt otherwise but scoring 1.0 is a right answer: its expected stays as the reviewer
        wrote it). A conversation's update is its turns' answers (it has no expected)."""
        talk = isinstance(self.case.scorer, ConversationExpectations)
        # (a run that scores no answer has nothing to update)
        updating = updating and (self.case.expected is not None or talk)
        kind = update.kind if updating and (update := self.golden.settings.update) else None
        return (
            (self.case.expected is NO_EXPECTED and updating)
            or (kind == "fix" and not passed)
            or (kind == "all" and bool(results) and results[0][0].score < 1.0)
        )

    def _failure(self, results: list[tuple[MatchResult, float]], runs: int) -> AssertionError:
        """The failure of a case that did not pass: its worst run's, after the repeat rule's
        summary when it ran several times."""
        from ..session.assertion import failure

        verbosity = self.golden.channel.defaults.verbosity
        worst, limit = min(results, key=lambda pair: pair[0].score)
        if runs == 1:
            return failure(worst, limit, verbosity)
        return AssertionError(
            self.golden.settings.repeat.failure_summary([r.score for r, _ in results], limit)
            + "\nthe worst run:\n"
            + str(failure(worst, limit, verbosity))
        )

    def _quarantined(self) -> bool:
        """Whether the quarantine covers this case today: its failure fails no test."""
        quarantine = self.golden.settings.quarantine
        return quarantine is not None and quarantine.covers(self.nodeid, self.target)

    def _passed(self, results: list[tuple[MatchResult, float]]) -> bool:
        """Whether the runs pass: the one run's verdict, or the repeat rule's."""
        if not results:
            return True
        must_be_valid = self.golden.channel.defaults.invalid_fails
        if len(results) == 1:
            result, limit = results[0]
            return bool(result.passed(limit, must_be_valid))
        return all(
            r.passed(0.0, must_be_valid) for r, _ in results
        ) and self.golden.settings.repeat.passes(
            [result.score for result, _ in results], results[0][1]
        )

    def _update(
        self, output: object, results: list[tuple[MatchResult, float]]
    ) -> CaseUpdate | None:
        """This case's expected to take what the metric counted wrong of ``output``, as the
        JSON value it holds (model text parsed leniently), held where an xfail is; written
        (or reviewed, with why it changes) at the end of the session (by the controller
        under xdist). None: nothing an update could write."""
        from ..engine.metrics import metric_named
        from ..engine.reading.intake import read_json
        from ..engine.reading.parse import parse_actual
        from ..updating.update_review import case_update

        case, golden = self.case, self.golden
        display, root = golden.cases.display(case.path), golden.settings.rootpath
        metric = metric_named(case.metric or golden.channel.defaults.metric)

        def read(answer: object) -> object:  # (model text parsed leniently)
            return read_json(parse_actual(answer, allow_array=metric.allow_array), "actual")[0]

        mode = golden.settings.update
        if isinstance(case.scorer, ConversationExpectations):  # (each turn's answer)
            turns = case.scorer.turns_update(output, results[0][0], read) if results else None
            if turns is None:
                return None
            return case_update(case, turns.new, display, root, results, mode, self._hold(), turns)
        output = case.scorer.answer_of(output)  # (an agent's reply or run: its answer)
        return case_update(case, read(output), display, root, results, mode, self._hold())

    def _hold(self) -> Hold | None:
        """The xfail that holds this case's update (None: none does): pytest's xfail mark
        (the case's ``marks``, or one a conftest adds), when its condition holds; else an
        xfail naming fields, for those fields. ``--runxfail`` runs xfail cases as any
        other, and updates them as any other."""
        from ..updating.update_fields import Hold

        if self.config.option.runxfail:
            return None
        try:
            from _pytest.skipping import evaluate_xfail_marks

            xfail = evaluate_xfail_marks(self)
            marked, reason = xfail is not None, xfail.reason if xfail is not None else ""
        except Exception:  # noqa: BLE001 - pytest's internals moved: any xfail mark holds
            mark = self.get_closest_marker("xfail")
            marked, reason = mark is not None, str(mark.kwargs.get("reason", "")) if mark else ""
        if marked:
            return Hold("xfail" + (f" ({reason})" if reason else ""))
        named = fields_expected_to_fail(self.case.marks)
        if named is None:
            return None
        because = f" ({named.reason})" if named.reason else ""
        return Hold(f"xfail at {named.named}{because}", named.covers)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"{self.nodeid} (line {self.case.line})"

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: object = None
    ) -> str:
        from ..cases.python_names import users_frame
        from ..engine.core.masking import one_line

        # whatever the case, the target or its exception says, in every --tb style: no line
        # of it may start a workflow command nor carry a control character (safe_text)
        exc = excinfo.value
        if isinstance(exc, AssertionError):
            # the message's first line (metric, score, threshold) is what the short summary shows
            about = f"\ncase: {self.case.description}" if self.case.description else ""
            return safe_text(str(exc) + about)
        where = (
            f"{self.golden.cases.display(self.path)}:{self.case.line}: case {self.case.id!r}"
            + (f" (target {self.target})" if self.target else "")
        )
        if isinstance(exc, JsonMatchError):
            return safe_text(f"{where}: {exc}{self._attempts}")
        # the target raised: its type, message and the last line of the user's own code;
        # the runner's threads and pytest's frames in between say nothing (--tb=long shows all)
        said = f"{where}: {one_line(exc)}{self._attempts}"  # (the short summary's line)
        if self.golden.settings.full_tracebacks:
            return safe_text(f"{said}\n{super().repr_failure(excinfo)}")
        frame = users_frame(exc)
        return safe_text(said + (f"\n  {frame}" if frame else ""))
