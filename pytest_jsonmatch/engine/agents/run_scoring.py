"""An agent's whole run scored as one comparison: its final answer, its trajectory, its end
state, one field table.

Each part the expected side gives is scored by the engine's own metric: the answer (the
content of the run's last assistant message) under the case's metric and options, as a
reply's answer is; the run's messages against ``expected_run`` by the ``trajectory`` metric
with ``run_options`` (from its first assistant message on: the conversation it was given is
no step of it); the state the run left against ``expected_state`` under the case's
metric and options. The parts' rows take their own paths: the answer's as they are, the
run's under ``run`` (``run[2].book_flight.pnr``), the state's under ``state``
(``state.bookings[0].date``); ``ignore`` and ``fields`` name them so, each applied to its
own part (run_paths.py). One score: :func:`~..results.field_results.combined`, each
part's headline weighted by its counted rows (docs/metrics.md, "An agent's run: answer,
trajectory, state").
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ConfigError, ParseError
from ..core.paths import index_segment
from ..core.values import JsonValue
from ..entry import entry_for
from ..match import match_json
from ..results.field_results import FieldResult, FloorFailure, MatchResult, Part, combined
from .agent_run import run_parts
from .end_states import match_state, placed, under
from .reply import RUN_METRIC, answer_scored, part_options
from .run_paths import ruled_rows, split_paths

# the metrics that score one of a run's parts already: not the answer's
_PART_METRICS = frozenset({RUN_METRIC, "tool_calls"})


def match_run(
    actual: object,
    expected: object = None,
    expected_run: object = None,
    expected_state: object = None,
    metric: str = "field_f1",
    run_options: Mapping[str, object] | None = None,
    **options: object,
) -> MatchResult:
    """Score an agent's run (``actual``: an ``AgentRun``, its JSON form
    ``{"messages": [...], "state": ...}``, or its list of messages) against the parts the
    expected side gives: ``expected`` (the final answer's fields; None: not scored),
    ``expected_run`` (any trajectory the ``trajectory`` metric reads; ``run_options``: its
    ``mode``, ``args``, ``tool_args``, ``pairing``) and ``expected_state`` (the end state,
    under ``metric`` and ``options``). At least one part must be given.

    The result's ``metric`` names the parts (``field_f1+trajectory+state``); its fields are
    the answer's, then the run's, then the state's."""
    if expected is None and expected_run is None and expected_state is None:
        raise ConfigError(
            "an agent's run is scored against expected (its answer), expected_run or "
            "expected_state: give at least one"
        )
    if metric in _PART_METRICS:
        raise ConfigError(
            f"metric {metric!r} scores one part of a run: give the answer's and the state's "
            f"metric (field_f1, ...) and the expected trajectory as expected_run"
        )
    if isinstance(expected, Mapping):  # (given as text, it is checked once read)
        _check_keys(expected, expected_run is not None, expected_state is not None)
    run = run_parts(actual)
    given = (("run", expected_run is not None), ("state", expected_state is not None))
    paths = split_paths(options, frozenset(part for part, there in given if there))
    parts: list[Part] = []
    floors: list[FloorFailure] = []
    # the run and the state first: a mistake in either costs the answer's judge nothing
    if expected_run is not None:
        start = run.start
        steps = _run_scored(run.messages[start:], expected_run, run_options, options)
        rows = [_step_row(fr, start) for fr in steps.fields]
        rows, score, held = ruled_rows(rows, steps.score, paths.run)
        parts.append(Part("trajectory", score, rows, RUN_METRIC))
        floors += held
    if expected_state is not None:
        state = _state_scored(run.state, expected_state, metric, paths.state)
        rows = [placed(fr, "state", "state") for fr in state.fields]
        parts.append(Part("state", state.score, rows, metric))
        floors += [
            FloorFailure(under("state", f.path), f.min_score, f.score) for f in state.floor_failures
        ]
    answer: MatchResult | None = None
    if expected is not None:
        entry = entry_for(metric, paths.answer, check=True)
        wanted, depth = entry.read_expected(expected, "expected")
        _check_keys(wanted, expected_run is not None, expected_state is not None)
        answer = answer_scored(entry, wanted, depth, run.answer)
        parts.insert(0, Part("answer", answer.score, list(answer.fields), metric))
        floors[:0] = answer.floor_failures
    return combined(parts, answer, tuple(floors))


def _check_keys(expected: object, run: bool, state: bool) -> None:
    """ConfigError where the expected answer has a top-level key that heads another part's
    paths: their fields would share them."""
    if not isinstance(expected, Mapping):
        return
    for key, given in (("run", run), ("state", state)):
        if given and key in expected:
            raise ConfigError(
                f"expected answer key {key!r} would share its paths with the run's "
                f"{'trajectory' if key == 'run' else 'end state'} (expected_{key}: "
                f"{key}...): rename the answer's key"
            )


def _step_row(fr: FieldResult, start: int) -> FieldResult:
    """A trajectory row under ``run``; where it was found named in the run's messages
    (``messages[5].tool_calls[0].function``: the index counts the conversation too)."""
    row = placed(fr, "run", "run")
    where = fr.actual_path
    if where is None or not where.startswith("["):
        return row
    index, rest = where[1:].split("]", 1)
    if not index.isdigit():
        return row
    return row._replace(actual_path=f"{index_segment('messages', int(index) + start)}{rest}")


def _run_scored(
    messages: list[JsonValue],
    expected_run: object,
    run_options: Mapping[str, object] | None,
    options: Mapping[str, object],
) -> MatchResult:
    """The run's messages scored by the ``trajectory`` metric."""
    given = part_options(run_options, "run_options", RUN_METRIC, options)
    try:
        return match_json(messages, expected_run, RUN_METRIC, **given)
    except ParseError as exc:
        if exc.side == "actual":
            raise
        raise ConfigError(f"expected_run: {exc}") from None
    except ConfigError as exc:
        raise ConfigError(f"run_options: {exc}") from None


def _state_scored(
    state: JsonValue | None, expected: object, metric: str, options: Mapping[str, object]
) -> MatchResult:
    """The state the run left scored under the case's metric (ParseError, on the actual
    side, where the run gave none)."""
    if state is None:
        error = ParseError(
            "the run holds no state (null) but an end state is expected: return "
            "AgentRun(messages, state=...) from the target"
        )
        error.side = "actual"
        raise error
    try:
        return match_state(state, expected, metric, **options)
    except ParseError as exc:
        if exc.side == "actual":
            raise
        raise ConfigError(f"expected_state: {exc}") from None
