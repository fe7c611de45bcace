"""Offline replay, guaranteed (``block_network`` and ``allowed_hosts=`` of jsonmatch_record,
calls/offline.py): real servers on 127.0.0.1 and 127.0.0.2 started by the test; a replay
(``none``) under pytest-xdist refuses, in the workers, a test's connection to the first,
naming host, port and test, and reaches the allowed second; the summary and the JSON report
say the run was offline. A target called under ``once`` with the block on is refused with
its case named, and ``once`` alone blocks nothing. (docs/golden-cases.md, "Offline by
guarantee".)"""

from __future__ import annotations

import json
from http.server import HTTPServer

import pytest

from tests.calls.test_offline import Ok, serving_ok
from tests.helpers.plugin_cases import ARGS, write

pytestmark = pytest.mark.slow  # (CONTRIBUTING.md: the inner loop leaves it out)


@pytest.fixture
def servers():
    """The model (127.0.0.1) and a service the team allows (127.0.0.2), each's URL."""
    model, allowed = HTTPServer(("127.0.0.1", 0), Ok), HTTPServer(("127.0.0.2", 0), Ok)
    with serving_ok(model, allowed):
        yield tuple(
            f"http://{s.server_address[0]}:{s.server_address[1]}/" for s in (model, allowed)
        )


TESTS = """
import json, urllib.request
from pytest_jsonmatch import assert_json_match

def test_asks_the_model():
    urllib.request.urlopen("{model}", timeout=5)

def test_reads_the_allowed_service():
    answer = json.loads(urllib.request.urlopen("{allowed}", timeout=5).read())
    assert_json_match(answer, {{"ok": True}})
"""


def test_a_replay_under_xdist_refuses_what_is_not_allowed(pytester, servers):
    model, allowed = servers
    write(pytester, "test_net.py", TESTS.format(model=model, allowed=allowed))
    pytester.makeini("[pytest]\njsonmatch_record = none allowed_hosts=127.0.0.2\n")
    result = pytester.runpytest_subprocess(*ARGS, "-n", "1", "--jsonmatch-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    port = model.rsplit(":", 1)[1].strip("/")
    result.stdout.fnmatch_lines(
        [
            f"*NetworkBlocked: test test_net.py::test_asks_the_model tried to reach "
            f"127.0.0.1:{port}, but the session runs offline (jsonmatch_record: outbound "
            "connections refused, allowed: 127.0.0.2); allow the host with "
            "allowed_hosts=127.0.0.1 in jsonmatch_record, or turn the block off with "
            "block_network=off",
            "offline: outbound connections refused (allowed: 127.0.0.2)",
        ]
    )
    assert "[gw" in result.stdout.str()  # (the refusal was a worker's)
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["run"]["provenance"]["offline"] == {"allowed": ["127.0.0.2"]}


TARGET = """
import urllib.request

def pytest_jsonmatch_target(case, config):
    urllib.request.urlopen("{model}", timeout=5)
    return {{"vendor": "ACME"}}
"""
CASES = "cases:\n  - id: acme\n    expected: {vendor: ACME}\n    input: acme\n"


@pytest.mark.parametrize("blocks", [True, False])
def test_a_target_is_refused_only_with_the_block_on(pytester, servers, blocks):
    model, _ = servers
    pytester.makeconftest(TARGET.format(model=model))
    write(pytester, "c.jsonmatch.yaml", CASES)
    flag = "--jsonmatch-record=once" + " block_network" * blocks
    result = pytester.runpytest_inprocess(*ARGS, flag)
    if blocks:
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(
            ["*test c.jsonmatch.yaml::acme tried to reach 127.0.0.1:*allowed: none*"]
        )
    else:
        result.assert_outcomes(passed=1)
        assert "offline:" not in result.stdout.str()
    assert not (pytester.path / "__recordings__").exists() or not blocks
