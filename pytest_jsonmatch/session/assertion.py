"""assert_json_match and the ``json_match`` helper behind the fixture: score, send, raise.

A golden case's item scores its runs here too (:func:`compare_and_send`). Nothing here
imports pytest; the failure message is reporting/render/failure_message.py's. Each comparison goes
to a :class:`~.channel.Channel`, which also holds the session's settings and verbosity: the
fixture's is its session's, ``assert_json_match`` takes the current one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..calls.produced import Produced
from ..cases.agent_expectations import PLAIN, CaseScorer, scorer_of
from ..engine.configuring.walk_config import unit_number
from ..engine.core.errors import (
    ComparatorError,
    ConfigError,
    JsonMatchError,
    ParseError,
    TruncatedError,
)
from ..engine.core.masking import one_line
from ..engine.metrics import REGISTRY
from ..engine.results.field_results import SKIPPED, MatchResult
from ..reporting.render.failure_message import format_failure
from .channel import Channel, Defaults, current, lend, take_back
from .outcome import Outcome

if TYPE_CHECKING:
    from ..engine.judge import JudgeFigures


def assert_json_match(
    actual: object,
    expected: object,
    metric: str | None = None,
    threshold: float | None = None,
    *,
    expected_calls: object = None,
    call_options: Mapping[str, object] | None = None,
    expected_run: object = None,
    run_options: Mapping[str, object] | None = None,
    expected_state: object = None,
    **options: object,
) -> MatchResult:
    """Score ``actual`` against ``expected`` and return the MatchResult; raise
    AssertionError when the score is below ``threshold`` or a field is below its
    ``min_score`` (the error's ``result`` and ``threshold`` attributes hold the details).

    ``metric``, ``threshold`` and options default to the session's settings (ini
    ``jsonmatch_metric``, ``jsonmatch_threshold``, ``jsonmatch_options``) when pytest runs
    the plugin, else to ``field_f1`` and 1.0. ``threshold`` must be a number in [0, 1]
    (ConfigError otherwise). Every call is recorded for the summary; one that cannot be
    scored (a ParseError, an unknown option) is recorded as an error, then raised.

    ``expected_calls`` (keyword only; not an option of the metric) makes it an agent's
    reply: ``actual`` is then the assistant message, its answer scored against ``expected``
    under ``metric`` and the options (``expected`` None: a tool-only reply, its answer not
    scored), its tool calls against ``expected_calls`` (any expected form of ``tool_calls``;
    ``[]``: it must call nothing) by ``tool_calls`` with ``call_options``; one comparison,
    one score (``match_reply``, docs/tool-calls.md).
    ``None`` (the default): a plain comparison.

    ``expected_run`` and/or ``expected_state`` (keyword only) make it an agent's whole run:
    ``actual`` is then an ``AgentRun`` (or its JSON form, or its list of messages), its
    trajectory scored against ``expected_run`` by ``trajectory`` with ``run_options``, the
    state it left against ``expected_state`` and its final answer against ``expected``
    (``None``: not scored), both under ``metric`` and the options; one comparison, one
    score (``match_run``, docs/agents.md)."""
    __tracebackhide__ = True
    scorer = scorer_of(expected_calls, call_options, expected_run, run_options, expected_state)
    return _check(actual, expected, metric, threshold, options, current(), scorer)


class JsonMatcher:
    """What the ``json_match`` fixture gives a test: ``json_match(actual, expected)`` is
    :func:`assert_json_match` with the session's metric, threshold and options, recorded
    through the session's channel."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    @property
    def defaults(self) -> Defaults:
        return self.channel.defaults

    @property
    def metric(self) -> str:
        return self.defaults.metric

    @property
    def threshold(self) -> float:
        return self.defaults.threshold

    @property
    def options(self) -> Mapping[str, object]:
        return dict(self.defaults.options)

    if TYPE_CHECKING:  # (called as assert_json_match is: its arguments, checked as its are)
        __call__ = staticmethod(assert_json_match)
    else:

        def __call__(self, *args, **kwargs):
            """:func:`assert_json_match`, recorded through this session's channel."""
            __tracebackhide__ = True
            token = lend(self.channel)
            try:
                return assert_json_match(*args, **kwargs)
            finally:
                take_back(token)

    def __repr__(self) -> str:
        return f"<json_match metric={self.metric!r} threshold={self.threshold!r}>"


def _check(
    actual: object,
    expected: object,
    metric: str | None,
    threshold: object,
    options: Mapping[str, object],
    channel: Channel,
    scorer: CaseScorer,
) -> MatchResult:
    __tracebackhide__ = True
    result, limit = compare_and_send(
        Produced(output=actual), expected, metric, threshold, options, channel, scorer=scorer
    )
    if not result.passed(limit, channel.defaults.invalid_fails):
        raise failure(result, limit, channel.defaults.verbosity)
    return result


def compare_and_send(
    produced: Produced,
    expected: object,
    metric: str | None,
    threshold: object,
    options: Mapping[str, object],
    channel: Channel,
    *,
    repeat: int = 0,
    ahead: JudgeFigures | None = None,
    case: str | None = None,
    scorer: CaseScorer = PLAIN,
) -> tuple[MatchResult, float]:
    """Score one comparison (run ``repeat`` of its case; its output, where it came from and
    what its call took are ``produced``'s) with ``channel``'s defaults and send it there;
    return the result and the threshold it is held to. One that cannot be scored is recorded
    as an error with its reason, and its error raised. What the judge did for it is kept with
    it (``ahead``: what judging its case ahead asked; ``case``: its test id, for the verdicts).
    ``scorer`` scores it: a plain comparison's, or an agent case's (its reply's answer and
    calls, or its whole run's answer, trajectory and end state, as one comparison under a
    metric naming the parts: ``<metric>+tool_calls``)."""
    __tracebackhide__ = True
    defaults = channel.defaults
    name = metric or defaults.metric
    shown = scorer.label(name, expected)
    limit = defaults.threshold
    judged = REGISTRY.judge_tab(ahead, case)
    merged: Mapping[str, object] = options
    try:
        if threshold is not None:
            limit = unit_number(threshold, "threshold")
        merged = scrubbed_ignored(defaults.options_for(name, options), produced, name)
        with judged:
            result = scorer.scored(produced.output, expected, name, merged)
        _compares_something(result, merged, produced, case)
        call = produced.call
        if call is not None and call.cut_off and merged.get("truncated", "error") == "error":
            raise call.cut_error()  # the model says it stopped at its limit: a cut answer
    except JsonMatchError as exc:
        # a bad threshold is recorded too (held to the session's): every attempt counts
        channel.send(
            Outcome.of(
                produced,
                metric=str(shown),
                threshold=limit,
                repeat=repeat,
                judge=judged.figures(),
                error=one_line(exc),
                unread=_unread(exc, merged),
            )
        )
        # the message says it all: raised from here, not from deep inside the engine
        raise exc.with_traceback(None) from None
    _send_scored(channel, produced, result, limit, repeat, judged.figures())
    return result, limit


def _send_scored(
    channel: Channel,
    produced: Produced,
    result: MatchResult,
    limit: float,
    repeat: int,
    judge: Mapping[str, object] | None,
) -> None:
    """Send run ``repeat``'s scored comparison with its verdict against ``limit``; one whose
    fields a batch comparator (the judge) left undecided is an error, sent, then raised."""
    __tracebackhide__ = True
    # a judge that failed is not a low score: the comparison is an error, not a failure
    undecided = result.batch_errors
    batch = ComparatorError(batch_error_message(result)) if undecided else None
    channel.send(
        Outcome.of(
            produced,
            metric=result.metric,
            threshold=limit,
            repeat=repeat,
            judge=judge,
            result=result if batch is None else None,
            passed=batch is None and result.passed(limit, channel.defaults.invalid_fails),
            error="" if batch is None else one_line(batch),
            undecided=undecided,
        )
    )
    if batch is not None:
        raise batch


def _compares_something(
    result: MatchResult, options: Mapping[str, object], produced: Produced, case: str | None
) -> None:
    """ConfigError where ``ignore`` (or what the record setting scrubbed) left every field of
    the comparison out: it compared nothing, and a comparison of nothing must not pass in
    silence. Named: the case (where it is one) and the patterns."""
    if not result.fields or any(row.status != SKIPPED for row in result.fields):
        return
    given = options.get("ignore")  # (the scrubbed fields were added at its end)
    named = [given] if isinstance(given, str) else list(given) if isinstance(given, list) else []
    if produced.ignored and tuple(named[-len(produced.ignored) :]) == produced.ignored:
        named = named[: -len(produced.ignored)]
    why = [f"ignore {', '.join(map(repr, named))}"] if named else []
    if produced.ignored:
        why.append(f"the record setting's scrub ({', '.join(map(repr, produced.ignored))})")
    if not why:
        return  # (rows skipped by another rule, a field's own skip: said where they are)
    raise ConfigError(
        f"{'case ' + repr(case) + ': ' if case else ''}{' and '.join(why)} left every field "
        f"out of the comparison ({len(result.fields)} skipped): it compares nothing, so it "
        "cannot pass; narrow the pattern, or give the fields it must compare"
    )


def scrubbed_ignored(
    options: dict[str, object], produced: Produced, metric: str
) -> dict[str, object]:
    """``options`` with what the record setting scrubbed (``produced.ignored``) added to
    their ``ignore``, so that a scrubbed field counts nowhere; an ``ignore`` of the wrong
    type is left for the metric to name. A metric that takes no ``ignore`` (``tool_calls``,
    ``trajectory``) scores the output as recorded."""
    if not produced.ignored:
        return options
    from ..engine.metrics import metric_named

    try:
        if "ignore" not in metric_named(metric).options:
            return options
    except JsonMatchError:
        return options  # (an unknown metric: its scoring names it)
    given = options.get("ignore")
    if given is None or isinstance(given, str):
        options["ignore"] = ([] if given is None else [given]) + list(produced.ignored)
    elif isinstance(given, (list, tuple)):
        options["ignore"] = [*given, *produced.ignored]
    return options


def _unread(exc: JsonMatchError, options: Mapping[str, object]) -> str:
    """How an answer held to a schema could not be read (it counts as invalid), else empty."""
    if not isinstance(exc, ParseError) or exc.side != "actual" or options.get("schema") is None:
        return ""
    return "cut off" if isinstance(exc, TruncatedError) else "unreadable"


def batch_error_message(result: MatchResult) -> str:
    """What a comparison with fields a batch comparator could not score says: how many, the
    comparators and their reasons, and the first paths (reporting/verdicts/undecided_verdicts.py)."""
    from ..reporting.verdicts.undecided_verdicts import undecided_message

    return undecided_message(result)


def failure(result: MatchResult, threshold: float, verbosity: int) -> AssertionError:
    """The AssertionError of a failed comparison (``result`` and ``threshold`` attached)."""
    error = AssertionError(format_failure(result, threshold, verbosity))
    error.result = result  # type: ignore[attr-defined]
    error.threshold = threshold  # type: ignore[attr-defined]
    return error
