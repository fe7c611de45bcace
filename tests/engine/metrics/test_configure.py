"""``configure`` (engine/metrics/base.py) keeps the configuration of options that are plain
scalars, per metric and registry state: the same object for the same options, a new one
when an option, its type or the registry changes, and none kept for options that are not
plain (a schema, which a file may hold and change between calls). A schema given as a
plain JSON mapping without references is kept by its content: a dataset's chunks, each
given an equal schema of its own, share one configuration."""

from __future__ import annotations

import copy
import json
import os
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
    # a mapping of plain data is kept by its content (test_kept_entry.py); a callable is not
    by_key = {"align": {"match_by": "key_field", "key": "id"}}
    assert _options_key(FIELD_F1, by_key, REGISTRY) == _options_key(
        FIELD_F1, {"align": {"match_by": "key_field", "key": "id"}}, REGISTRY
    )
    assert _options_key(FIELD_F1, {"post_process": [lambda fields: fields]}, REGISTRY) is None
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    assert _options_key(FIELD_F1, {"schema": str(path)}, REGISTRY) is None
    first = configure(FIELD_F1, {"schema": str(path)})
    path.write_text(json.dumps({"type": "object", "properties": {"b": {"type": "string"}}}))
    second = configure(FIELD_F1, {"schema": str(path)})  # the file as it is now
    assert first.schema is not None and second.schema is not None
    assert set(first.schema.properties or {}) == {"a"}
    assert set(second.schema.properties or {}) == {"b"}


INVOICE = {
    "type": "object",
    "properties": {
        "vendor": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {}}}},
    },
}


def test_an_equal_mapping_schema_shares_one_configuration() -> None:
    first = configure(FIELD_F1, {"schema": INVOICE, "align": "ordered"})
    # an equal mapping made again (as each chunk of a dataset is given), its keys reordered
    again = dict(reversed(list(copy.deepcopy(INVOICE).items())))
    assert configure(FIELD_F1, {"align": "ordered", "schema": again}) is first
    assert first == _configured(FIELD_F1, {"schema": INVOICE, "align": "ordered"}, REGISTRY)
    # another schema, or other options beside it, are configured apart
    other = copy.deepcopy(INVOICE)
    other["properties"]["total"] = {"type": "number"}
    assert configure(FIELD_F1, {"schema": other, "align": "ordered"}) is not first
    assert configure(FIELD_F1, {"schema": INVOICE, "align": "hungarian"}) is not first


def test_a_mapping_schema_that_reads_a_file_is_not_kept(tmp_path: Path) -> None:
    """A ``$ref`` may read a file next to the working directory, which may change between
    calls: such a schema is configured anew each time, as a schema file is."""
    (tmp_path / "money.json").write_text(json.dumps({"type": "object", "properties": {"a": {}}}))
    schema = {"type": "object", "properties": {"total": {"$ref": "money.json"}}}
    assert _options_key(FIELD_F1, {"schema": schema}, REGISTRY) is None
    # nor a mapping that is not plain JSON: a value json cannot write, or one its text
    # would not give back (a key 1 and a key "1" are written alike, a tuple as a list)
    assert _options_key(FIELD_F1, {"schema": {"type": "object", "x": {1, 2}}}, REGISTRY) is None
    for not_plain in ({"properties": {1: {}}}, {"required": ("a",)}):
        assert _options_key(FIELD_F1, {"schema": not_plain}, REGISTRY) is None
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        first = configure(FIELD_F1, {"schema": schema})
        (tmp_path / "money.json").write_text(
            json.dumps({"type": "object", "properties": {"b": {}}})
        )
        second = configure(FIELD_F1, {"schema": copy.deepcopy(schema)})
    finally:
        os.chdir(here)
    assert first is not second
    assert first.schema is not None and second.schema is not None
    total = (first.schema.properties or {})["total"], (second.schema.properties or {})["total"]
    assert [set(t.properties or {}) for t in total] == [{"a"}, {"b"}]


RULE_OPTIONS = [
    {"ignore": ["id"]},
    {"ignore": "a.b", "align": "hungarian"},
    {"fields": {"total": {"tolerance": 5}}},
    {"fields": {"name": {"comparator": "exact"}, "items[*].sku": {"skip": True}}},
    {"ignore": ["x"], "fields": {"**.note": {"weight": 2}}},
]


def _direct(metric, options):
    """The configuration built from all the options at once (what a metric whose
    ``configure`` might read the rules gets)."""
    return _configured(metric.replace(rules_apart=False), options, REGISTRY)


def test_rules_laid_over_the_kept_configuration_are_the_direct_configuration() -> None:
    # (each published metric's configure reads neither ignore nor fields: its rules are laid
    # over the kept configuration of its other options, which keeps its tables)
    for name in ("field_f1", "structural_f1", "json_similarity", "field_match"):
        metric = METRICS[name]
        assert metric.rules_apart
        for options in RULE_OPTIONS:
            if name != "field_f1" and "align" in options:
                continue
            laid = _configured(metric, dict(options), REGISTRY)
            direct = _direct(metric, dict(options))
            # (a rule's PathPattern is equal to itself alone: rules compared by their text)
            assert laid.replace(rules=()) == direct.replace(rules=()), (name, options)
            assert laid.rules and [(r.pattern.text, r.spec) for r in laid.rules] == [
                (r.pattern.text, r.spec) for r in direct.rules
            ]
            for table in ("scalar_policy", "value_policy", "skippable_by_type", "_plans"):
                assert getattr(laid, table) == getattr(direct, table), (name, table)
            assert [p.text for p in laid.skip_patterns] == [p.text for p in direct.skip_patterns]
            assert (laid.weighted, laid.prepares) == (direct.weighted, direct.prepares)
            rest = {k: v for k, v in options.items() if k not in ("ignore", "fields")}
            assert laid.type_policy is configure(metric, rest).type_policy  # (the kept one's)


def test_a_metric_that_may_read_its_rules_is_configured_from_all_its_options() -> None:
    seen: list[dict] = []

    def reads(opts, registry):
        seen.append(dict(opts))
        return FIELD_F1.configure(opts, registry)

    mine = FIELD_F1.replace(name="reads_rules", configure=reads, rules_apart=False)
    _configured(mine, {"ignore": ["id"]}, REGISTRY)
    assert seen == [{"ignore": ["id"]}]
