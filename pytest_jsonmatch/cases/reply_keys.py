"""The keys that make a golden case an agent's reply: ``expected_calls`` (the calls its reply
must make, beside ``expected``, its answer) and ``call_options`` (the ``tool_calls`` options
its calls are scored with), read from a case file with the line of each mistake.

``call_options`` is a setting, as ``options`` is: a folder's ``jsonmatch.yaml``, a file of
cases and a case may each give it, merged key by key, the nearest winning; each level's is
checked as the ``tool_calls`` metric would check it. ``expected_calls`` belongs to one case.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..engine.core.errors import CaseFileError, JsonMatchError

REPLY_KEYS = frozenset({"expected_calls", "call_options"})
# (line, message) -> the error, as the case file reader words it
Error = Callable[[int, str], CaseFileError]


def call_options_of(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    error: Error,
    inherited: Mapping[str, object],
    prefix: str = "",
) -> Mapping[str, object]:
    """The call options of one level: ``inherited`` with this level's laid over them."""
    if "call_options" not in data:
        return inherited
    given, line = data["call_options"], lines.get("call_options", 1)
    if not isinstance(given, Mapping):
        raise error(line, f"{prefix}call_options must be a mapping of tool_calls options")
    from ..engine.metrics import metric_named
    from ..engine.metrics.base import configure

    try:
        configure(metric_named("tool_calls"), dict(given))
    except JsonMatchError as exc:
        raise error(line, f"{prefix}call_options: {exc}") from None
    return {**inherited, **given}


def expected_calls_of(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    error: Error,
    prefix: str,
    metric: str | None,
) -> object:
    """A case's expected calls (None: it gives none, and is a plain case): a list of calls
    or a mapping (``calls:``, ``possible_answer:``, with ``tools:``); refused beside the
    ``tool_calls`` metric, which would be given the calls twice."""
    if "expected_calls" not in data:
        return None
    calls, line = data["expected_calls"], lines.get("expected_calls", 1)
    if not isinstance(calls, (list, Mapping)):
        raise error(
            line,
            f"{prefix}expected_calls must be the calls the reply makes (a list, [] for none, "
            f"or a mapping with calls or possible_answer)",
        )
    if metric == "tool_calls":
        raise error(
            line,
            f"{prefix}expected_calls are scored by tool_calls beside the answer's metric: "
            f"give the answer's metric (field_f1, ...), or the calls as expected under "
            f"metric tool_calls",
        )
    return calls
