"""rules="bfcl" on BFCL's decoded form (bfcl/bfcl_fast_pass.py) gives what the general path
gives, on any input: the same verdict, the same scores, the same exception.

The fast path takes both sides as they are and hands anything it does not take (another
form, a malformed document or possible answer, a value it cannot compare) to the general
path (bfcl/bfcl_rules.py, bfcl_entry.py). Here both are run on an entry, outputs and
malformed variants of each, in every pairing a category sets, and compared: the verdict
(or the exception), and the score, precision and recall.
"""

from __future__ import annotations

import copy
import itertools

import pytest

from pytest_jsonmatch import BfclChecker, bfcl_verdict
from pytest_jsonmatch.engine.bfcl import bfcl_fast_pass as bfcl_fast

CATEGORIES = ("simple_python", "multiple", "parallel", "live_parallel_multiple", "simple_java")

DOC = {
    "name": "f",
    "parameters": {
        "type": "dict",
        "properties": {
            "a": {"type": "string"},
            "b": {"type": "integer"},
            "c": {"type": "array", "items": {"type": "string"}},
            "d": {"type": "float"},
            "e": {"type": "any"},
        },
        "required": ["a"],
    },
}
OTHER = {
    "name": "g.h",
    "parameters": {"type": "dict", "properties": {"x": {"type": "boolean"}}, "required": []},
}
ANSWER = [{"f": {"a": ["Hello, World", "hi"], "b": [1, ""], "c": [["x", "y"]], "d": [2.0, ""]}}]


def _docs():
    """The function documents, then malformed variants of them."""
    yield [DOC, OTHER]
    yield [OTHER, DOC]
    yield []
    yield DOC  # (a single document, not in a list)
    for change in (
        lambda d: d.pop("parameters"),
        lambda d: d["parameters"].pop("required"),
        lambda d: d["parameters"].__setitem__("required", ("a",)),
        lambda d: d["parameters"].__setitem__("properties", [1]),
        lambda d: d["parameters"]["properties"]["b"].pop("type"),
        lambda d: d["parameters"]["properties"]["b"].__setitem__("type", "object"),
        lambda d: d["parameters"]["properties"].__setitem__("b", None),
        lambda d: d.__setitem__("name", 5),
        lambda d: d.pop("name"),
    ):
        doc = copy.deepcopy(DOC)
        change(doc)
        yield [doc, OTHER]
    yield [None, DOC]


def _answers():
    """The possible answers, then malformed variants of them."""
    yield ANSWER
    yield ANSWER + [{"g.h": {"x": [True, ""]}}]
    yield [{"g.h": {"x": [True]}}] + ANSWER
    yield []
    for change in (
        lambda a: a[0]["f"].__setitem__("b", 1),
        lambda a: a[0]["f"].__setitem__("b", None),
        lambda a: a[0]["f"].__setitem__("a", "hi"),
        lambda a: a[0].__setitem__("g", {}),
        lambda a: a.__setitem__(0, {"f": [1]}),
        lambda a: a[0]["f"].__setitem__("c", [["x", 1]]),
        lambda a: a[0]["f"].__setitem__("e", [5, "five"]),
    ):
        answer = copy.deepcopy(ANSWER)
        change(answer)
        yield answer


def _outputs():
    """Model outputs: right, wrong in each way, and in other forms."""
    right = {"a": "Hello, World", "b": 1, "c": ["x", "y"], "d": 2.0}
    yield [{"f": right}]
    for args in (
        {"a": "hello world", "b": 1},
        {"a": "hi", "d": 2},
        {"a": "hi", "b": True},
        {"a": "hi", "b": 2},
        {"a": "hi", "b": "1"},
        {"a": 5},
        {"a": "hi", "c": ["X", "y"]},
        {"a": "hi", "c": ["x"]},
        {"a": "hi", "e": 5},
        {"a": "hi", "e": "five"},
        {"b": 1},
        {"a": "hi", "z": 1},
        {"a": "hi", "b": None},
        {"a": "hi", "d": 10**400},
    ):
        yield [{"f": args}]
    yield [{"g_h": {"x": True}}]
    yield [{"g.h": {"x": True}}, {"f": right}]
    yield [{"f": right}, {"g.h": {"x": True}}]
    yield [{"f": right}, {"f": {"a": "hi"}}]
    yield [{"g.h": {"x": False}}, {"f": {"a": "hi", "b": 1}}]  # (a pair the checker never reaches)
    yield []
    yield [{"f": 1}]
    yield [{"f": right, "g": {}}]
    yield [{"name": "f", "arguments": {"a": "hi"}}]
    yield [{"function": {"name": "f", "arguments": {"a": "hi"}}}]
    yield {"f": right}


def _outcome(make, *args, **options):
    try:
        return make(*args, **options)
    except Exception as error:  # noqa: BLE001 (the exception is the outcome compared)
        return (type(error).__name__, str(error))


def _scores(result):
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str):
        return result
    return (result.score, result.precision, result.recall)


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_fast_path_gives_what_the_general_path_gives(category, monkeypatch):
    differ = []
    cases = list(itertools.product(list(_docs()), list(_answers()), list(_outputs())))
    for functions, answer, output in cases:
        for dots in (False, True):
            args = (functions, output, answer, category)
            fast = _outcome(bfcl_verdict, *args, underscore_to_dot=dots)
            with monkeypatch.context() as patched:  # the switch off: the general path
                patched.setattr(bfcl_fast, "SPECIALISE", False)
                general = _outcome(bfcl_verdict, *args, underscore_to_dot=dots)
            if fast != general:
                differ.append(("verdict", dots, functions, answer, output, fast, general))
        checker = BfclChecker(functions, answer, category)
        verdict = _outcome(checker.verdict, output)
        score = _scores(_outcome(checker.score, output))
        with monkeypatch.context() as patched:  # the general path alone: the switch off
            patched.setattr(bfcl_fast, "SPECIALISE", False)
            slow = BfclChecker(functions, answer, category)
            slow_verdict = _outcome(slow.verdict, output)
            slow_score = _scores(_outcome(slow.score, output))
        if (verdict, score) != (slow_verdict, slow_score):
            differ.append(("checker", functions, answer, output, verdict, score, slow_score))
    assert differ == []
