"""``configure`` (engine/metrics/base.py) keeps the configuration of options that are plain
scalars, per metric and registry state: the same object for the same options, a new one
when an option, its type or the registry changes, and none kept for options that are not
plain (a schema, which a file may hold and change between calls)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_jsonmatch.engine.comparing.registry import Registry
from pytest_jsonmatch.engine.metrics import METRICS, REGISTRY
from pytest_jsonmatch.engine.metrics.base import _configured, _options_key, configure

FIELD_F1 = METRICS["field_f1"]


def test_plain_options_keep_their_configuration() -> None:
    cfg = configure(FIELD_F1, {"align": "hungarian"})
    assert configure(FIELD_F1, {"align": "hungarian"}) is cfg
    assert cfg == _configured(FIELD_F1, {"align": "hungarian"}, REGISTRY)  # what it would build
    assert cfg.default_align.mode == "hungarian"
    ordered = configure(FIELD_F1, {"align": "ordered"})
    assert ordered is not cfg and ordered.default_align.mode == "ordered"
    assert configure(METRICS["structural_f1"], {"align": "hungarian"}) is not cfg


def test_the_key_tells_types_and_registries_apart() -> None:
    # True == 1 and both hash alike: the type keeps them apart
    assert _options_key(FIELD_F1, {"truncated": True}, REGISTRY) != _options_key(
        FIELD_F1, {"truncated": 1}, REGISTRY
    )
    # the order options are given in does not matter
    assert _options_key(
        FIELD_F1, {"align": "ordered", "truncated": "close"}, REGISTRY
    ) == _options_key(FIELD_F1, {"truncated": "close", "align": "ordered"}, REGISTRY)
    registry = Registry()
    before = configure(FIELD_F1, {"align": "hungarian"}, registry)
    registry.set_type_default("string", "levenshtein")  # a registration: a new state
    after = configure(FIELD_F1, {"align": "hungarian"}, registry)
    assert after is not before
    assert after.type_policy["string"].name == "levenshtein"
    assert before.type_policy["string"].name == "exact"


def test_options_that_are_not_plain_are_not_kept(tmp_path: Path) -> None:
    assert (
        _options_key(FIELD_F1, {"align": {"match_by": "key_field", "key": "id"}}, REGISTRY) is None
    )
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    assert _options_key(FIELD_F1, {"schema": str(path)}, REGISTRY) is None
    first = configure(FIELD_F1, {"schema": str(path)})
    path.write_text(json.dumps({"type": "object", "properties": {"b": {"type": "string"}}}))
    second = configure(FIELD_F1, {"schema": str(path)})  # the file as it is now
    assert first.schema is not None and second.schema is not None
    assert set(first.schema.properties or {}) == {"a"}
    assert set(second.schema.properties or {}) == {"b"}
