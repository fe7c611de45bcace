"""A case file takes its tools from the agent's own module (``tools: agent:TOOLS``), so they
are declared once: in ``options`` of a ``tool_calls`` case and in a reply's ``call_options``;
what cannot be used is a case-file error naming the file, the line and the module."""

from __future__ import annotations

import json
import sys

import pytest

from tests.helpers.plugin_cases import ARGS

AGENT = """
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object",
    "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
    "required": ["location"]}}}]
NOT_TOOLS = {"get_weather": {}}
"""

CASES = """metric: tool_calls
options: {tools: "agent:TOOLS"}
cases:
  - id: paris
    expected: {calls: [{name: get_weather, arguments: {location: Paris}}]}
    actual: [{name: get_weather, arguments: {location: Paris}}]
  - id: no-location
    expected: {calls: [{name: get_weather, arguments: {location: Paris}}]}
    actual: [{name: get_weather, arguments: {unit: celsius}}]
"""


@pytest.fixture
def project(pytester):
    pytester.makeini("[pytest]\npythonpath = .\n")
    pytester.makepyfile(agent=AGENT)
    yield pytester
    sys.modules.pop("agent", None)


def test_the_tools_come_from_the_agents_module(project):
    project.makefile(".jsonmatch.yaml", weather=CASES)
    result = project.runpytest_inprocess(*ARGS, "--jsonmatch-report=r.json")
    # the file loads (the text "agent:TOOLS" is no list of tools: the metric would refuse it)
    # and scores: paris passes, the call that left out its location fails
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((project.path / "r.json").read_text())
    assert report["count"] == 2 and report["errors"] == 0


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (
            "nowhere:TOOLS",
            "weather.jsonmatch.yaml:2: tools 'nowhere:TOOLS': cannot import 'nowhere' (is its "
            "folder on sys.path? the ini option pythonpath = . adds the root)",
        ),
        (
            "agent:MISSING",
            "weather.jsonmatch.yaml:2: tools 'agent:MISSING': module 'agent' has no 'MISSING'",
        ),
        (
            "agent:NOT_TOOLS",
            "weather.jsonmatch.yaml:2: tools 'agent:NOT_TOOLS' names a dict, not a list of tool "
            "documents",
        ),
    ],
)
def test_a_name_that_gives_no_tools_is_a_case_file_error(project, tools, message):
    project.makefile(".jsonmatch.yaml", weather=CASES.replace("agent:TOOLS", tools))
    result = project.runpytest_inprocess(*ARGS)
    assert message in result.stdout.str()
    assert result.ret != 0


def test_a_replys_call_options_take_them_too(project):
    project.makefile(
        ".jsonmatch.yaml",
        reply="""call_options: {tools: "agent:NOT_TOOLS"}
cases:
  - id: r
    expected: {status: ok}
    expected_calls: []
    actual: {role: assistant, content: '{"status": "ok"}'}
""",
    )
    result = project.runpytest_inprocess(*ARGS)
    assert (
        "reply.jsonmatch.yaml:1: call_options: tools 'agent:NOT_TOOLS' names a dict, not a list "
        "of tool documents" in result.stdout.str()
    )
