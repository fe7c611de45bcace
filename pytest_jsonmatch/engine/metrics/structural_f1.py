"""structeval's Structural F1: every scalar of both sides is a field, arrays are paired
order-agnostically by an assignment on element similarity (pairs below
``array_matching_threshold`` stay apart), strings by Jaccard (or binary, cosine), numbers by
a threshold; the score is F-beta over leaf precision and recall (``beta``, default 1).

structeval as its users write it is taken as it is:

**Its configuration** (what its CLI's ``--config`` file holds) is taken as options, unchanged:
``string_evaluation_type``, ``boolean_evaluation_type``, ``integer_evaluation_type``,
``float_evaluation_type`` (and the ``number_evaluation_type`` its code reads, for both), each
``{"evaluation_type": ..., "evaluation_params": {...}}`` with ``binary``, ``jaccard``,
``cosine`` or ``threshold``; and ``array_matching_threshold``.

**Its JSON Schema**, through ``schema=``: the values are checked against it, properties it does
not list are dropped when ``additionalProperties`` is true and an error otherwise,
``x-override-evaluator`` gives one field its evaluator, and enums compare binary.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, cast

from ..comparing.comparators import BoundComparator, by_kind, comparator_defaults
from ..comparing.registry import Registry
from ..configuring.walk_config import WalkConfig, unit_number
from ..core.errors import ConfigError, SchemaError, shown
from ..core.numbers import is_finite_number
from ..core.paths import display_path, index_segment, key_segment
from ..core.values import BOOLEAN, NUMBER, STRING, JsonObject, JsonValue, schema_type
from ..schemas.eval_schema import SchemaNode
from .base import COMMON_OPTIONS, Metric, Options, type_policy

if TYPE_CHECKING:
    from ..comparing.registry import Binder

CONFIG_OPTIONS = (
    "string_evaluation_type",
    "boolean_evaluation_type",
    "integer_evaluation_type",
    "float_evaluation_type",
    "number_evaluation_type",
)
# the evaluation types structeval documents for each kind of value
_ALLOWED = {
    "string_evaluation_type": ("binary", "jaccard", "cosine"),
    "boolean_evaluation_type": ("binary",),
    "integer_evaluation_type": ("binary", "threshold"),
    "float_evaluation_type": ("binary", "threshold"),
    "number_evaluation_type": ("binary", "threshold"),
    "x-override-evaluator": ("binary", "jaccard", "cosine", "threshold"),
}
_PARAMS = {
    "binary": (),
    "jaccard": (),
    "threshold": ("threshold", "difference_penalty_weighting"),
    "cosine": ("embedding_model",),
}


def evaluator_spec(
    definition: object, what: str, embedder_given: bool
) -> str | dict[str, dict[str, object]]:
    """The comparator spec of one structeval evaluation definition. ``embedder_given``: the
    ``embedder`` option names the embedder of cosine evaluators (it wins over
    ``embedding_model``)."""
    kind, params = _kind_and_params(definition, what)
    if kind == "threshold":
        if "threshold" not in params:
            raise ConfigError(
                f"{what}: evaluation_type 'threshold' needs evaluation_params "
                f"{{'threshold': t, 'difference_penalty_weighting': w}}"
            )
        # structeval's threshold evaluator weighs differences linearly unless told otherwise
        return {
            "threshold": {
                "threshold": params["threshold"],
                "weighting": params.get("difference_penalty_weighting", 1),
            }
        }
    if kind == "cosine":
        model = params.get("embedding_model")
        if embedder_given or model is None:
            return "cosine"  # the embedder option's, else the default model (all-MiniLM-L6-v2)
        if not isinstance(model, str) or not model:
            raise ConfigError(
                f"{what}: embedding_model must be a model name or path, not {shown(model)}"
            )
        return {"cosine": {"embedder": f"sentence-transformers:{model}"}}
    return kind  # binary, jaccard


def _kind_and_params(definition: object, what: str) -> tuple[str, Mapping[str, object]]:
    """An evaluation definition's type and parameters, checked: a mapping of those two keys
    only, a type ``what`` allows, parameters that type takes."""
    if not isinstance(definition, Mapping):
        raise ConfigError(
            f"{what} must be a mapping {{'evaluation_type': ..., 'evaluation_params': "
            f"{{...}}}}, not {definition!r}"
        )
    extra = sorted(set(definition) - {"evaluation_type", "evaluation_params"})
    if extra:
        raise ConfigError(
            f"{what}: unknown keys {extra}; known: evaluation_type, evaluation_params"
        )
    kind = definition.get("evaluation_type")
    allowed = _ALLOWED[what] if what in _ALLOWED else _ALLOWED["x-override-evaluator"]
    if kind not in allowed:
        raise ConfigError(
            f"{what}: evaluation_type must be one of {', '.join(allowed)}, not {kind!r}"
        )
    params = definition.get("evaluation_params") or {}
    if not isinstance(params, Mapping):
        raise ConfigError(f"{what}: evaluation_params must be a mapping, not {shown(params)}")
    unknown = sorted(set(params) - set(_PARAMS[kind]))
    if unknown:
        raise ConfigError(
            f"{what}: evaluation_type {kind!r} takes no parameter {', '.join(map(repr, unknown))}"
            + (f"; known: {', '.join(_PARAMS[kind])}" if _PARAMS[kind] else "")
        )
    return kind, params


def configured_policy(
    opts: Options, binder: Registry | Binder, number: BoundComparator, string: BoundComparator
) -> dict[str, BoundComparator] | None:
    """structural_f1's comparators for strings, booleans and numbers when structeval's
    configuration keys are given (None when none is): ``number`` and ``string`` are the
    comparators the other options give. Booleans and numbers of different kinds share an
    evaluator only as structeval does: ``true`` against ``1`` is 1.0 when both are binary."""
    if not any(key in opts for key in CONFIG_OPTIONS):
        return None
    for ours, theirs in (
        ("string_evaluator", "string_evaluation_type"),
        ("numeric_threshold", "number_evaluation_type"),
        ("numeric_weighting", "number_evaluation_type"),
    ):
        if ours in opts and theirs in opts:
            raise ConfigError(f"give {ours} or {theirs}, not both")
    given = opts.get("embedder") is not None

    def evaluator(key: str, default: BoundComparator) -> BoundComparator:
        if key not in opts:
            return default
        spec = evaluator_spec(opts[key], key, given)
        try:
            bound: BoundComparator = binder.comparator(spec)
            return bound
        except ConfigError as exc:
            raise ConfigError(f"{key}: {exc}") from None

    numbers = evaluator("number_evaluation_type", number)
    table = {
        "boolean": evaluator("boolean_evaluation_type", binder.comparator("binary")),
        "integer": evaluator("integer_evaluation_type", numbers),
        "number": evaluator("float_evaluation_type", numbers),
    }
    if table["boolean"] is table["integer"] is table["number"]:
        return {
            STRING: evaluator("string_evaluation_type", string),
            BOOLEAN: table["boolean"],
            NUMBER: table["number"],
        }
    return {
        STRING: evaluator("string_evaluation_type", string),
        BOOLEAN: by_kind(table, "boolean"),
        NUMBER: by_kind(table, "number"),
    }


def read_schema_keys(
    keywords: Mapping[str, JsonValue], binder: Registry | Binder, where: str
) -> BoundComparator | None:
    """The comparator structeval's own schema keys give a node: ``x-override-evaluator``,
    or binary for an enum (``x-eval-compare``, when given, wins over an enum)."""
    if "x-override-evaluator" in keywords:
        if "x-eval-compare" in keywords:
            raise SchemaError(
                f"schema node {where}: give x-override-evaluator or x-eval-compare, not both"
            )
        given = getattr(binder, "defaults", {}).get("cosine", {}).get("embedder") is not None
        bound: BoundComparator = binder.comparator(
            evaluator_spec(keywords["x-override-evaluator"], "x-override-evaluator", given)
        )
        return bound
    if "enum" in keywords and "x-eval-compare" not in keywords:
        binary: BoundComparator = binder.comparator("binary")
        return binary
    return None


# -- values checked against the schema, and what it does not list dropped ------------------------


def keep_schema_fields(
    cfg: WalkConfig, expected: JsonValue, actual: JsonValue
) -> tuple[JsonValue, JsonValue]:
    """Both values as structeval reads them through a schema: checked against it (a value of
    another type is a SchemaError naming the side and path), and without the properties it
    does not list where ``additionalProperties`` allows them (else those are errors). Null
    is accepted anywhere (an absent value to structural_f1); structeval refuses it."""
    if cfg.schema is None:
        return expected, actual
    return (
        _keep(cfg, cfg.schema, expected, "expected", ""),
        _keep(cfg, cfg.schema, actual, "actual", ""),
    )


_FITS: dict[str, Callable[[JsonValue], bool]] = {
    "string": lambda v: type(v) is str,
    # structeval tests isinstance(value, int): a boolean passes for an integer or a number
    "integer": lambda v: isinstance(v, int),
    "number": lambda v: isinstance(v, (int, float)),
    "boolean": lambda v: type(v) is bool,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "null": lambda v: v is None,
}


def _keep(cfg: WalkConfig, node: SchemaNode, value: JsonValue, side: str, path: str) -> JsonValue:
    if value is None or node.skip:
        return value
    kinds = node.allowed if node.type == "multi" else ((node.type,) if node.type else ())
    if kinds and not any(_FITS[kind](value) for kind in kinds if kind in _FITS):
        raise SchemaError(
            f"{side} does not fit the schema: {display_path(path)} is "
            f"{schema_type(value)}, the schema says {' or '.join(kinds)}"
        )
    if node.spec.comparator is not None:
        return value  # compared whole
    if type(value) is dict and node.properties is not None:
        out: JsonObject = {}
        for key, child in value.items():
            child_path = key_segment(path, key)
            if key in node.properties:
                out[key] = _keep(cfg, node.properties[key], child, side, child_path)
            elif cfg.rules and cfg.is_skipped(child_path):
                out[key] = child  # ignored anyway
            elif not _others_allowed(node):
                raise SchemaError(
                    f"{side} does not fit the schema: {display_path(child_path)} is not "
                    f"in the schema, whose additionalProperties is not true"
                )
        return out
    if type(value) is list and node.items is not None:
        return [
            _keep(cfg, node.items, item, side, index_segment(path, i))
            for i, item in enumerate(value)
        ]
    return value


def _others_allowed(node: SchemaNode) -> bool:
    """structeval's rule: properties a schema does not list are dropped when
    ``additionalProperties`` is true (or a schema), and an error otherwise, absent included."""
    extra = node.raw.get("additionalProperties", False)
    return extra is True or (isinstance(extra, Mapping))


# -- the metric ------------------------------------------------------------------------------


def _has_schema(cfg: WalkConfig) -> bool:
    """Whether ``keep_schema_fields`` reads the values: only with a schema (without one it
    hands both back as they are, so the entry may let the walk read them unread)."""
    return cfg.schema is not None


def _beta(options: Options) -> float:
    return float(cast(float, options.get("beta", 1.0)))  # (a number: _configure checks it)


def _configure(opts: dict[str, object], registry: Registry) -> WalkConfig:
    # (is_finite_number: an int or a float)
    if "beta" in opts and (not is_finite_number(opts["beta"]) or cast(float, opts["beta"]) <= 0):
        raise ConfigError(f"beta must be a positive number, not {shown(opts['beta'])}")
    threshold = unit_number(opts.get("array_matching_threshold", 0.3), "array_matching_threshold")
    binder = registry.with_defaults(comparator_defaults(opts))
    string = opts.get("string_evaluator", "jaccard")
    if string == "binary":
        string = "exact"
    try:
        binder.comparator(string)
    except ConfigError as exc:
        raise ConfigError(f"string_evaluator: {exc}") from None
    number = {
        "threshold": {
            "threshold": opts.get("numeric_threshold", 0.001),
            "weighting": opts.get("numeric_weighting", 0.1),
        }
    }
    try:
        policy = type_policy(binder, string, number)
    except ConfigError as exc:
        raise ConfigError(f"numeric_threshold / numeric_weighting: {exc}") from None
    policy.update(configured_policy(opts, binder, policy[NUMBER], policy[STRING]) or {})
    return WalkConfig(
        type_policy=policy,
        null_absent=True,
        array_mode="similarity",
        array_threshold=threshold,
        registry=registry,
    )


STRUCTURAL_F1 = Metric(
    "structural_f1",
    COMMON_OPTIONS
    | {
        "string_evaluator",
        "numeric_threshold",
        "numeric_weighting",
        "array_matching_threshold",
        "beta",
        *CONFIG_OPTIONS,
    },
    _configure,
    headline="f_beta",
    allow_array=True,
    beta=_beta,
    rules_apart=True,
    description="structeval: order-agnostic arrays, leaf precision/recall, F-beta",
    schema_reader=read_schema_keys,
    prepare=keep_schema_fields,
    prepares_when=_has_schema,
)
