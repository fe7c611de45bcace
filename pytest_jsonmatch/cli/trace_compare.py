"""``jsonmatch compare TRACE EXPECTED --trace-...``: an agent's run read from an
OpenTelemetry trace file and scored as a golden run case scores it.

ACTUAL is the trace file (OTLP JSON as the Collector's file exporter writes it, or OTLP
protobuf); ``--trace-id``, ``--trace-root`` and ``--trace-attribute`` select its run, as a
case's ``trace:`` does (a file of one trace needs none), and ``--trace-format`` says which of
the two the file must be. EXPECTED is a JSON or YAML mapping of a run case's keys:
``expected`` (the answer), ``expected_run``, ``run_options`` and ``expected_state``. The run
is read by ``read_trace`` and scored by the case's own ``AgentExpectations``, so the rows are
the golden case's. Imported only when a trace option is given (``compare.py`` declares the
options): a plain ``compare`` loads neither the trace reader nor the case layer.
"""

from __future__ import annotations

import argparse
import os.path
from collections.abc import Mapping

from ..cases.agent_expectations import AgentExpectations, call_options_of
from ..dataset import Pair, ScoreSettings, comparison_of
from ..engine.core.errors import CaseFileError, ConfigError, JsonMatchError, did_you_mean
from ..engine.reading.trace_spans import read_trace
from ..reporting.run_model.comparisons import Comparison
from .input_error import InputError
from .inputs import STDIN, read_settings

# the keys EXPECTED may hold: a run case's
EXPECTED_KEYS = ("expected", "expected_run", "run_options", "expected_state")
_OPTIONS = "--trace-id, --trace-root or --trace-attribute"
# read_trace's name of each part of a selection, and the option that gives it
_FLAGS = {"trace_id": "--trace-id", "root": "--trace-root", "attribute": "--trace-attribute"}


def trace_comparison(
    args: argparse.Namespace,
    actual_path: str,
    expected_path: str,
    metric: str,
    options: dict[str, object],
    settings: ScoreSettings,
) -> Comparison:
    """The run the trace file ``actual_path`` holds (the one the options select), scored
    against the run case ``expected_path`` gives; every mistake an InputError naming the
    file or the option."""
    if actual_path == STDIN:
        raise InputError("a trace is read from a file: give its path as ACTUAL, not -")
    selection = _selection(args)
    expected, expectations = _expectations(expected_path, metric)
    _check_format(actual_path, args.trace_format)
    try:
        run = read_trace(actual_path, **selection).run_json()
    except ConfigError as exc:
        said = str(exc)
        flag = next((f for k, f in _FLAGS.items() if said.startswith(f"{k} must")), None)
        if flag is not None:  # (a selection of no kind it takes: checked before the file)
            said = f"{flag}: {said}"
        elif "select one by" in said:  # (several traces: named by this command's options)
            said = f"{said} ({_OPTIONS})"
        raise InputError(said) from None
    except JsonMatchError as exc:
        raise InputError(str(exc)) from None
    try:
        result = expectations.scored(run, expected, metric, options)
    except JsonMatchError as exc:
        raise InputError(f"{expected_path}: {exc}") from None
    pair = Pair(actual_path, expected, run, actual_path, actual_path)
    return comparison_of(pair, result, settings)


def _selection(args: argparse.Namespace) -> dict[str, object]:
    """The run the options select, as ``read_trace`` takes it (which checks each part
    before it reads the file: its mistakes named by their option, ``_FLAGS``)."""
    selection: dict[str, object] = {}
    if args.trace_id:
        selection["trace_id"] = args.trace_id
    if args.trace_root:
        selection["root"] = args.trace_root
    attributes: dict[str, str] = {}
    for text in args.trace_attribute:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--trace-attribute wants KEY=VALUE, not {text!r}")
        if key.strip() in attributes:
            raise InputError(f"--trace-attribute {key.strip()} is given twice")
        attributes[key.strip()] = value.strip()
    if attributes:
        selection["attribute"] = attributes
    return selection


def _expectations(path: str, metric: str) -> tuple[object, AgentExpectations]:
    """EXPECTED read as a run case's keys: its answer (None: not scored) and the case's
    expectations, each mistake naming the file and the key."""
    data = read_settings(path, "expected run")
    if not isinstance(data, Mapping):
        raise InputError(
            f"{path}: with a trace as ACTUAL, EXPECTED is a mapping of a run case's keys "
            f"({', '.join(EXPECTED_KEYS)}), not {type(data).__name__}"
        )
    for key in data:
        if key not in EXPECTED_KEYS:
            meant = did_you_mean(key, EXPECTED_KEYS)
            raise InputError(
                f"{path}: unknown key {key!r}{meant}; a run case's keys: {', '.join(EXPECTED_KEYS)}"
            )
    if "expected_run" not in data and "expected_state" not in data:
        raise InputError(
            f"{path}: a trace gives an agent's run: give expected_run or expected_state (and "
            f"expected, its answer)"
        )

    def error(key: str, why: str) -> CaseFileError:
        return CaseFileError(f"{path}: {why}")

    try:
        run_options = call_options_of(
            data, {}, lambda _, why: error("", why), {}, "", "run_options"
        )
        made = AgentExpectations.of_case(data, error, metric, ({}, run_options))
    except CaseFileError as exc:
        raise InputError(str(exc)) from None
    assert made is not None  # (an expected run or state: an agent's case)
    return data.get("expected"), made


def _check_format(path: str, wanted: str | None) -> None:
    """The trace file is the format ``--trace-format`` says (None: either): its first byte
    past a BOM and blanks opens JSON (``{``, ``[``), or it is protobuf."""
    if wanted is None or not os.path.isfile(path):  # (read_trace names what it is)
        return
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return  # (read_trace names what is wrong with the path)
    body = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not body:
        return
    found = "json" if body[:1] in (b"{", b"[") else "proto"
    if found != wanted:
        said = "OTLP JSON" if found == "json" else "not JSON (OTLP protobuf, or no trace)"
        raise InputError(f"{path}: --trace-format {wanted}, but the file is {said}")
