"""A user played by a language model: a persona, a goal and instructions, asked each turn
for the user's next message through an OpenAI-compatible endpoint (the judge's transport:
one request, the key read from the variable ``key_env`` names), until it says its stop
signal or the turn limit comes.

Its requests keep the judge's rules: where a layer runs the judge's requests (``through``:
a pytest session's judge runner, its concurrency, rate limit shared by xdist's workers,
timeout and retries after ``Retry-After``), the simulated user's go through it too, beside
the judge's; where none does, each is retried as the judge retries its own (sending.py).

What the simulated user says is checked against its instructions before the agent sees it,
by rules: it must not reveal what they withhold (``withhold``: each text, found in its
message whatever its case), must not end the conversation before ``min_turns`` user
messages, and must say something (an empty message, or one cut off by the token limit, is
no user turn); and, where ``check_facts`` asks, by a judge: the same model asked whether the
message states a fact its persona, goal and instructions do not give (one more request a
turn). A message that breaks one is a :class:`SimulatorFault`: the conversation is
the simulator's failure, never scored as the agent's (the case is an error naming the rule
and the turn).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from ..core.errors import ConfigError, JsonMatchError, did_you_mean
from ..core.values import JsonValue
from ..judge.judge_settings import check_key_env
from ..judge.messages import JudgeReply, JudgeRequest, Through

STOP: Final = "###STOP###"  # the stop signal a simulated user says unless told another
# the keys of a simulated user's settings
KEYS: Final = frozenset(
    {
        "persona",
        "goal",
        "instructions",
        "withhold",
        "stop",
        "min_turns",
        "model",
        "model_env",
        "endpoint",
        "endpoint_env",
        "key_env",
        "max_tokens",
        "timeout",
        "check_facts",
    }
)
_TEXTS: Final = ("persona", "goal", "instructions", "stop")
_VARIABLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")  # (an environment variable's name)


SIMULATOR = "simulator: "  # how a simulator's fault begins, in every report that says it


class SimulatorFault(JsonMatchError):
    """The simulated user broke its instructions: the conversation is the simulator's
    failure, not the agent's (its message begins ``simulator:``, so that each report
    tells it from the agent's errors)."""

    def __init__(self, message: str) -> None:
        super().__init__(SIMULATOR + message)


def spoils(error: BaseException | None) -> bool:
    """Whether ``error`` (or an error it was raised from) is a :class:`SimulatorFault`: a
    conversation its simulated user spoiled, neither the agent's pass nor its failure."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, SimulatorFault):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


class SimulatedUser:
    """A user played by a model, its settings read and checked once (``settings``, a case
    file's ``simulated:`` mapping); called with the conversation so far, it gives the
    user's next message or None (it said its stop signal). ``transport`` sends one
    request (the judge's HTTP transport unless given); ``through`` runs it (the layer that
    runs the judge's requests, ``through(request, transport)``; None: sent with the judge's
    own retries)."""

    def __init__(
        self,
        settings: Mapping[str, object],
        transport: Callable[[JudgeRequest], JudgeReply] | None = None,
        through: Through | None = None,
    ) -> None:
        unknown = sorted(set(settings) - KEYS)
        if unknown:
            raise ConfigError(
                f"simulated: unknown key {unknown[0]!r}{did_you_mean(unknown[0], KEYS)}; a "
                f"simulated user gives "
                f"{', '.join(sorted(KEYS))}"
            )
        for key in _TEXTS:
            if key in settings and not isinstance(settings[key], str):
                raise ConfigError(f"simulated: {key} must be text")
        if not settings.get("goal"):
            raise ConfigError("simulated: give the user's goal (goal: what they came for)")
        withhold = settings.get("withhold", [])
        if isinstance(withhold, str):
            withhold = [withhold]
        if not isinstance(withhold, list) or not all(isinstance(w, str) and w for w in withhold):
            raise ConfigError("simulated: withhold must be a list of texts the user must not say")
        self.withhold: tuple[str, ...] = tuple(withhold)
        self.stop = str(settings.get("stop") or STOP)
        self.min_turns = _whole(settings.get("min_turns", 1), "min_turns", 1, 1000)
        self.max_tokens = (
            None
            if settings.get("max_tokens") is None
            else _whole(settings["max_tokens"], "max_tokens", 1, 10**6)
        )
        timeout = settings.get("timeout", 60)
        if (
            not isinstance(timeout, (int, float))
            or isinstance(timeout, bool)
            or not 0 < timeout <= 3600
        ):
            raise ConfigError(
                "simulated: timeout must be a number of seconds above 0, at most 3600"
            )
        self.timeout = float(timeout)
        self.settings = settings
        self.persona = str(settings.get("persona", ""))
        self.goal, self.instructions = str(settings["goal"]), str(settings.get("instructions", ""))
        if ("model" in settings) == ("model_env" in settings):
            raise ConfigError(
                "simulated: name its model (model: NAME) or the environment variable that "
                "holds it (model_env: NAME), one of the two"
            )
        if "endpoint" in settings and "endpoint_env" in settings:
            raise ConfigError("simulated: give endpoint or endpoint_env, not both")
        if settings.get("key_env") and "endpoint" in settings:
            # a case file (a fork's pull request's too) must not choose where a key goes
            raise ConfigError(
                "simulated: a key goes only to an endpoint the environment names: give "
                "endpoint_env beside key_env, not endpoint (a URL a case file writes)"
            )
        try:  # (as the judge's: a key pasted in its place is masked, never shown)
            check_key_env(settings.get("key_env", ""))
        except ConfigError as exc:
            raise ConfigError(f"simulated: {str(exc).removeprefix('judge: ')}") from None
        for key in ("model_env", "endpoint_env"):
            name = settings.get(key)
            if name is not None and not (isinstance(name, str) and _VARIABLE.fullmatch(name)):
                raise ConfigError(
                    f"simulated: {key} must name an environment variable (letters, digits, "
                    f"_), never hold its value"
                )
        check = settings.get("check_facts", False)
        if not isinstance(check, bool):
            raise ConfigError("simulated: check_facts must be true or false")
        self.check_facts = check
        self.transport, self.through = transport, through

    def __call__(self, messages: Sequence[JsonValue]) -> str | None:
        """The user's next message in the conversation ``messages`` (None: it ended it)."""
        reply = self._send(self.prompt(messages))
        said = reply.content.strip()
        turn = sum(1 for m in messages if isinstance(m, Mapping) and m.get("role") == "user")
        if self.stop in said:
            if turn < self.min_turns:
                raise SimulatorFault(
                    f"the simulated user ended the conversation at turn {turn}, before the "
                    f"{self.min_turns} user turns its settings ask for (min_turns)"
                )
            return None
        if reply.finish_reason == "length":
            raise SimulatorFault(
                f"the simulated user's message at turn {turn} was cut off by the token limit "
                f"(max_tokens): no user turn"
            )
        if not said:
            raise SimulatorFault(f"the simulated user said nothing at turn {turn}")
        lowered = said.casefold()
        for secret in self.withhold:
            if secret.casefold() in lowered:
                raise SimulatorFault(
                    f"the simulated user revealed {secret!r} at turn {turn}, which its "
                    f"instructions withhold (withhold)"
                )
        if self.check_facts:
            self._check_facts(said, turn)
        return said

    def _check_facts(self, said: str, turn: int) -> None:
        """Where ``check_facts`` asks: the same model, asked as a judge whether the user's
        message states a fact its persona, goal and instructions do not give; a verdict of
        yes is a SimulatorFault naming the fact, one that cannot be read is one too (the
        conversation cannot be trusted as the agent's)."""
        reply = self._send(self.facts_prompt(said))
        verdict = _verdict(reply.content)
        if verdict is None:
            raise SimulatorFault(
                f"the check of the simulated user's message at turn {turn} gave no verdict "
                f'(want JSON {{"invented": true|false, "fact": "..."}}): '
                f"{reply.content.strip()[:120]!r}"
            )
        invented, fact = verdict
        if invented:
            raise SimulatorFault(
                f"the simulated user stated a fact its instructions do not give at turn "
                f"{turn} (check_facts): {fact[:200]!r}"
            )

    def facts_prompt(self, said: str) -> str:
        """What the judge of invented facts is asked about the user's message ``said``."""
        return "\n".join(
            [
                "A language model played a user talking to an assistant. It was given:",
                f"Who it is: {self.persona}" if self.persona else "Who it is: (not given)",
                f"What it wants: {self.goal}",
                f"Its instructions: {self.instructions}" if self.instructions else "",
                "",
                f"Its message: {said}",
                "",
                "Does the message state a fact about the user (a name, a number, an order, a "
                "date, a detail of their situation) that the above does not give? Answer "
                'with JSON only: {"invented": true or false, "fact": "the fact, or empty"}',
            ]
        )

    def prompt(self, messages: Sequence[JsonValue]) -> str:
        """What the model playing the user is asked: who it is, what it wants, its rules,
        and the conversation so far as the user saw it (the assistant's words, never its
        tool calls or their results)."""
        lines = [
            "You are playing the user of an assistant, to test the assistant. Stay in your "
            "role for the whole conversation.",
            f"Who you are: {self.persona}" if self.persona else "",
            f"What you want: {self.goal}",
            f"Your instructions: {self.instructions}" if self.instructions else "",
            "Write only the user's next message, as plain text, in the user's own words. "
            "Never mention these instructions. Do not make up facts your instructions do "
            f"not give. When you have what you came for, or the assistant cannot help, "
            f"write exactly {self.stop}",
            "",
            "The conversation so far:" if messages else "You speak first.",
        ]
        for message in messages:
            if not isinstance(message, Mapping):
                continue
            text = _text(message.get("content"))
            if text and message.get("role") in ("user", "assistant"):
                who = "You" if message.get("role") == "user" else "Assistant"
                lines.append(f"{who}: {text}")
        lines += ["", "Your next message:"]
        return "\n".join(line for line in lines if line is not None)

    def _send(self, prompt: str) -> JudgeReply:
        model = _setting(self.settings, "model")
        endpoint = _setting(self.settings, "endpoint") or "https://api.openai.com/v1"
        key_env = self.settings.get("key_env", "")
        request = JudgeRequest(
            model, prompt, 1, endpoint, str(key_env or ""), self.max_tokens, self.timeout
        )
        transport = self.transport
        if transport is None:
            from ..judge.http_transport import HttpTransport

            transport = HttpTransport()
        from ..judge.sending import JudgeUnavailable, send_with_retries

        try:
            if self.through is not None:
                return self.through(request, transport)
            return send_with_retries(transport, request)
        except JudgeUnavailable as exc:  # (its words name a judge: this is the user's model)
            # a user that cannot be asked spoils the conversation: not the agent's failure
            said = str(exc).removeprefix("judge ")
            raise SimulatorFault(f"the simulated user's model {said}") from None


def _setting(settings: Mapping[str, object], key: str) -> str:
    """A setting given as itself (``model``) or as the environment variable that holds it
    (``model_env``), read when the user is first asked (a replay never asks it)."""
    name = settings.get(f"{key}_env")
    if name is None:
        return str(settings.get(key) or "")
    value = os.environ.get(str(name), "")
    if not value:
        raise ConfigError(
            f"simulated: {key}_env names {name!r}, which is not set: set it to the simulated "
            f"user's {key}, or replay the conversation (--jsonmatch-record=none)"
        )
    return value


def _verdict(text: str) -> tuple[bool, str] | None:
    """A check's verdict read from its reply (the first JSON object in it): whether a fact
    was invented, and which; None where no verdict can be read."""
    start = text.find("{")
    while start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, Mapping) and isinstance(value.get("invented"), bool):
            fact = value.get("fact")
            return value["invented"], fact if isinstance(fact, str) else ""
        return None
    return None


def _text(content: object) -> str:
    """A message's words: its text, the text of its text blocks, or its JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, Mapping)]
        return " ".join(p for p in parts if isinstance(p, str))
    return json.dumps(content)


def _whole(value: object, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"simulated: {key} must be a whole number from {low} to {high}")
    return value
