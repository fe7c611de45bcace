"""One judge's settings (:class:`JudgeSettings`: the model, where it is served, the variable
holding its key, the prompt, the batch size, the prices) and their text form,
``model=gpt-4o-mini endpoint=... batch=20``, read with every mistake a ConfigError naming the
setting and the key. A key itself is never a setting: ``key_env`` names its variable."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError, did_you_mean, known_names
from ..core.masking import mask_userinfo, mask_value, mask_variable, masked, without_userinfo
from ..core.numbers import whole_in
from .prompt import DEFAULT_PROMPT, PAIRS

DEFAULT_BATCH = 20
MAX_BATCH = 500
MAX_PROMPT_BYTES = 256 * 1024


@dataclass(frozen=True)
class JudgeSettings:
    """One judge: the chat model that decides, where it is served, the environment variable
    that holds its API key (never the key), its prompt template (which holds ``{pairs}``
    once at least), how many items one request carries, and what a million tokens cost in
    and out (for the run's cost; None: not counted)."""

    model: str
    endpoint: str = "https://api.openai.com/v1"
    key_env: str = ""
    prompt: str = DEFAULT_PROMPT
    prompt_file: str = ""  # where the template was read from, for messages
    batch: int = DEFAULT_BATCH
    max_tokens: int | None = None
    price_in: float | None = None  # per million input tokens
    price_out: float | None = None  # per million output tokens
    timeout: float = 60.0  # the transport's own bound on one request (the runner's is apart)
    # a judge known from its recorded verdicts only (a replay whose judge variables are
    # unset): it never sends, and may have no endpoint ("")
    replay_only: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ConfigError("judge: model must be a model's name, such as model=gpt-4o-mini")
        if not self.model.isprintable():
            raise ConfigError(
                f"judge: model must be one line of printable text, not {self.model!r:.80}"
            )
        if self.endpoint or not self.replay_only:
            _check_endpoint(self.endpoint)
        check_key_env(self.key_env)
        if PAIRS not in self.prompt:
            where = f" {self.prompt_file}" if self.prompt_file else ""
            raise ConfigError(
                f"judge: the prompt template{where} has no {PAIRS} placeholder: the items to "
                f"judge would never reach the model"
            )
        if not (isinstance(self.batch, int) and 1 <= self.batch <= MAX_BATCH):
            raise ConfigError(f"judge: batch must be a whole number from 1 to {MAX_BATCH}")
        tokens = self.max_tokens
        if tokens is not None and not (
            isinstance(tokens, int) and not isinstance(tokens, bool) and 1 <= tokens <= 10**9
        ):
            raise ConfigError("judge: max_tokens must be a whole number from 1 to 1000000000")
        for key in ("price_in", "price_out", "timeout"):
            value = getattr(self, key)
            if value is None and key != "timeout":
                continue
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not (number and 0 <= value <= _HIGHEST[key]) or (key == "timeout" and value == 0):
                low = "above 0" if key == "timeout" else ">= 0"
                raise ConfigError(
                    f"judge: {key} must be a number {low} and at most {_HIGHEST[key]:g}, "
                    f"not {value!r:.40}"
                )

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as messages and reports show it: its user and password (if the URL
        holds them) written ``***``. The request is made to :attr:`endpoint` as given."""
        if not self.endpoint:
            return "no endpoint (replay only)"
        return without_userinfo(self.endpoint)

    @property
    def fingerprint(self) -> str:
        """What makes two judges give the same verdicts: the model, the prompt's text and the
        reply's token limit (not the endpoint or the key: the same model served elsewhere
        answers alike). Recorded verdicts are kept under it."""
        made = json.dumps(
            {"model": self.model, "prompt": self.prompt, "max_tokens": self.max_tokens},
            sort_keys=True,
        )
        return hashlib.sha256(made.encode()).hexdigest()[:16]

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """What a request cost by the prices given (None: no price, or no token count)."""
        if self.price_in is None and self.price_out is None:
            return None
        if input_tokens is None and output_tokens is None:
            return None
        return ((input_tokens or 0) * (self.price_in or 0.0)) / 1e6 + (
            (output_tokens or 0) * (self.price_out or 0.0)
        ) / 1e6


# what key_env may be: an environment variable's name, never a key pasted in its place
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def check_key_env(name: object) -> None:
    """A ConfigError for a ``key_env`` that is not a variable's name; it does not show the
    value, which may be the key itself, and masks it from now on. A name's value is masked
    from now on too (a server that echoes the key puts it in no report)."""
    if not isinstance(name, str) or (name and not _VARIABLE.fullmatch(name)):
        mask_value(name if isinstance(name, str) else None)
        raise ConfigError(
            "judge: key_env must name an environment variable (letters, digits and _, not "
            "starting with a digit, at most 64 characters), such as key_env=OPENAI_API_KEY; "
            "what was given is not shown, as it may be the key itself"
        )
    key = mask_variable(name)
    if key is None and name != name.upper():
        # unset, and not shaped as variables are named: possibly a key pasted in the name's
        # place; it is masked wherever it would be shown (the report's command line too)
        mask_value(name)
    if key is not None and not key.isprintable():
        # it would go into a header, where an HTTP client quotes it whole in its refusal
        raise ConfigError(
            f"judge: key_env names the environment variable {name}, whose value holds "
            f"{_control(key)}: an API key is one line of printable text (the value is not shown)"
        )


def _check_endpoint(endpoint: object) -> None:
    """A ConfigError for an endpoint the judge would not send its key to: anything but an
    ``http://`` or ``https://`` URL with a host."""
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint) if isinstance(endpoint, str) else None
    try:
        host = parts.hostname if parts is not None else None
    except ValueError:
        host = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        shown_endpoint = masked(endpoint)[:80] if isinstance(endpoint, str) else endpoint
        raise ConfigError(
            f"judge: endpoint must be an http:// or https:// URL with a host, such as "
            f"https://api.openai.com/v1, not {shown_endpoint!r}"
        )
    url = str(endpoint)  # (text: its parts were read)
    mask_userinfo(url)  # the request uses them; no output shows them
    if not url.isprintable():
        # (urlsplit drops a line break silently: the URL would read well and print badly)
        raise ConfigError(
            f"judge: endpoint must be one line of printable text; it holds {_control(url)}"
        )


def _control(text: str) -> str:
    """Which character of ``text`` is not printable, and where, as a message says it
    without showing the text (it may hold a password or a key)."""
    at, char = next((i, c) for i, c in enumerate(text) if not c.isprintable())
    kind = (
        "a line break" if char in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029" else "a control character"
    )
    return f"{kind} ({ascii(char)}) at character {at + 1}"


_KEYS = {
    "model": "the chat model's name",
    "endpoint": "the OpenAI-compatible base URL (.../v1)",
    "model_env": "the environment variable holding the model's name",
    "endpoint_env": "the environment variable holding the base URL",
    "key_env": "the environment variable holding the API key",
    "prompt": "a prompt template file holding {pairs}",
    "batch": "the most items one request carries",
    "max_tokens": "the reply's token limit",
    "price_in": "the cost of a million input tokens",
    "price_out": "the cost of a million output tokens",
    "timeout": "seconds one request may take (the transport's own bound)",
}


def unset_variables(pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The keys among ``model_env`` and ``endpoint_env`` whose variable (a variable's name,
    well formed) is unset or empty, each with the variable's name: what a replay-only judge
    goes without (judge_settings_from_pairs refuses them otherwise)."""
    return {
        key: name
        for key, name in pairs
        if key in ("model_env", "endpoint_env")
        and _VARIABLE.fullmatch(name)
        and not os.environ.get(name, "").strip()
    }


def judge_settings_from_pairs(
    pairs: Sequence[tuple[str, str]],
    what: str,
    base: Path | None = None,
    *,
    replay_only: bool = False,
) -> JudgeSettings:
    """A judge from ``key=value`` pairs (``what`` names the setting in messages; a relative
    prompt file is read from ``base``). A key the judge does not know is a ConfigError; so is
    the key itself given as a value (``key=``, ``api_key=``): settings name the variable
    that holds it. ``replay_only``: a judge that never sends, whose endpoint may be left
    out (it has none)."""
    given: dict[str, str] = {}
    for key, value in pairs:
        if key in ("key", "api_key"):
            raise ConfigError(
                f"{what}: give key_env=NAME, the environment variable that holds the API "
                f"key; a key itself is never written in a setting"
            )
        if key not in _KEYS:
            raise ConfigError(
                f"{what}: unknown key {key!r}{did_you_mean(key, _KEYS)}; known: "
                f"{known_names(_KEYS)}"
            )
        given[key] = value
    for key in ("model", "endpoint"):
        if f"{key}_env" in given:
            given[key] = _from_variable(given, key, what)
    if "model" not in given:
        raise ConfigError(
            f"{what}: name the judge's model, e.g. model=gpt-4o-mini, or the environment "
            f"variable that holds it, e.g. model_env=JUDGE_MODEL"
        )
    kwargs: dict[str, Any] = {"model": given["model"], "replay_only": replay_only}
    if replay_only and "endpoint" not in given:
        kwargs["endpoint"] = ""
    for key in ("endpoint", "key_env"):
        if key in given:
            kwargs[key] = given[key]
    if "prompt" in given:
        kwargs["prompt"], kwargs["prompt_file"] = _prompt_file(given["prompt"], what, base)
    for key in ("batch", "max_tokens"):
        if key in given:
            kwargs[key] = _whole(given[key], key, what)
    for key in ("price_in", "price_out", "timeout"):
        if key in given:
            kwargs[key] = _number(given[key], key, what)
    try:
        return JudgeSettings(**kwargs)
    except ConfigError as exc:
        raise ConfigError(f"{what}: {str(exc).removeprefix('judge: ')}") from None


def _from_variable(given: dict[str, str], key: str, what: str) -> str:
    """The value of ``key`` (``model``, ``endpoint``) read from the environment variable its
    ``KEY_env`` names; a ConfigError when both are given, or the variable is not a
    variable's name, or is unset or empty (a run must not go on with no model, or send its
    key to a default endpoint, because a variable's name was mistyped)."""
    name = given[f"{key}_env"]
    if key in given:
        raise ConfigError(f"{what}: give {key}= or {key}_env=, not both")
    if not _VARIABLE.fullmatch(name):
        raise ConfigError(
            f"{what}: {key}_env must name an environment variable (letters, digits and _, "
            f"not starting with a digit), such as {key}_env={_EXAMPLE_VARIABLE[key]}, "
            f"not {masked(name)[:40]!r}"
        )
    value = os.environ.get(name, "").strip()
    wanted = "model" if key == "model" else "base URL"
    if not value:
        state = "is empty" if name in os.environ else "is not set"
        raise ConfigError(
            f"{what}: {key}_env names the environment variable {name}, which {state}: set "
            f"it to the judge's {wanted}, or give {key}="
        )
    if not value.isprintable():
        if key == "endpoint":
            mask_userinfo(value)
        raise ConfigError(
            f"{what}: {key}_env names the environment variable {name}, whose value holds "
            f"{_control(value)}: the judge's {wanted} is one line of printable text (the "
            f"value is not shown)"
        )
    return value


_EXAMPLE_VARIABLE = {"model": "JUDGE_MODEL", "endpoint": "OPENAI_BASE_URL"}


def judge_settings_from_text(text: str, what: str, base: Path | None = None) -> JudgeSettings:
    """A judge from its text form: ``model=gpt-4o-mini endpoint=http://... batch=20``."""
    pairs = []
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise ConfigError(f"{what}: {word!r} is not KEY=VALUE")
        pairs.append((key, value))
    return judge_settings_from_pairs(pairs, what, base)


def _prompt_file(name: str, what: str, base: Path | None) -> tuple[str, str]:
    path = Path(name)
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        if not path.is_file():
            raise ConfigError(f"{what}: the prompt template {name!r} is not a file")
        if path.stat().st_size > MAX_PROMPT_BYTES:
            raise ConfigError(
                f"{what}: the prompt template {name!r} is larger than {MAX_PROMPT_BYTES} bytes"
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what}: the prompt template {name!r} cannot be read: {exc}") from None
    if PAIRS not in text:
        raise ConfigError(
            f"{what}: the prompt template {name!r} has no {PAIRS} placeholder: the items to "
            f"judge would never reach the model"
        )
    return text, name


# The largest value each number key takes (docs/metrics.md, the table of ranges): a price
# per million tokens, seconds a request may wait (a socket refuses a timeout of 1e10 s
# with an OverflowError)
_HIGHEST = {"price_in": 1e6, "price_out": 1e6, "timeout": 86_400.0}


def _whole(text: str, key: str, what: str) -> int:
    highest = 10**9 if key == "max_tokens" else MAX_BATCH
    value = whole_in(text, 1, highest)
    if value is None:
        raise ConfigError(
            f"{what}: {key} must be a whole number from 1 to {highest}, not {text[:40]!r}"
        )
    return value


def _number(text: str, key: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    low = "above 0" if key == "timeout" else ">= 0"
    if not (0 <= value <= _HIGHEST[key]) or (key == "timeout" and value == 0):
        raise ConfigError(
            f"{what}: {key} must be a number {low} and at most {_HIGHEST[key]:g}, not {text[:40]!r}"
        )
    return value
