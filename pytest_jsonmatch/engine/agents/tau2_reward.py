"""tau2-bench's reward for one conversation, computed as its evaluator computes it.

tau2-bench (github.com/sierra-research/tau2-bench) scores a customer-service conversation
with components, each 1.0 or 0.0: the environment's end state (``DB``, and ``ENV_ASSERTION``),
the expected actions (``ACTION``), the information to tell the user (``COMMUNICATE``) and
assertions an LLM judges (``NL_ASSERTION``). The task's ``reward_basis`` names the components
whose product is the reward. Each rule below names the file and function of tau2-bench it
follows; docs/metrics.md ("tau2-bench's reward") lists them all.

Two things tau2-bench does cannot be done here, and are said where they apply: no
environment is replayed (the DB check compares the state the agent left with the state the
gold actions leave, both given as JSON), and a tool call a user message makes is not read
(the conversation's reader keeps the assistant's calls). The NL assertions are judged by
the caller's LLM judge where the reward needs them (``nl_met``: a conversation case asks
the judge its rubric is asked of, conversation_rubric.py); without its verdicts a reward
that needs them is a ConfigError.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from ..core.errors import ConfigError, did_you_mean, known_names, shown
from ..core.paths import index_segment, key_segment
from ..core.values import JsonValue
from ..reading.agent_messages import ASSISTANT, Conversation, ToolCall
from .agent_run import read_run
from .state_reading import read_state

# tau2's RewardType (data_model/tasks.py), by its values
DB, ENV_ASSERTION, NL_ASSERTION = "DB", "ENV_ASSERTION", "NL_ASSERTION"
ACTION, COMMUNICATE = "ACTION", "COMMUNICATE"
COMPONENTS = (DB, ENV_ASSERTION, NL_ASSERTION, ACTION, COMMUNICATE)
DEFAULT_BASIS = (DB, COMMUNICATE)  # EvaluationCriteria.reward_basis's default
REQUESTORS = ("assistant", "user")  # ToolRequestor (data_model/message.py)
ROOT = "evaluation_criteria"
_CRITERIA_KEYS = ("actions", "env_assertions", "communicate_info", "nl_assertions", "reward_basis")
_ACTION_KEYS = ("action_id", "requestor", "name", "arguments", "info", "compare_args")


class ActionCheck(NamedTuple):
    """One expected action: its ``action_id``, ``name`` and ``requestor`` as the task gives
    them, whether a call of the conversation ``matched`` it, and where the first such call
    is in the messages (``call``; ``""`` where none matched)."""

    action_id: str
    name: str
    requestor: str
    matched: bool
    call: str = ""


class InfoCheck(NamedTuple):
    """One ``communicate_info`` string, whether an assistant message ``found`` holds it, and
    where the first such message is (``message``; ``""`` where none does)."""

    info: str
    found: bool
    message: str = ""


class AssertionCheck(NamedTuple):
    """One NL assertion as the task gives it, and whether the judge found it ``met`` (None:
    not evaluated, or the judge left it undecided)."""

    assertion: str
    met: bool | None = None


class Tau2Reward(NamedTuple):
    """tau2-bench's reward for one conversation: ``reward`` (the product of the components
    in ``basis``, each 1.0 or 0.0), ``db`` (whether the end state is the expected one; None:
    not evaluated), one check per expected action (``actions``), per ``communicate_info``
    string (``communicate``) and per NL assertion (``nl_assertions``, never evaluated),
    ``basis`` (the task's ``reward_basis``), ``breakdown`` (each component of the basis and
    what it gave) and ``notes`` (what was not evaluated, and why). ``undecided``: the
    reward needs an NL assertion the judge left undecided (its ``reward`` is then 0.0 and
    is no verdict)."""

    reward: float
    db: bool | None
    actions: tuple[ActionCheck, ...]
    communicate: tuple[InfoCheck, ...]
    nl_assertions: tuple[AssertionCheck, ...]
    basis: tuple[str, ...]
    breakdown: Mapping[str, float]
    notes: tuple[str, ...] = ()
    undecided: bool = False


class Tau2Action(NamedTuple):
    """An expected action, read from the task (tau2's ``Action``): ``compare_args`` None
    compares every argument the call gives."""

    action_id: str
    name: str
    requestor: str
    arguments: Mapping[str, object]
    compare_args: tuple[str, ...] | None


class Tau2Criteria(NamedTuple):
    """A task's ``evaluation_criteria`` read and checked (tau2's ``EvaluationCriteria``):
    each list None where the task gives none (absent or null), which tau2-bench tells apart
    from an empty list in one place (the DB check's skip)."""

    actions: tuple[Tau2Action, ...] | None
    env_assertions: int | None  # how many (their contents need tau2's environment)
    communicate_info: tuple[str, ...] | None
    nl_assertions: tuple[str, ...] | None
    basis: tuple[str, ...]


def tau2_reward(
    conversation: object,
    criteria: object,
    end_state: object = None,
    expected_state: object = None,
    nl_met: Sequence[bool | None] | None = None,
) -> Tau2Reward:
    """tau2-bench's reward for ``conversation`` (a Conversation, or anything ``read_run``
    reads) under ``criteria`` (a task's ``evaluation_criteria``, as its JSON file gives it).
    ``end_state`` is the state the agent left (None: the conversation's own state, if any),
    ``expected_state`` the state the task's actions leave; both are read by ``read_state``.
    ``nl_met``: an LLM judge's verdict on each NL assertion, in order (True, False, None:
    undecided), asked by the caller where the reward needs them (``NL_ASSERTION`` in the
    basis: tau2-bench's evaluation type ``ALL`` judges them only then); None: not judged.
    ConfigError where the criteria are malformed (naming the key) or where the reward needs
    what this module cannot evaluate (the states, env assertions, NL assertions not
    judged)."""
    read = tau2_criteria(criteria)
    if not isinstance(conversation, Conversation):
        conversation = read_run(conversation)
    if end_state is None:
        end_state = conversation.state
    notes: list[str] = []
    basis = set(read.basis)
    db, env = _environment(read, end_state, expected_state, notes)
    actions = _actions_checked(conversation, read.actions or ())
    communicate = _communicated(conversation, read.communicate_info or ())
    nl = _nl_checked(read.nl_assertions or (), nl_met, NL_ASSERTION in basis, notes)
    # evaluator.py, evaluate_simulation (EvaluationType.ALL): each component gives 1.0 where
    # its list is empty or absent, else 1.0 when every check holds; the reward multiplies
    # those of the basis, DB and ENV_ASSERTION through the environment's one reward
    # (evaluator_nl_assertions.py: 1.0 when every assertion is met; with none, 1.0)
    undecided = NL_ASSERTION in basis and any(c.met is None for c in nl)
    given = {
        ACTION: 1.0 if all(check.matched for check in actions) else 0.0,
        COMMUNICATE: 1.0 if all(check.found for check in communicate) else 0.0,
        NL_ASSERTION: 1.0 if all(check.met for check in nl) else 0.0,
    }
    breakdown = {name: env[name] if name in env else given[name] for name in read.basis}
    reward = 1.0
    for value in breakdown.values():  # (a name the basis repeats counts once, as in tau2's set)
        reward *= value
    return Tau2Reward(
        reward, db, actions, communicate, nl, read.basis, breakdown, tuple(notes), undecided
    )


def _nl_checked(
    texts: Sequence[str], met: Sequence[bool | None] | None, needed: bool, notes: list[str]
) -> tuple[AssertionCheck, ...]:
    """Each NL assertion with the judge's verdict where the reward needs them (``needed``:
    NL_ASSERTION in the basis); tau2-bench's ``ALL`` judges none otherwise, and neither does
    this (a note says so). Needed and not judged: a ConfigError."""
    if not texts:
        return ()
    if not needed:
        notes.append(
            f"{NL_ASSERTION}: {len(texts)} assertion(s) not evaluated ({NL_ASSERTION} is not in "
            f"the reward_basis: tau2-bench's evaluation type ALL does not judge them)"
        )
        return tuple(AssertionCheck(text) for text in texts)
    if met is None:
        raise ConfigError(
            f"{key_segment(ROOT, 'reward_basis')} holds {NL_ASSERTION} and the task gives "
            f"{len(texts)} NL assertion(s): tau2-bench asks an LLM judge for them; give the "
            f"judge's verdicts (nl_met), or score the conversation with a judge configured"
        )
    if len(met) != len(texts):
        raise ConfigError(
            f"nl_met gives {len(met)} verdict(s) for the task's {len(texts)} NL assertion(s)"
        )
    return tuple(AssertionCheck(text, verdict) for text, verdict in zip(texts, met))


def tau2_criteria(criteria: object) -> Tau2Criteria:
    """``criteria`` read as tau2's ``EvaluationCriteria``: ConfigError naming the key or
    item that does not fit (``evaluation_criteria.actions[2].name``)."""
    if not isinstance(criteria, Mapping):
        raise ConfigError(
            f"{ROOT} must be a mapping (a tau2-bench task's 'evaluation_criteria' object), "
            f"not {shown(criteria)}"
        )
    if "evaluation_criteria" in criteria:
        raise ConfigError(
            f"{ROOT}: a whole task was given (it holds 'evaluation_criteria'); give the task's "
            f"'evaluation_criteria' object"
        )
    _known_keys(criteria, _CRITERIA_KEYS, ROOT)
    actions = _listed(criteria.get("actions"), key_segment(ROOT, "actions"))
    env = _listed(criteria.get("env_assertions"), key_segment(ROOT, "env_assertions"))
    for index, item in enumerate(env or ()):
        if not isinstance(item, Mapping):
            where = index_segment(key_segment(ROOT, "env_assertions"), index)
            raise ConfigError(f"{where} must be an env assertion (an object), not {shown(item)}")
    basis = criteria.get("reward_basis", list(DEFAULT_BASIS))
    at = key_segment(ROOT, "actions")
    return Tau2Criteria(
        None
        if actions is None
        else tuple(_action(a, index_segment(at, i)) for i, a in enumerate(actions)),
        None if env is None else len(env),
        _texts(criteria.get("communicate_info"), key_segment(ROOT, "communicate_info")),
        _texts(criteria.get("nl_assertions"), key_segment(ROOT, "nl_assertions")),
        _basis(basis),
    )


def action_matches(action: Tau2Action, call: ToolCall) -> bool:
    """Whether ``call`` is ``action`` (data_model/tasks.py, ``Action.compare_with_tool_call``):
    the same name, and the same values for the arguments compared, by Python's ``==``. The
    arguments compared are ``compare_args``, or where it is None every argument the call
    gives (so an argument only the action gives is not compared); none to compare is a match.
    An argument one side lacks is left out of that side: both must lack it to agree."""
    if action.name != call.name:
        return False
    compared: Collection[str] = (
        call.arguments.keys() if action.compare_args is None else action.compare_args
    )
    if len(compared) == 0:
        return True
    made = {k: v for k, v in call.arguments.items() if k in compared}
    wanted = {k: v for k, v in action.arguments.items() if k in compared}
    return made == wanted


# -- the components -------------------------------------------------------------------------


def _environment(
    read: Tau2Criteria, end_state: object, expected_state: object, notes: list[str]
) -> tuple[bool | None, dict[str, float]]:
    """The DB check and the environment's components (evaluator_env.py,
    ``EnvironmentEvaluator.calculate_reward``): whether the states agree (None: not
    evaluated) and what DB and ENV_ASSERTION give."""
    basis = set(read.basis)
    if read.actions is None and read.env_assertions is None:
        # tau2 skips the replay: the end state counts as right, the environment gives 1.0
        notes.append(f"{DB}: the task gives no actions and no env assertions: 1.0, unchecked")
        return True, {DB: 1.0, ENV_ASSERTION: 1.0}
    if read.env_assertions:
        notes.append(
            f"{ENV_ASSERTION}: {read.env_assertions} assertion(s) not evaluated (they run in "
            f"tau2-bench's environment)"
        )
        if ENV_ASSERTION in basis:
            raise ConfigError(
                f"{key_segment(ROOT, 'reward_basis')} holds {ENV_ASSERTION} and the task gives "
                f"{read.env_assertions} env assertion(s): they run in tau2-bench's environment, "
                f"which this reward does not replay"
            )
    missing = [
        name
        for name, state in (("end_state", end_state), ("expected_state", expected_state))
        if state is None
    ]
    if missing:
        notes.append(f"{DB}: not evaluated: no {' and no '.join(missing)} given")
        if DB in basis:
            raise ConfigError(
                f"{key_segment(ROOT, 'reward_basis')} holds {DB}, but no "
                f"{' and no '.join(missing)} was given: the DB check compares the state the "
                f"agent left (end_state, or the conversation's own state) with the state the "
                f"task's actions leave (expected_state)"
            )
        return None, {ENV_ASSERTION: 1.0}
    same = _canonical(end_state, "end_state") == _canonical(expected_state, "expected_state")
    return same, {DB: 1.0 if same else 0.0, ENV_ASSERTION: 1.0}


def _canonical(state: object, side: str) -> str:
    """A state as the text tau2-bench hashes (utils/utils.py, ``get_dict_hash``): JSON with
    its keys sorted, so that key order does not count and everything else does."""
    value: JsonValue = read_state(state, side)
    return json.dumps(value, sort_keys=True)


def _actions_checked(
    conversation: Conversation, actions: Sequence[Tau2Action]
) -> tuple[ActionCheck, ...]:
    """Each expected action against every call of the conversation (evaluator_action.py,
    ``_check_actions``): matched when any call, anywhere, in any order, matches it; one call
    may match several actions. The requestor is reported, never compared."""
    calls = conversation.calls
    checks = []
    for action in actions:
        found = next((call for call in calls if action_matches(action, call)), None)
        checks.append(
            ActionCheck(
                action.action_id,
                action.name,
                action.requestor,
                found is not None,
                "" if found is None else found.where,
            )
        )
    return tuple(checks)


def _communicated(conversation: Conversation, infos: Sequence[str]) -> tuple[InfoCheck, ...]:
    """Each string against the assistant's text messages (evaluator_communicate.py,
    ``CommunicateEvaluator.evaluate_communicate_info``): found when one message's text,
    lowercased and its commas removed, holds the string lowercased (its own commas kept)."""
    texts = [
        (message.where, message.answer.lower().replace(",", ""))
        for message in conversation.messages
        if message.role == ASSISTANT and isinstance(message.answer, str) and message.answer.strip()
    ]
    checks = []
    for info in infos:
        wanted = info.lower()
        where = next((at for at, text in texts if wanted in text), None)
        checks.append(InfoCheck(info, where is not None, where or ""))
    return tuple(checks)


# -- reading the criteria -------------------------------------------------------------------


def _known_keys(value: Mapping[object, object], known: Sequence[str], where: str) -> None:
    for key in value:
        if key not in known:
            raise ConfigError(
                f"{where}: unknown key {shown(key)}{did_you_mean(key, known)}; known keys: "
                f"{known_names(known)}"
            )


def _listed(value: object, where: str) -> Sequence[object] | None:
    """A list the criteria give (None where absent or null)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{where} must be a list or null, not {shown(value)}")
    return value


def _texts(value: object, where: str) -> tuple[str, ...] | None:
    listed = _listed(value, where)
    if listed is None:
        return None
    for index, item in enumerate(listed):
        if not isinstance(item, str):
            raise ConfigError(f"{index_segment(where, index)} must be text, not {shown(item)}")
    return tuple(str(item) for item in listed)


def _action(value: object, where: str) -> Tau2Action:
    """One item of ``actions`` as tau2's ``Action``: ``action_id``, ``name`` (text) and
    ``arguments`` (an object) required; ``requestor`` ``assistant`` (the default) or
    ``user``; ``compare_args`` a list of names or null; ``info`` text or null."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be an action (an object), not {shown(value)}")
    _known_keys(value, _ACTION_KEYS, where)
    for key in ("action_id", "name", "arguments"):
        if key not in value:
            raise ConfigError(f"{key_segment(where, key)} is missing: an action gives one")
    for key in ("action_id", "name"):
        if not isinstance(value[key], str):
            raise ConfigError(f"{key_segment(where, key)} must be text, not {shown(value[key])}")
    arguments = value["arguments"]
    if not isinstance(arguments, Mapping):
        raise ConfigError(
            f"{key_segment(where, 'arguments')} must be an object, not {shown(arguments)}"
        )
    requestor = value.get("requestor", "assistant")
    if requestor not in REQUESTORS:
        raise ConfigError(
            f"{key_segment(where, 'requestor')} must be 'assistant' or 'user', not "
            f"{shown(requestor)}"
        )
    info = value.get("info")
    if info is not None and not isinstance(info, str):
        raise ConfigError(f"{key_segment(where, 'info')} must be text or null, not {shown(info)}")
    compare = _texts(value.get("compare_args"), key_segment(where, "compare_args"))
    requestor = REQUESTORS[REQUESTORS.index(requestor)]  # (a str enum's member: its value)
    return Tau2Action(value["action_id"], value["name"], requestor, arguments, compare)


def _basis(value: object) -> tuple[str, ...]:
    """``reward_basis``: a list of tau2's RewardType values (an empty list: reward 1.0)."""
    where = key_segment(ROOT, "reward_basis")
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{where} must be a list of components, not {shown(value)}")
    for index, name in enumerate(value):
        if name not in COMPONENTS:
            raise ConfigError(
                f"{index_segment(where, index)}: unknown component {shown(name)}"
                f"{did_you_mean(name, COMPONENTS)}; known components: {known_names(COMPONENTS)}"
            )
    return tuple(COMPONENTS[COMPONENTS.index(name)] for name in value)  # (tau2's RewardType too)
