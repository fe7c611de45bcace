"""One agent reply scored as one comparison: its answer and its tool calls, one field table.

The answer's fields are scored through the engine's :class:`~..entry.Entry` under the case's
metric and options (schema, transforms, the judge), exactly as a plain comparison; the calls'
fields by the ``tool_calls`` metric with the call options, under their function names
(``rebook_flight.pnr``). One score: the two parts' headline scores, each weighted by the
rows it puts in the table that count (match, mismatch, omission, hallucination); a part with
no such row adds nothing. Precision, recall and F1 are counted over all the rows
(docs/metrics.md, "An agent's reply: answer and calls"). :func:`combined`
(engine/results/field_results.py, where a merge of shards' reports calls it too) does this
for any parts: a whole run's answer, trajectory and end state combine the same way
(run_scoring.py).

Paths stay unambiguous: an expected answer with a top-level key named as an expected call's
function is refused (ConfigError naming both). Where the reply itself puts one name in both
parts, the rows of the part the expected side does not give that name to are moved under
``name()`` (the calls' where neither does): :func:`_apart`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..core.errors import ConfigError, ParseError, shown
from ..core.paths import key_forms
from ..core.values import JsonValue
from ..entry import Entry, entry_for
from ..reading.agent_messages import Message, agent_data, read_reply
from ..reading.intake import read_json
from ..results.field_results import FieldResult, MatchResult, Part, combined
from ..tool_calls import read_expected_calls

CALLS_METRIC = "tool_calls"
RUN_METRIC = "trajectory"


def match_reply(
    actual: object,
    expected: object,
    expected_calls: object,
    metric: str = "field_f1",
    call_options: Mapping[str, object] | None = None,
    **options: object,
) -> MatchResult:
    """Score an agent's reply (``actual``: its answer and its tool calls) in one comparison.

    ``actual`` is an assistant message (``TargetResult.answer()``'s, an ``openai`` message
    object or dict), a chat-completions response, an Anthropic message or an OpenAI
    Responses output. Its answer (the message's JSON content, or its text parsed leniently;
    no text is an empty answer) is scored against ``expected`` under ``metric`` and
    ``options`` as :func:`~..match.match_json` scores it; its calls against
    ``expected_calls`` (any expected form of the ``tool_calls`` metric; ``[]``: no call) by
    the ``tool_calls`` metric with ``call_options`` (``order``, ``rules``, ``tools``...).

    ``expected`` None: a tool-only reply, whose calls alone are scored (its answer, text
    or none, is not read): the result is the calls' part alone, its ``metric``
    ``"tool_calls"``.

    The result's ``metric`` is ``"<metric>+tool_calls"``; its fields the answer's, then the
    calls'; its score the mean of the parts' scores weighted by their counted rows.
    ``metric="tool_calls"`` is refused: the calls would be given twice."""
    if metric == CALLS_METRIC:
        raise ConfigError(
            "match_reply scores the calls by tool_calls already: give the answer's metric "
            "(field_f1, ...), or score the calls alone with match_json(metric='tool_calls')"
        )
    answers, calls = _entries(metric, dict(options), call_options)
    # the expected answer and its reading depth (None: a tool-only reply)
    read = None if expected is None else answers.read_expected(expected, "expected")
    wanted, depth_c = calls.read_expected(expected_calls, "expected_calls")
    expected_names = _expected_names(wanted)
    if read is not None:
        _check_names(read[0], expected_names)
    value, reply = _reply(actual)
    try:  # (the calls first: a reply whose calls cannot be read costs the judge nothing)
        made = calls.scored(wanted, depth_c, value, None, "actual")
    except ParseError as exc:
        exc.side = "actual"  # the reply's calls could not be read
        raise
    called = [call.name for call in reply.calls]
    if read is None:  # a tool-only reply: its answer is neither read nor scored
        return combined([Part("calls", made.score, list(made.fields), CALLS_METRIC)])
    answer = answer_scored(answers, read[0], read[1], reply.answer)
    answer_rows, call_rows = _apart(list(answer.fields), list(made.fields), expected_names, called)
    return combined(
        [
            Part("answer", answer.score, answer_rows, metric),
            Part("calls", made.score, call_rows, CALLS_METRIC),
        ],
        answer,
    )


def _entries(
    metric: str, options: dict[str, object], call_options: Mapping[str, object] | None
) -> tuple[Entry, Entry]:
    """The answer's entry and the calls' (the same registry for both)."""
    for_calls = part_options(call_options, "call_options", CALLS_METRIC, options)
    answers = entry_for(metric, options, check=True)
    try:
        calls = entry_for(CALLS_METRIC, for_calls, check=True)
    except ConfigError as exc:
        raise ConfigError(f"call_options: {exc}") from None
    return answers, calls


def part_options(
    given: object, name: str, metric: str, options: Mapping[str, object]
) -> dict[str, object]:
    """The options a part of an agent's output is scored with (``call_options`` under
    ``tool_calls``, ``run_options`` under ``trajectory``): a mapping, or None for none; the
    comparison's registry carried over, so that every part scores with the same one."""
    if given is None:
        given = {}
    elif not isinstance(given, Mapping):
        raise ConfigError(f"{name} must be a mapping of {metric} options, not {shown(given)}")
    out: dict[str, object] = dict(given)
    if "registry" in options and "registry" not in out:
        out["registry"] = options["registry"]
    return out


def _expected_names(wanted: JsonValue) -> list[str]:
    """The function names of the expected calls (ParseError naming ``expected_calls`` where
    they are malformed)."""
    return [call.name for call in read_expected_calls(wanted, "expected_calls").calls]


def _check_names(expected: JsonValue, names: Sequence[str]) -> None:
    """ConfigError where an expected answer's top-level key is an expected call's name: their
    fields would share a path."""
    if not isinstance(expected, Mapping):
        return
    for name in names:
        if name in expected:
            raise ConfigError(
                f"expected answer key {name!r} is also the function of an expected call "
                f"(expected_calls: {name}(...)): their fields would share the path "
                f"{key_forms(name)[0]!r}; rename the answer's key"
            )


def answer_of(actual: object) -> JsonValue:
    """The answer of a reply, as an expected value is written from it (an update of a golden
    case): its JSON value or text (parsed as an answer is), ``{}`` where it wrote none."""
    answer = _reply(actual)[1].answer
    return {} if answer is None else answer


def _reply(actual: object) -> tuple[JsonValue, Message]:
    """The reply as plain JSON (what its calls are scored from) and read."""
    try:
        value, _ = read_json(agent_data(actual, "actual"), "actual")
        return value, read_reply(value)
    except ParseError as exc:
        exc.side = "actual"  # the reply itself could not be read
        raise


def answer_scored(
    entry: Entry, expected: JsonValue, depth: int, answer: JsonValue | None
) -> MatchResult:
    """The answer's part: scored as a plain answer; a reply with no answer written scores
    against an empty object (every expected field left out)."""
    parsed, cut = entry.parse_actual({} if answer is None else answer, "actual answer")
    return entry.scored(expected, depth, parsed, cut, "actual answer")


def _apart(
    answer: list[FieldResult],
    calls: list[FieldResult],
    expected_names: Sequence[str],
    called: Sequence[str],
) -> tuple[list[FieldResult], list[FieldResult]]:
    """Both parts' rows, no path in both: for each function name that heads rows of both
    parts, the rows of the part the expected side does not give it to (an expected call's
    name: the answer's; else the calls') move under ``name()`` (more ``()`` until free)."""
    for name in dict.fromkeys([*expected_names, *called]):
        top = key_forms(name)[0]
        if not any(_under(_table_path(fr), top) for fr in answer):
            continue
        if not any(_under(_table_path(fr), top) for fr in calls):
            continue
        free = name + "()"
        while any(_under(_table_path(fr), key_forms(free)[0]) for fr in (*answer, *calls)):
            free += "()"
        moved = key_forms(free)[0]
        if name in expected_names:
            answer = [_moved(fr, top, moved) for fr in answer]
        else:
            calls = [_moved(fr, top, moved) for fr in calls]
    return answer, calls


def _table_path(fr: FieldResult) -> str:
    """The path a row is tabled by: its field path (its instance path where it has none)."""
    return fr.field_path or fr.path


def _under(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or below it."""
    return path.startswith(top) and (len(path) == len(top) or path[len(top)] in ".[")


def _moved(fr: FieldResult, top: str, moved: str) -> FieldResult:
    """``fr`` with its paths that start with the segment ``top`` starting with ``moved``."""

    def swap(path: str) -> str:
        return moved + path[len(top) :] if _under(path, top) else path

    actual_path = None if fr.actual_path is None else swap(fr.actual_path)
    return fr._replace(path=swap(fr.path), field_path=swap(fr.field_path), actual_path=actual_path)
