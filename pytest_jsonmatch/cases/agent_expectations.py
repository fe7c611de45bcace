"""An agent case's expectations, read and checked in one place: one reply's expected calls
(``expected_calls``, with ``call_options``; beside ``expected``, its answer, or alone) or a
whole run's trajectory and end state (``expected_run``, with ``run_options``;
``expected_state``). :class:`AgentExpectations` is made once, from a case file's keys or
``assert_json_match``'s keywords, held to one rule (:func:`refusal`), and scores the case.
``call_options`` and ``run_options`` are settings, as ``options`` is, merged from folder to
case key by key, each level checked by its metric (:func:`call_options_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..engine.core.errors import CaseFileError, ConfigError, JsonMatchError
from ..engine.core.slotted import Slotted
from ..engine.reading.agent_messages import AgentKind
from ..engine.reading.user_files import read_regular_text
from .python_names import with_named_tools

if TYPE_CHECKING:
    from ..engine.agents import ReplyScorer, RunScorer
    from ..engine.results.field_results import MatchResult, PartName

    _Scorer = ReplyScorer | RunScorer

# the expected parts that make a case an agent's: such a case may leave out ``expected``, its
# answer, which is then not scored (a tool-only reply, a run judged by its steps or its state)
AGENT_KEYS = ("expected_calls", "expected_run", "expected_state")
# those and their options: a case's keys and assert_json_match's keywords, in this order
ALL_AGENT_KEYS = ("expected_calls", "call_options", "expected_run", "run_options", "expected_state")
# each options key and the metric that checks it
_OPTIONS_METRIC = {"call_options": "tool_calls", "run_options": "trajectory"}
# what each expected part must be in a case file (YAML read it: text there is a mistake,
# where a call's keyword may be JSON text the engine reads)
_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "expected_calls": (
        (list, Mapping),
        "the calls the reply makes (a list, [] for none, or a mapping with calls or "
        "possible_answer)",
    ),
    "expected_run": (
        (list, Mapping),
        "the run's steps or messages (a list), or a mapping holding them under messages",
    ),
    "expected_state": (
        (Mapping,),
        "a mapping (the state as JSON: its attributes, tables or files)",
    ),
}
INPUT_CHANGED = "the case's input"  # (what a stale recording's input change is called)
# (line, message) -> the error, as the case file reader words it
Error = Callable[[int, str], CaseFileError]


class CaseScorer(Protocol):
    """What scores a case's output, whatever the case is (a golden case's ``scorer``; the
    expectations ``assert_json_match``'s keywords give): the session asks it, never the
    kind of case."""

    @property
    def kind(self) -> AgentKind:
        """What the output is, for what a scrub reaches in it: an agent's whole run, one
        reply, or (None) a plain target's JSON."""

    def label(self, metric: str, expected: object) -> str:
        """The comparison's metric, as its result will name it."""

    def scored(
        self, output: object, expected: object, metric: str, options: Mapping[str, object]
    ) -> MatchResult:
        """``output`` scored against ``expected`` (and the case's other expected parts)."""

    def answer_of(self, output: object) -> object:
        """What the case's ``expected`` is written from (an update)."""

    def made(
        self, target: Callable[[object], object], given: object, awaited: Callable[[object], object]
    ) -> object:
        """The case's output made by ``target`` from its input ``given`` (``awaited`` runs
        what an ``async def`` target returns): one call, or one a turn (a conversation)."""

    def input_change(self, recorded: object, given: object) -> str:
        """What changed in the case's input since its output ``recorded`` was made, in
        words (the input ``given`` now differs from the one recorded)."""

    def read_actual(self, path: Path, repeat: int = 0) -> object:
        """The output the case's ``actual_file`` holds for its run ``repeat``: its text, or
        the run a trace holds (a trace whose every matching run is scored: the
        ``repeat``-th)."""


class OneCall:
    """What the cases made by one call of their target share (a plain case, a reply, a
    run): the output made by one call, a changed input named as the case's, an
    ``actual_file`` read as text."""

    __slots__ = ()

    def made(
        self, target: Callable[[object], object], given: object, awaited: Callable[[object], object]
    ) -> object:
        return awaited(target(given))

    def input_change(self, recorded: object, given: object) -> str:
        return INPUT_CHANGED

    def read_actual(self, path: Path, repeat: int = 0) -> object:
        return read_regular_text(path, "actual_file", CaseFileError)


class PlainScorer(OneCall, Slotted):
    """A plain comparison's scorer: the output against ``expected``, ``match_json``."""

    __slots__ = ()
    kind: AgentKind = None

    def label(self, metric: str, expected: object) -> str:
        return metric

    def scored(
        self, output: object, expected: object, metric: str, options: Mapping[str, object]
    ) -> MatchResult:
        from ..engine.match import match_json

        return match_json(output, expected, metric=metric, **options)

    def answer_of(self, output: object) -> object:
        return output


PLAIN = PlainScorer()


class AgentExpectations(OneCall, Slotted):
    """What makes a comparison an agent's: the expected calls of one reply and the calls'
    options, or the expected trajectory of a whole run, its options and the expected end
    state. The answer is the case's ``expected`` (every case has one, and an update
    rewrites it); its options are the comparison's own. (Slotted, not a dataclass: every
    golden session imports it.)"""

    __slots__ = (
        "calls",
        "call_options",
        "run",
        "run_options",
        "state",
        "refused",
        "trace",
        "each",
        "_built",
        "_runs",
    )
    # (its fields: ``_built`` is the scorer it built last, ``_runs`` the runs its trace file
    # held when read, never given nor compared)
    _fields = __slots__[:-2]

    def __init__(
        self,
        calls: object = None,
        call_options: Mapping[str, object] | None = None,  # None: none
        run: object = None,
        run_options: Mapping[str, object] | None = None,  # None: none
        state: object = None,
        # why it cannot be scored, said when it is (so that the attempt is recorded); "" if none
        refused: str = "",
    ) -> None:
        self.calls, self.run, self.state, self.refused = calls, run, state, refused
        # which run of a trace file its actual_file is (read_trace's selection; None: the
        # file holds the run itself, as JSON)
        self.trace: Mapping[str, object] | None = None
        # whether every run of the trace file that ``trace`` selects is scored, each a
        # repeat of the case (``runs: each``), not the one run it must select
        self.each = False
        self._runs: tuple[object, ...] | JsonMatchError | None = None
        self.call_options: Mapping[str, object] = {} if call_options is None else call_options
        self.run_options: Mapping[str, object] = {} if run_options is None else run_options
        # the scorer last built, with what it was built for: (metric, expected, options)
        self._built: tuple[str, object, dict[str, object], _Scorer] | None = None

    @classmethod
    def of_case(
        cls,
        data: Mapping[str, object],
        error: Callable[[str, str], CaseFileError],
        metric: str | None,
        options: tuple[Mapping[str, object], Mapping[str, object]],
    ) -> AgentExpectations | None:
        """A case's expectations (None: a plain case, whatever options it inherits), with
        the call and run options its levels merged (``options``, in this order); each mistake
        ``error(key, message)``. A case's options are settings it may inherit, so its
        parts alone are held to :func:`refusal`."""
        given = [key for key in AGENT_KEYS if key in data]
        if not given:
            if "trace" in data:
                trace_selection(data, error, False)  # (refused: a trace gives a run)
            return None
        for key in given:
            kinds, what = _KINDS[key]
            if not isinstance(data[key], kinds):
                raise error(key, f"{key} must be {what}")
        why = refusal(given, metric)
        if why is not None:
            raise error(*why)
        calls, run, state = (data.get(key) for key in AGENT_KEYS)
        made = cls(calls, options[0], run, options[1], state)
        if "trace" in data:
            made.trace, made.each = trace_selection(data, error, made.is_run)
        return made

    @property
    def is_run(self) -> bool:
        """Whether it is a whole run (an expected trajectory or end state), not one reply."""
        return self.run is not None or self.state is not None

    def names(self, expected: object) -> tuple[PartName, ...]:
        """The parts scored beside the answer ``expected`` (None: not scored), in order."""
        answer: tuple[PartName, ...] = () if expected is None else ("answer",)
        if not self.is_run:
            return (*answer, "calls")
        run: tuple[PartName, ...] = () if self.run is None else ("trajectory",)
        return (*answer, *run, *(() if self.state is None else ("state",)))

    def label(self, metric: str, expected: object) -> str:
        """The comparison's metric, naming its parts, as its result will."""
        from ..engine.results.field_results import parts_label

        return parts_label(self.names(expected), metric)

    @property
    def kind(self) -> AgentKind:
        return "run" if self.is_run else "reply"

    def scored(
        self, output: object, expected: object, metric: str, options: Mapping[str, object]
    ) -> MatchResult:
        """``output`` (an agent's reply, or its run) scored against these expectations and
        the answer ``expected`` by the case's scorer (a ``ReplyScorer`` or ``RunScorer``),
        built once for the settings it is scored with: each repeat of the case, each of
        its runs, reuses it."""
        if self.refused:
            raise ConfigError(self.refused)
        return self._scorer(expected, metric, options).scored(output)

    def _scorer(self, expected: object, metric: str, options: Mapping[str, object]) -> _Scorer:
        built = self._built
        try:
            same = (
                built is not None
                and built[0] == metric
                and built[1] is expected
                and built[2] == options
            )
        except Exception:  # noqa: BLE001 - options that cannot be compared: built again
            same = False
        if same:
            assert built is not None
            return built[3]
        from ..engine.agents import ReplyScorer, RunScorer

        scorer: _Scorer
        if self.is_run:
            scorer = RunScorer(expected, self.run, self.state, metric, self.run_options, options)
        else:
            scorer = ReplyScorer(expected, self.calls, metric, self.call_options, options)
        self._built = (metric, expected, dict(options), scorer)
        return scorer

    def read_actual(self, path: Path, repeat: int = 0) -> object:
        """The case's ``actual_file``: the run a trace holds (``trace:`` names which: its
        JSON form, as a recording holds a run; with ``runs: each``, the ``repeat``-th of
        the runs it selects), else its text."""
        if self.trace is None:
            return super().read_actual(path)
        if self.each:
            return self.traced_runs(path)[repeat]
        from ..engine.reading.trace_spans import read_trace

        return read_trace(path, **self.trace)  # (a run; its spans kept in the report)

    def traced_runs(self, path: Path) -> tuple[object, ...]:
        """Every run of the trace file ``path`` that the case's ``trace:`` selects (``runs:
        each``), each in its JSON form, in the order the file first names them: read once,
        and the error of that read (or of :meth:`refuse_runs`) raised each time asked."""
        if self._runs is None:
            from ..engine.reading.trace_runs import read_traces

            assert self.trace is not None
            root, attribute = self.trace.get("root"), self.trace.get("attribute")
            try:
                self._runs = tuple(read_traces(path, root=root, attribute=attribute))
            except JsonMatchError as exc:
                self._runs = exc
        if isinstance(self._runs, JsonMatchError):
            raise self._runs.with_traceback(None)
        return self._runs

    def refuse_runs(self, why: str) -> None:
        """The case's runs refused (its ``repeat:`` asks for another count than its trace
        file holds): each read of them raises a ConfigError saying ``why``."""
        self._runs = ConfigError(why)

    def answer_of(self, output: object) -> object:
        """What the case's expected is written from (an update): the answer of the agent's
        reply, or of its run (its last assistant message's)."""
        from ..engine.agents import answer_of, read_run

        if not self.is_run:
            return answer_of(output)
        answer = read_run(output).answer
        return {} if answer is None else answer


TRACE_KEYS = ("trace_id", "root", "attribute")  # (how a case names its run in a trace)
RUNS = ("one", "each")  # (trace's runs: the one run it selects, or each, a repeat each)


def trace_selection(
    data: Mapping[str, object], error: Callable[[str, str], CaseFileError], run: bool
) -> tuple[dict[str, object], bool]:
    """A case's ``trace:``: which run of the trace in its ``actual_file`` it scores, by one
    of ``trace_id``, ``root`` (a root span's name) and ``attribute`` (``key=value``, or a
    mapping of them), and whether every run it selects is scored, each a repeat of the case
    (``runs: each``; then the selection may be left out: every trace of the file); each
    mistake ``error("trace", message)``. (The selection, and whether ``each``.)"""
    given = data["trace"]
    if "actual_file" not in data:
        raise error("trace", "trace names a run of a trace file: give the file as actual_file")
    if not run:
        raise error(
            "trace",
            "a trace gives an agent's run: give expected_run or expected_state (and expected, "
            "its answer)",
        )
    runs = given.get("runs", "one") if isinstance(given, Mapping) else "one"
    if runs not in RUNS:
        raise error(
            "trace",
            f"trace's runs must be one (the one run it selects, the default) or each (every "
            f"run it selects, each a repeat of the case), not {runs!r:.60}",
        )
    named = {k: v for k, v in given.items() if k != "runs"} if isinstance(given, Mapping) else {}
    if not isinstance(given, Mapping) or len(named) > 1 or any(k not in TRACE_KEYS for k in named):
        raise error(
            "trace",
            "trace must name its run by one of trace_id, root (a root span's name) or "
            "attribute (key=value)" + (", and may say runs: each" if runs == "one" else ""),
        )
    if not named and runs == "one":
        raise error(
            "trace",
            "trace must name its run by one of trace_id, root (a root span's name) or "
            "attribute (key=value), or say runs: each (every trace of the file a repeat)",
        )
    for key, value in named.items():
        if not (isinstance(value, str) and value) and not (
            key == "attribute" and isinstance(value, Mapping)
        ):
            raise error("trace", f"trace's {key} must be text, not {value!r:.60}")
    if runs == "each" and "trace_id" in named:
        raise error(
            "trace",
            "a trace id names one run: runs: each scores every run a root or an attribute "
            "selects (give root or attribute, or leave runs out)",
        )
    return {str(k): v for k, v in named.items()}, runs == "each"


def scorer_of(
    expected_calls: object,
    call_options: Mapping[str, object] | None,
    expected_run: object,
    run_options: Mapping[str, object] | None,
    expected_state: object,
) -> CaseScorer:
    """The scorer ``assert_json_match``'s keywords give: the plain one where they give no
    agent's part, else an agent's expectations (keywords that cannot go together are
    refused when scored, so that the attempt is recorded)."""
    values = (expected_calls, call_options, expected_run, run_options, expected_state)
    given = [key for key, value in zip(ALL_AGENT_KEYS, values) if value is not None]
    if not given:
        return PLAIN
    refused = refusal(given)
    why = "" if refused is None else refused[1]
    calls, runs = call_options or {}, run_options or {}
    return AgentExpectations(expected_calls, calls, expected_run, runs, expected_state, why)


def refusal(given: Collection[str], metric: str | None = None) -> tuple[str, str] | None:
    """Why the agent keys ``given`` (the expected parts, and a call's options keys) cannot
    be scored together under ``metric`` (None: not known yet), the one rule a case file and
    a call are held to: (the key at fault, the reason); None: they can."""
    run = [key for key in ("expected_run", "expected_state") if key in given]
    calls = "expected_calls" in given
    if run and calls:
        return "expected_calls", (
            f"expected_calls score one reply; a run's calls are scored by its "
            f"expected_run: give {run[0]} or expected_calls, not both"
        )
    if run and metric in _OPTIONS_METRIC.values():
        return run[0], (
            f"{run[0]} is scored beside the answer's metric, not under metric {metric}: give "
            f"the answer's metric (field_f1, ...), the trajectory as expected_run"
        )
    if calls and metric == "tool_calls":
        return "expected_calls", (
            "expected_calls are scored by tool_calls beside the answer's metric: give the "
            "answer's metric (field_f1, ...), or the calls as expected under metric tool_calls"
        )
    if "run_options" in given and "expected_run" not in given:
        return "run_options", "run_options apply to a run's trajectory: give expected_run too"
    if "call_options" in given and not calls and not run:
        return "call_options", "call_options apply to a reply's calls: give expected_calls too"
    return None


def call_options_of(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    error: Error,
    inherited: Mapping[str, object],
    prefix: str = "",
    key: str = "call_options",
) -> Mapping[str, object]:
    """The call options (``key``: or the run options) of one level: ``inherited`` with this
    level's laid over them, as options are (``tool_args`` merge tool by tool)."""
    if key not in data:
        return inherited
    given, line = data[key], lines.get(key, 1)
    metric = _OPTIONS_METRIC[key]
    if not isinstance(given, Mapping):
        raise error(line, f"{prefix}{key} must be a mapping of {metric} options")
    given = with_named_tools(given, lambda m: error(line, f"{prefix}{key}: {m}"))
    from ..engine.metrics import metric_named
    from ..engine.metrics.base import configure

    try:
        configure(metric_named(metric), dict(given))
    except JsonMatchError as exc:
        raise error(line, f"{prefix}{key}: {exc}") from None
    from .option_merge import merged_options

    return merged_options(inherited, given)
