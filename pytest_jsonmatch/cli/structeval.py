"""structeval's configuration file (``--config``), read as options of ``structural_f1``.

Its keys: ``string_evaluation_type``, ``boolean_evaluation_type``,
``integer_evaluation_type``, ``float_evaluation_type`` (and ``number_evaluation_type``, for
both kinds of number), each ``{"evaluation_type": ..., "evaluation_params": {...}}``, and
``array_matching_threshold``. When the metric takes these keys as options, they are passed
as they are; otherwise they are translated to the options it has (``string_evaluator``,
``numeric_threshold``, ``numeric_weighting``, ``array_matching_threshold``), and a setting
that has no equivalent is an InputError saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InputError

KEYS = ("string_evaluation_type", "boolean_evaluation_type", "integer_evaluation_type",
        "float_evaluation_type", "number_evaluation_type", "array_matching_threshold")
# structeval's defaults: integers and booleans exactly, floats within 0.001 (weighting 0.1)
_DEFAULT_FLOAT = ("threshold", 0.001, 0.1)
# A threshold below any difference between two distinct numbers a pair can hold in practice,
# with no penalty inside it: exact equality of numbers, which today's options express so.
_EXACT_NUMBERS = ("threshold", 5e-324, 0.0)


def structeval_options(config: Any, path: str, accepted: frozenset[str] | set[str]) -> dict[str, Any]:
    """The options of ``structural_f1`` that ``config`` (structeval's configuration, read
    from ``path``) stands for; ``accepted`` are the options the metric takes."""
    if not isinstance(config, Mapping):
        raise InputError(f"{path}: a structeval configuration is a mapping of its keys "
                         f"({', '.join(KEYS)})")
    unknown = sorted(set(config) - set(KEYS))
    if unknown:
        raise InputError(f"{path}: unknown structeval key {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(KEYS)}")
    if all(key in accepted for key in config):
        return dict(config)
    return _translated(config, path)


def _definition(config: Mapping[str, Any], key: str, path: str) -> tuple[str, dict[str, Any]] | None:
    if key not in config:
        return None
    value = config[key]
    if not isinstance(value, Mapping) or "evaluation_type" not in value:
        raise InputError(f"{path}: {key} must be a mapping with 'evaluation_type' (and "
                         f"'evaluation_params'), not {value!r}")
    params = value.get("evaluation_params") or {}
    if not isinstance(params, Mapping):
        raise InputError(f"{path}: {key}.evaluation_params must be a mapping, not {params!r}")
    return str(value["evaluation_type"]).lower(), dict(params)


def _number(kind: str, params: Mapping[str, Any], key: str, path: str) -> tuple[str, Any, Any]:
    if kind == "binary":
        return _EXACT_NUMBERS
    if kind == "threshold":
        extra = sorted(set(params) - {"threshold", "difference_penalty_weighting"})
        if extra:
            raise InputError(f"{path}: {key}.evaluation_params: unknown "
                             f"{', '.join(map(repr, extra))}; known: threshold, "
                             f"difference_penalty_weighting")
        return ("threshold", params.get("threshold", _DEFAULT_FLOAT[1]),
                params.get("difference_penalty_weighting", _DEFAULT_FLOAT[2]))
    raise InputError(f"{path}: {key}: evaluation_type {kind!r} is not one of binary, threshold")


def _translated(config: Mapping[str, Any], path: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    string = _definition(config, "string_evaluation_type", path)
    if string is not None:
        kind, params = string
        if kind == "cosine":
            raise InputError(f"{path}: string_evaluation_type 'cosine' compares sentence "
                             f"embeddings, which pytest-jsonmatch does not compute; use "
                             f"'jaccard', 'binary' or 'levenshtein'")
        if kind not in ("jaccard", "binary", "levenshtein"):
            raise InputError(f"{path}: string_evaluation_type: evaluation_type {kind!r} is not "
                             f"one of jaccard, cosine, binary")
        if params:
            raise InputError(f"{path}: string_evaluation_type {kind!r} takes no "
                             f"evaluation_params here ({', '.join(map(repr, params))})")
        options["string_evaluator"] = "exact" if kind == "binary" else kind
    boolean = _definition(config, "boolean_evaluation_type", path)
    if boolean is not None and boolean[0] != "binary":
        raise InputError(f"{path}: boolean_evaluation_type: evaluation_type {boolean[0]!r} is "
                         f"not 'binary', the only one structeval has for booleans")
    # One rule scores every number here. structeval's integers default to binary and its
    # floats to threshold(0.001, 0.1): a threshold below 1 scores two integers exactly as
    # binary does, so that pair (and a rule given for all numbers) translates; a different
    # rule for integers than for floats does not.
    number = _definition(config, "number_evaluation_type", path)
    floats = _definition(config, "float_evaluation_type", path)
    integers = _definition(config, "integer_evaluation_type", path)
    if number is not None and (floats is not None or integers is not None):
        raise InputError(f"{path}: number_evaluation_type sets every number; give it without "
                         f"float_evaluation_type and integer_evaluation_type")
    if number is not None:
        rule = _number(*number, "number_evaluation_type", path)
    else:
        rule = _number(*floats, "float_evaluation_type", path) if floats else _DEFAULT_FLOAT
        int_rule = _number(*integers, "integer_evaluation_type", path) if integers else None
        if int_rule is not None and int_rule != rule:
            if int_rule != _EXACT_NUMBERS:
                raise InputError(f"{path}: integer_evaluation_type differs from "
                                 f"float_evaluation_type; this version scores integers and "
                                 f"floats with one rule (give number_evaluation_type)")
            if not (isinstance(rule[1], (int, float)) and rule[1] < 1):
                raise InputError(f"{path}: integers scored exactly while floats use a "
                                 f"threshold of {rule[1]!r} (1 or more) cannot be expressed "
                                 f"here; give number_evaluation_type")
    if rule != _DEFAULT_FLOAT:
        options["numeric_threshold"], options["numeric_weighting"] = rule[1], rule[2]
    if "array_matching_threshold" in config:
        options["array_matching_threshold"] = config["array_matching_threshold"]
    return options
