"""trajectory: a run of several steps against the expected run, step by step.

Both sides are read into messages (reading/agent_messages.py: OpenAI chat and Responses,
Anthropic, Gemini, LangChain/LangGraph, plain steps), each message into steps: one ``call``
step per call it makes, else the ``answer`` (an assistant's), a ``result`` (a tool's) or a
step of its role; only calls and roles are compared (what agentevals compares). The ``mode`` says what passes, as agentevals'
trajectory match says it:

- ``strict``: the same messages in the same order (each message's role, and whether it
  calls tools), each message's calls paired in any order;
- ``unordered``: the same calls, in any order, wherever they are (other steps not compared);
- ``superset``: every expected call is among the run's (the run may call more);
- ``subset``: every call of the run is among the expected ones (it may call fewer).

Calls pair when they name the same function and their arguments agree under ``args`` (or
the tool's own rule, ``tool_args``: tool_calls/argument_checks.py). ``pairing="optimal"``
(the default) finds a valid pairing wherever there is one; ``pairing="agentevals"`` pairs
first fit, as agentevals does, and so gives its verdict on every pair (pairing/call_pairing.py).
The pairings of one comparison share one budget (the rule: pairing/__init__.py), so that no
run can make it hang: a run whose pair checks would cost more is refused.

Fields (paths by the expected step's index, as a list's elements are named): a call's
function name at ``[2].book_flight``, each argument compared at ``[2].book_flight.pnr``; in
``strict``, a step that is no call at ``[3]`` (its role the value). The per-field tables fold
the index: ``[].book_flight.pnr``. A run's step that is not expected is a hallucination
named by the run's own index. The score is F1 over the fields; ``superset`` counts no
hallucination (a call the run adds costs nothing) and ``subset`` no omission (a call it
leaves out costs nothing), so the score is 1.0 exactly when the mode passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeVar

from ..comparing.registry import REGISTRY, Registry
from ..configuring.walk_config import WalkConfig
from ..core.paths import index_segment, key_segment
from ..core.values import MISSING, JsonObject
from ..metrics.base import Metric, option_choice, type_policy
from ..pairing.call_pairing import Calls, Valid, greedy, leftovers_in_order, optimal
from ..pairing.pair_budget import PairBudget
from ..reading.agent_messages import ASSISTANT, TOOL, read_messages
from ..results.field_results import HALLUCINATION, MATCH, MISMATCH, OMISSION, FieldResult
from ..tool_calls.argument_checks import (
    ArgRule,
    agrees,
    arg_verdicts,
    counted,
    read_rules,
    value_of,
)

CALL, RESULT, ANSWER, MESSAGE = "call", "result", "answer", "message"
MODES = ("strict", "unordered", "subset", "superset")
ARGS = ("exact", "ignore", "subset", "superset")
PAIRINGS = ("optimal", "agentevals")
_OPTIONS = frozenset({"mode", "args", "tool_args", "pairing", "truncated"})


class Step(NamedTuple):
    """One step of a run: its kind (``call``, ``result``, ``answer`` or ``message``), the
    role of its message, a call's function name and arguments (empty for other steps), the
    index of the message it came from, and where it is in the input."""

    kind: str
    role: str
    name: str
    arguments: JsonObject
    message: int
    where: str


def read_steps(value: object, side: str) -> list[Step]:
    """Every step of the run ``value``, in order (ParseError naming where ``side`` cannot
    be read)."""
    steps: list[Step] = []
    for k, message in enumerate(read_messages(value, side)):
        if message.calls:
            steps += [Step(CALL, ASSISTANT, c.name, c.arguments, k, c.where) for c in message.calls]
        else:
            role = message.role
            kind = ANSWER if role == ASSISTANT else RESULT if role == TOOL else MESSAGE
            steps.append(Step(kind, role, "", {}, k, message.where))
    return steps


def messages_of(steps: list[Step]) -> list[list[int]]:
    """The indices of the steps of each message, in order."""
    out: list[list[int]] = []
    last = None
    for i, step in enumerate(steps):
        if step.message != last:
            out.append([])
            last = step.message
        out[-1].append(i)
    return out


class Settings(NamedTuple):
    mode: str
    pairing: str
    default: ArgRule
    tools: dict[str, ArgRule]

    def rule(self, name: str) -> ArgRule:
        """The rule a call of ``name`` is checked by, facing the mode's direction (the
        expected call stands as agentevals' output in ``subset``; both ways in
        ``unordered``)."""
        rule = self.tools.get(name, self.default)
        if self.mode == "unordered":
            return rule.both_ways()
        return rule.facing(self.mode == "subset")


def read_settings(options: Mapping[str, object], registry: Registry = REGISTRY) -> Settings:
    mode = _choice(options, "mode", MODES, "strict")
    args = _choice(options, "args", ARGS, "exact")
    pairing = _choice(options, "pairing", PAIRINGS, "optimal")
    default, tools = read_rules(args, options.get("tool_args"), registry)
    return Settings(mode, pairing, default, tools)


def _choice(options: Mapping[str, object], name: str, known: tuple[str, ...], default: str) -> str:
    return option_choice("trajectory", options, name, known, default)


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    read_settings(opts, registry)  # (a bad option named before any record)
    return WalkConfig(type_policy=type_policy(registry, "exact", "exact"), registry=registry)


def score_fields(
    expected: object, actual: object, options: Mapping[str, object]
) -> list[FieldResult]:
    settings = read_settings(options)
    fields = _Fields(read_steps(expected, "expected"), read_steps(actual, "actual"), settings)
    if settings.mode == "strict":
        fields.strict()
    else:
        fields.calls()
    return fields.out


class _Fields:
    """The field results of one comparison, made in the expected steps' order."""

    def __init__(self, want: list[Step], run: list[Step], settings: Settings) -> None:
        self.want, self.run, self.settings = want, run, settings
        self.out: list[FieldResult] = []
        self.budget = PairBudget(PairBudget.STEPS)  # (one for all this comparison's pairings)
        self.calls_wanted, self.calls_made = self._sides(settings)

    def _sides(self, settings: Settings) -> tuple[Calls, Calls]:
        """Both sides' calls, read by the rules of ``settings``."""
        return _calls(self.want, "expected", settings), _calls(self.run, "run", settings)

    # -- the modes ------------------------------------------------------------------------

    def calls(self) -> None:
        """unordered, superset, subset: the calls alone, wherever they are."""
        want, run = self.calls_wanted, self.calls_made
        pairs = self._pairs(want, run)
        mode = self.settings.mode
        for e in want.at:
            if e in pairs:
                self.pair(e, pairs[e])
            elif mode != "subset":
                self.omitted(e)
        if mode != "superset":
            taken = set(pairs.values())
            for a in run.at:
                if a not in taken:
                    self.invented(a)

    def strict(self) -> None:
        """strict: message k of the run against expected message k."""
        wanted, made = messages_of(self.want), messages_of(self.run)
        for k, message in enumerate(wanted):
            other = made[k] if k < len(made) else None
            if self.want[message[0]].kind != CALL:
                self.step(message[0], other)
                if other is not None and self.run[other[0]].kind == CALL:
                    for a in other:  # (calls where another step was expected)
                        self.invented(a)
            elif other is None or self.run[other[0]].kind != CALL:
                for e in message:
                    self.omitted(e, self._label(other))
            else:
                pairs = self._message_pairs(message, other)
                for e in message:
                    if e in pairs:
                        self.pair(e, pairs[e])
                    else:
                        self.omitted(e)
                taken = set(pairs.values())
                for a in other:
                    if a not in taken:
                        self.invented(a)
        for message in made[len(wanted) :]:
            for a in message:
                self.invented(a)

    # -- pairing --------------------------------------------------------------------------

    def _valid(self, e: int, a: int) -> bool:
        return _valid_under(self.settings, self.want[e], self.run[a])

    def _judge(self, e: int, a: int) -> tuple[bool, float]:
        """Whether the pair (two calls of one function: the only pairs weighed) is valid,
        and its share of matched fields, from one check (every verdict a match: what
        ``agrees`` finds)."""
        want, made = self.want[e], self.run[a]
        found = arg_verdicts(self.settings.rule(want.name), want.arguments, made.arguments)
        matched = sum(v.status == MATCH for v in found)
        return matched == len(found), matched / len(found) if found else 0.0

    def _pairs(self, want: Calls, run: Calls) -> dict[int, int]:
        """unordered, superset, subset: expected step -> run step."""
        mode = self.settings.mode
        if mode == "unordered" and self.settings.pairing == "agentevals":
            return self._agentevals_unordered(want, run)
        if mode == "subset":  # (agentevals walks the run's calls, each into the reference)
            flipped = self._paired(
                run, want, _flipped(self._valid), _flipped(self._judge), len(run.at)
            )
            return {e: a for a, e in flipped.items()}
        needed = max(len(want.at), len(run.at)) if mode == "unordered" else len(want.at)
        return self._paired(want, run, self._valid, self._judge, needed)

    def _paired(
        self, outer: Calls, inner: Calls, valid: Valid, judge: Judge, needed: int
    ) -> dict[int, int]:
        if self.settings.pairing == "agentevals":
            pairs = greedy(outer, inner, valid, self.budget)
            return leftovers_in_order(pairs, outer, inner)
        return optimal(outer, inner, valid, judge, needed, self.budget)

    def _agentevals_unordered(self, want: Calls, run: Calls) -> dict[int, int]:
        """agentevals' unordered: the run a superset of the reference, then the reference a
        superset of the run (arguments facing the other way), each first fit; the pairs of
        the direction that falls short (so the comparison fails), else of the first."""
        s = self.settings
        forward = Settings("superset", s.pairing, s.default, s.tools)
        backward = Settings("subset", s.pairing, s.default, s.tools)
        ahead, behind = self._sides(forward)
        first = greedy(
            ahead,
            behind,
            lambda e, a: _valid_under(forward, self.want[e], self.run[a]),
            self.budget,
        )
        pairs = first
        if len(first) == len(want.at):
            ahead, behind = self._sides(backward)
            second = greedy(
                behind,
                ahead,
                lambda a, e: _valid_under(backward, self.want[e], self.run[a]),
                self.budget,
            )
            if len(second) < len(run.at):
                pairs = {e: a for a, e in second.items()}
        return leftovers_in_order(pairs, want, run)

    def _message_pairs(self, message: list[int], other: list[int]) -> dict[int, int]:
        """strict: one message's calls, the run's walked first (as agentevals does); only
        calls of one function pair, as in every mode: a call of another function than the
        one expected leaves the expected call omitted and is itself invented, each with its
        arguments (agentevals pairs by name too)."""
        flipped = self._paired(
            self.calls_made.only(other),
            self.calls_wanted.only(message),
            _flipped(self._valid),
            _flipped(self._judge),
            max(len(message), len(other)),
        )
        return {e: a for a, e in flipped.items()}

    # -- fields ---------------------------------------------------------------------------

    def pair(self, e: int, a: int) -> None:
        """An expected call and the run's call of the same function that stands for it."""
        want, made = self.want[e], self.run[a]
        path = key_segment(index_segment("", e), want.name)
        field = key_segment("[]", want.name)
        self._add(path, field, MATCH, want.name, made.name)
        rule = self.settings.rule(want.name)
        for v in arg_verdicts(rule, want.arguments, made.arguments):
            arg = str(v.argument)  # (an argument's verdict: never the name's)
            comparator = "exact" if rule.comparators is None else rule.comparators[arg].name
            self._add(
                key_segment(path, arg),
                key_segment(field, arg),
                v.status,
                v.expected,
                v.actual,
                score=v.score,
                comparator=comparator,
            )

    def omitted(self, e: int, instead: str | None = None) -> None:
        """An expected call the run did not make (``instead``: what the run's step there is)."""
        want = self.want[e]
        path = key_segment(index_segment("", e), want.name)
        field = key_segment("[]", want.name)
        if instead is None:
            self._add(path, field, OMISSION, want.name, MISSING, "call not made")
        else:
            self._add(path, field, MISMATCH, want.name, instead, "another step taken")
        self._unpaired_arguments(path, field, want, OMISSION, "call not made")

    def invented(self, a: int) -> None:
        """A step of the run that is not expected, named by its index in the run; its place
        in the answer is the fields' ``actual_path`` (an answer cut off while the step was
        written spares them: match.py)."""
        made = self.run[a]
        at = made.where
        if made.kind != CALL:
            self._add(
                index_segment("", a),
                "[]",
                HALLUCINATION,
                MISSING,
                made.role,
                "step not expected",
                at=at,
            )
            return
        path = key_segment(index_segment("", a), made.name)
        field = key_segment("[]", made.name)
        self._add(path, field, HALLUCINATION, MISSING, made.name, "call not expected", at=at)
        self._unpaired_arguments(path, field, made, HALLUCINATION, "call not expected", at)

    def _unpaired_arguments(
        self, path: str, field: str, call: Step, status: str, reason: str, at: str | None = None
    ) -> None:
        """Each counted argument of a call with no partner: an omission (the expected side's,
        its value the expected one) or a hallucination (the run's, its value the actual)."""
        rule = self.settings.rule(call.name)
        expected_side = status == OMISSION
        for key in counted(rule, call.arguments, expected_side=expected_side):
            value = value_of(rule, call.arguments, key)
            expected, actual = (value, MISSING) if expected_side else (MISSING, value)
            self._add(
                key_segment(path, key),
                key_segment(field, key),
                status,
                expected,
                actual,
                reason,
                at=at,
            )

    def step(self, e: int, other: list[int] | None) -> None:
        """strict: an expected step that is no call (its role) against the run's message."""
        want = self.want[e]
        path = index_segment("", e)
        if other is None:
            self._add(path, "[]", OMISSION, want.role, MISSING, "step not taken")
            return
        made = self.run[other[0]]
        same = made.kind != CALL and made.role == want.role
        self._add(path, "[]", MATCH if same else MISMATCH, want.role, self._label(other))

    def _label(self, message: list[int] | None) -> str | None:
        if message is None:
            return None
        first = self.run[message[0]]
        if first.kind != CALL:
            return first.role
        return "calls " + ", ".join(self.run[a].name for a in message)

    def _add(
        self,
        path: str,
        field: str,
        status: str,
        expected: object,
        actual: object,
        reason: str = "",
        score: float | None = None,
        comparator: str = "trajectory",
        at: str | None = None,
    ) -> None:
        if score is None:
            score = 1.0 if status == MATCH else 0.0
        self.out.append(
            FieldResult(path, status, score, expected, actual, comparator, reason, field, at)
        )


Judge = Callable[[int, int], tuple[bool, float]]
T = TypeVar("T")


def _flipped(check: Callable[[int, int], T]) -> Callable[[int, int], T]:
    """``check`` of (expected, run) taking (run, expected)."""
    return lambda a, e: check(e, a)


def _calls(steps: list[Step], side: str, settings: Settings) -> Calls:
    """The calls among ``steps`` as the pairing reads them, each by its function's rule."""
    return Calls(
        side, [i for i, step in enumerate(steps) if step.kind == CALL], steps, settings.rule
    )


def _valid_under(settings: Settings, want: Step, made: Step) -> bool:
    return want.name == made.name and agrees(
        settings.rule(want.name), want.arguments, made.arguments
    )


TRAJECTORY = Metric(
    "trajectory",
    _OPTIONS,
    _configure,
    headline="f_beta",
    allow_array=True,
    score_fields=score_fields,
    description="an agent's run step by step: calls, arguments and steps (agentevals' modes)",
)
