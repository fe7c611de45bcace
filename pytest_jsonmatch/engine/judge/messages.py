"""What goes to the judge and what comes back: :class:`JudgeRequest` (the prompt and where
it goes), :class:`JudgeReply` (the text, why it stopped, the tokens), and a chat-completions
response read into a reply. The transports (judge_http.py, or a user's) and the judge
(semantic.py) share them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..core.errors import ComparatorError, shown
from ..core.masking import without_userinfo
from ..core.values import JsonObject

if TYPE_CHECKING:
    from .prompt import Item

# The most one request to the judge may carry (4 MiB of JSON): a prompt template that
# repeats {pairs}, or a batch of long values, is refused before anything is sent, not sent
# with the key as a request of any size.
MAX_REQUEST_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class JudgeRequest:
    """One request to the judge: the prompt (items included) and where it goes."""

    model: str
    prompt: str
    items: int  # how many verdicts it asks for
    endpoint: str
    key_env: str = ""
    max_tokens: int | None = None
    timeout: float = 60.0

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as messages show it: without its user and password."""
        return without_userinfo(self.endpoint)

    def body(self) -> JsonObject:
        """The chat-completions request body (temperature 0: the same items, the same
        verdicts, as far as the server allows)."""
        body: JsonObject = {
            "model": self.model,
            "messages": [{"role": "user", "content": self.prompt}],
            "temperature": 0,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body


@dataclass(frozen=True)
class JudgeReply:
    """What the judge answered: its text, why it stopped (``length``: cut off by the token
    limit) and the tokens the server counted (None: not said)."""

    content: str
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    attempts: int = field(default=1, compare=False)  # set by the layer that retried it


Transport = Callable[[JudgeRequest], JudgeReply]
# how a layer runs a request: given the request and the transport, it returns the reply
# (raising when it gave up); ``attempts`` is read from the error when it has one
Through = Callable[[JudgeRequest, Transport], JudgeReply]


class Form(Protocol):
    """Another question the judge's model is asked than whether two values mean the same
    (a conversation's rubric: rubric.py): the ``fingerprint`` its verdicts are kept and
    recorded under, the prompt that asks about some items, and the reply read into a
    verdict and the judge's reason per item, or why an item has none."""

    @property
    def fingerprint(self) -> str: ...
    def prompt(self, items: Sequence[Item]) -> str: ...
    def read(self, reply: JudgeReply, count: int) -> list[float | tuple[float, str] | str]: ...


def reply_from_json(payload: Any) -> JudgeReply:
    """A chat-completions response body as a :class:`JudgeReply`; a body of another shape
    is a ComparatorError saying what is missing. (``payload``: the server's JSON, of any
    shape, indexed as a chat completion's and checked by the errors that raises.)"""
    try:
        choice = payload["choices"][0]
        content = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ComparatorError(
            f"the judge's response is not a chat completion (no choices[0].message.content): "
            f"{shown(payload)}"
        ) from None
    if not isinstance(content, str):
        content = "" if content is None else json.dumps(content)
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    usage = payload.get("usage") if isinstance(payload, dict) else None
    usage = usage if isinstance(usage, dict) else {}
    return JudgeReply(
        content,
        finish if isinstance(finish, str) else None,
        _count(usage.get("prompt_tokens")),
        _count(usage.get("completion_tokens")),
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
