"""An agent case's scorer: one reply (its answer and its tool calls) or one whole run (its
final answer, its trajectory, its end state), scored as one comparison with one field table.

A scorer is built once for a case's expected parts and settings (each part's
:class:`~..entry.Entry` built, each expected side read, here); it reads an output once, into
one :class:`~..reading.agent_messages.Conversation`, and scores every part from that reading
(the ``tool_calls`` and ``trajectory`` entries take it as it is: ``Entry.read_scored``).
:class:`ReplyScorer` and :class:`RunScorer`; :func:`match_reply` and :func:`match_run` build
one and score once.

A reply: its answer's fields are scored under the case's metric and options (schema,
transforms, the judge), exactly as a plain comparison; the calls' fields by the
``tool_calls`` metric with the call options, under their function names
(``rebook_flight.pnr``). Paths stay unambiguous: an expected answer with a top-level key
named as an expected call's function is refused (ConfigError naming both); where the reply
itself puts one name in both parts, the rows of the part the expected side does not give
that name to move under ``name()`` (:func:`_apart`).

A run: the answer (the content of its last assistant message) under the case's metric and
options, as a reply's is; its messages against ``expected_run`` by the ``trajectory`` metric
with ``run_options`` (from its first assistant message on: the conversation it was given is
no step of it); the state it left against ``expected_state`` under the case's metric and
options. Its rows take their own paths: the answer's as they are, the run's under ``run``
(``run[2].book_flight.pnr``), the state's under ``state`` (``state.bookings[0].date``);
``ignore`` and ``fields`` name them so, each applied to its own part (run_paths.py).

One score: :func:`~..results.field_results.combined`, each part's headline weighted by its
counted rows; precision, recall and F1 counted over all the rows (docs/metrics.md, "An
agent's reply: answer and calls" and "An agent's run: answer, trajectory, state").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from ..core.errors import ConfigError, ParseError, shown
from ..core.gc_pause import collector_paused
from ..core.paths import key_forms
from ..core.values import JsonValue
from ..entry import Entry, entry_for
from ..reading.agent_messages import Conversation, Message, agent_data, read_messages, read_reply
from ..reading.intake import read_json
from ..results.field_results import FieldResult, FloorFailure, MatchResult, Part, combined
from ..tool_calls import read_expected_calls
from .agent_run import read_run
from .run_paths import placed, ruled_rows, split_paths, under
from .state_reading import Note, as_data, read_state

CALLS_METRIC = "tool_calls"
RUN_METRIC = "trajectory"
# the metrics that score one of a run's parts already: not the answer's
_PART_METRICS = frozenset({RUN_METRIC, CALLS_METRIC})
T = TypeVar("T")


def match_reply(
    actual: object,
    expected: object,
    expected_calls: object,
    metric: str = "field_f1",
    call_options: Mapping[str, object] | None = None,
    **options: object,
) -> MatchResult:
    """Score an agent's reply (``actual``: its answer and its tool calls) in one comparison.

    ``actual`` is an assistant message (``TargetResult.answer()``'s, an ``openai`` message
    object or dict), a chat-completions response, an Anthropic message or an OpenAI
    Responses output. Its answer (the message's JSON content, or its text parsed leniently;
    no text is an empty answer) is scored against ``expected`` under ``metric`` and
    ``options`` as :func:`~..match.match_json` scores it; its calls against
    ``expected_calls`` (any expected form of the ``tool_calls`` metric; ``[]``: no call) by
    the ``tool_calls`` metric with ``call_options`` (``order``, ``rules``, ``tools``...).

    ``expected`` None: a tool-only reply, whose calls alone are scored (its answer, text
    or none, is not read): the result is the calls' part alone, its ``metric``
    ``"tool_calls"``.

    The result's ``metric`` is ``"<metric>+tool_calls"``; its fields the answer's, then the
    calls'; its score the mean of the parts' scores weighted by their counted rows.
    ``metric="tool_calls"`` is refused: the calls would be given twice."""
    return ReplyScorer(expected, expected_calls, metric, call_options, options).scored(actual)


class ReplyScorer:
    """One reply case's scorer, made once for its expected answer and calls and its
    settings: both entries built and both expected sides read here; :meth:`scored` reads
    a reply once and scores its answer and its calls from it."""

    __slots__ = ("metric", "answers", "calls", "read", "wanted", "expected_names")

    def __init__(
        self,
        expected: object,
        expected_calls: object,
        metric: str,
        call_options: Mapping[str, object] | None,
        options: Mapping[str, object],
    ) -> None:
        if metric == CALLS_METRIC:
            raise ConfigError(
                "match_reply scores the calls by tool_calls already: give the answer's metric "
                "(field_f1, ...), or score the calls alone with match_json(metric='tool_calls')"
            )
        self.metric = metric
        self.answers, self.calls = _entries(metric, dict(options), call_options)
        # the expected answer and its reading depth (None: a tool-only reply)
        self.read = None if expected is None else self.answers.read_expected(expected, "expected")
        value, depth = self.calls.read_expected(expected_calls, "expected_calls")
        wanted = read_expected_calls(value, "expected_calls")
        self.wanted = wanted, depth
        self.expected_names = [call.name for call in wanted.calls]
        if self.read is not None:
            _check_names(self.read[0], self.expected_names)

    def scored(self, actual: object) -> MatchResult:
        """The reply ``actual`` scored: its answer and its calls, one table."""
        depth, reply = _reply(actual)
        wanted, depth_c = self.wanted
        try:  # (the calls first: a reply whose calls cannot be read costs the judge nothing)
            made = self.calls.read_scored(wanted, Conversation((reply,)), max(depth, depth_c))
        except ParseError as exc:
            exc.side = "actual"  # the reply's calls could not be read
            raise
        called = [call.name for call in reply.calls]
        if self.read is None:  # a tool-only reply: its answer is neither read nor scored
            return combined([Part("calls", made.score, list(made.fields), CALLS_METRIC)])
        answer = answer_scored(self.answers, *self.read, reply.answer)
        answer_rows, call_rows = _apart(
            list(answer.fields), list(made.fields), self.expected_names, called
        )
        return combined(
            [
                Part("answer", answer.score, answer_rows, self.metric),
                Part("calls", made.score, call_rows, CALLS_METRIC),
            ],
            answer,
        )


def _entries(
    metric: str, options: dict[str, object], call_options: Mapping[str, object] | None
) -> tuple[Entry, Entry]:
    """The answer's entry and the calls' (the same registry for both)."""
    for_calls = part_options(call_options, "call_options", CALLS_METRIC, options)
    answers = entry_for(metric, options, check=True)
    try:
        calls = entry_for(CALLS_METRIC, for_calls, check=True)
    except ConfigError as exc:
        raise ConfigError(f"call_options: {exc}") from None
    return answers, calls


def part_options(
    given: object, name: str, metric: str, options: Mapping[str, object]
) -> dict[str, object]:
    """The options a part of an agent's output is scored with (``call_options`` under
    ``tool_calls``, ``run_options`` under ``trajectory``): a mapping, or None for none; the
    comparison's registry carried over, so that every part scores with the same one."""
    if given is None:
        given = {}
    elif not isinstance(given, Mapping):
        raise ConfigError(f"{name} must be a mapping of {metric} options, not {shown(given)}")
    out: dict[str, object] = dict(given)
    if "registry" in options and "registry" not in out:
        out["registry"] = options["registry"]
    return out


def _check_names(expected: JsonValue, names: Sequence[str]) -> None:
    """ConfigError where an expected answer's top-level key is an expected call's name: their
    fields would share a path."""
    if not isinstance(expected, Mapping):
        return
    for name in names:
        if name in expected:
            raise ConfigError(
                f"expected answer key {name!r} is also the function of an expected call "
                f"(expected_calls: {name}(...)): their fields would share the path "
                f"{key_forms(name)[0]!r}; rename the answer's key"
            )


def answer_of(actual: object) -> JsonValue:
    """The answer of a reply, as an expected value is written from it (an update of a golden
    case): its JSON value or text (parsed as an answer is), ``{}`` where it wrote none."""
    answer = _reply(actual)[1].answer
    return {} if answer is None else answer


def _reply(actual: object) -> tuple[int, Message]:
    """The reply read, once, and how deeply its JSON nests."""
    try:
        value, depth = read_json(agent_data(actual, "actual"), "actual")
        return depth, read_reply(value)
    except ParseError as exc:
        exc.side = "actual"  # the reply itself could not be read
        raise


def answer_scored(
    entry: Entry, expected: JsonValue, depth: int, answer: JsonValue | None
) -> MatchResult:
    """The answer's part: scored as a plain answer; a reply with no answer written scores
    against an empty object (every expected field left out)."""
    parsed, cut = entry.parse_actual({} if answer is None else answer, "actual answer")
    return entry.scored(expected, depth, parsed, cut, "actual answer")


def _apart(
    answer: list[FieldResult],
    calls: list[FieldResult],
    expected_names: Sequence[str],
    called: Sequence[str],
) -> tuple[list[FieldResult], list[FieldResult]]:
    """Both parts' rows, no path in both: for each function name that heads rows of both
    parts, the rows of the part the expected side does not give it to (an expected call's
    name: the answer's; else the calls') move under ``name()`` (more ``()`` until free)."""
    for name in dict.fromkeys([*expected_names, *called]):
        top = key_forms(name)[0]
        if not any(_under(_table_path(fr), top) for fr in answer):
            continue
        if not any(_under(_table_path(fr), top) for fr in calls):
            continue
        free = name + "()"
        while any(_under(_table_path(fr), key_forms(free)[0]) for fr in (*answer, *calls)):
            free += "()"
        moved = key_forms(free)[0]
        if name in expected_names:
            answer = [_moved(fr, top, moved) for fr in answer]
        else:
            calls = [_moved(fr, top, moved) for fr in calls]
    return answer, calls


def _table_path(fr: FieldResult) -> str:
    """The path a row is tabled by: its field path (its instance path where it has none)."""
    return fr.field_path or fr.path


def _under(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or below it."""
    return path.startswith(top) and (len(path) == len(top) or path[len(top)] in ".[")


def _moved(fr: FieldResult, top: str, moved: str) -> FieldResult:
    """``fr`` with its paths that start with the segment ``top`` starting with ``moved``."""

    def swap(path: str) -> str:
        return moved + path[len(top) :] if _under(path, top) else path

    actual_path = None if fr.actual_path is None else swap(fr.actual_path)
    return fr._replace(path=swap(fr.path), field_path=swap(fr.field_path), actual_path=actual_path)


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
    scorer = RunScorer(expected, expected_run, expected_state, metric, run_options, options)
    return scorer.scored(actual)


class RunScorer:
    """One run case's scorer, made once for its expected parts and settings: each part's
    entry built and its expected side read here; :meth:`scored` reads a run once (its
    messages into one :class:`~..reading.agent_messages.Conversation`) and scores every
    part from it."""

    __slots__ = ("metric", "paths", "trajectory", "state", "answer")

    def __init__(
        self,
        expected: object,
        expected_run: object,
        expected_state: object,
        metric: str,
        run_options: Mapping[str, object] | None,
        options: Mapping[str, object],
    ) -> None:
        if expected is None and expected_run is None and expected_state is None:
            raise ConfigError(
                "an agent's run is scored against expected (its answer), expected_run or "
                "expected_state: give at least one"
            )
        if metric in _PART_METRICS:
            raise ConfigError(
                f"metric {metric!r} scores one part of a run: give the answer's and the "
                f"state's metric (field_f1, ...) and the expected trajectory as expected_run"
            )
        run_given, state_given = expected_run is not None, expected_state is not None
        if isinstance(expected, Mapping):  # (given as text, it is checked once read)
            _check_keys(expected, run_given, state_given)
        given = (("run", run_given), ("state", state_given))
        self.metric = metric
        self.paths = split_paths(options, frozenset(part for part, there in given if there))
        self.trajectory = (
            None if expected_run is None else _trajectory(expected_run, run_options, options)
        )
        self.state: tuple[Entry, dict[str, JsonValue]] | None = None
        if expected_state is not None:
            entry = entry_for(metric, dict(self.paths.state), check=True)
            self.state = (
                entry,
                _expected_side(read_expected_state, expected_state, "expected_state"),
            )
        self.answer: tuple[Entry, JsonValue, int] | None = None
        if expected is not None:
            entry = entry_for(metric, dict(self.paths.answer), check=True)
            wanted, depth = entry.read_expected(expected, "expected")
            _check_keys(wanted, run_given, state_given)
            self.answer = entry, wanted, depth

    def scored(self, actual: object) -> MatchResult:
        """The run ``actual`` scored: its answer, trajectory and end state, one table. (The
        cyclic collector paused meanwhile: a run of thousands of steps makes as many field
        results and rows, none in a cycle, core/gc_pause.py.)"""
        with collector_paused():
            return self.scored_read(read_run(actual))

    def scored_read(self, run: Conversation) -> MatchResult:
        """A run read already (one turn of a conversation, or a whole run) scored."""
        parts: list[Part] = []
        floors: list[FloorFailure] = []
        # the run and the state first: a mistake in either costs the answer's judge nothing
        if self.trajectory is not None:
            entry, want, depth = self.trajectory
            steps = entry.read_scored(want, run.from_start(), max(depth, run.depth))
            rows = [_step_row(fr) for fr in steps.fields]
            rows, score, held = ruled_rows(rows, steps.score, self.paths.run)
            parts.append(Part("trajectory", score, rows, RUN_METRIC))
            floors += held
        if self.state is not None:
            state = _state_scored(run.state, *self.state)
            rows = [placed(fr, "state", "state") for fr in state.fields]
            parts.append(Part("state", state.score, rows, self.metric))
            floors += [
                FloorFailure(under("state", f.path), f.min_score, f.score)
                for f in state.floor_failures
            ]
        answer: MatchResult | None = None
        if self.answer is not None:
            answer = answer_scored(*self.answer, run.answer)
            parts.insert(0, Part("answer", answer.score, list(answer.fields), self.metric))
            floors[:0] = answer.floor_failures
        return combined(parts, answer, tuple(floors))


def _trajectory(
    expected_run: object, run_options: Mapping[str, object] | None, options: Mapping[str, object]
) -> tuple[Entry, Conversation, int]:
    """The trajectory's entry, the expected run read once, and how deeply it nests."""
    given = part_options(run_options, "run_options", RUN_METRIC, options)
    try:
        entry = entry_for(RUN_METRIC, given, check=True)
    except ConfigError as exc:
        raise ConfigError(f"run_options: {exc}") from None

    def read(value: object) -> tuple[Conversation, int]:
        wanted, depth = entry.read_expected(value, "expected")
        return Conversation(tuple(read_messages(wanted, "expected"))), depth

    want, depth = _expected_side(read, expected_run, "expected_run")
    return entry, want, depth


def _expected_side(read: Callable[[object], T], value: object, key: str) -> T:
    """``read(value)``: an expected part read, where it cannot be, a ConfigError naming
    its key (the case's own mistake, not the run's)."""
    try:
        return read(value)
    except ParseError as exc:
        raise ConfigError(f"{key}: {exc}") from None


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


def _step_row(fr: FieldResult) -> FieldResult:
    """A trajectory row under ``run``; where it was found kept as the run's messages name
    it (``messages[5].tool_calls[0].function``: the index counts the conversation too)."""
    row = placed(fr, "run", "run")
    if fr.actual_path is None or not fr.actual_path.startswith("messages["):
        return row
    return row._replace(actual_path=fr.actual_path)


def _state_scored(
    state: JsonValue | None, entry: Entry, expected: dict[str, JsonValue]
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
        return scored_state(entry, state, expected)
    except ParseError as exc:
        if exc.side == "actual":
            raise
        raise ConfigError(f"expected_state: {exc}") from None


def read_expected_state(expected: object) -> dict[str, JsonValue]:
    """An expected state read to its JSON object (once: a run case's scorer keeps it)."""
    return state_object(expected, "expected state")


def scored_state(entry: Entry, actual: object, expected: dict[str, JsonValue]) -> MatchResult:
    """The state ``actual`` scored by ``entry`` against the expected state read already:
    both sides made alike (``as_data``), the notes said in the rows' reasons."""
    actual_json = actual if type(actual) is dict else state_object(actual, "actual state")
    actual_json, expected_json, notes = as_data(actual_json, expected)
    wanted, depth = entry.read_expected(expected_json, "expected")
    parsed, cut = entry.parse_actual(actual_json, "actual")
    return _noted(entry.scored(wanted, depth, parsed, cut, "actual"), notes)


def _noted(result: MatchResult, notes: tuple[Note, ...]) -> MatchResult:
    """``result`` with each note in the reason of every row at or under its path (on its
    side: the expected side's path, or where the actual value was found)."""
    if not notes:
        return result
    return result.replace(fields=tuple(_with_notes(field, notes) for field in result.fields))


def _with_notes(field: FieldResult, notes: tuple[Note, ...]) -> FieldResult:
    said = [
        f"{note.side}: {note.text}"
        for note in notes
        if _at_or_under(
            field.path if note.side == "expected" else field.actual_path or field.path, note.path
        )
    ]
    if not said:
        return field
    return field._replace(reason="; ".join([field.reason, *said] if field.reason else said))


def _at_or_under(path: str, place: str) -> bool:
    return path == place or (path.startswith(place) and path[len(place)] in ".[")


def state_object(state: object, side: str) -> dict[str, JsonValue]:
    """A state read to JSON (``read_state``), which must be an object."""
    value = read_state(state, side)
    if not isinstance(value, dict):
        raise ConfigError(
            f"{side} reads to {type(value).__name__} {value!r:.60}, not an object: a state "
            f"is compared as an object (its attributes, tables or files)"
        )
    return value
