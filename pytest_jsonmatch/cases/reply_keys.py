"""The keys that make a golden case an agent's, read from a case file with the line of each
mistake: one reply's ``expected_calls`` (the calls it must make, beside ``expected``, its
answer, or alone: a tool-only reply) and ``call_options`` (the ``tool_calls`` options its
calls are scored with); a whole run's ``expected_run`` (its trajectory), ``run_options`` (the
``trajectory`` options it is scored with) and ``expected_state`` (the end state it must
leave).

``call_options`` and ``run_options`` are settings, as ``options`` is: a folder's
``jsonmatch.yaml``, a file of cases and a case may each give them, merged key by key, the
nearest winning; each level's is checked as its metric would check it. The expected parts
belong to one case.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from ..engine.core.errors import CaseFileError, JsonMatchError
from .python_names import with_named_tools

REPLY_KEYS = frozenset(
    {"expected_calls", "call_options", "expected_run", "run_options", "expected_state"}
)
# the keys that make a case a whole run
RUN_KEYS = ("expected_run", "expected_state")
# the expected parts that make a case an agent's (one reply's calls, a run's trajectory or end
# state): such a case may leave out ``expected``, its answer, which is then not scored (a
# tool-only reply, a run judged by its steps or its state)
AGENT_KEYS = ("expected_calls", *RUN_KEYS)
# each options key and the metric that checks it
_OPTIONS_METRIC = {"call_options": "tool_calls", "run_options": "trajectory"}
# (line, message) -> the error, as the case file reader words it
Error = Callable[[int, str], CaseFileError]


def call_options_of(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    error: Error,
    inherited: Mapping[str, object],
    prefix: str = "",
    key: str = "call_options",
) -> Mapping[str, object]:
    """The call options (``key``: or the run options) of one level: ``inherited`` with this
    level's laid over them."""
    if key not in data:
        return inherited
    given, line = data[key], lines.get(key, 1)
    metric = _OPTIONS_METRIC[key]
    if not isinstance(given, Mapping):
        raise error(line, f"{prefix}{key} must be a mapping of {metric} options")
    given = with_named_tools(given, lambda m: error(line, f"{prefix}{key}: {m}"))
    from ..engine.metrics import metric_named
    from ..engine.metrics.base import configure

    try:
        configure(metric_named(metric), dict(given))
    except JsonMatchError as exc:
        raise error(line, f"{prefix}{key}: {exc}") from None
    return {**inherited, **given}


def expected_calls_of(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    error: Error,
    prefix: str,
    metric: str | None,
) -> object:
    """A case's expected calls (None: it gives none, and is a plain case): a list of calls
    or a mapping (``calls:``, ``possible_answer:``, with ``tools:``)."""
    if "expected_calls" not in data:
        return None
    calls, line = data["expected_calls"], lines.get("expected_calls", 1)
    if not isinstance(calls, (list, Mapping)):
        raise error(
            line,
            f"{prefix}expected_calls must be the calls the reply makes (a list, [] for none, "
            f"or a mapping with calls or possible_answer)",
        )
    return calls


def run_parts_of(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    error: Error,
    prefix: str,
    metric: str | None,
) -> tuple[object, object]:
    """A case's expected run and expected state (None: not given): the run a list of steps
    or messages (or a mapping holding them under ``messages``), the state a mapping; the
    case's parts refused together where :func:`agent_refusal` says so."""
    run, state = data.get("expected_run"), data.get("expected_state")
    if "expected_run" in data and not isinstance(run, (list, Mapping)):
        raise error(
            lines.get("expected_run", 1),
            f"{prefix}expected_run must be the run's steps or messages (a list), or a "
            f"mapping holding them under messages",
        )
    if "expected_state" in data and not isinstance(state, Mapping):
        raise error(
            lines.get("expected_state", 1),
            f"{prefix}expected_state must be a mapping (the state as JSON: its attributes, "
            f"tables or files)",
        )
    refused = agent_refusal([key for key in AGENT_KEYS if key in data], metric)
    if refused is not None:
        raise error(lines.get(refused[0], 1), f"{prefix}{refused[1]}")
    return run, state


def agent_refusal(given: Collection[str], metric: str | None = None) -> tuple[str, str] | None:
    """Why the agent keys ``given`` (the expected parts, and a call's options keys) cannot
    be scored together under ``metric`` (None: not known yet), the one rule a case file and
    a call are held to: (the key at fault, the reason); None: they can. A case's options
    are settings it may inherit, so a case file gives its parts alone."""
    run = [key for key in RUN_KEYS if key in given]
    calls = "expected_calls" in given
    if run and calls:
        return "expected_calls", (
            f"expected_calls score one reply; a run's calls are scored by its "
            f"expected_run: give {run[0]} or expected_calls, not both"
        )
    if run and metric in _OPTIONS_METRIC.values():
        return run[0], (
            f"{run[0]} is scored beside the answer's metric, not under metric {metric}: give "
            f"the answer's metric (field_f1, ...), the trajectory as expected_run"
        )
    if calls and metric == "tool_calls":
        return "expected_calls", (
            "expected_calls are scored by tool_calls beside the answer's metric: give the "
            "answer's metric (field_f1, ...), or the calls as expected under metric tool_calls"
        )
    if "run_options" in given and "expected_run" not in given:
        return "run_options", "run_options apply to a run's trajectory: give expected_run too"
    if "call_options" in given and not calls and not run:
        return "call_options", "call_options apply to a reply's calls: give expected_calls too"
    return None
