"""A scrubbed value is left out of the comparison (calls/stable_form.py's ``Scrub.ignored``,
carried on ``Produced.ignored`` and merged into the comparison's ``ignore`` by
session/assertion.py): where the expected side lacks it, it is no extra field, live and
replayed alike. The golden-case stages run as a library: a real target recorded under
``tmp_path``, then replayed."""

from __future__ import annotations

import datetime
import json

from pytest_jsonmatch.calls.call_settings import CallSettings
from pytest_jsonmatch.calls.case_outputs import Outputs
from pytest_jsonmatch.calls.fingerprints import RecordSettings
from pytest_jsonmatch.calls.live_calls import LiveCalls
from pytest_jsonmatch.calls.produced import Produced
from pytest_jsonmatch.calls.stable_form import PLACEHOLDER, Scrub, stable_form
from pytest_jsonmatch.cases.case_files import GoldenCase
from pytest_jsonmatch.engine.results.field_results import MatchResult
from pytest_jsonmatch.session.assertion import compare_and_send
from pytest_jsonmatch.session.channel import Channel

# a request id by its path; a time stamp by a pattern, whole (`created_at`) and inside a text
SCRUB = "once scrub=**.request_id scrub=/\\d{4}-\\d\\d-\\d\\dT[0-9:.]+\\+00:00/"


def _stamped(case, awaited):
    """A target whose every call gives a fresh stamp and request id (as a real service)."""
    now = datetime.datetime.now(datetime.timezone.utc).isoformat()
    return {
        "order": {"sku": "A1", "created_at": now, "request_id": f"req-{now}"},
        "note": f"booked at {now}",
        "lines": [{"n": 1, "at": now}, {"n": 2, "at": now}],
    }


def _case(tmp_path) -> GoldenCase:
    return GoldenCase(
        id="order",
        path=tmp_path / "orders.jsonmatch.yaml",
        line=1,
        input={"q": "order A1"},
        # neither the stamps nor the request id: the team does not know them
        expected={
            "order": {"sku": "A1"},
            "note": f"booked at {PLACEHOLDER}",
            "lines": [{"n": 1}, {"n": 2}],
        },
        source="input",
    )


def _produce(tmp_path, mode: str) -> Produced:
    settings = RecordSettings.parse([(SCRUB.replace("once", mode), "jsonmatch_record")])
    calls = LiveCalls(settings=CallSettings(), target=_stamped)
    return Outputs(record=settings, root=tmp_path, calls=calls).produce(_case(tmp_path), "k")


def _scored(produced: Produced, expected: object, **options: object) -> MatchResult:
    result, _ = compare_and_send(produced, expected, "structural_f1", 1.0, options, Channel())
    return result


def test_a_scrubbed_field_missing_from_expected_is_ignored_live_and_replayed(tmp_path):
    case = _case(tmp_path)
    live = _produce(tmp_path, "once")
    replayed = _produce(tmp_path, "none")
    assert (live.source, replayed.source) == ("live", "replayed")
    assert live.output == replayed.output
    results = [_scored(p, case.expected) for p in (live, replayed)]
    assert [r.score for r in results] == [1.0, 1.0]
    assert results[0].fields == results[1].fields
    statuses = {f.path: f.status for f in results[0].fields}
    # the scrubbed fields count nowhere: neither extra nor compared
    for path in ("order.created_at", "order.request_id", "lines[0].at", "lines[1].at"):
        assert statuses[path] == "skipped", path
    assert statuses["order.sku"] == statuses["note"] == "match"


def test_the_sessions_own_ignore_is_kept_beside_the_scrubbed_paths(tmp_path):
    live = _produce(tmp_path, "once")
    expected = {"order": {"sku": "A1"}, "note": "other", "lines": [{"n": 1}, {"n": 2}]}
    result = _scored(live, expected, ignore="note")
    assert result.score == 1.0
    statuses = {f.path: f.status for f in result.fields}
    assert statuses["note"] == "skipped"
    assert statuses["order.created_at"] == "skipped"


def test_what_a_scrub_ignores_is_its_paths_and_the_values_a_pattern_replaced_whole():
    scrub = Scrub.parse("state.**.id", "s") + Scrub.parse("/\\d+:\\d+/", "s")
    output = stable_form(
        {
            "state": {"rows": [{"id": 1, "at": "10:30"}, {"id": 2, "at": "11:00"}]},
            "text": "at 10:30",  # replaced in part: a text still compared
            "odd key": ["10:30"],
        },
        scrub,
    )
    assert scrub.ignored(output) == ("state.**.id", "state.rows[].at", '["odd key"][]')
    # a text output that holds JSON is read for the values replaced whole (by any scrub)
    assert Scrub.parse("/\\d+:\\d+/", "s").ignored(json.dumps(output)) == (
        "state.rows[].id",
        "state.rows[].at",
        '["odd key"][]',
    )
    assert Scrub().ignored(output) == ()  # nothing scrubbed: nothing ignored


def test_nothing_is_ignored_where_nothing_is_recorded(tmp_path):
    produced = _produce(tmp_path, "off")
    assert produced.ignored == ()
    result = _scored(produced, _case(tmp_path).expected)
    assert result.score < 1.0  # the stamps are extra fields, and the note differs


def test_a_metric_that_takes_no_ignore_scores_a_scrubbed_output_as_recorded():
    # tool_calls pairs calls by name and arguments, and takes no ignore: nothing is added
    calls = [{"name": "book", "arguments": {"flight": "SK401", "at": PLACEHOLDER}}]
    produced = Produced(output=calls, source="replayed", ignored=("[].arguments.at",))
    result, _ = compare_and_send(produced, calls, "tool_calls", 1.0, {}, Channel())
    assert result.score == 1.0
