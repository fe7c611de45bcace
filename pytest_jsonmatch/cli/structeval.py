"""structeval's configuration file (``--config``), read as options of ``structural_f1``.

``structural_f1`` takes structeval's keys itself (``string_evaluation_type``,
``boolean_evaluation_type``, ``integer_evaluation_type``, ``float_evaluation_type``,
``number_evaluation_type``, ``array_matching_threshold``; see docs/metrics.md), so the file's
keys become options as they are. They are checked here, once, so that a mistake is an
InputError naming the file instead of a failure at the first pair.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..engine.core.errors import JsonMatchError
from ..engine.metrics import metric_named
from ..engine.metrics.base import configure
from ..engine.metrics.structural_f1 import CONFIG_OPTIONS
from .input_error import InputError

KEYS = (*CONFIG_OPTIONS, "array_matching_threshold")


def structeval_options(config: object, path: str) -> dict[str, object]:
    """The options of ``structural_f1`` that ``config`` (structeval's configuration, read
    from ``path``) stands for, checked."""
    if not isinstance(config, Mapping):
        raise InputError(
            f"{path}: a structeval configuration is a mapping of its keys ({', '.join(KEYS)})"
        )
    unknown = sorted(set(config) - set(KEYS), key=str)
    if unknown:
        raise InputError(
            f"{path}: unknown structeval key {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(KEYS)}"
        )
    options: dict[str, object] = dict(config)  # (keys: the known ones, strings)
    try:
        configure(metric_named("structural_f1"), options)
    except JsonMatchError as exc:
        raise InputError(f"{path}: {exc}") from None
    return options
