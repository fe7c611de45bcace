"""A conversation on the HTML page, turn by turn (reporting/render/html_transcript.py): each
turn its user's message and the agent's messages beside its rows, the first failing turn
boxed, the end state's rows after the last turn; hostile text stays text; an output that is
no conversation is shown as any case's. The page data read back in Python; one check in a
real headless Chromium (tests/cli/test_browser.py's), through a golden case file."""

from __future__ import annotations

import json

import pytest

from pytest_jsonmatch.engine.agents.conversation_scoring import match_conversation
from pytest_jsonmatch.engine.match import match_json
from pytest_jsonmatch.reporting.render.html import render_html
from pytest_jsonmatch.reporting.render.html_transcript import SAID_LIMIT
from pytest_jsonmatch.reporting.run_model.aggregate import summarize
from pytest_jsonmatch.reporting.run_model.comparisons import Comparison, Shown
from pytest_jsonmatch.reporting.verdicts.gates import GateSettings, decision_of
from pytest_jsonmatch.reporting.verdicts.report import build_report
from tests.cli.html_data import fields_of, page_data, run_case_ids

HOSTILE = "</script><script>alert(1)</script>"


def _call(name: str, arguments: dict[str, object], k: int) -> dict[str, object]:
    return {
        "id": f"c{k}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def refund(order: str, note: str = "ok", first: str = "I want my money back") -> dict:
    """Two user turns, a system prompt before them: the agent asks for the order, then
    refunds ``order`` (its tool saying ``note``) and says so."""
    return {
        "messages": [
            {"role": "system", "content": "You refund orders."},
            {"role": "user", "content": first},
            {"role": "assistant", "content": '{"asks_for": "order_id"}'},
            {"role": "user", "content": "It is order 1234"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call("refund", {"order": order}, 1)],
            },
            {"role": "tool", "tool_call_id": "c1", "content": note},
            {"role": "assistant", "content": '{"status": "refunded"}'},
        ],
        "state": {"refunds": [{"order": order}]},
    }


TURNS = [
    {"user": "I want my money back", "expected": {"asks_for": "order_id"}},
    {
        "user": "It is order 1234",
        "expected": {"status": "refunded"},
        "expected_run": [{"name": "refund", "arguments": {"order": "1234"}}],
    },
]
STATE = {"refunds": [{"order": "1234"}]}


def conversation(
    case_id: str, output: object, turns: list = TURNS, values: str = "full", **options: object
) -> Comparison:
    result = match_conversation(output, turns, STATE, run_options={"mode": "superset"}, **options)
    return Comparison.of_result(
        result,
        case_id=case_id,
        nodeid=case_id,
        threshold=1.0,
        passed=result.score >= 1.0,
        values="full",
        shown=Shown.of({"user_turns": [t["user"] for t in turns]}, output, values),
    )


def page_runs(*comparisons: Comparison) -> dict[str, dict]:
    """The page's data of each comparison, by case id: its ``extra`` and its fields."""
    summary = summarize(list(comparisons))
    report = build_report(summary, list(comparisons), decision_of(summary, GateSettings()))
    data = page_data(render_html(report))
    return {
        case_id: {"extra": run[8] if len(run) > 8 else {}, "fields": fields_of(data, run)}
        for case_id, run in zip(run_case_ids(data), data["runs"])
    }


def said(turn: list) -> list[tuple[str, str, str]]:
    """A turn's messages as (kind, name, text), the user's first."""
    return [(m[0], m[1], m[2]) for m in ([turn[0]] if turn[0] else []) + turn[1]]


def test_a_passing_and_a_failing_conversation_turn_by_turn():
    runs = page_runs(conversation("good", refund("1234")), conversation("bad", refund("4312")))
    good, bad = runs["good"], runs["bad"]
    lead, turns, state, first, cut = good["extra"]["transcript"]
    assert "steps" not in good["extra"]  # (its steps are a turn's rows, in the turn's block)
    assert lead == [["other", "system", "You refund orders.", 0]]
    # the turns in order: the user's message, then the agent's messages
    assert [said(t) for t in turns] == [
        [("user", "", "I want my money back"), ("assistant", "", '{"asks_for": "order_id"}')],
        [
            ("user", "", "It is order 1234"),
            ("call", "refund", '{"order": "1234"}'),
            ("result", "", "ok"),
            ("assistant", "", '{"status": "refunded"}'),
        ],
    ]
    # each turn's rows (turns[k]...), and the end state's after them
    fields = [f["path"] for f in good["fields"]]
    assert [fields[t[2] : t[3]] for t in turns] == [
        ["turns[0].asks_for"],
        ["turns[1].status", "turns[1].run[0].refund", "turns[1].run[0].refund.order"],
    ]
    assert fields[state[0] : state[1]] == ["state.refunds[0].order"]
    assert (first, cut) == (-1, 0)  # every row a match: no turn boxed
    # the misread order: turn 1 is the first with a row gone wrong (turn 0 is right)
    assert bad["extra"]["transcript"][3] == 1
    statuses = [f["status"] for f in bad["fields"]]
    assert statuses[:2] == ["match", "match"] and "mismatch" in statuses[2:4]


def test_only_the_first_failing_turn_is_boxed():
    # turn 0 is wrong (it asks for an email), and turn 1 too: turn 0 boxed, only it
    turns = [{**TURNS[0], "expected": {"asks_for": "email"}}, TURNS[1]]
    bad = page_runs(conversation("bad", refund("4312"), turns))["bad"]
    assert bad["extra"]["transcript"][3] == 0
    # the misread order's row skipped (ignored): no turn fails, though the state is wrong
    ignored = conversation("ignored", refund("4312"), ignore=["run[].refund.order"])
    run = page_runs(ignored)["ignored"]
    assert [f["status"] for f in run["fields"]][3:] == ["skipped", "mismatch"]
    assert run["extra"]["transcript"][3] == -1
    # a turn that expects nothing has no rows, and fails nothing
    fine = page_runs(conversation("fine", refund("1234"), [{"user": "hi"}, TURNS[1]]))["fine"]
    _, shown, _, first, _ = fine["extra"]["transcript"]
    assert first == -1 and shown[0][2:] == [0, 0]


def test_a_turn_the_conversation_never_reached():
    turns = [*TURNS, {"user": "Thanks", "expected": {"bye": True}}]
    run = page_runs(conversation("short", refund("1234"), turns))["short"]
    _, shown, _, first, _ = run["extra"]["transcript"]
    assert len(shown) == 3 and shown[2][0] is None and shown[2][1] == []
    fields = [f["path"] for f in run["fields"]]
    assert fields[shown[2][2] : shown[2][3]] == ["turns[2].bye"]
    assert first == 2


def test_hostile_text_in_a_message_and_a_tool_result_is_text():
    output = refund("1234", note=HOSTILE, first=HOSTILE)
    turns = [{**TURNS[0], "user": HOSTILE}, TURNS[1]]
    comparison = conversation("hostile", output, turns)
    summary = summarize([comparison])
    page = render_html(build_report(summary, [comparison], decision_of(summary, GateSettings())))
    assert HOSTILE not in page and "alert(1)" in page  # in the data block, "<" escaped
    assert page.count("<script>") == 1 and page.count("</script>") == 2
    turns_shown = page_data(page)["runs"][0][8]["transcript"][1]
    assert turns_shown[0][0][2] == HOSTILE and ("result", "", HOSTILE) in said(turns_shown[1])


def test_long_messages_are_shortened():
    long = "x" * (SAID_LIMIT + 50)
    run = page_runs(conversation("long", refund("1234", note=long)))["long"]
    result = run["extra"]["transcript"][1][1][1][1]
    assert result == ["result", "", "x" * SAID_LIMIT, 1]


def test_an_output_kept_cut_short_is_read_as_far_as_it_goes():
    # values kept short: the output (over 4,000 characters) is cut; the transcript shows
    # the turns it holds, the last message read marked shortened
    output = refund("1234", note="y" * 2000)
    output["messages"][2]["content"] = json.dumps({"asks_for": "order_id", "pad": "z" * 2500})
    run = page_runs(conversation("cut", output, values="short"))["cut"]
    assert run["extra"]["output"].endswith("...")  # (the output as kept: cut)
    lead, shown, state, first, cut = run["extra"]["transcript"]
    assert cut == 1 and len(shown) == 2
    assert said(shown[0])[0] == ("user", "", "I want my money back")
    assert shown[1][1][-1][3] == 1  # the tool's result, written partway
    # cut in the state, after every message: the messages whole, none marked
    output = refund("1234")
    output["state"]["log"] = "w" * 5000
    run = page_runs(conversation("in-state", output, values="short"))["in-state"]
    lead, shown, state, first, cut = run["extra"]["transcript"]
    assert cut == 1 and [m[3] for t in shown for m in [t[0], *t[1]]] == [0] * 6
    assert said(shown[1])[-1] == ("assistant", "", '{"status": "refunded"}')


@pytest.mark.parametrize(
    "output",
    [
        "not a conversation",  # text, no messages
        {"answer": 42},  # no run's JSON form
        [1, 2],  # a list of no messages
    ],
)
def test_an_output_that_is_no_conversation_is_shown_as_any_case(output):
    result = match_conversation(refund("1234"), TURNS, STATE, run_options={"mode": "superset"})
    comparison = Comparison.of_result(
        result,
        case_id="odd",
        nodeid="odd",
        threshold=1.0,
        passed=True,
        values="full",
        shown=Shown.of(None, output, "full"),
    )
    run = page_runs(comparison)["odd"]
    assert "transcript" not in run["extra"] and run["extra"]["output"]
    # and the steps of its first trajectory shown as any run's, named by their turn
    assert run["extra"]["steps"][2] == [[2, "turn 1, step 0: refund"]]


def test_a_comparison_that_is_no_conversation_has_no_transcript():
    plain = Comparison.of_result(
        match_json({"a": 1}, {"a": 1}),
        case_id="plain",
        nodeid="plain",
        threshold=1.0,
        passed=True,
        values="full",
        shown=Shown.of(None, refund("1234"), "full"),  # a run's output, but not a conversation's
    )
    assert "transcript" not in page_runs(plain)["plain"]["extra"]


CASES = """
run_options: {mode: superset}
cases:
  - id: refund
    conversation:
      - user: I want my money back
        expected: {asks_for: order_id}
      - user: It is order 1234
        expected_run: [{name: refund, arguments: {order: "1234"}}]
        expected: {status: refunded}
    expected_state: {refunds: [{order: "1234"}]}
  - id: misread
    input: {order: "4312"}
    conversation:
      - user: I want my money back
        expected: {asks_for: order_id}
      - user: "</script><script>alert(1)</script> It is order 1234"
        expected_run: [{name: refund, arguments: {order: "1234"}}]
        expected: {status: refunded}
      - user: Thanks
        expected: {bye: true}
    expected_state: {refunds: [{order: "1234"}]}
"""

AGENT = """
import json

_stores = {}

def agent(case_input):
    store = _stores.setdefault(case_input["conversation_id"], {"refunds": []})
    messages = case_input["messages"]
    if "order" not in messages[-1]["content"]:
        said = [{"role": "assistant", "content": json.dumps({"asks_for": "order_id"})}]
        return {"messages": messages + said, "state": store}
    order = case_input.get("order", "1234")
    store["refunds"].append({"order": order})
    call = {"name": "refund", "arguments": json.dumps({"order": order})}
    said = [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": call}]},
        {"role": "tool", "tool_call_id": "c1", "content": "</script><script>alert(1)</script>"},
        {"role": "assistant", "content": json.dumps({"status": "refunded"})},
    ]
    return {"messages": messages + said, "state": store}
"""


@pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)
def test_the_first_failing_turn_is_boxed_in_a_browser(pytester, tmp_path):
    from tests.cli.test_browser import offline_browser
    from tests.helpers.plugin_cases import ARGS, write
    from tests.helpers.reports import held

    write(pytester, "agent.py", AGENT)
    write(pytester, "refunds.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    page_file = tmp_path / "conversation.html"
    page_file.write_text(render_html(held((pytester.path / "r.json").read_text())))
    # a page of one case opens it as it loads: the transcript made before the script ends
    alone = conversation("alone", refund("4312"))
    summary = summarize([alone])
    alone_file = tmp_path / "alone.html"
    alone_file.write_text(
        render_html(build_report(summary, [alone], decision_of(summary, GateSettings())))
    )
    with offline_browser() as (load, _):
        page, alone_problems = load(alone_file)
        page.locator(".turn.first-failing").wait_for()
        alone_turns = page.locator(".transcript > .turn > h4").all_inner_texts()
        page, problems = load(page_file)
        page.click("details.case.passed summary")
        passed = page.locator("details.case.passed")
        passed_turns = passed.locator(".turn[data-turn] > h4").all_inner_texts()
        passed_boxed = passed.locator(".turn.first-failing").count()
        page.click("details.case.failed summary")
        failed = page.locator("details.case.failed")
        heads = failed.locator(".turn[data-turn] > h4").all_inner_texts()
        boxed = failed.locator(".turn.first-failing")
        boxed.wait_for()
        shown = (boxed.count(), boxed.is_visible(), boxed.get_attribute("data-turn"))
        outline = boxed.evaluate("e => getComputedStyle(e).outlineStyle")
        boxed_rows = boxed.locator("td.path").all_inner_texts()
        messages = failed.locator(".turn[data-turn='1'] .said pre").all_inner_texts()
        state_rows = failed.locator(".turn.state td.path").all_inner_texts()
        scripts = page.evaluate("document.querySelectorAll('script').length")
    assert problems == [] and scripts == 2  # (ours and the data block: none from the data)
    assert alone_problems == []
    assert alone_turns == [
        "before the first turn",
        "turn 0",
        "turn 1first failing turn",
        "end state",
    ]
    assert [h.strip() for h in passed_turns] == ["turn 0", "turn 1"] and passed_boxed == 0
    # the failing case's turns in order, the third never reached; turn 1 (the misread order)
    # boxed, and only it, with its rows beside its messages
    assert [h.strip() for h in heads] == ["turn 0", "turn 1first failing turn", "turn 2"]
    assert shown == (1, True, "1") and outline == "solid"
    assert boxed_rows == [
        "turns[1].status",
        "turns[1].run[0].refund",
        "turns[1].run[0].refund.order",
    ]
    # the hostile user message and tool result are text on the page
    assert messages == [
        f"{HOSTILE} It is order 1234",
        '{"order": "4312"}',
        HOSTILE,
        '{"status": "refunded"}',
    ]
    assert state_rows == ["state.refunds[0].order"]


def test_a_conversation_in_anthropics_shape_reads_alike():
    # Anthropic's messages: text and tool_use blocks; a tool's result a user message of
    # tool_result blocks (no turn of the user's)
    output = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "I want my money back"}]},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": '{"asks_for": "order_id"}'}],
            },
            {"role": "user", "content": "It is order 1234"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Refunding."},
                    {"type": "tool_use", "id": "t1", "name": "refund", "input": {"order": "1234"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "done"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": '{"status": "refunded"}'}]},
        ],
        "state": STATE,
    }
    run = page_runs(conversation("claude", output))["claude"]
    _, shown, _, first, _ = run["extra"]["transcript"]
    assert [said(t) for t in shown] == [
        [("user", "", "I want my money back"), ("assistant", "", '{"asks_for": "order_id"}')],
        [
            ("user", "", "It is order 1234"),
            ("assistant", "", "Refunding."),
            ("call", "refund", '{"order": "1234"}'),
            ("result", "", "done"),
            ("assistant", "", '{"status": "refunded"}'),
        ],
    ]
    assert first == -1
