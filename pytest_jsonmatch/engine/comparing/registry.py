"""The one place extensions land: named comparators, transforms, metrics, post-processors.

Built-in comparators, transforms and post-processors are registered when this module loads,
the built-in metrics when engine/metrics loads (they are built from the comparators here);
built-ins cannot be replaced, and a custom name can be replaced only with ``overwrite=True``. The pytest layer forwards the
``pytest_jsonmatch_register`` hook here, so plugins and conftest files use the same door.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from ..core.errors import ComparatorError, ConfigError, did_you_mean, known_names, shown
from ..core.numbers import check_score
from ..core.slotted import HashedSlotted
from ..core.values import JsonValue
from ..results.post_processors import BUILTIN_POST_PROCESSORS, PostProcessor
from .comparators import BUILTIN_COMPARATORS, BoundComparator, bind_cosine
from .embeddings import Embedder, Embedders
from .judge_seat import JudgeSeat
from .transforms import BUILTIN_TRANSFORMS, TransformFactory, TransformFn

# what a factory binds: a comparator or a transform
_Bound = TypeVar("_Bound")
if TYPE_CHECKING:  # the judge's module loads when a judge is configured
    from ..judge import JudgeSettings, Memory, SemanticJudge, Through, Transport


if TYPE_CHECKING:  # (for type checkers: made at run time, a Protocol is a class built by typing)

    class NamedMetric(Protocol):
        """What the registry needs of a metric it keeps: its name. The registry sits below
        engine/metrics, which defines ``Metric`` and checks that what it is handed is one
        (``metric_named``)."""

        @property
        def name(self) -> str: ...


# What binds a comparator to its parameters (None: none given).
ComparatorFactory = Callable[[Mapping[str, object] | None], BoundComparator]


class BatchItem(HashedSlotted):
    """One field handed to a batch comparator: its instance path, both raw values, both
    values after the field's transforms, and the comparator's parameters."""

    __slots__ = (
        "path",
        "expected",
        "actual",
        "expected_compared",
        "actual_compared",
        "params",
    )

    path: str
    expected: JsonValue
    actual: JsonValue
    expected_compared: JsonValue
    actual_compared: JsonValue
    params: Mapping[str, object]

    def __init__(
        self,
        path: str,
        expected: JsonValue,
        actual: JsonValue,
        expected_compared: JsonValue,
        actual_compared: JsonValue,
        params: Mapping[str, object],
    ) -> None:
        self.path, self.expected, self.actual = path, expected, actual
        self.expected_compared, self.actual_compared = expected_compared, actual_compared
        self.params = params


# The comparator field_f1 gives a leaf of each JSON type that names none (extract-eval's
# defaults; ``set_type_default`` changes them): comparator specs (see split_spec).
BUILTIN_TYPE_DEFAULTS: dict[str, object] = {
    "string": "exact",
    "boolean": "exact",
    "number": "numeric",
    "integer": "numeric",
}
JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")

# What is registered: ``fn(expected, actual, params) -> score``, a batch comparator's
# ``fn(items) -> [score or None, ...]`` (each score checked, see check_score; judging.py reads
# each answer) and ``fn(value, params) -> value``. Users' functions: their results are read,
# checked, where they are used.
CustomComparator = Callable[[object, object, Mapping[str, object]], object]
BatchComparator = Callable[[list[BatchItem]], Sequence[object]]
CustomTransform = Callable[[JsonValue, Mapping[str, object]], object]


class RegistryState(HashedSlotted):
    """A registry's names and type defaults at one moment (see :meth:`Registry.state`)."""

    __slots__ = (
        "comparators",
        "transforms",
        "metrics",
        "post_processors",
        "batch_fns",
        "type_defaults",
        "embedders",
        "judge",
    )

    comparators: Mapping[str, ComparatorFactory]
    transforms: Mapping[str, TransformFactory]
    metrics: Mapping[str, NamedMetric]
    post_processors: Mapping[str, PostProcessor]
    batch_fns: Mapping[str, BatchComparator | None]
    type_defaults: Mapping[str, object]
    embedders: Mapping[str, Embedder]
    judge: tuple[
        JudgeSettings | None, Transport | None, Through | None, Memory | None
    ]  # settings, transport, through, memory

    def __init__(
        self,
        comparators: Mapping[str, ComparatorFactory],
        transforms: Mapping[str, TransformFactory],
        metrics: Mapping[str, NamedMetric],
        post_processors: Mapping[str, PostProcessor],
        batch_fns: Mapping[str, BatchComparator | None],
        type_defaults: Mapping[str, object],
        embedders: Mapping[str, Embedder],
        judge: tuple[JudgeSettings | None, Transport | None, Through | None, Memory | None] = (
            None,
            None,
            None,
            None,
        ),
    ) -> None:
        self.comparators, self.transforms, self.metrics = comparators, transforms, metrics
        self.post_processors, self.batch_fns = post_processors, batch_fns
        self.type_defaults, self.embedders, self.judge = type_defaults, embedders, judge


class Registry(JudgeSeat):
    """The names extensions registered (comparators, transforms, metrics, embedders,
    post-processors), the type defaults, and the judge's seat (judge_seat.py)."""

    def __init__(self) -> None:
        self._comparators: dict[str, ComparatorFactory] = dict(BUILTIN_COMPARATORS)
        # named embedders; the cosine comparator looks its embedder up here
        self.embedders = Embedders()
        self._comparators["cosine"] = partial(bind_cosine, embedders=self.embedders)
        # the built-in LLM judge (semantic.py): a batch comparator answered by the judge
        # configure_judge() sets up
        self._comparators["semantic"] = self._bind_semantic
        self._transforms: dict[str, TransformFactory] = dict(BUILTIN_TRANSFORMS)
        self._builtin_comparators = frozenset(self._comparators)
        self._builtin_transforms = frozenset(self._transforms)
        self._metrics: dict[str, NamedMetric] = {}
        self._builtin_metrics: set[str] = set()
        # the built-in metrics declared by name, in their order, those not yet loaded, and
        # how one is loaded (declare_builtin_metrics)
        self._declared: tuple[str, ...] = ()
        self._unloaded: tuple[str, ...] = ()
        self._load_builtin: Callable[[str], NamedMetric] | None = None
        self.post_processors: dict[str, PostProcessor] = dict(BUILTIN_POST_PROCESSORS)
        self._bound: dict[tuple[str, object], BoundComparator] = {}
        self._bound_transforms: dict[tuple[str, object], TransformFn] = {}
        self._batch_fns: dict[str, BatchComparator | None] = {"semantic": self._semantic}
        self._judge_settings: JudgeSettings | None = None
        self._judge_transport: Transport | None = None
        self._judge_through: Through | None = None
        self._judge_memory: Memory | None = None
        self._judge: SemanticJudge | None = None
        self._type_defaults: dict[str, object] = dict(BUILTIN_TYPE_DEFAULTS)
        # changes with every registration: what was bound from the old names is stale
        self.generation = 0
        # whether a comparator with a ``prepare`` (cosine) was ever bound: until then, no
        # comparison has strings to prepare
        self.binds_prepare = False

    # -- registration -------------------------------------------------------------------

    def _check_name(
        self,
        kind: str,
        name: str,
        taken: Mapping[str, object],
        builtin: frozenset[str],
        overwrite: bool,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigError(f"a {kind} name must be a non-empty string, not {name!r}")
        if name in builtin:
            raise ConfigError(f"{kind} {name!r} is built in and cannot be replaced")
        if name in taken and not overwrite:
            raise ConfigError(
                f"{kind} {name!r} is already registered (pass overwrite=True to replace it)"
            )

    def register_comparator(
        self,
        name: str,
        fn: CustomComparator | BatchComparator,
        *,
        batch: bool = False,
        overwrite: bool = False,
    ) -> None:
        """Register ``fn(expected, actual, params) -> float`` under ``name``; with
        ``batch=True``, ``fn(items: list[BatchItem]) -> list[float | None]`` instead, called
        once per record with every field that uses it (None, or an exception, marks a
        field the comparator could not score)."""
        self._check_name(
            "comparator", name, self._comparators, self._builtin_comparators, overwrite
        )
        if not callable(fn):
            raise ConfigError(f"comparator {name!r} must be callable, not {type(fn).__name__}")
        # which of the two ``batch`` says (mypy cannot tell them apart by a flag)
        plain, batch_fn = cast(CustomComparator, fn), cast(BatchComparator, fn)

        def bind(params: Mapping[str, object] | None) -> BoundComparator:
            frozen = dict(params or {})
            if batch:

                def unusable(e: object, a: object) -> float:
                    raise ComparatorError(f"batch comparator {name!r} cannot score one field alone")

                return BoundComparator(name, unusable, batch=True, params=frozen, trusted=False)

            def score(e: object, a: object) -> float:
                return check_score(name, plain(e, a, frozen))

            return BoundComparator(name, score, params=frozen, trusted=False)

        self._comparators[name] = bind
        self._batch_fns[name] = batch_fn if batch else None
        self._bound.clear()
        self.generation += 1

    def _semantic(self, items: list[BatchItem]) -> Sequence[object]:
        judge = self.judge
        if judge is None:
            raise ComparatorError("comparator 'semantic' has no judge configured")
        return judge(items)

    def batch_function(self, name: str) -> BatchComparator:
        fn = self._batch_fns.get(name)
        if fn is None:
            raise ConfigError(f"comparator {name!r} is not a batch comparator")
        return fn

    def register_transform(
        self, name: str, fn: CustomTransform, *, overwrite: bool = False
    ) -> None:
        """Register ``fn(value, params) -> value``. It is called with null too (as
        extract-eval calls its custom transforms: ``null_to_empty`` can turn null into
        ``""``); the built-in transforms leave null alone."""
        self._check_name("transform", name, self._transforms, self._builtin_transforms, overwrite)
        if not callable(fn):
            raise ConfigError(f"transform {name!r} must be callable, not {type(fn).__name__}")

        # its result is taken as JSON (json_type refuses what is not, when it is read)
        as_json = cast("Callable[[JsonValue, Mapping[str, object]], JsonValue]", fn)

        def bind(params: Mapping[str, object] | None) -> TransformFn:
            frozen = dict(params or {})
            return lambda value: as_json(value, frozen)

        self._transforms[name] = bind
        self._bound_transforms.clear()
        self.generation += 1

    def register_metric(self, name: str, metric: NamedMetric, *, overwrite: bool = False) -> None:
        """Register a metric (a :class:`~pytest_jsonmatch.Metric`) under ``name``."""
        metrics = self.metrics  # the built-in ones loaded, so that they cannot be shadowed
        if name in self._builtin_metrics:
            raise ConfigError(f"metric {name!r} is built in and cannot be replaced")
        if name in metrics and not overwrite:
            raise ConfigError(
                f"metric {name!r} is already registered (pass overwrite=True to replace it)"
            )
        metrics[name] = metric

    def register_builtin_metric(self, metric: NamedMetric) -> None:
        """Register one of the metrics the engine defines (engine/metrics/): it can be
        neither replaced nor removed."""
        self._metrics[metric.name] = metric
        self._builtin_metrics.add(metric.name)

    def declare_builtin_metrics(
        self, names: Sequence[str], load: Callable[[str], NamedMetric]
    ) -> None:
        """Name the metrics the engine defines, each loaded (``load(name)``, which imports
        its module) when it is first looked up: a command that scores with one metric does
        not import the others (tool_calls brings BFCL's value readers)."""
        self._builtin_metrics.update(names)
        self._declared = (*self._declared, *names)
        self._unloaded = (*self._unloaded, *names)
        self._load_builtin = load

    def _builtin(self, name: str) -> NamedMetric | None:
        """The built-in metric ``name``, loaded now if it was not yet; None if none is."""
        if name not in self._unloaded or self._load_builtin is None:
            return None
        metric = self._load_builtin(name)
        self.register_builtin_metric(metric)
        self._unloaded = tuple(n for n in self._unloaded if n != name)
        return metric

    @property
    def metrics(self) -> dict[str, NamedMetric]:
        """The metrics by name: the built-in ones (every one loaded, in their order, before
        this is read) and the registered ones."""
        if self._unloaded:
            for name in self._unloaded:
                self._builtin(name)
            first = {name: self._metrics[name] for name in self._declared}
            self._metrics = {**first, **self._metrics}
        return self._metrics

    def register_embedder(self, name: str, embed: Embedder, *, overwrite: bool = False) -> None:
        """Register ``embed(strings) -> vectors`` (one vector per string) under ``name``, for
        the ``cosine`` comparator and the ``embedder`` option."""
        self.embedders.register(name, embed, overwrite)
        self._bound.clear()
        self.generation += 1

    def register_post_processor(
        self, name: str, fn: PostProcessor, *, overwrite: bool = False
    ) -> None:
        """Register ``fn(fields) -> fields``, run on a comparison's field results before its
        scores are computed (``post_process=[name]``)."""
        if name in self.post_processors and not overwrite:
            raise ConfigError(f"post-processor {name!r} is already registered")
        self.post_processors[name] = fn

    def unregister(self, name: str) -> None:
        """Remove a custom comparator, transform, metric or post-processor (tests use this)."""
        for _kind, store, builtin in (
            ("comparator", self._comparators, self._builtin_comparators),
            ("transform", self._transforms, self._builtin_transforms),
        ):
            if name in store and name not in builtin:
                del store[name]
        if name not in BUILTIN_POST_PROCESSORS:
            self.post_processors.pop(name, None)
        if name in self._metrics and name not in self._builtin_metrics:
            del self._metrics[name]
        if name not in self._builtin_comparators:
            self._batch_fns.pop(name, None)
        self.embedders.unregister(name)
        self._bound.clear()
        self._bound_transforms.clear()
        self.generation += 1

    # -- a session's registrations, undone ---------------------------------------------

    def state(self) -> RegistryState:
        """Every name registered and every type default, as they are now: :meth:`restore`
        puts them back (a pytest session, which may run inside a test, leaves the process's
        registry as it found it)."""
        return RegistryState(
            dict(self._comparators),
            dict(self._transforms),
            dict(self._metrics),
            dict(self.post_processors),
            dict(self._batch_fns),
            dict(self._type_defaults),
            self.embedders.state(),
            (self._judge_settings, self._judge_transport, self._judge_through, self._judge_memory),
        )

    def restore(self, state: RegistryState) -> None:
        """Undo every registration and type default made since ``state`` was taken. Built-in
        metrics registered since (their module loads on first use) stay."""
        builtin_metrics = {
            name: self._metrics[name] for name in self._builtin_metrics if name in self._metrics
        }
        self._comparators = dict(state.comparators)
        self._transforms = dict(state.transforms)
        self._metrics = {**state.metrics, **builtin_metrics}
        self.post_processors = dict(state.post_processors)
        self._batch_fns = dict(state.batch_fns)
        self._type_defaults = dict(state.type_defaults)
        self.embedders.restore(state.embedders)
        (
            self._judge_settings,
            self._judge_transport,
            self._judge_through,
            self._judge_memory,
        ) = state.judge
        self._judge = None
        self._bound.clear()
        self._bound_transforms.clear()
        self.generation += 1

    # -- type defaults (field_f1) -------------------------------------------------------

    def set_type_default(self, json_type: str, comparator: object) -> None:
        """Make ``comparator`` (a name or ``{name: params}``) the comparator field_f1 gives
        leaves of ``json_type`` that name none: in inferred schemas, in schemas without
        ``x-eval-compare`` there, and in ``annotate_schema``. Lasts until
        ``reset_type_defaults()`` (extract-eval's ``set_type_default``)."""
        self.check_type_default(json_type, comparator, "set_type_default")
        self._type_defaults[json_type] = comparator
        self.generation += 1

    def check_type_default(self, json_type: object, comparator: object, what: str) -> None:
        """ConfigError, naming ``what``, unless ``json_type`` is a JSON type and ``comparator``
        a comparator spec this registry binds."""
        if json_type not in JSON_TYPES:
            raise ConfigError(
                f"{what}: {json_type!r} is not a JSON type; known: {known_names(JSON_TYPES)}"
            )
        try:
            self.comparator(comparator)
        except ConfigError as exc:
            raise ConfigError(f"{what}({json_type!r}): {exc}") from None

    def reset_type_defaults(self) -> None:
        """Back to the built-in type defaults (strings and booleans ``exact``, numbers
        ``numeric``)."""
        self._type_defaults = dict(BUILTIN_TYPE_DEFAULTS)
        self.generation += 1

    def type_default(self, json_type: str | None) -> object:
        """The comparator spec field_f1 gives a leaf of ``json_type`` (``exact`` for a type
        without a default)."""
        return self._type_defaults.get(json_type or "", "exact")

    @property
    def type_defaults(self) -> dict[str, object]:
        return dict(self._type_defaults)

    # -- lookup -------------------------------------------------------------------------

    @property
    def comparator_names(self) -> list[str]:
        return sorted(self._comparators)

    @property
    def transform_names(self) -> list[str]:
        return sorted(self._transforms)

    def transform(self, spec: object) -> TransformFn:
        """Bind a transform spec: ``"strip"`` or ``{"round_digits": {"digits": 2}}``."""
        return self._bind("transform", spec, self._transforms, self._bound_transforms)

    @staticmethod
    def _bind(
        kind: str,
        spec: object,
        factories: Mapping[str, Callable[[Mapping[str, object] | None], _Bound]],
        cache: dict[tuple[str, object], _Bound],
    ) -> _Bound:
        name, params = split_spec(kind, spec)
        params_key = _params_key(params)
        bound = cache.get((name, params_key)) if params_key is not None else None
        if bound is None:
            factory = factories.get(name)
            if factory is None:
                raise ConfigError(
                    f"unknown {kind} {name!r}{did_you_mean(name, factories)}; "
                    f"known {kind}s: {known_names(factories)}"
                )
            bound = factory(params)
            if params_key is not None:
                cache[(name, params_key)] = bound
        return bound

    def comparator(self, spec: object) -> BoundComparator:
        """Bind a comparator spec: ``"exact"`` or ``{"numeric": {"abs": 0.01}}``."""
        bound: BoundComparator = self._bind("comparator", spec, self._comparators, self._bound)
        if bound.prepare is not None:
            self.binds_prepare = True
        return bound

    def with_defaults(self, defaults: Mapping[str, Mapping[str, object]]) -> Registry | Binder:
        """This registry binding comparators with ``defaults`` for the parameters of some of
        them (``{"cosine": {"embedder": e}}``: the ``embedder`` option); itself when there
        are none."""
        return Binder(self, defaults) if defaults else self

    def metric(self, name: object) -> NamedMetric:
        metric = None
        if isinstance(name, str):
            metric = self._metrics.get(name) or self._builtin(name)
        if metric is None:
            raise ConfigError(
                f"unknown metric {name!r}{did_you_mean(name, self.metrics)}; "
                f"known metrics: {known_names(self.metrics)}"
            )
        return metric


class Binder:
    """A registry's comparators bound with default parameters for some of them (what the
    options of one comparison give): what a schema and the ``fields`` option are read with."""

    def __init__(self, registry: Registry, defaults: Mapping[str, Mapping[str, object]]) -> None:
        self.registry = registry
        self.defaults = defaults
        self.key = _params_key(defaults)

    @property
    def generation(self) -> int:
        return self.registry.generation

    def comparator(self, spec: object) -> BoundComparator:
        name, params = split_spec("comparator", spec)
        if name in self.defaults:
            spec = {name: {**self.defaults[name], **(params or {})}}
        return self.registry.comparator(spec)

    def transform(self, spec: object) -> TransformFn:
        return self.registry.transform(spec)

    def type_default(self, json_type: str | None) -> object:
        return self.registry.type_default(json_type)


def split_spec(kind: str, spec: object) -> tuple[str, Mapping[str, object] | None]:
    """``"name"`` or ``{"name": {params}}`` -> (name, params)."""
    if isinstance(spec, str):
        return spec, None
    if (type(spec) is dict or isinstance(spec, Mapping)) and len(spec) == 1:
        ((name, params),) = spec.items()
        if params is not None and not isinstance(params, Mapping):
            raise ConfigError(f"{kind} {name!r}: parameters must be a mapping, not {shown(params)}")
        return str(name), params
    raise ConfigError(
        f"a {kind} is a name or a one-key mapping {{name: {{params}}}}, not {shown(spec)}"
    )


def _params_key(params: Mapping[str, object] | None) -> object | None:
    """Parameters as a cache key; None when they cannot be written out (an integer too long
    for text, a repr that fails): such a binding is not cached. Plain scalars by name are
    their items, each with its type (``True`` and ``1``, ``1`` and ``1.0``: other keys, as
    their JSON texts are); anything else its JSON text (a tolerance is the first: ``fields``
    rules bind one at each call)."""
    if not params:
        return ""
    if type(params) is dict:
        items = []
        for name, value in params.items():
            kind = type(value)
            if type(name) is not str or kind not in _KEYED or (kind is float and value - value):
                break  # (``value - value``: not 0 for an infinity or NaN, never equal keys)
            items.append((name, kind, value))
        else:
            items.sort()  # (by name: the names differ, so no comparison reads further)
            return tuple(items)
    try:
        return json.dumps(params, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        try:
            return repr(params)
        except Exception:  # noqa: BLE001 - any failure only means "not cached"
            return None


# the parameter types _params_key keys by their items
_KEYED = frozenset({str, int, float, bool, type(None)})

REGISTRY = Registry()

register_comparator = REGISTRY.register_comparator
configure_judge = REGISTRY.configure_judge
register_transform = REGISTRY.register_transform
register_metric = REGISTRY.register_metric
register_post_processor = REGISTRY.register_post_processor
register_embedder = REGISTRY.register_embedder
set_type_default = REGISTRY.set_type_default
reset_type_defaults = REGISTRY.reset_type_defaults
