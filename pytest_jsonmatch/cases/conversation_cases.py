"""A conversation case: the user's side scripted turn by turn (or played by a Python
function), the agent under test called once a turn with the conversation so far, each
turn's reply held to what that turn must show, and the state the conversation left.

In a case file::

    - id: refund
      conversation:
        - user: I want my money back
          expected: {asks_for: order_id}
        - user: It is order 1234
          expected_run: [{name: refund, arguments: {order: "1234"}}]
          expected: {status: refunded}
      expected_state: {refunds: [{order: "1234"}]}

The target (``jsonmatch_target``, the same function a run case calls) is called once a
turn with the case's ``input`` and, under ``messages``, the conversation so far ending with
the user's new message; ``turn`` (0, 1, ...), ``conversation_id`` (one per conversation:
the key under which an agent keeps what it holds between turns) and ``state`` (the state
its last turn left, JSON, from the second turn on). It returns its turn as a run case's
target returns a run (``AgentRun``, ``{"messages": [...], "state": ...}`` or a list of
messages, in any vendor's shape; the messages it was given at the head of them are not
repeated), or one assistant message, or text. The case's output is the whole conversation
as one run, ``{"messages": [...], "state": ...}``: recorded as one, replayed as one, scored
turn by turn (engine/agents/conversation_scoring.py). Its recording is stale when a user
turn of the script changes (the script is part of the case's input).

``rubric:`` lists assertions in plain words ("the agent asked for the date before
searching"), each judged over the whole transcript by the session's LLM judge
(``jsonmatch_judge``), a row ``rubric[k]`` each, after the turns' and the state's rows.

``user:`` may name a Python function (``package.module:function``) instead of a script: it
is called with the conversation so far (its messages, plain JSON) and returns the user's
next message, or None to end the conversation; ``max_turns`` bounds it (10 by default).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.core.errors import CaseFileError, ConfigError, JsonMatchError, did_you_mean, shown
from ..engine.core.slotted import Slotted
from ..engine.core.values import JsonValue
from ..engine.reading.agent_messages import AgentKind

if TYPE_CHECKING:
    from ..engine.agents.conversation_scoring import ConversationScorer
    from ..engine.results.field_results import MatchResult
    from .conversation_updates import TurnsUpdate

# the keys of a scripted turn, and of a conversation played by a function
TURN_KEYS = frozenset({"user", "expected", "expected_run"})
PLAYED_KEYS = frozenset({"user", "simulated", "max_turns", "turns"})
MAX_TURNS = 10  # a conversation played by a function: the most turns, unless the case says
MOST_TURNS = 1000  # the most turns any conversation may hold (its turns are copied each turn)
USER_TURNS = "user_turns"  # the script's user messages, in the case's input


class ConversationExpectations(Slotted):
    """A conversation case's user side (``script``: the user's message of each turn; or
    ``user``, a function's name), what each turn must show (``turns``, as
    ``match_conversation`` takes them), the end state, and the run options; it scores the
    case (a :class:`ConversationScorer` built once for the settings it is scored with) and
    makes its output (:meth:`made`)."""

    __slots__ = (
        "script",
        "user",
        "max_turns",
        "turns",
        "run_options",
        "state",
        "tau2",
        "rubric",
        "given",
        "_built",
    )
    _fields = __slots__[:-1]
    kind: AgentKind = "run"  # (a scrub reaches into it as into a run)

    def __init__(
        self,
        script: Sequence[str] | None,
        user: str | Mapping[str, object] | None,
        max_turns: int,
        turns: Sequence[Mapping[str, object]],
        run_options: Mapping[str, object],
        state: object,
    ) -> None:
        self.script, self.user, self.max_turns = script, user, max_turns
        self.turns, self.run_options, self.state = turns, run_options, state
        self.tau2: object = None  # tau2-bench's evaluation criteria (None: not scored)
        self.rubric: tuple[str, ...] | None = None  # assertions the judge holds it to
        self.given: object = None  # its conversation: as the case file holds it (an update's)
        self._built: tuple[str, dict[str, object], ConversationScorer] | None = None

    @classmethod
    def of_case(
        cls,
        data: Mapping[str, object],
        error: Callable[[str, str], CaseFileError],
        run_options: Mapping[str, object],
    ) -> ConversationExpectations | None:
        """A case's conversation (None: the case holds none); each mistake ``error(key,
        message)``."""
        if "conversation" not in data:
            for key in ("tau2", "rubric"):
                if key in data:
                    raise error(key, cls.alone(key))
            return None
        for key in ("expected", "expected_calls", "expected_run", "actual", "actual_file", "trace"):
            if key in data:
                raise error(
                    key,
                    f"a conversation's turns say what each must show: give {key} within a "
                    f"turn of conversation (expected, expected_run), not beside it"
                    if key in ("expected", "expected_run")
                    else f"a conversation is made by its target, turn by turn: {key} cannot "
                    f"give it",
                )
        given = data["conversation"]
        try:
            if isinstance(given, Mapping):
                made = cls._played(given, run_options, data.get("expected_state"))
            else:
                made = cls._scripted(given, run_options, data.get("expected_state"))
            made.tau2, made.given = data.get("tau2"), given
        except ConfigError as exc:
            raise error("conversation", f"conversation: {exc}") from None
        if "rubric" in data:
            from ..engine.agents.conversation_rubric import read_rubric

            try:
                made.rubric = read_rubric(data["rubric"])
            except ConfigError as exc:
                raise error("rubric", str(exc)) from None
        try:
            made.scorer_for("field_f1", {})  # (its turns checked now, as a file's keys are)
        except ConfigError as exc:
            raise error("conversation", f"conversation: {exc}") from None
        return made

    @staticmethod
    def alone(key: str) -> str:
        """What a case file is told of ``key`` (``tau2``, ``rubric``) given without a
        conversation."""
        if key == "tau2":
            return "tau2 scores a conversation as tau2-bench does: give conversation"
        return (
            f"{key} holds assertions judged over a conversation's transcript: give conversation "
            f"(a case's output is judged field by field: the semantic comparator)"
        )

    @classmethod
    def with_input(
        cls,
        data: Mapping[str, object],
        error: Callable[[str, str], CaseFileError],
        run_options: Mapping[str, object],
    ) -> tuple[ConversationExpectations, dict[str, object]]:
        """A conversation case's expectations and its input (:meth:`input_of`), each mistake
        ``error(key, message)``."""
        made = cls.of_case(data, error, run_options)
        assert made is not None
        try:
            return made, made.input_of(data.get("input"))
        except JsonMatchError as exc:
            raise error("input", str(exc)) from None

    @classmethod
    def _scripted(
        cls, given: object, run_options: Mapping[str, object], state: object
    ) -> ConversationExpectations:
        if not isinstance(given, list) or not given:
            raise ConfigError(
                "give the user's turns (a list, each with user: and what the turn must show), "
                "or a mapping naming the function that plays the user (user: module:function)"
            )
        if len(given) > MOST_TURNS:
            raise ConfigError(
                f"{len(given):,} turns, more than the {MOST_TURNS:,} a conversation may hold"
            )
        script: list[str] = []
        for k, turn in enumerate(given):
            if not isinstance(turn, Mapping):
                raise ConfigError(f"turn {k} must be a mapping with user:, not {shown(turn)}")
            unknown = sorted(set(turn) - TURN_KEYS)
            if unknown:
                raise ConfigError(
                    f"turn {k}: unknown key {unknown[0]!r}{did_you_mean(unknown[0], TURN_KEYS)} "
                    f"(a turn gives user, expected, "
                    f"expected_run)"
                )
            text = turn.get("user")
            if not isinstance(text, str) or not text.strip():
                raise ConfigError(f"turn {k}: user must be the user's message (text)")
            script.append(text)
        return cls(script, None, len(script), given, run_options, state)

    @classmethod
    def _played(
        cls, given: Mapping[str, object], run_options: Mapping[str, object], state: object
    ) -> ConversationExpectations:
        unknown = sorted(set(given) - PLAYED_KEYS)
        if unknown:
            raise ConfigError(
                f"unknown key {unknown[0]!r}{did_you_mean(unknown[0], PLAYED_KEYS)} "
                f"(a conversation played by a function or a model "
                f"gives user: module:function or simulated: its settings, max_turns and turns)"
            )
        if ("user" in given) == ("simulated" in given):
            raise ConfigError(
                "name who plays the user: a function (user: module:function) or a model "
                "(simulated: persona, goal, instructions, model...), one of the two"
            )
        user = given.get("user")
        simulated = given.get("simulated")
        if simulated is not None:
            if not isinstance(simulated, Mapping):
                raise ConfigError("simulated must be a mapping of the simulated user's settings")
            from ..engine.agents.simulated_user import SimulatedUser

            SimulatedUser(simulated)  # (its settings checked now; it is made anew each time)
        elif not isinstance(user, str) or ":" not in user:
            raise ConfigError("user must name the function that plays the user: module:function")
        limit = given.get("max_turns", MAX_TURNS)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MOST_TURNS:
            raise ConfigError(
                f"max_turns must be a whole number from 1 to {MOST_TURNS}, not {limit!r}"
            )
        turns = given.get("turns", [])
        if not isinstance(turns, list):
            raise ConfigError("turns must be a list: what each turn must show, in order")
        player = str(user) if simulated is None else dict(simulated)
        return cls(None, player, limit, turns, run_options, state)

    # -- the case's input and output ---------------------------------------------------

    def input_of(self, given: object) -> dict[str, object]:
        """The case's input: what it gives (a mapping, or None) with the script's user
        messages (``user_turns``) or the user's function (``user``), so that a recording
        goes stale when either changes."""
        if given is not None and not isinstance(given, Mapping):
            raise ConfigError(
                f"a conversation's input must be a mapping (its messages, ...), not {shown(given)}"
            )
        out = dict(given or {})
        out.pop(USER_TURNS, None)
        if self.script is not None:
            out[USER_TURNS] = list(self.script)
        else:
            out["user"] = self.user if isinstance(self.user, str) else dict(self.user or {})
        return out

    def made(
        self,
        target: Callable[[object], object],
        given: object,
        awaited: Callable[[object], object],
    ) -> object:
        """The conversation ``target`` (the agent) holds with the user: one call a turn."""
        from ..engine.agents.conversation_driver import drive

        base = {k: v for k, v in (given or {}).items() if k not in (USER_TURNS, "user")}  # type: ignore[attr-defined]
        user = (
            _script_user(self.script)
            if self.script is not None
            else _named_user(self.user)
            if isinstance(self.user, str)
            else _simulated_user(self.user)
        )
        return drive(lambda value: awaited(target(value)), base, user, self.max_turns)

    def input_change(self, recorded: object, given: object) -> str:
        """The first user turn of the script that the recorded conversation does not hold
        as it is now (where a replay would depart from it), else the case's input."""
        said = _users_said(recorded)
        script = given.get(USER_TURNS) if isinstance(given, Mapping) else None
        if said is None or not isinstance(script, list):
            return "the case's input"
        for k, text in enumerate(script):
            if k >= len(said) or said[k] != text:
                before = f"{said[k]!r:.60}" if k < len(said) else "no such turn"
                return f"the user's turn {k} of the conversation (recorded: {before}; now: {text!r:.60})"
        if len(said) > len(script):
            return f"the conversation's turns (recorded: {len(said)}; now: {len(script)})"
        return "the case's input"

    # -- scoring ----------------------------------------------------------------------------

    def label(self, metric: str, expected: object) -> str:
        from ..engine.agents.conversation_scoring import conversation_label

        return conversation_label(
            metric, self.state is not None, self.tau2 is not None, self.rubric is not None
        )

    def scored(
        self, output: object, expected: object, metric: str, options: Mapping[str, object]
    ) -> MatchResult:
        """``output``, the conversation, scored turn by turn and by the state it left."""
        return self.scorer_for(metric, options).scored(output)

    def scorer_for(self, metric: str, options: Mapping[str, object]) -> ConversationScorer:
        """The scorer for these settings, built once (each repeat of the case reuses it)."""
        built = self._built
        try:
            same = built is not None and built[0] == metric and built[1] == options
        except Exception:  # noqa: BLE001 - options that cannot be compared: built again
            same = False
        if same:
            assert built is not None
            return built[2]
        from ..engine.agents.conversation_scoring import ConversationScorer, expectations

        scorer = ConversationScorer(
            expectations(self.turns),
            self.state,
            metric,
            self.run_options,
            options,
            self.tau2,
            self.rubric,
        )
        self._built = (metric, dict(options), scorer)
        return scorer

    def read_actual(self, path: Path, repeat: int = 0) -> object:
        """(A conversation is made by its target: it has no actual_file.)"""
        raise CaseFileError("a conversation is made by its target, turn by turn: no actual_file")

    def answer_of(self, output: object) -> object:
        """(An update writes each turn's answer: :meth:`turns_update`.)"""
        raise ConfigError("a conversation's update is its turns': turns_update")

    def turns_update(
        self, output: object, result: MatchResult, read: Callable[[object], object]
    ) -> TurnsUpdate | None:
        """What an update writes of the conversation ``output`` (scored: ``result``): each
        turn's expected answer, its text read as a JSON value by ``read``
        (conversation_updates.py); None: no turn expects one."""
        from ..engine.agents.agent_run import read_run
        from ..engine.agents.conversation_scoring import turns_of
        from .conversation_updates import turns_update

        answers = [turn.answer for turn in turns_of(read_run(output))]
        return turns_update(self.given, [{} if a is None else read(a) for a in answers], result)


def _users_said(recorded: object) -> list[object] | None:
    """The user's messages of a recorded conversation, in order (None: not one)."""
    messages = recorded.get("messages") if isinstance(recorded, Mapping) else None
    if not isinstance(messages, list):
        return None
    return [
        m.get("content") for m in messages if isinstance(m, Mapping) and m.get("role") == "user"
    ]


def _script_user(script: Sequence[str]) -> Callable[[list[JsonValue]], str | None]:
    """The user of a script: its next message each turn, None once it is spent."""
    said = iter(list(script))
    return lambda _messages: next(said, None)


def _simulated_user(
    settings: Mapping[str, object] | None,
) -> Callable[[list[JsonValue]], str | None]:
    """A user played by a model with these settings (made for one conversation), its
    requests run as the judge's are (the session's judge runner, where it has one)."""
    from ..engine.agents.simulated_user import SimulatedUser
    from ..engine.metrics import REGISTRY

    assert settings is not None
    return SimulatedUser(settings, through=REGISTRY.judge_through)


def _named_user(spec: str | None) -> Callable[[list[JsonValue]], str | None]:
    """The function ``spec`` names, called with the conversation so far (a copy: it cannot
    change what the agent is given); its answer must be text or None."""
    from .python_names import imported_module, users_function

    assert spec is not None
    module_name, _, attr = spec.partition(":")
    module = imported_module(module_name.strip(), spec, "conversation user")
    function = getattr(module, attr.strip(), None)
    if not callable(function):
        raise CaseFileError(
            f"conversation user {spec!r}: module {module_name!r} has no function {attr!r}"
        )
    if not users_function(function):  # (a case file picks no function of Python's to run)
        raise CaseFileError(
            f"conversation user {spec!r} is not a function of your project's code (a "
            f"builtin, or one of the standard library or an installed package): write the "
            f"user's side as a function of your own"
        )

    def user(messages: list[JsonValue]) -> str | None:
        said = function(copy.deepcopy(messages))
        if said is not None and not isinstance(said, str):
            raise JsonMatchError(
                f"conversation user {spec!r} returned {shown(said)}: give the user's next "
                f"message (text), or None to end the conversation"
            )
        return said

    return user
