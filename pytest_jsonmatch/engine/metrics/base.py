"""What a metric is, and what every metric does the same way.

A :class:`Metric` owns its rules: the options it takes, how it turns them into a
:class:`WalkConfig`, and the steps around the walk that are its own (the part of both sides
it compares, what it makes of both values first, how it rewrites the field results, the
beta of its F-beta headline). Generic code (match.py) calls these steps and names no metric.
:func:`configure` checks the options and lays the shared ones (``ignore``, ``fields``,
``schema``) over the metric's configuration.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TypeAlias, cast

from ..comparing.comparators import BoundComparator, comparator_defaults
from ..comparing.registry import REGISTRY, Binder, Registry
from ..configuring.walk_config import WalkConfig, field_rules, schema_node
from ..core.errors import ConfigError, did_you_mean, known_names, shown
from ..core.slotted import HashedSlotted
from ..core.values import ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING, JsonValue
from ..reading.parse import check_truncated
from ..results.field_results import FieldResult, f_beta
from ..schemas.eval_schema import SchemaReader

# the options every metric takes (engine/configuring reads them; match.py reads
# ``truncated`` and ``conformance``, the check of the answer against the schema)
COMMON_OPTIONS = frozenset(
    {"ignore", "fields", "align", "schema", "embedder", "truncated", "conformance"}
)
# A metric's options as the user gives them, by name (checked where each is read: a schema
# may be a pydantic model class, an embedder an object of the user's).
Options: TypeAlias = Mapping[str, object]


class Metric(HashedSlotted):
    """A metric: the options it takes, how it configures the walk from them, and its
    headline score (``recall`` or ``f_beta``). The optional steps default to doing nothing."""

    __slots__ = (
        "name",
        "options",
        "configure",
        "headline",
        "allow_array",
        "description",
        "schema_reader",
        "prepare",
        "prepares_when",
        "target",
        "targets_when",
        "finish",
        "finishes_when",
        "beta",
        "score_fields",
        "rules_apart",
    )

    name: str
    options: frozenset[str]
    configure: Callable[[dict[str, object], Registry], WalkConfig]
    headline: str
    allow_array: bool
    description: str
    # how the metric reads a schema's dialect keys (structural_f1: structeval's)
    schema_reader: SchemaReader | None
    # what the metric makes of both values before the walk, given its configuration
    # (structural_f1: keeps what its schema names, and checks it)
    prepare: Callable[[WalkConfig, JsonValue, JsonValue], tuple[JsonValue, JsonValue]] | None
    # under which configuration ``prepare`` changes or checks anything (None: under any;
    # structural_f1: only with a schema); a record it does not touch may be walked unread
    prepares_when: Callable[[WalkConfig], bool] | None
    # the part of each side the metric compares, from the options (json_similarity:
    # UiPath's target_output_key); runs after parsing, before the walk
    target: Callable[[JsonValue, JsonValue, Options], tuple[JsonValue, JsonValue]] | None
    # under which options ``target`` takes a part of either side (None: under any;
    # json_similarity: a target_output_key other than "*"); a record it hands back whole
    # may be walked unread
    targets_when: Callable[[Options], bool] | None
    # what the metric does with the walk's field results before they are counted, from the
    # options and the registry (field_f1: the post_process option)
    finish: Callable[[list[FieldResult], Options, Registry], list[FieldResult]] | None
    # under which options ``finish`` changes anything (None: under any)
    finishes_when: Callable[[Options], bool] | None
    # the beta of an ``f_beta`` headline, read from the options (None: F1)
    beta: Callable[[Options], float] | None
    # a metric that makes the field results itself instead of the walk, from both values
    # and the options (tool_calls: calls paired, each name and argument a field)
    score_fields: Callable[[JsonValue, JsonValue, Options], list[FieldResult]] | None
    # whether ``configure`` reads neither ``ignore`` nor ``fields``: the configuration of
    # options with rules is then the kept one of the other options, the rules laid over it
    # (an assertion's ``ignore=[its own key]`` pays for its rules alone)
    rules_apart: bool

    def __init__(
        self,
        name: str,
        options: frozenset[str],
        configure: Callable[[dict[str, object], Registry], WalkConfig],
        headline: str = "recall",
        allow_array: bool = False,
        description: str = "",
        schema_reader: SchemaReader | None = None,
        prepare: Callable[[WalkConfig, JsonValue, JsonValue], tuple[JsonValue, JsonValue]]
        | None = None,
        target: Callable[[JsonValue, JsonValue, Options], tuple[JsonValue, JsonValue]]
        | None = None,
        finish: Callable[[list[FieldResult], Options, Registry], list[FieldResult]] | None = None,
        finishes_when: Callable[[Options], bool] | None = None,
        beta: Callable[[Options], float] | None = None,
        score_fields: Callable[[JsonValue, JsonValue, Options], list[FieldResult]] | None = None,
        rules_apart: bool = False,
        prepares_when: Callable[[WalkConfig], bool] | None = None,
        targets_when: Callable[[Options], bool] | None = None,
    ) -> None:
        self.name, self.options, self.configure = name, options, configure
        self.headline, self.allow_array, self.description = headline, allow_array, description
        self.schema_reader, self.prepare, self.target = schema_reader, prepare, target
        self.finish, self.finishes_when = finish, finishes_when
        self.beta, self.score_fields = beta, score_fields
        self.rules_apart, self.prepares_when = rules_apart, prepares_when
        self.targets_when = targets_when

    def targets(self, options: Options) -> bool:
        """Whether the ``target`` step takes a part of either side under ``options``."""
        return self.target is not None and (self.targets_when is None or self.targets_when(options))

    def prepares(self, cfg: WalkConfig) -> bool:
        """Whether the ``prepare`` step reads the values under configuration ``cfg``."""
        return self.prepare is not None and (self.prepares_when is None or self.prepares_when(cfg))

    def finishes(self, options: Options) -> bool:
        """Whether the ``finish`` step rewrites the field results under ``options``."""
        return self.finish is not None and (
            self.finishes_when is None or self.finishes_when(options)
        )

    def headline_score(self, precision: float, recall: float, f1: float, options: Options) -> float:
        """The metric's one score: recall, or F-beta (F1 unless the metric reads a beta)."""
        if self.headline == "recall":
            return recall
        beta = self.beta(options) if self.beta is not None and options else 1.0
        return f1 if beta == 1.0 else f_beta(precision, recall, beta)


def option_choice(
    metric: str, options: Options, name: str, known: tuple[str, ...], default: str
) -> str:
    """Option ``name`` of ``metric``: one of ``known`` (``default`` where it is not given);
    any other value is a ConfigError naming the option, the values it takes and the nearest."""
    value = options.get(name)
    if value is None:
        return default
    if not isinstance(value, str) or value not in known:
        raise ConfigError(
            f"{metric} option {name} must be one of {', '.join(map(repr, known))}, not "
            f"{shown(value)}{did_you_mean(value, known) if isinstance(value, str) else ''}"
        )
    return str(value)


def type_policy(
    registry: Registry | Binder, string: object, number: object
) -> dict[str, BoundComparator]:
    """A comparator per JSON type: ``string`` and ``number`` comparator specs, exact for the
    rest."""
    exact = registry.comparator("exact")
    return {
        NULL: exact,
        BOOLEAN: exact,
        NUMBER: registry.comparator(number),
        STRING: registry.comparator(string),
        OBJECT: exact,
        ARRAY: exact,
    }


# Configurations kept per metric, registry state and options, when the options are plain
# scalars (``align="hungarian"``): a configuration caches what it works out (its per-type
# tables, its inline plans), which one comparison after another would otherwise redo.
_BASE_CONFIGS: dict[tuple[object, ...], WalkConfig] = {}
_SCALARS = frozenset({str, int, float, bool, type(None)})


def configure(metric: Metric, options: Options, registry: Registry = REGISTRY) -> WalkConfig:
    """Check ``options`` against ``metric`` and build its walk configuration."""
    return kept_config(metric, options, registry, config_key(metric, options, registry))


def kept_config(
    metric: Metric,
    options: Options,
    registry: Registry,
    key: tuple[object, ...] | None,
    copied: bool = False,
) -> WalkConfig:
    """:func:`configure` where the options' ``key`` (:func:`config_key`) is known already;
    ``copied``: ``options`` is the caller's own copy (``plain_copy``), kept as it is."""
    if options:
        check_options(metric, options)
    if key is not None:
        return _kept(key, metric, options, registry, copied)
    return _configured(metric, options, registry)


def config_key(metric: Metric, options: Options, registry: Registry) -> tuple[object, ...] | None:
    """The key :func:`configure` keeps the configuration of ``metric`` with ``options``
    under, or None when it builds one each time (see ``_options_key``). Equal keys are
    equal configurations: what else is built from the metric and the options alone (the
    engine's Entry) may be kept under it too."""
    if not options:
        return (metric.name, id(registry), registry.generation)
    return _options_key(metric, options, registry)


def _options_key(metric: Metric, options: Options, registry: Registry) -> tuple[object, ...] | None:
    """The key a configuration of ``options`` is kept under, or None when it is not kept:
    an option that is not plain data (a callable, an object of the user's, a value nested
    past ``_KEY_DEPTH`` or larger than ``_KEY_ITEMS``), a schema other than a plain JSON
    mapping without references (a file's, or one a ``$ref`` reads, may change between
    calls), an embedder (named in the registry's state). Plain data is keyed by its
    content, each scalar with its type (``True`` and ``1`` are equal in Python, not as
    option values) and each mapping in its order (``fields`` rules apply in order): the
    same options written afresh by every call (an assertion's ``ignore=["id"]``) share one
    configuration, and a list changed in place between calls is another key."""
    if "embedder" in options:
        return None
    named: list[tuple[str, type, object]] = []
    for name, value in options.items():
        if name == "schema":
            text = _schema_text(value)
            if text is None:
                return None
            named.append((name, dict, text))
        elif type(value) in _SCALARS:
            named.append((name, type(value), value))
        else:
            room = [_KEY_ITEMS]
            form = _data_key(value, _KEY_DEPTH, room)
            if form is None:
                return None
            named.append((name, type(value), form))
    named.sort()  # (by name: the names differ, so no comparison reads further)
    return (metric.name, id(registry), registry.generation, *named)


# How far an option's plain data is read into a key: deeper or larger data is not kept (a
# configuration of it is made at each call, as for any option that is not plain data).
_KEY_DEPTH = 6
_KEY_ITEMS = 256


def _data_key(value: object, depth: int, room: list[int]) -> object | None:
    """``value`` (lists, tuples and string-keyed dicts of scalars) as a hashable key of its
    content, every value with its type; None where it is anything else, or past the
    bounds (``room``: how many items may still be read)."""
    room[0] -= 1
    if room[0] < 0:
        return None
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value)
    if depth == 0:
        return None
    if kind is list or kind is tuple:
        items: list[object] = [kind]
        for item in cast("list[object]", value):
            form = _data_key(item, depth - 1, room)
            if form is None:
                return None
            items.append(form)
        return tuple(items)
    if kind is dict:
        pairs: list[object] = [dict]
        for key, item in cast("dict[object, object]", value).items():
            if type(key) is not str:
                return None
            form = _data_key(item, depth - 1, room)
            if form is None:
                return None
            pairs.append((key, form))
        return tuple(pairs)
    return None


def data_form(value: object) -> object | None:
    """How ``config_key`` reads an option's value that is not a scalar (its content as a
    key, within the bounds), or None where it keeps no configuration of it."""
    return _data_key(value, _KEY_DEPTH, [_KEY_ITEMS])


def plain_copy(options: Options) -> dict[str, object]:
    """``options`` with every list, tuple and dict value but the schema copied: what a
    configuration or an entry kept under :func:`config_key` holds, so that a caller's
    list changed in place later changes nothing kept under the key it had (the values
    are plain data, as the key read them)."""
    return {
        name: value if name == "schema" or type(value) in _SCALARS else _copied(value)
        for name, value in options.items()
    }


def _copied(value: object) -> object:
    """A copy of plain data: its lists, tuples and dicts made anew, scalars as they are."""
    kind = type(value)
    if kind is list or kind is tuple:
        return kind(_copied(item) for item in cast("list[object]", value))
    if kind is dict:
        return {key: _copied(item) for key, item in cast("dict[str, object]", value).items()}
    return value


def _schema_text(schema: object) -> str | None:
    """A schema given as a mapping of plain JSON, as canonical text: equal schemas (each
    golden case's own copy of one inline schema) share one configuration, kept by content
    rather than by the mapping's identity. The text of one mapping is worked out once (the
    schema loader, too, takes a mapping it has seen, the same object, as unchanged). None
    for anything else: a mapping with a ``$ref`` (which may read a file), or one the text
    does not give back as it is (a key that is not a string, a tuple), which another
    mapping could share its text with."""
    if type(schema) is not dict:
        return None
    known = _TEXTS.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    text = _canonical(schema)
    if len(_TEXTS) >= 256:
        _TEXTS.clear()
    _TEXTS[id(schema)] = (schema, text)  # holds the mapping: its id is not reused meanwhile
    return text


_TEXTS: dict[int, tuple[object, str | None]] = {}


def _canonical(schema: dict[str, object]) -> str | None:
    try:
        text = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    if '"$ref"' in text or json.loads(text) != schema:
        return None
    return text


def _kept(
    key: tuple[object, ...],
    metric: Metric,
    options: Options,
    registry: Registry,
    copied: bool = False,
) -> WalkConfig:
    cfg = _BASE_CONFIGS.get(key)
    if cfg is None or cfg.registry is not registry:
        if len(_BASE_CONFIGS) > 256:
            _BASE_CONFIGS.clear()
        kept = options if copied else plain_copy(options)
        cfg = _BASE_CONFIGS[key] = _configured(metric, kept, registry)
    return cfg


RULE_OPTIONS = ("ignore", "fields")


def rules_apart(metric: Metric, options: Options) -> bool:
    """Whether the configuration of ``options`` is that of its other options with the
    ``ignore`` and ``fields`` rules laid over it (:func:`with_rules_of`): a metric whose
    ``configure`` reads neither, options that give one of them, and no schema (whose nodes
    the rules would be laid over)."""
    return (
        metric.rules_apart
        and options.get("schema") is None
        and not options.keys().isdisjoint(RULE_OPTIONS)
    )


def without_rules(options: Options) -> dict[str, object]:
    """``options`` less ``ignore`` and ``fields``."""
    return {name: value for name, value in options.items() if name not in RULE_OPTIONS}


def one_rule(options: Options) -> tuple[str, object, object] | None:
    """Where ``options`` give one rule that names one plain key (an identifier), as an
    assertion's own rule does (``ignore=["id"]``, ``fields={"total": {"tolerance": 5}}``):
    (the key, its settings, None for ``ignore``; the rule's content as hashable plain
    data, for keeping what is made of it); else None, and the rules are read by
    :func:`field_rules` in full."""
    ignore, fields = options.get("ignore"), options.get("fields")
    if fields is None:
        kind = type(ignore)
        if kind is str:
            pattern: object = ignore
        elif (kind is list or kind is tuple) and len(ignore) == 1:  # type: ignore[arg-type]
            pattern = ignore[0]  # type: ignore[index]
        else:
            return None
        settings: object = None
        content: object = (kind, pattern)
    elif ignore is None and type(fields) is dict and len(fields) == 1:
        ((pattern, settings),) = fields.items()
        if type(settings) is not dict:
            return None
        content = _one_setting(settings) or _data_key(settings, _KEY_DEPTH, [_KEY_ITEMS])
        if content is None:
            return None
    else:
        return None
    if type(pattern) is not str or not (pattern.isascii() and pattern.isidentifier()):
        return None
    return pattern, settings, content


def _one_setting(settings: dict[object, object]) -> tuple[object, ...] | None:
    """``_data_key(settings, ...)`` of one setting of a scalar value (``{"tolerance": 5}``),
    made at once; None for any other settings (``_data_key`` reads them)."""
    if len(settings) != 1:
        return None
    ((name, value),) = settings.items()
    kind = type(value)
    if type(name) is not str or kind not in _SCALARS:
        return None
    return (dict, (name, (kind, value)))


def with_rules_of(cfg: WalkConfig, options: Options, registry: Registry) -> WalkConfig:
    """``cfg`` (the configuration of ``options`` less their rules) with the rules of
    ``ignore`` and ``fields`` laid over it, each read and checked afresh."""
    binder = registry.with_defaults(comparator_defaults(options))
    return cfg.with_rules(field_rules(options, binder))


def _configured(metric: Metric, options: Options, registry: Registry) -> WalkConfig:
    if not options:
        return metric.configure({}, registry)
    opts = dict(options)
    if rules_apart(metric, opts):
        # the other options' configuration, kept (or made and kept), the rules laid over it
        rest = without_rules(opts)
        key = config_key(metric, rest, registry)
        if key is not None:
            return with_rules_of(_kept(key, metric, rest, registry), opts, registry)
    cfg = metric.configure(opts, registry)
    binder = registry.with_defaults(comparator_defaults(opts))
    schema = (
        schema_node(opts["schema"], binder, metric.schema_reader)
        if opts.get("schema") is not None
        else None
    )
    return cfg.replace(rules=field_rules(opts, binder), schema=schema)


def check_options(metric: Metric, options: Options) -> None:
    unknown = [name for name in options if name not in metric.options]
    if unknown:
        raise ConfigError(
            f"unknown option {', '.join(map(repr, sorted(unknown)))} for metric {metric.name!r}"
            f"{did_you_mean(unknown[0], metric.options) if len(unknown) == 1 else ''}; "
            f"known options: {known_names(metric.options)}"
        )
    if "truncated" in options:
        check_truncated(options["truncated"])
