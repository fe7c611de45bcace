"""The usual client loop of a tool-calling agent, returning its whole run: :func:`run_tools`.

The model is asked through ``client.chat.completions.create`` (the ``openai`` client, or any
client with that method and OpenAI's response shape: duck typed, ``openai`` is never
imported here); each tool call it makes is executed by name from ``functions`` and its
result appended as a ``tool`` message; the model is asked again until it answers without a
call. The run (the conversation given, every assistant message, every tool result) and the
state the tools left come back as an :class:`~pytest_jsonmatch.AgentRun`, ready for a golden
case's target to return (docs/agents.md).

A tool that fails does not stop the run: as agents do, its error becomes the tool message's
text (``error: ...``), and the model decides what to do next. That holds for every way a
call can fail, in one place each: the call's ``arguments`` read as the scorer reads them
(``read_arguments``: as deeply as the door reads values, 2,000 levels), and the function's
return value written as the text the model is sent (:func:`_content`: a value JSON cannot
write, or a text longer than :data:`MAX_RESULT_CHARS`, is an error as a function that
raised is). The whole run is bounded too: a model that still calls tools after
``max_steps`` requests, makes more than :data:`MAX_CALLS_PER_RESPONSE` calls in one
response, or has tools return more than :data:`MAX_RUN_RESULT_CHARS` characters in all
stops the run loudly (:class:`RunLimitError`, :class:`MaxStepsError` for ``max_steps``,
holding the run so far): a model that floods is a run not to score, and never a
MemoryError. Text from the model (a tool's name) is quoted with ``repr`` in every message,
so none of its newlines or control characters reaches a terminal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from ..engine.core.errors import ConfigError, ParseError, shown
from ..engine.reading.agent_messages import read_arguments
from .agent_outputs import AgentRun

# The longest text a tool message may carry (about 250,000 tokens, more than most models'
# context windows): a tool's result beyond it is an error the model is told, and neither it
# nor the recording holds the result itself. An error's own text is cut to ERROR_CHARS.
MAX_RESULT_CHARS = 1_000_000
ERROR_CHARS = 2_000
# What one run may hold, each a RunLimitError past it: the calls of one response (parallel
# calls; a model making more floods, and none of them is run), and the text of every tool
# result the run keeps (16 results of the longest; more than any model's context window, so
# no request past it could be answered: the run stops at the result that would pass it).
MAX_CALLS_PER_RESPONSE = 128
MAX_RUN_RESULT_CHARS = 16 * MAX_RESULT_CHARS
_NAMES_SHOWN = 5  # the last calls a MaxStepsError names (each name cut to 60 characters)


class RunLimitError(ConfigError):
    """The run passed one of its limits (MAX_CALLS_PER_RESPONSE, MAX_RUN_RESULT_CHARS, or
    ``max_steps``: :class:`MaxStepsError`) and stopped there. ``run`` holds it as far as it
    went (an :class:`~pytest_jsonmatch.AgentRun`)."""

    def __init__(self, message: str, run: AgentRun) -> None:
        super().__init__(message)
        self.run = run


class MaxStepsError(RunLimitError):
    """The model still called tools after ``max_steps`` requests: the run did not end."""


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
    calls tools in every one raises :class:`MaxStepsError` holding the run so far, and one
    past the run's other limits (MAX_CALLS_PER_RESPONSE calls in a response,
    MAX_RUN_RESULT_CHARS of tool results) :class:`RunLimitError`."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise ConfigError(f"run_tools: max_steps must be a whole number >= 1, not {max_steps!r}")
    create = client.chat.completions.create  # type: ignore[attr-defined]
    conversation: list[Mapping[str, object]] = [dict(message) for message in messages]
    usage = _Usage()
    kept = _Results()
    for step in range(1, max_steps + 1):
        response = create(model=model, messages=conversation, tools=tools, **create_kwargs)
        usage.add(_get(response, "usage"))
        choices = _get(response, "choices")
        if not isinstance(choices, Sequence) or not choices:
            raise ConfigError(
                f"run_tools: the model's response holds no choice: {shown(response, 200)}"
            )
        reply, calls = _assistant(_get(choices[0], "message"))
        conversation.append(reply)
        if not calls:
            return usage.run(conversation, state)
        if len(calls) > MAX_CALLS_PER_RESPONSE:
            raise RunLimitError(_too_many_calls(len(calls), step), usage.run(conversation, state))
        past = kept.answer(calls, functions, conversation, step)
        if past is not None:
            raise RunLimitError(past, usage.run(conversation, state))
    names = ", ".join(shown(_get(call["function"], "name")) for call in calls[:_NAMES_SHOWN])
    if len(calls) > _NAMES_SHOWN:
        names += f", ... ({len(calls):,} calls)"
    raise MaxStepsError(
        f"run_tools: the model still called tools after max_steps={max_steps} requests (its "
        f"last calls: {names}); the run stops there: raise max_steps, or see why the agent "
        f"loops (the error's run holds it so far)",
        usage.run(conversation, state),
    )


def _too_many_calls(calls: int, step: int) -> str:
    return (
        f"run_tools: the model made {calls:,} tool calls in one response (request {step}), more "
        f"than the {MAX_CALLS_PER_RESPONSE} a response may hold (MAX_CALLS_PER_RESPONSE); none "
        f"of them was run and the run stops there (the error's run holds it so far)"
    )


class _Results:
    """The tool results of a run, their characters counted against MAX_RUN_RESULT_CHARS."""

    def __init__(self) -> None:
        self.chars = 0

    def answer(
        self,
        calls: list[dict[str, object]],
        functions: Mapping[str, Callable[..., object]],
        conversation: list[Mapping[str, object]],
        step: int,
    ) -> str | None:
        """Run ``calls`` in order, each one's tool message added to ``conversation``; where a
        result would take the run past MAX_RUN_RESULT_CHARS, the error's text (that result
        left out, no later call run), else None."""
        for k, call in enumerate(calls, 1):
            answer = _executed(call, functions)
            self.chars += len(str(answer["content"]))
            if self.chars > MAX_RUN_RESULT_CHARS:
                name = shown(_get(call["function"], "name"))
                return (
                    f"run_tools: the tool results of the run passed {MAX_RUN_RESULT_CHARS:,} "
                    f"characters (MAX_RUN_RESULT_CHARS) at the result of {name} (call {k} of "
                    f"{len(calls)}, request {step}): that result is left out and the run stops "
                    f"there (the error's run holds it so far); return less, or see why the "
                    f"model asks for so much"
                )
            conversation.append(answer)
        return None


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
    """The text the model is sent for one call: the function's result, or ``error: ...``
    saying why there is none (every model text in it quoted)."""
    if not isinstance(name, str) or (tool := functions.get(name)) is None:
        return f"error: no tool named {shown(name)}; the tools are {', '.join(sorted(functions))}"
    try:
        arguments = _arguments(name, text)
    except ParseError as exc:
        return _error_text(exc)
    try:
        result = tool(**arguments)
    except Exception as exc:  # noqa: BLE001 - the model is told, as agents tell it
        return _error_text(exc, with_type=True)
    return _content(name, result)


def _arguments(name: str, text: object) -> dict[str, object]:
    """The call's arguments, read as the scorer reads them (ParseError saying why not)."""
    if isinstance(text, str):
        arguments = read_arguments(text, f"the arguments text of {name!r}")
    else:
        arguments = {} if text is None else text  # (a client that hands them over read)
    if not isinstance(arguments, Mapping):
        raise ParseError(
            f"the arguments of {name!r} must be an object or JSON text holding one, not "
            f"{shown(text)}"
        )
    return dict(arguments)


def _content(name: str, result: object) -> str:
    """The one place a function's result becomes the text the model is sent (and the run
    records): text as it is, anything else as JSON (``default=str`` for what JSON has no
    form of). A result JSON cannot write (a list inside itself, a key that is not text, an
    integer past Python's digit limit, nesting past the writer's recursion) or a text
    longer than MAX_RESULT_CHARS is an error text, as a function that raised is."""
    if isinstance(result, str):
        text = str.__str__(result)
    else:
        try:
            text = json.dumps(result, default=str)
        except (ValueError, TypeError, RecursionError) as exc:
            return _cut(
                f"error: the result of {name!r} cannot be written as JSON: {_unwritable(exc)}"
            )
        except Exception as exc:  # noqa: BLE001 - a __str__ of the result's own that raised
            return _error_text(exc, with_type=True, before=f"the result of {name!r}: ")
    if len(text) > MAX_RESULT_CHARS:
        return (
            f"error: the result of {name!r} is {len(text):,} characters long, more than the "
            f"{MAX_RESULT_CHARS:,} a tool result may be: return less"
        )
    return text


def _unwritable(exc: BaseException) -> str:
    """What JSON could not write of a result, in words (the writer's own message where it
    says it plainly)."""
    if isinstance(exc, RecursionError):
        return "it nests too deeply"
    said = _said(exc)
    if said.startswith("Circular reference"):
        return "it holds itself (a list or object inside itself)"
    if said.startswith("keys must be"):
        return f"a key is not text ({said})"
    if said.startswith("Exceeds the limit"):
        return "an integer is too long to write (more digits than Python writes, 4,300 by default)"
    return f"{type(exc).__name__}: {said}"


def _error_text(exc: BaseException, *, with_type: bool = False, before: str = "") -> str:
    """``error: ...`` for an exception, its text cut to ERROR_CHARS."""
    said = _said(exc)
    kind = f"{type(exc).__name__}: " if with_type else ""
    return _cut(f"error: {before}{kind}{said}")


def _cut(text: str) -> str:
    """An error text cut to ERROR_CHARS."""
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 3] + "..."


def _said(exc: BaseException) -> str:
    """An exception's text; its type's name where its ``__str__`` fails too."""
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a message must not fail
        return f"(a {type(exc).__name__} whose text cannot be read)"


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
