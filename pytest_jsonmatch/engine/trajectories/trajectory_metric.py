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
named by the run's own index. An expected call that gives ``status`` (``ok``, ``error``) has
one more field, ``[2].refund.status``: the status of the result that answers the run's call
(reading/agent_messages.py links them; an omission where none does); one without gives no
such field, and never does the status decide a pairing. The score is F1 over the fields; ``superset`` counts no
hallucination (a call the run adds costs nothing) and ``subset`` no omission (a call it
leaves out costs nothing), so the score is 1.0 exactly when the mode passes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import groupby
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
    NOT_MADE,
    ArgRule,
    FieldVerdict,
    agrees,
    arg_verdicts,
    call_rows,
    counted,
    read_rules,
    unpaired_verdicts,
)

CALL, RESULT, ANSWER, MESSAGE = "call", "result", "answer", "message"
STATUS = "status"  # the field of an expected call's status, below its name
MODES = ("strict", "unordered", "subset", "superset")
ARGS = ("exact", "ignore", "subset", "superset")
PAIRINGS = ("optimal", "agentevals")
_OPTIONS = frozenset({"mode", "args", "tool_args", "pairing", "truncated"})


class Step(NamedTuple):
    """One step of a run: its kind (``call``, ``result``, ``answer`` or ``message``), the
    role of its message, a call's function name and arguments (empty for other steps), the
    index of the message it came from, where it is in the input, and a call's ``status``
    (what the tool's result that answers it says: ``ok``, ``error``; None: no result) and
    ``required`` (the status an expected call says it must end in; None: it says none)."""

    kind: str
    role: str
    name: str
    arguments: JsonObject
    message: int
    where: str
    status: str | None = None
    required: str | None = None


def read_steps(value: object, side: str) -> list[Step]:
    """Every step of the run ``value``, in order (ParseError naming where ``side`` cannot
    be read)."""
    steps: list[Step] = []
    add, make = steps.append, tuple.__new__  # (Step(...) without its constructor's call:
    # a run of tens of thousands of steps makes as many)
    for k, message in enumerate(read_messages(value, side)):
        if message.calls:
            for c in message.calls:
                add(
                    make(
                        Step,
                        (CALL, ASSISTANT, c.name, c.arguments, k, c.where, c.status, c.required),
                    )
                )
        else:
            role = message.role
            kind = ANSWER if role == ASSISTANT else RESULT if role == TOOL else MESSAGE
            add(make(Step, (kind, role, "", {}, k, message.where, None, None)))
    return steps


def messages_of(steps: list[Step]) -> list[list[int]]:
    """The indices of the steps of each message, in order."""
    by_message = groupby(range(len(steps)), key=lambda i: steps[i].message)
    return [list(indices) for _, indices in by_message]


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
    mode = option_choice("trajectory", options, "mode", MODES, "strict")
    args = option_choice("trajectory", options, "args", ARGS, "exact")
    pairing = option_choice("trajectory", options, "pairing", PAIRINGS, "optimal")
    default, tools = read_rules(args, options.get("tool_args"), registry)
    return Settings(mode, pairing, default, tools)


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
        """Both sides' calls as the pairing reads them, each by its function's rule under
        ``settings``."""
        at_want = [i for i, step in enumerate(self.want) if step.kind == CALL]
        at_run = [i for i, step in enumerate(self.run) if step.kind == CALL]
        return (
            Calls("expected", at_want, self.want, settings.rule),
            Calls("run", at_run, self.run, settings.rule),
        )

    # -- the modes ------------------------------------------------------------------------

    def calls(self) -> None:
        """unordered, superset, subset: the calls alone, wherever they are."""
        want, run, mode = self.calls_wanted, self.calls_made, self.settings.mode
        self._rows(self._pairs(want, run), want.at, run.at, mode != "subset", mode != "superset")

    def strict(self) -> None:
        """strict: message k of the run against expected message k."""
        wanted, made = messages_of(self.want), messages_of(self.run)
        for k, message in enumerate(wanted):
            other = made[k] if k < len(made) else None
            calls = other if other is not None and self.run[other[0]].kind == CALL else None
            if self.want[message[0]].kind != CALL:
                self.step(message[0], other)
                self._rows({}, [], calls or [])  # (calls where another step was expected)
            elif calls is None:
                for e in message:
                    self.omitted(e, self._label(other))
            else:
                pairs = self._paired(
                    self.calls_wanted.only(message),
                    self.calls_made.only(calls),
                    max(len(message), len(calls)),
                    flip=True,
                )
                self._rows(pairs, message, calls)
        for message in made[len(wanted) :]:
            self._rows({}, [], message)

    def _rows(
        self,
        pairs: dict[int, int],
        wanted: Sequence[int],
        made: Sequence[int],
        omit: bool = True,
        invent: bool = True,
    ) -> None:
        """The rows of a pairing (expected step -> run step): each expected call of ``wanted``
        paired, or omitted (where ``omit``), then each call of ``made`` left unpaired invented
        (where ``invent``)."""
        for e in wanted:
            if e in pairs:
                self.pair(e, pairs[e])
            elif omit:
                self.omitted(e)
        taken = set(pairs.values())
        for a in made if invent else ():
            if a not in taken:
                self.invented(a)

    # -- pairing --------------------------------------------------------------------------

    def _valid(self, e: int, a: int, settings: Settings | None = None) -> bool:
        """Whether the pair is valid: calls of one function whose arguments agree (under
        ``settings``, else the comparison's)."""
        want, made = self.want[e], self.run[a]
        if want.name != made.name:
            return False
        return agrees((settings or self.settings).rule(want.name), want.arguments, made.arguments)

    def _judge(self, e: int, a: int) -> tuple[bool, float]:
        """Whether the pair (two calls of one function: the only pairs weighed) is valid,
        and its share of matched fields, from one check (every verdict a match: what
        ``agrees`` finds)."""
        want, made = self.want[e], self.run[a]
        found = arg_verdicts(self.settings.rule(want.name), want.arguments, made.arguments)
        matched = sum(v.status == MATCH for v in found)
        return matched == len(found), matched / len(found) if found else 0.0

    def _pairs(self, want: Calls, run: Calls) -> dict[int, int]:
        """unordered, superset, subset: expected step -> run step (in subset agentevals walks
        the run's calls, each into the reference)."""
        mode = self.settings.mode
        if mode == "unordered" and self.settings.pairing == "agentevals":
            return self._agentevals_unordered(want, run)
        if mode == "subset":
            return self._paired(want, run, len(run.at), flip=True)
        return self._paired(
            want, run, max(len(want.at), len(run.at)) if mode == "unordered" else len(want.at)
        )

    def _paired(self, want: Calls, run: Calls, needed: int, flip: bool = False) -> dict[int, int]:
        """Expected step -> run step, paired as the ``pairing`` option says; ``flip``: the
        run's calls walked first, each into the expected ones, as agentevals walks them in
        subset and within a message in strict. Only calls of one function pair, in every mode
        (agentevals pairs by name too): a call of another function than the one expected
        leaves the expected call omitted and is itself invented, each with its arguments."""
        outer, inner = want, run
        valid: Valid = self._valid
        judge: Callable[[int, int], tuple[bool, float]] = self._judge
        if flip:
            outer, inner, valid, judge = run, want, _flipped(valid), _flipped(judge)
        if self.settings.pairing == "agentevals":
            pairs = leftovers_in_order(greedy(outer, inner, valid, self.budget), outer, inner)
        else:
            pairs = optimal(outer, inner, valid, judge, needed, self.budget)
        return {e: a for a, e in pairs.items()} if flip else pairs

    def _agentevals_unordered(self, want: Calls, run: Calls) -> dict[int, int]:
        """agentevals' unordered: the run a superset of the reference, then the reference a
        superset of the run (arguments facing the other way), each first fit; the pairs of
        the direction that falls short (so the comparison fails), else of the first."""
        pairs = self._first_fit("superset")
        if len(pairs) == len(want.at):
            second = self._first_fit("subset")
            if len(second) < len(run.at):
                pairs = second
        return leftovers_in_order(pairs, want, run)

    def _first_fit(self, mode: str) -> dict[int, int]:
        """agentevals' first fit under ``mode``'s arguments (superset: each expected call into
        the run's; subset: each of the run's into the expected ones): expected -> run."""
        settings = self.settings._replace(mode=mode)
        want, run = self._sides(settings)

        def valid(e: int, a: int) -> bool:
            return self._valid(e, a, settings)

        if mode == "superset":
            return greedy(want, run, valid, self.budget)
        return {e: a for a, e in greedy(run, want, _flipped(valid), self.budget).items()}

    # -- fields ---------------------------------------------------------------------------

    def pair(self, e: int, a: int) -> None:
        """An expected call and the run's call of the same function that stands for it."""
        want, made = self.want[e], self.run[a]
        rule = self.settings.rule(want.name)
        name = FieldVerdict(None, MATCH, want.name, made.name, "")
        found = [name, *arg_verdicts(rule, want.arguments, made.arguments)]
        by = rule.comparators  # (an argument's verdict: its comparator's, else exact's)
        self._call(e, want.name, found, compared=lambda arg: by[arg].name if by else "exact")
        if want.required is not None:
            verdict = _status_verdict(want.required, made.status)
            self._call(e, want.name, [verdict], compared=lambda _: "exact")

    def omitted(self, e: int, instead: str | None = None) -> None:
        """An expected call the run did not make (``instead``: what the run's step there is)."""
        want = self.want[e]
        verdicts = self._unpaired(want, expected_side=True)
        if instead is not None:
            verdicts[0] = FieldVerdict(None, MISMATCH, want.name, instead, "another step taken")
        if want.required is not None:
            verdicts.append(FieldVerdict(STATUS, OMISSION, want.required, MISSING, NOT_MADE))
        self._call(e, want.name, verdicts)

    def invented(self, a: int) -> None:
        """A step of the run that is not expected, named by its index in the run; its place
        in the answer is the fields' ``actual_path`` (an answer cut off while the step was
        written spares them: match.py)."""
        made = self.run[a]
        if made.kind != CALL:
            why = "step not expected"
            self._step(a, FieldVerdict(None, HALLUCINATION, MISSING, made.role, why), made.where)
        else:
            self._call(a, made.name, self._unpaired(made, expected_side=False), made.where)

    def _unpaired(self, call: Step, expected_side: bool) -> list[FieldVerdict]:
        """A call with no partner: its name and each argument its rule counts there."""
        found = counted(self.settings.rule(call.name), call.arguments, expected_side)
        return unpaired_verdicts(call.name, found, expected_side)

    def step(self, e: int, other: list[int] | None) -> None:
        """strict: an expected step that is no call (its role) against the run's message."""
        want = self.want[e]
        if other is None:
            self._step(e, FieldVerdict(None, OMISSION, want.role, MISSING, "step not taken"))
            return
        made = self.run[other[0]]
        same = made.kind != CALL and made.role == want.role
        status = MATCH if same else MISMATCH
        self._step(e, FieldVerdict(None, status, want.role, self._label(other), ""))

    def _label(self, message: list[int] | None) -> str | None:
        if message is None:
            return None
        first = self.run[message[0]]
        if first.kind != CALL:
            return first.role
        return "calls " + ", ".join(self.run[a].name for a in message)

    def _call(
        self,
        i: int,
        name: str,
        verdicts: list[FieldVerdict],
        at: str | None = None,
        compared: Callable[[str], str] | None = None,
    ) -> None:
        """The rows of a call at step ``i`` (of the expected run, or the run's where invented)."""
        path = key_segment(index_segment("", i), name)
        field = key_segment("[]", name)
        self.out += call_rows(verdicts, path, field, "trajectory", at, compared=compared)

    def _step(self, i: int, verdict: FieldVerdict, at: str | None = None) -> None:
        """The row of a step that is no call, at step ``i``."""
        self.out += call_rows([verdict], index_segment("", i), "[]", "trajectory", at)


T = TypeVar("T")


def _status_verdict(required: str, status: str | None) -> FieldVerdict:
    """The row ``NAME.status`` of an expected call that says how its step must end: the
    run's call's status (its result's) against it; omitted where no result answers the
    call, or the call was not made."""
    if status is None:
        return FieldVerdict(STATUS, OMISSION, required, MISSING, "no result answers the call")
    verdict = MATCH if status == required else MISMATCH
    return FieldVerdict(STATUS, verdict, required, status, "")


def _flipped(check: Callable[[int, int], T]) -> Callable[[int, int], T]:
    """``check`` of (expected, run) taking (run, expected)."""
    return lambda a, e: check(e, a)


TRAJECTORY = Metric(
    "trajectory",
    _OPTIONS,
    _configure,
    headline="f_beta",
    allow_array=True,
    score_fields=score_fields,
    description="an agent's run step by step: calls, arguments and steps (agentevals' modes)",
)
