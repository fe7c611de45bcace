"""--jsonmatch-update on a conversation case (cases/conversation_updates.py): each turn's
expected answer is written from the turn's answer where the metric counted it wrong, in
place in the case's ``conversation:`` (the other bytes of the file as they were); a turn's
steps, the user's turns and the end state never; a review lists each field at its place
and ``jsonmatch accept`` writes it; an xfail naming a turn's field holds it."""

from __future__ import annotations

import json

from pytest_jsonmatch.cli.app import main
from tests.helpers.plugin_cases import ARGS, write

# The agent asks for the order, then refunds the order its input says it reads (4312
# where the user said 1234), answering {refund: done, order: ...}.
AGENT = """
import json

def agent(case_input):
    said = case_input["messages"][-1]["content"]
    if not any(c.isdigit() for c in said):
        reply = {"asks_for": "order_id"}
    else:
        reply = {"refund": "done", "order": case_input.get("order", "1234")}
    return [{"role": "assistant", "content": json.dumps(reply)}]
"""

CASES = """\
threshold: 1.0
cases:
  - id: misread
    input: {order: "4312"}
    conversation:
      - user: I want my money back   # the agent asks first
        expected: {asks_for: order_id}
      - user: It is order 1234
        expected: {refund: done, order: "1234"}  # the order as the user said it
  - id: played
    input: {order: "77"}
    conversation:
      user: agent:user
      max_turns: 2
      turns:
        - expected: {asks_for: order_id}
        - expected:
            refund: done
            order: "1234"
"""

USER = """

def user(messages):
    said = [m for m in messages if m["role"] == "user"]
    return ["Money back, please", "Order 1234"][len(said)] if len(said) < 2 else None
"""


def _suite(pytester) -> None:
    write(pytester, "agent.py", AGENT + USER)
    write(pytester, "desk.jsonmatch.yaml", CASES)
    pytester.makeini("[pytest]\npythonpath = .\njsonmatch_target = agent:agent\n")


def test_an_update_writes_each_turns_answer_in_place(pytester):
    _suite(pytester)
    first = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix")
    first.assert_outcomes(passed=2)  # (rewritten, they pass)
    text = (pytester.path / "desk.jsonmatch.yaml").read_text()
    # only turn 1's order changed, in its quotes; the comments and the user's turns stay
    assert text == CASES.replace('order: "1234"}  #', 'order: "4312"}  #').replace(
        '            order: "1234"\n', '            order: "77"\n'
    )
    again = pytester.runpytest_inprocess(*ARGS)
    again.assert_outcomes(passed=2)


def test_a_review_lists_each_turns_field_and_an_accept_writes_it(pytester, capsys):
    _suite(pytester)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix,review")
    result.assert_outcomes(failed=2)
    assert (pytester.path / "desk.jsonmatch.yaml").read_text() == CASES
    result.stdout.fnmatch_lines(
        [
            "*desk.jsonmatch.yaml:3 misread: scored 0.6667 < threshold 1.0",
            '    ?1?.expected.order: "1234" -> "4312" (field scored 0.0: mismatch*)',
            "*desk.jsonmatch.yaml:*played: scored 0.6667 < threshold 1.0",
            '    turns?1?.expected.order: "1234" -> "77" (field scored 0.0: mismatch*)',
        ]
    )
    review = json.loads((pytester.path / ".jsonmatch" / "update-review.json").read_text())
    cases = {c["id"]: c for c in review["files"][0]["cases"]}
    assert cases["misread"]["key"] == "conversation"
    assert [f["path"] for f in cases["misread"]["fields"]] == ["[1].expected.order"]
    review_path = pytester.path / ".jsonmatch" / "update-review.json"
    # a review edited to write another key of the case (its input, say) is refused whole
    forged = json.loads(review_path.read_text())
    forged["files"][0]["cases"][0]["key"] = "input"
    review_path.write_text(json.dumps(forged))
    assert main(["accept", "--case", "misread", str(review_path)]) == 2
    assert "with a key other than expected or conversation" in capsys.readouterr().err
    review_path.write_text(json.dumps(review))
    assert main(["accept", "--case", "misread", str(review_path)]) == 0
    written = (pytester.path / "desk.jsonmatch.yaml").read_text()
    assert written == CASES.replace('order: "1234"}  #', 'order: "4312"}  #')


def test_an_xfail_naming_a_turns_field_holds_it(pytester):
    _suite(pytester)
    held = CASES.replace(
        "  - id: misread\n",
        "  - id: misread\n    marks: [{xfail: {reason: misread, fields: ['turns[1].order']}}]\n",
    )
    write(pytester, "desk.jsonmatch.yaml", held)
    result = pytester.runpytest_inprocess(*ARGS, "--jsonmatch-update=fix", "-k", "misread")
    assert (pytester.path / "desk.jsonmatch.yaml").read_text() == held
    result.stdout.fnmatch_lines(
        [
            "*left 1 xfail case as written*",
            "*misread: xfail at turns?1?.order (misread): ?1?.expected.order",
        ]
    )
