"""A conversation scored turn by turn: each user turn's answer and steps against what that
turn must show, and the end state once, as one comparison with one field table.

A conversation is a run whose messages hold several user turns (a user's message, then
the agent's messages until the next user message). It is read once
(:func:`~.agent_run.read_run`, any vendor's messages) and cut into its turns
(:func:`turns_of`); turn ``k``'s expectations (:class:`TurnExpectation`: its answer's fields,
``expected``, and its steps, ``expected_run``) are scored by a run's scorer
(:class:`~.agent_scorers.RunScorer`) built once for that turn, from that turn's messages
alone. Its rows take the turn's place in the table: ``turns[1].status``,
``turns[1].run[0].refund.order``; the state the conversation left is scored once, under
``state``. A turn the conversation never reached (the agent stopped answering, the user
ended early) is scored as an empty turn: what it had to show is omitted. A rubric, where
given, is judged over the whole transcript by the LLM judge, a row ``rubric[k]`` per
assertion after every other part's (conversation_rubric.py).

One score, as a run's: each part's headline weighted by its counted rows, so a conversation
earns credit turn by turn instead of all or nothing; :attr:`ConversationResult.turn_scores`
keeps each turn's own score, and :func:`first_failing_turn` names the first turn below a
threshold (docs/metrics.md, "A conversation: turn by turn").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..core.errors import ConfigError
from ..core.values import MISSING
from ..reading.agent_messages import ASSISTANT, USER, Conversation
from ..results.field_results import (
    BATCH_ERROR,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    FieldResult,
    FloorFailure,
    MatchResult,
    Part,
    combined,
    f_beta,
    precision_recall,
)
from .agent_run import read_run
from .agent_scorers import RunScorer
from .conversation_rubric import RUBRIC, judge_of, judged, read_rubric, rubric_rows
from .run_paths import placed, under

if TYPE_CHECKING:
    from ..judge import Judgment, SemanticJudge

TURNS = "turns"
TAU2_METRIC = "tau2"  # (the comparator of tau2-bench's rows, and its part's metric)


class TurnExpectation(NamedTuple):
    """What one user turn's reply must show: its answer's fields (``expected``; None: not
    scored) and its steps (``expected_run``, as a run case gives them; None: not scored)."""

    expected: object = None
    expected_run: object = None


class ConversationResult(NamedTuple):
    """A conversation's comparison (``result``, its one table) and each expected turn's own
    score, in order (None: a turn with nothing expected of it)."""

    result: MatchResult
    turn_scores: tuple[float | None, ...]


def turns_of(conversation: Conversation) -> list[Conversation]:
    """``conversation``'s user turns, in order: each from a user message up to the next one,
    its ``start`` at its first assistant message (past its end where the agent said nothing).
    Messages before the first user message (a system prompt) belong to no turn."""
    firsts = [k for k, m in enumerate(conversation.messages) if m.role == USER]
    turns: list[Conversation] = []
    for n, first in enumerate(firsts):
        end = firsts[n + 1] if n + 1 < len(firsts) else len(conversation.messages)
        held = conversation.messages[first:end]
        start = next(
            (m.item for m in held if m.role == ASSISTANT), (held[-1].item + 1) if held else 0
        )
        turns.append(Conversation(held, None, start, conversation.depth))
    return turns


class ConversationScorer:
    """One conversation case's scorer, made once for its turns' expectations, its end state
    and its settings: a run's scorer for each turn that expects something, one for the
    state; :meth:`scored` reads a conversation once and scores every turn from it. A
    ``rubric`` is judged by ``judge`` (conversation_rubric.judge_of: None, the configured
    judge, found when the conversation is scored)."""

    __slots__ = ("metric", "turns", "state", "tau2", "expected_state", "rubric", "judge")

    def __init__(
        self,
        turns: Sequence[TurnExpectation],
        expected_state: object,
        metric: str,
        run_options: Mapping[str, object] | None,
        options: Mapping[str, object],
        tau2: object = None,
        rubric: object = None,
        judge: object = None,
    ) -> None:
        self.metric = metric
        self.turns: list[RunScorer | None] = []
        for k, turn in enumerate(turns):
            if turn.expected is None and turn.expected_run is None:
                self.turns.append(None)
                continue
            try:
                scorer = RunScorer(
                    turn.expected, turn.expected_run, None, metric, run_options, options
                )
            except ConfigError as exc:
                raise ConfigError(f"{TURNS}[{k}]: {exc}") from None
            self.turns.append(scorer)
        self.state = (
            None
            if expected_state is None
            else RunScorer(None, None, expected_state, metric, None, options)
        )
        self.expected_state = expected_state
        self.tau2 = None if tau2 is None else _tau2_criteria(tau2)
        self.rubric = None if rubric is None else read_rubric(rubric)
        self.judge = judge
        if (
            self.state is None
            and self.tau2 is None
            and self.rubric is None
            and all(t is None for t in self.turns)
        ):
            raise ConfigError(
                "a conversation is scored against what its turns show (expected, "
                "expected_run), a rubric or the state it leaves (expected_state): give at "
                "least one"
            )

    def label(self) -> str:
        """The comparison's metric, as its result names it: ``field_f1+turns+state``
        (``+tau2`` where tau2-bench's verdict is scored too)."""
        return conversation_label(
            self.metric, self.state is not None, self.tau2 is not None, self.rubric is not None
        )

    def scored(self, actual: object) -> MatchResult:
        """The conversation ``actual`` scored: every expected turn, then its end state."""
        return self.scored_turns(actual).result

    def scored_turns(self, actual: object) -> ConversationResult:
        """:meth:`scored`, with each turn's own score."""
        run = read_run(actual)
        turns = turns_of(run)
        parts: list[Part] = []
        floors: list[FloorFailure] = []
        scores: list[float | None] = []
        for k, scorer in enumerate(self.turns):
            if scorer is None:
                scores.append(None)
                continue
            turn = turns[k] if k < len(turns) else Conversation((), None, 0, run.depth)
            result = scorer.scored_read(turn)
            scores.append(result.score)
            prefix = f"{TURNS}[{k}]"
            at = 0
            for part in result.parts:
                rows = [_turn_row(fr, prefix) for fr in result.fields[at : at + part.rows]]
                at += part.rows
                parts.append(Part(part.name, part.score, rows, part.metric, k))
            floors += [
                FloorFailure(under(prefix, f.path), f.min_score, f.score)
                for f in result.floor_failures
            ]
        if self.state is not None:
            state = self.state.scored_read(run)
            parts += [Part("state", state.score, list(state.fields), self.metric)]
            floors += state.floor_failures
        if self.tau2 is not None:
            nl = self._nl_judged(actual)
            rows = tau2_rows(self.tau2, run, self.expected_state, nl)
            parts.append(Part("tau2", f_beta(*precision_recall(rows)), rows, TAU2_METRIC))
        if self.rubric is not None:
            rows = rubric_rows(self.rubric, judged(self.rubric, actual, self._judge("rubric")))
            parts.append(Part("rubric", f_beta(*precision_recall(rows)), rows, RUBRIC))
        return ConversationResult(combined(parts, None, tuple(floors), self.label()), tuple(scores))

    def _judge(self, what: str) -> SemanticJudge:
        """The judge asked about the transcript (ConfigError under ``what`` where none is)."""
        try:
            return judge_of(self.judge)
        except ConfigError as exc:
            raise ConfigError(f"{what}: {exc}") from None

    def _nl_judged(self, actual: object) -> list[Judgment] | None:
        """tau2-bench's NL assertions judged over the transcript where its reward needs them
        (NL_ASSERTION in the basis: tau2-bench's evaluation type ALL judges them only then);
        None: not judged."""
        from .tau2_reward import NL_ASSERTION, tau2_criteria

        read = tau2_criteria(self.tau2)
        if not read.nl_assertions or NL_ASSERTION not in read.basis:
            return None
        return judged(read.nl_assertions, actual, self._judge("tau2"))


def _turn_row(fr: FieldResult, prefix: str) -> FieldResult:
    """A turn's row under ``prefix`` (``turns[1]``); where a step was found kept as the
    conversation's messages name it (``messages[5]``: the index counts every turn)."""
    row = placed(fr, prefix, f"{TURNS}[]")
    if fr.actual_path is None or not fr.actual_path.startswith("messages["):
        return row
    return row._replace(actual_path=fr.actual_path)


def conversation_label(metric: str, state: bool, tau2: bool, rubric: bool = False) -> str:
    """A conversation's metric label: the answer's metric, ``turns``, then ``state``,
    ``tau2`` and ``rubric`` where given (``field_f1+turns+state+tau2+rubric``)."""
    given = [("state", state), ("tau2", tau2), (RUBRIC, rubric)]
    return "+".join([metric, TURNS, *(name for name, there in given if there)])


def _tau2_criteria(given: object) -> object:
    """tau2-bench's evaluation criteria as given, checked now (ConfigError under ``tau2``)."""
    from .tau2_reward import tau2_criteria

    try:
        tau2_criteria(given)
    except ConfigError as exc:
        raise ConfigError(f"tau2: {exc}") from None
    return given


def tau2_rows(
    criteria: object,
    run: Conversation,
    expected_state: object,
    nl: Sequence[Judgment] | None = None,
) -> list[FieldResult]:
    """tau2-bench's verdict on the conversation ``run`` as rows under ``tau2``: its reward
    (``tau2.reward``: a match where it is 1, as tau2-bench passes a task), then each
    component's checks: the database (``tau2.db``), each expected action
    (``tau2.actions[k].NAME``), each piece of information to communicate
    (``tau2.communicate[k]``), each NL assertion (``tau2.nl_assertions[k]``: the judge's
    verdict ``nl`` where the reward needs it, else skipped). A reward that needs an
    assertion the judge left undecided is undecided too (``batch_error``)."""
    from .tau2_reward import tau2_reward

    met = None if nl is None else [j.holds for j in nl]
    try:
        got = tau2_reward(run, criteria, run.state, expected_state, met)
    except ConfigError as exc:
        raise ConfigError(f"tau2: {exc}") from None
    said = ", ".join(f"{k} {v:g}" for k, v in got.breakdown.items())
    passed = got.reward == 1.0
    reward = FieldResult(
        "tau2.reward",
        MATCH if passed else MISMATCH,
        1.0 if passed else 0.0,
        1.0,
        got.reward,
        TAU2_METRIC,
        f"reward over {said or 'no component'}",
        "tau2.reward",
    )
    if got.undecided:
        reward = reward._replace(
            status=BATCH_ERROR,
            score=0.0,
            actual=MISSING,
            reason="undecided: the judge left an NL assertion the reward needs undecided",
        )
    rows = [reward]
    if got.db is not None:
        rows.append(
            _check("tau2.db", "tau2.db", got.db, True, got.db, "the end state against the expected")
        )
    for k, action in enumerate(got.actions):
        path = under(f"tau2.actions[{k}]", action.name)
        where = f"action {action.action_id}" + (f", made at {action.call}" if action.call else "")
        rows.append(
            _check(
                path,
                under("tau2.actions[]", action.name),
                action.matched,
                action.name,
                action.name if action.matched else MISSING,
                where,
            )
        )
    for k, info in enumerate(got.communicate):
        rows.append(
            _check(
                f"tau2.communicate[{k}]",
                "tau2.communicate[]",
                info.found,
                info.info,
                info.info if info.found else MISSING,
                info.message or "not said to the user",
            )
        )
    for k, assertion in enumerate(got.nl_assertions):
        path = f"tau2.nl_assertions[{k}]"
        if nl is None:
            rows.append(
                FieldResult(
                    path,
                    SKIPPED,
                    0.0,
                    assertion.assertion,
                    MISSING,
                    TAU2_METRIC,
                    "not evaluated: NL_ASSERTION is not in the task's reward_basis (tau2-bench "
                    "judges them only then; give them as rubric: to have them judged)",
                    "tau2.nl_assertions[]",
                )
            )
            continue
        row = rubric_rows([assertion.assertion], [nl[k]])[0]
        rows.append(row._replace(path=path, field_path="tau2.nl_assertions[]"))
    return rows


def _check(
    path: str, folded: str, ok: bool, expected: object, actual: object, reason: str
) -> FieldResult:
    """One of tau2-bench's checks as a row: a match, or what it expected omitted."""
    return FieldResult(
        path,
        MATCH if ok else (MISMATCH if actual is not MISSING else OMISSION),
        1.0 if ok else 0.0,
        expected,
        actual,
        TAU2_METRIC,
        reason,
        folded,
    )


def first_failing_turn(turn_scores: Sequence[float | None], threshold: float) -> int | None:
    """The index of the first turn scored below ``threshold`` (None: none is)."""
    return next((k for k, s in enumerate(turn_scores) if s is not None and s < threshold), None)


def match_conversation(
    actual: object,
    turns: Sequence[Mapping[str, object]],
    expected_state: object = None,
    metric: str = "field_f1",
    run_options: Mapping[str, object] | None = None,
    *,
    rubric: Sequence[str] | None = None,
    judge: object = None,
    **options: object,
) -> MatchResult:
    """Score a conversation (``actual``: a run's messages, several user turns, in any vendor
    shape a run is read in; or ``{"messages": [...], "state": ...}``) turn by turn.

    ``turns``: one mapping per user turn, in order, each with the turn's ``expected`` (its
    answer's fields, under ``metric`` and ``options``) and ``expected_run`` (its steps, by
    the ``trajectory`` metric with ``run_options``), either left out where that turn is not
    scored on it. ``expected_state``: the state the conversation leaves.

    ``rubric``: assertions in plain words, each judged over the whole transcript by
    ``judge`` (a ``SemanticJudge``, a ``JudgeSettings`` or their text form; None: the judge
    ``configure_judge`` set), a row ``rubric[k]`` each.

    The result's rows are each turn's under ``turns[k]``, the state's under ``state`` and
    the rubric's under ``rubric``; its metric ``"<metric>+turns"`` (``+state``,
    ``+rubric``); its score the parts' scores weighted by their counted rows."""
    return ConversationScorer(
        expectations(turns), expected_state, metric, run_options, options, None, rubric, judge
    ).scored(actual)


def expectations(turns: object, where: str = TURNS) -> list[TurnExpectation]:
    """``turns`` (a list of mappings with ``expected`` and ``expected_run``) read as turn
    expectations; ConfigError naming the turn and the key that is not one."""
    if isinstance(turns, (str, bytes, Mapping)) or not isinstance(turns, Sequence):
        raise ConfigError(f"{where} must be a list of turns (mappings), not {type(turns).__name__}")
    out: list[TurnExpectation] = []
    for k, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            raise ConfigError(f"{where}[{k}] must be a mapping, not {type(turn).__name__}")
        unknown = sorted(set(turn) - {"expected", "expected_run", "user"})
        if unknown:
            raise ConfigError(
                f"{where}[{k}]: unknown key {unknown[0]!r} (a turn gives user, expected, "
                f"expected_run)"
            )
        out.append(TurnExpectation(turn.get("expected"), turn.get("expected_run")))
    return out
