"""The usual client loop of a tool-calling agent, returning its whole run: :func:`run_tools`.

The model is asked through the client given, in its own API's words (duck typed: neither
``openai`` nor ``anthropic`` is imported here): ``client.chat.completions.create`` (the
``openai`` client, or any client with that method and OpenAI's response shape), else
``client.messages.create`` (the ``anthropic`` client: Anthropic's Messages API). Each tool
call the model makes (a ``tool_calls`` entry; a ``tool_use`` block) is executed by name from
``functions`` and its result sent back as that API wants it (a ``tool`` message each; one
user message of ``tool_result`` blocks for all the calls of a response, ``is_error`` marking
an error); the model is asked again until it answers without a call. The run (the
conversation given, every assistant message, every tool result, each in its API's own form)
and the state the tools left come back as an :class:`~pytest_jsonmatch.AgentRun`, ready for
a golden case's target to return (docs/agents.md). What differs between the APIs is a
:class:`_Dialect` each; the loop, its limits and its errors are one.

A tool that fails does not stop the run: as agents do, its error becomes the tool result's
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

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

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
    ``create_kwargs`` passed to ``client.chat.completions.create``, or to an ``anthropic``
    client's ``client.messages.create``, which needs ``max_tokens``), execute the calls it
    makes with ``functions`` (name -> Python callable, called with the call's arguments as
    keywords; what it returns is the tool result's content, as JSON unless it is text),
    until it answers without a call. Returns the run with the usage summed over the
    requests and ``state`` (the tools' environment, read when the run ends).

    ``max_steps`` bounds the requests (ConfigError unless a whole number >= 1); a model that
    calls tools in every one raises :class:`MaxStepsError` holding the run so far, and one
    past the run's other limits (MAX_CALLS_PER_RESPONSE calls in a response,
    MAX_RUN_RESULT_CHARS of tool results) :class:`RunLimitError`."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise ConfigError(f"run_tools: max_steps must be a whole number >= 1, not {max_steps!r}")
    create, dialect = _api(client, create_kwargs)
    conversation: list[Mapping[str, object]] = [dict(message) for message in messages]
    usage = _Usage(dialect)
    kept = _Results()
    for step in range(1, max_steps + 1):
        response = create(model=model, messages=conversation, tools=tools, **create_kwargs)
        _refuse_awaitable(response, dialect)
        usage.add(_get(response, "usage"))
        reply, calls = dialect.reply(response)
        conversation.append(reply)
        if not calls:
            return usage.run(conversation, state)
        if len(calls) > MAX_CALLS_PER_RESPONSE:
            raise RunLimitError(_too_many_calls(len(calls), step), usage.run(conversation, state))
        past = kept.answer(calls, functions, dialect, conversation, step)
        if past is not None:
            raise RunLimitError(past, usage.run(conversation, state))
    names = ", ".join(shown(call.name) for call in calls[:_NAMES_SHOWN])
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


class _Call(NamedTuple):
    """One tool call as the model made it, in any API: its id, the tool's name and its
    arguments (JSON text, or an object where the API gives them read)."""

    id: object
    name: object
    arguments: object


class _Answered(NamedTuple):
    """A call and the text its tool result carries (``failed``: an ``error: ...`` text)."""

    call: _Call
    text: str
    failed: bool


class _Dialect:
    """What an API's own words change in the loop: how a response's reply and calls are read,
    which usage fields count, and how tool results are sent back."""

    name = ""
    client = ""  # how run_tools' messages name the client and its method
    input_keys: tuple[str, ...] = ()
    output_key = ""

    def reply(self, response: object) -> tuple[dict[str, object], list[_Call]]:
        """The model's message as the conversation sends it back, and its calls."""
        raise NotImplementedError

    def results(self, answered: list[_Answered]) -> list[dict[str, object]]:
        """The messages that carry the results of one response's calls back."""
        raise NotImplementedError


class _ChatCompletions(_Dialect):
    """OpenAI's chat completions: ``choices[0].message`` with ``tool_calls``, a ``tool``
    message per result."""

    name, client = "chat completions", "an openai client (client.chat.completions.create)"
    input_keys, output_key = ("prompt_tokens",), "completion_tokens"

    def reply(self, response: object) -> tuple[dict[str, object], list[_Call]]:
        choices = _get(response, "choices")
        if not isinstance(choices, Sequence) or not choices:
            raise ConfigError(
                f"run_tools: the model's response holds no choice: {shown(response, 200)}"
            )
        message = _get(choices[0], "message")
        calls: list[_Call] = []
        sent: list[dict[str, object]] = []
        given = _get(message, "tool_calls")
        for call in given if isinstance(given, Sequence) else ():
            function = _get(call, "function")
            name, arguments = _get(function, "name"), _get(function, "arguments")
            calls.append(_Call(_get(call, "id"), name, arguments))
            sent.append(
                {
                    "id": calls[-1].id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            )
        reply: dict[str, object] = {"role": "assistant", "content": _get(message, "content")}
        if sent:
            reply["tool_calls"] = sent
        return reply, calls

    def results(self, answered: list[_Answered]) -> list[dict[str, object]]:
        return [{"role": "tool", "tool_call_id": a.call.id, "content": a.text} for a in answered]


class _Messages(_Dialect):
    """Anthropic's Messages API: ``content`` blocks, a ``tool_use`` block a call; the
    results of a response's calls one user message of ``tool_result`` blocks (as the API
    wants parallel calls answered), ``is_error`` on an error text. Input tokens are the
    request's whole prompt: ``input_tokens`` and the tokens written to and read from the
    cache (which ``input_tokens`` leaves out), as OpenAI's ``prompt_tokens`` counts them."""

    name, client = "messages", "an anthropic client (client.messages.create)"
    input_keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    output_key = "output_tokens"

    def reply(self, response: object) -> tuple[dict[str, object], list[_Call]]:
        content = _get(response, "content")
        if isinstance(content, str) or not isinstance(content, Sequence):
            raise ConfigError(
                f"run_tools: the model's response holds no content blocks: {shown(response, 200)}"
            )
        blocks = [_block(block) for block in content]
        calls = [
            _Call(block.get("id"), block.get("name"), block.get("input"))
            for block in blocks
            if isinstance(block, dict) and block.get("type") == "tool_use"
        ]
        return {"role": "assistant", "content": blocks}, calls

    def results(self, answered: list[_Answered]) -> list[dict[str, object]]:
        blocks: list[dict[str, object]] = []
        for a in answered:
            block = {"type": "tool_result", "tool_use_id": a.call.id, "content": a.text}
            blocks.append({**block, "is_error": True} if a.failed else block)
        return [{"role": "user", "content": blocks}] if blocks else []


# the keys of a content block read from an object that is neither a mapping nor a model
_BLOCK_KEYS = ("type", "id", "name", "input", "text", "thinking", "signature", "data")


def _block(block: object) -> object:
    """A content block of a Messages response as plain data, sent back and recorded as the
    API gave it (a thinking block's signature included): a mapping as it is, a model (the
    ``anthropic`` client's) as its JSON form less its None fields, a JSON scalar (no block
    the API gives, but a server may) as it is, else the object's known keys."""
    if isinstance(block, Mapping):
        return dict(block)
    if block is None or isinstance(block, (str, int, float)):
        return block
    dump = getattr(block, "model_dump", None)
    if callable(dump):
        plain = _dumped(dump)
        if isinstance(plain, dict):
            return plain
    return {key: value for key in _BLOCK_KEYS if (value := _get(block, key)) is not None}


def _dumped(dump: Callable[..., object]) -> object:
    """A model's JSON form, without pydantic's warnings of a field given another type than
    declared (a server's ``input`` given as text: the loop reads it as arguments text); None
    where it cannot be written. (pydantic 1 takes no ``warnings``: asked again without.)"""
    for quiet in ({"warnings": False}, {}):
        try:
            return dump(mode="json", exclude_none=True, **quiet)
        except Exception:  # noqa: BLE001 - a model that cannot write itself: its known keys
            continue
    return None


_DIALECTS: tuple[tuple[tuple[str, ...], _Dialect], ...] = (
    (("chat", "completions", "create"), _ChatCompletions()),
    (("messages", "create"), _Messages()),
)


def _api(
    client: object, create_kwargs: Mapping[str, object]
) -> tuple[Callable[..., object], _Dialect]:
    """The method that asks the model and the API it speaks, by what the client has (chat
    completions first: a client with both is asked as an openai client)."""
    for names, dialect in _DIALECTS:
        method: object = client
        for name in names:
            method = getattr(method, name, None)
        if callable(method):
            if isinstance(dialect, _Messages) and "max_tokens" not in create_kwargs:
                raise ConfigError(
                    "run_tools: an anthropic client's messages.create needs max_tokens (the "
                    "most tokens a response may hold): pass it to run_tools, e.g. "
                    "max_tokens=1024"
                )
            return method, dialect
    raise ConfigError(
        f"run_tools: the client must be {_DIALECTS[0][1].client} or "
        f"{_DIALECTS[1][1].client}; a {type(client).__name__} has neither"
    )


def _refuse_awaitable(response: object, dialect: _Dialect) -> None:
    """An async client's coroutine is no response: ConfigError saying which client to give
    (the coroutine closed, so Python warns of none never awaited)."""
    if inspect.isawaitable(response):
        close = getattr(response, "close", None)
        if callable(close):
            close()
        raise ConfigError(
            f"run_tools: the client's {dialect.name} call gave an awaitable, not a response: "
            f"run_tools drives a synchronous client (openai.OpenAI, anthropic.Anthropic), not "
            f"an async one"
        )


class _Results:
    """The tool results of a run, their characters counted against MAX_RUN_RESULT_CHARS."""

    def __init__(self) -> None:
        self.chars = 0

    def answer(
        self,
        calls: list[_Call],
        functions: Mapping[str, Callable[..., object]],
        dialect: _Dialect,
        conversation: list[Mapping[str, object]],
        step: int,
    ) -> str | None:
        """Run ``calls`` in order, their results added to ``conversation`` as ``dialect``
        sends them; where a result would take the run past MAX_RUN_RESULT_CHARS, the error's
        text (that result left out, no later call run, the results before it added), else
        None."""
        answered: list[_Answered] = []
        past = None
        for k, call in enumerate(calls, 1):
            text, failed = _result(call.name, call.arguments, functions)
            self.chars += len(text)
            if self.chars > MAX_RUN_RESULT_CHARS:
                past = (
                    f"run_tools: the tool results of the run passed {MAX_RUN_RESULT_CHARS:,} "
                    f"characters (MAX_RUN_RESULT_CHARS) at the result of {shown(call.name)} "
                    f"(call {k} of {len(calls)}, request {step}): that result is left out and "
                    f"the run stops there (the error's run holds it so far); return less, or "
                    f"see why the model asks for so much"
                )
                break
            answered.append(_Answered(call, text, failed))
        conversation.extend(dialect.results(answered))
        return past


def _get(value: object, key: str) -> object:
    """``value[key]`` of a mapping, else its attribute (None where it has neither)."""
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _result(
    name: object, text: object, functions: Mapping[str, Callable[..., object]]
) -> tuple[str, bool]:
    """The text the model is sent for one call: the function's result, or ``error: ...``
    saying why there is none (every model text in it quoted), and whether it is an error."""
    if not isinstance(name, str) or (tool := functions.get(name)) is None:
        tools = ", ".join(sorted(functions))
        return f"error: no tool named {shown(name)}; the tools are {tools}", True
    try:
        arguments = _arguments(name, text)
    except ParseError as exc:
        return _error_text(exc), True
    try:
        result = tool(**arguments)
    except Exception as exc:  # noqa: BLE001 - the model is told, as agents tell it
        return _error_text(exc, with_type=True), True
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


def _content(name: str, result: object) -> tuple[str, bool]:
    """The one place a function's result becomes the text the model is sent (and the run
    records): text as it is, anything else as JSON (``default=str`` for what JSON has no
    form of). A result JSON cannot write (a list inside itself, a key that is not text, an
    integer past Python's digit limit, nesting past the writer's recursion) or a text
    longer than MAX_RESULT_CHARS is an error text, as a function that raised is (the flag:
    whether it is one)."""
    if isinstance(result, str):
        text = str.__str__(result)
    else:
        try:
            text = json.dumps(result, default=str)
        except (ValueError, TypeError, RecursionError) as exc:
            why = _unwritable(exc)
            return _cut(f"error: the result of {name!r} cannot be written as JSON: {why}"), True
        except Exception as exc:  # noqa: BLE001 - a __str__ of the result's own that raised
            return _error_text(exc, with_type=True, before=f"the result of {name!r}: "), True
    if len(text) > MAX_RESULT_CHARS:
        return (
            f"error: the result of {name!r} is {len(text):,} characters long, more than the "
            f"{MAX_RESULT_CHARS:,} a tool result may be: return less"
        ), True
    return text, False


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
    """The tokens the requests reported, summed (None where no request reported them), read
    under the names the dialect's API gives them."""

    def __init__(self, dialect: _Dialect) -> None:
        self.dialect = dialect
        self.input: int | None = None
        self.output: int | None = None

    def add(self, usage: object) -> None:
        prompt = _tokens(usage, self.dialect.input_keys)
        completion = _tokens(usage, (self.dialect.output_key,))
        if prompt is not None:
            self.input = (self.input or 0) + prompt
        if completion is not None:
            self.output = (self.output or 0) + completion

    def run(self, conversation: list[Mapping[str, object]], state: object) -> AgentRun:
        return AgentRun(conversation, state, self.input, self.output)


def _tokens(usage: object, keys: tuple[str, ...]) -> int | None:
    """The sum of the counts ``usage`` gives under ``keys`` (None where it gives none). A
    count is a whole number >= 0: anything else a server reports (a negative number, text,
    a bool) is no count, left out, so that it never fails the run's figures."""
    counts = [
        n
        for key in keys
        if isinstance(n := _get(usage, key), int) and not isinstance(n, bool) and n >= 0
    ]
    return sum(counts) if counts else None
