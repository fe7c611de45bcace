"""The usual client loop of a tool-calling agent, returning its whole run: :func:`run_tools`.

The model is asked through ``client.chat.completions.create`` (the ``openai`` client, or any
client with that method and OpenAI's response shape: duck typed, ``openai`` is never
imported here); each tool call it makes is executed by name from ``functions`` and its
result appended as a ``tool`` message; the model is asked again until it answers without a
call. The run (the conversation given, every assistant message, every tool result) and the
state the tools left come back as an :class:`~pytest_jsonmatch.AgentRun`, ready for a golden
case's target to return (docs/agents.md).

A tool that fails does not stop the run: as agents do, its error becomes the tool message's
text (``error: ...``), and the model decides what to do next. A model that still calls tools
after ``max_steps`` requests stops the run loudly: :class:`MaxStepsError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from ..calls.agent_outputs import AgentRun
from ..engine.core.errors import ConfigError


class MaxStepsError(ConfigError):
    """The model still called tools after ``max_steps`` requests: the run did not end.
    ``run`` holds it as far as it went (an :class:`~pytest_jsonmatch.AgentRun`)."""

    def __init__(self, message: str, run: AgentRun) -> None:
        super().__init__(message)
        self.run = run


def run_tools(
    client: object,
    *,
    model: str,
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    functions: Mapping[str, Callable[..., object]],
    max_steps: int = 8,
    state: object = None,
    **create_kwargs: object,
) -> AgentRun:
    """Run the agent loop: ask the model (``model``, the conversation so far, ``tools`` and
    ``create_kwargs`` passed to ``client.chat.completions.create``), execute the calls it
    makes with ``functions`` (name -> Python callable, called with the call's arguments as
    keywords; what it returns is the tool message's content, as JSON unless it is text),
    until it answers without a call. Returns the run with the usage summed over the
    requests and ``state`` (the tools' environment, read when the run ends).

    ``max_steps`` bounds the requests (ConfigError unless a whole number >= 1); a model that
    calls tools in every one raises :class:`MaxStepsError` holding the run so far."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise ConfigError(f"run_tools: max_steps must be a whole number >= 1, not {max_steps!r}")
    create = client.chat.completions.create  # type: ignore[attr-defined]
    conversation: list[Mapping[str, object]] = [dict(message) for message in messages]
    usage = _Usage()
    for _ in range(max_steps):
        response = create(model=model, messages=conversation, tools=tools, **create_kwargs)
        usage.add(_get(response, "usage"))
        choices = _get(response, "choices")
        if not isinstance(choices, Sequence) or not choices:
            raise ConfigError(f"run_tools: the model's response holds no choice: {response!r:.200}")
        reply, calls = _assistant(_get(choices[0], "message"))
        conversation.append(reply)
        if not calls:
            return usage.run(conversation, state)
        conversation += [_executed(call, functions) for call in calls]
    names = ", ".join(str(_get(call["function"], "name")) for call in calls)
    raise MaxStepsError(
        f"run_tools: the model still called tools after max_steps={max_steps} requests (its "
        f"last calls: {names}); the run stops there: raise max_steps, or see why the agent "
        f"loops (the error's run holds it so far)",
        usage.run(conversation, state),
    )


def _get(value: object, key: str) -> object:
    """``value[key]`` of a mapping, else its attribute (None where it has neither)."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _assistant(message: object) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The model's message as a plain chat message, and its calls (``id``, ``function``'s
    ``name`` and ``arguments`` text) as the conversation sends them back."""
    calls: list[dict[str, object]] = []
    given = _get(message, "tool_calls")
    for call in given if isinstance(given, Sequence) else ():
        function = _get(call, "function")
        calls.append(
            {
                "id": _get(call, "id"),
                "type": "function",
                "function": {
                    "name": _get(function, "name"),
                    "arguments": _get(function, "arguments"),
                },
            }
        )
    reply: dict[str, object] = {"role": "assistant", "content": _get(message, "content")}
    if calls:
        reply["tool_calls"] = calls
    return reply, calls


def _executed(
    call: Mapping[str, object], functions: Mapping[str, Callable[..., object]]
) -> dict[str, object]:
    """The ``tool`` message answering ``call``: the function's result, or what went wrong
    (an unknown name, arguments that are no JSON object, the function raising) as text."""
    function = call["function"]
    assert isinstance(function, Mapping)
    name, text = function["name"], function["arguments"]
    return {"role": "tool", "tool_call_id": call["id"], "content": _result(name, text, functions)}


def _result(name: object, text: object, functions: Mapping[str, Callable[..., object]]) -> str:
    tool = functions.get(name) if isinstance(name, str) else None
    if tool is None:
        return f"error: no tool named {name!r}; the tools are {', '.join(sorted(functions))}"
    try:
        arguments = json.loads(text) if isinstance(text, str) and text.strip() else {}
    except ValueError as exc:
        return f"error: the arguments of {name} are not JSON ({exc})"
    if not isinstance(arguments, dict):
        return f"error: the arguments of {name} must be a JSON object, not {text!r:.100}"
    try:
        result = tool(**arguments)
    except Exception as exc:  # noqa: BLE001 - the model is told, as agents tell it
        return f"error: {type(exc).__name__}: {exc}"
    return result if isinstance(result, str) else json.dumps(result, default=str)


class _Usage:
    """The tokens the requests reported, summed (None where no request reported them)."""

    def __init__(self) -> None:
        self.input: int | None = None
        self.output: int | None = None

    def add(self, usage: object) -> None:
        prompt, completion = _get(usage, "prompt_tokens"), _get(usage, "completion_tokens")
        if isinstance(prompt, int) and not isinstance(prompt, bool):
            self.input = (self.input or 0) + prompt
        if isinstance(completion, int) and not isinstance(completion, bool):
            self.output = (self.output or 0) + completion

    def run(self, conversation: list[Mapping[str, object]], state: object) -> AgentRun:
        return AgentRun(conversation, state, self.input, self.output)
