"""The one entry into the engine: :class:`Entry`, built once per metric, options and schema,
decides each record's route and scores it.

A record takes one of four routes, chosen here and nowhere else:

- the unread walk: the actual side is handed to the walk without going through the door,
  which checks it as it reads it (``Walk.read``); where it meets something the door must
  read, it raises ``Unread``, caught here, and the record takes one of the routes below.
  In ``evaluate_records``, the gold record may be handed over unread as well
  (:meth:`Entry.reads_gold`, ``Walk.read_expected``): where the door reads it as it is,
  the record goes on as its route says; where the door would change or refuse it,
  ``Reread`` starts the run again with every gold record read first (match.py);
- the door (reading/intake.py), then
- tallies: a record whose scores follow from what its fields count for is scored from
  those counts, its fields made when first read (:class:`_Rescore`); or
- the full walk: every field a FieldResult, with the metric's ``finish``, weights and an
  answer cut off.

``match_json``, ``evaluate_records``/``score_records``/``count_records`` (match.py), the
dataset's chunks (dataset/scoring.py) and the pytest plugin (through ``match_json``) all
score through an Entry; no caller catches one route's exception to try another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

from .comparing.field_spec import FieldSpec
from .comparing.registry import Registry
from .configuring.walk_config import FieldRule, WalkConfig, rule_spec
from .core.cut_off import Truncation
from .core.depth import SHALLOW, call_with_depth
from .core.errors import ConfigError, JsonMatchError, ParseError, shown
from .core.paths import PathPattern
from .core.values import JsonObject, JsonValue
from .core.violations import Conformance
from .metrics import METRIC_NAMES, REGISTRY, metric_named
from .metrics.base import (
    RULE_OPTIONS,
    Metric,
    config_key,
    configure,
    data_form,
    kept_config,
    one_rule,
    plain_copy,
    rules_apart,
    with_rules_of,
    without_rules,
)
from .reading.intake import Read, Reread, Unread, as_data, read_json
from .reading.parse import check_truncated, parse_actual_checked, parse_expected
from .results.field_results import (
    TALLY_OF,
    FieldResult,
    MatchResult,
    Tally,
    WalkOutput,
    as_tallies,
    f_beta,
    precision_recall,
    weighted_precision_recall,
)
from .results.post_processors import spare_cut_elements
from .schemas.eval_schema import SchemaNode
from .walking import generated_scorers, rule_apart
from .walking.prefetch import prefetch_strings
from .walking.rule_apart import takes, walked_apart
from .walking.unread_sides import walks_unread
from .walking.walk import Roots, walk, walk_counted

if TYPE_CHECKING:  # (the checker is imported where a schema asks for it: _validator)
    from .schemas.conformance import Validator
    from .walking.row_scorers import Rows

# The switches of the entry's two fast routes (docs/architecture.md, "Fast paths"): False
# makes every record full FieldResults from the start (no tallies), and reads every actual
# side through the door before the walk (no Walk.read).
COUNT_TALLIES = True
READ_IN_WALK = True
# ... and the switch of gold records read in the walk (Entry.reads_gold): False reads every
# gold record through the door before their schema is inferred.
READ_GOLD_IN_WALK = True
# ... and the switch of match_json's expected side checked by the walk too (Entry.unread_pair):
# False reads it through the door first.
READ_PAIR_IN_WALK = True

# ... and the switch of an assertion's one rule on one plain key laid over the kept entry of
# its other options without the options' key (kept_entry, _one_rule_entry): False reads
# every comparison's rules by their key, as any other options.
ONE_RULE_ENTRY = True
# ... and the switch of match_json's two objects with such a rule walked apart by the kept
# entry of the other options and the rule's spec, no entry or configuration made for the
# rule (one_rule_pair): False makes them (kept_entry) and walks the pair by them.
ONE_RULE_PAIR = True

# ... and the switch of match_json's pair taken by that walk scored in one frame where no
# rule, weight, schema or schema check is given (Entry.unread_pair's ``plain``, decided once
# per entry): False scores it by ``_score``, as any other record.
PLAIN_PAIR = True

# The depth given for a gold record handed over unread (Entry.scored): not yet measured.
UNREAD = -1


class Entry:
    """How one metric, with its options and schema, scores records: its routes decided once
    here (which a record may take), each record's route decided by :meth:`scored`."""

    __slots__ = (
        "metric",
        "cfg",
        "schema",
        "options",
        "registry",
        "validator",
        "truncated",
        "unread",
        "apart",
        "countable",
        "roots",
        "plain",
        "finish",
        "headline",
    )

    def __init__(
        self,
        metric: Metric,
        options: dict[str, object],
        registry: Registry,
        truncated: str,
        schema: SchemaNode | None = None,
        cfg: WalkConfig | None = None,
    ) -> None:
        """``cfg``: the configuration of ``options``, where the caller has it (checked)."""
        self.metric, self.options, self.registry = metric, options, registry
        self.truncated = truncated
        self.cfg = configure(metric, options, registry) if cfg is None else cfg
        self.validator = _validator(options)
        self.with_schema(self.cfg.schema if schema is None else schema)

    def with_schema(self, schema: SchemaNode | None) -> None:
        """The schema the records are walked with (a schema-driven metric's inferred one),
        and the routes it allows."""
        metric, cfg = self.metric, self.cfg
        self.schema = schema
        self.countable = COUNT_TALLIES and _countable(metric, cfg, schema, self.options)
        self.roots: Roots = {}  # the counted records' root scorers (walk.walk_counted)
        # records whose actual side the walk may check as it reads it, instead of the door
        # (walk.walk's ``unread``): the walk checks all it takes (``walks_unread``: its
        # extra keys and elements too, which it checks where they do not count), no judge
        # is handed its values, and nothing else reads that side before the walk (a
        # target's part taken of it, a schema's conformance check after, once the walk
        # found it all plain: what the door would have passed as it is); never a metric
        # that makes its fields itself (tool calls, trajectories): the walk checks nothing
        # of what it reads
        self.unread = (
            READ_IN_WALK
            and metric.score_fields is None  # (a metric that scores without the walk)
            and walks_unread(cfg)
            and not cfg.judged(schema)
            and not metric.prepares(cfg)
            and not metric.targets(self.options)
            and not cfg.prepares
            and not cfg.skip_patterns
        )
        # match_json's pairs unread_pair walks with only the walk and the scores: unread, no
        # schema (given or inferred), rule, weight or schema check; ``finish`` kept where it
        # rewrites the fields (Metric.finishes), the headline read from the options once
        self.plain = (
            self.unread
            and schema is None
            and not cfg.rules
            and not cfg.weighted
            and self.validator is None
        )
        self.finish = metric.finish if metric.finishes(self.options) else None
        self.headline = _headline(metric, self.options)
        # match_json's pairs whose one rule on a root key may be walked apart with neither
        # side through the door (rule_apart.walked_apart's ``unread``; its switches read
        # where it is taken, unread_pair): those the configuration without the rule would
        # walk unread, the key's own values checked apart
        free = cfg.root_rule
        self.apart = (
            free is not None
            and metric.score_fields is None
            and rule_apart.fits(cfg, schema)
            and walks_unread(free[0])
            and not metric.prepares(cfg)
            and not metric.targets(self.options)
        )

    def reads_gold(self, expected_list: Sequence[object]) -> bool:
        """Whether ``evaluate_records`` may hand these gold records to the walk unread,
        their schema inferred from them as they are (``infer_node``'s ``bound``): records
        scored from tallies, whose walk reads every value of both sides, each record a
        dict, and a schema inferred, not given (an inferred one nests no deeper than the
        records, so the generated scorers' descent ends where theirs does)."""
        return (
            READ_GOLD_IN_WALK
            and self.unread
            and self.countable
            and self.cfg.schema_driven
            and self.schema is None
            and len(expected_list) > 0
            and all(type(e) is dict for e in expected_list)
        )

    def passes_gold(self, expected_list: Sequence[object]) -> bool:
        """Whether the door passes every gold record as it is (none copied or refused)."""
        try:
            for index, value in enumerate(expected_list):
                self.gold_read(value, index)
        except Reread:
            return False
        return True

    def gold_read(self, value: object, index: int) -> tuple[JsonValue, int]:
        """Gold record ``index``, handed over unread (depth ``UNREAD``), read through the
        door after all: as it is, with its depth; else ``Reread`` (a copy made, or the
        record refused: the run is made again, every gold record read first)."""
        try:
            read, depth = self.read_expected(value, f"expected[{index}]")
        except ParseError:
            raise Reread from None
        if read is not value:
            raise Reread
        return read, depth

    def read_expected(self, value: object, side: str) -> tuple[JsonValue, int]:
        """An expected record parsed strictly and read through the door (a :class:`Read`
        one, an object or an allowed array, as it is); ``side`` names it in errors."""
        if type(value) is dict:  # (what as_data and parse_expected make of it: itself)
            return _read(value, side, self.cfg)
        allow_array = self.metric.allow_array
        if type(value) is Read:
            if type(value.value) is dict or (allow_array and type(value.value) is list):
                return value.value, value.depth
            value = value.value  # (refused below, as it would be unread)
        return _read(
            parse_expected(as_data(value, side), allow_array=allow_array, what=side),
            side,
            self.cfg,
        )

    def parse_actual(self, actual: object, side: str) -> tuple[object, Truncation | None]:
        """An answer parsed leniently (a dict as it is), and where it was cut off; a
        ParseError says it is the answer that could not be read (``side`` "actual")."""
        if type(actual) is dict:  # (what parse_actual_checked makes of it: itself, whole)
            return actual, None
        try:
            return parse_actual_checked(
                as_data(actual, side),
                what=side,
                allow_array=self.metric.allow_array,
                truncated=self.truncated,
            )
        except ParseError as exc:
            exc.side = "actual"  # the answer itself could not be read (not a valid answer)
            raise

    def scored(
        self,
        expected: JsonValue,
        depth_e: int,
        parsed: object,
        cut: Truncation | None,
        side: str | None,
        index: int = 0,
        counting: list[Tally] | None = None,
        rows: Rows | None = None,
    ) -> MatchResult:
        """One record scored by its route (module docstring): ``parsed`` is the answer as
        parse_actual reads it, not yet through the door, ``side`` its name in errors (None:
        ``actual[index]``, named only if an error needs it) and ``index`` its place among
        the records; ``depth_e`` is the gold record's, or
        ``UNREAD`` (``reads_gold``). With ``counting``, a record scored
        from tallies adds them to it, as they are (``as_tallies``), for the caller to count
        (``Pending``); the caller adds the others' fields. ``rows``: a record scored from
        tallies writes its report rows too (``_Rescore.scored``)."""
        if depth_e == UNREAD and counting is None:  # (only a counted walk reads both sides)
            expected, depth_e = self.gold_read(expected, index)
        if self.unread and cut is None and type(parsed) is dict and depth_e <= SHALLOW:
            # (within the caller's stack: a value the walk takes nests at most SHALLOW deep)
            try:
                return self._unread(expected, parsed, index, counting, depth_e == UNREAD, rows)
            except Unread:  # something the door must read: read, and walked again below
                pass
        if depth_e == UNREAD:
            expected, depth_e = self.gold_read(expected, index)
        actual, depth_a = _read(parsed, f"actual[{index}]" if side is None else side, self.cfg)
        if self.metric.target is not None:
            expected, actual = self.metric.target(expected, actual, self.options)
        depth = max(depth_e, depth_a)
        if counting is not None and cut is None:
            counted = _Rescore(self, expected, actual, depth, index)
            return call_with_depth(depth, counted.scored, counting, False, False, rows)
        return _marked(call_with_depth(depth, self._full, expected, actual, cut), cut)

    def _unread(
        self,
        expected: JsonValue,
        actual: JsonValue,
        index: int,
        counting: list[Tally] | None,
        gold_unread: bool = False,
        rows: Rows | None = None,
    ) -> MatchResult:
        """The unread walk: from tallies where the record may be, else in full (``Unread``
        raised before anything is counted, when the door must read the answer, or the gold
        record handed over unread with it: ``gold_unread``, tallies only)."""
        if counting is not None:
            counted = _Rescore(self, expected, actual, SHALLOW, index)
            return counted.scored(counting, True, gold_unread, rows)
        return self._full(expected, actual, None, unread=True)

    def _full(
        self,
        expected: JsonValue,
        actual: JsonValue,
        cut: Truncation | None,
        unread: bool = False,
        unread_expected: bool = False,
    ) -> MatchResult:
        """A record scored in full, with its conformance: one call, so that it runs with the
        room a deep value needs (``call_with_depth``)."""
        result = _score(
            self.metric,
            self.cfg,
            self.schema,
            expected,
            actual,
            self.options,
            self.registry,
            cut,
            unread,
            unread_expected,
        )
        return _conformed(self.validator, actual, result)

    def unread_pair(self, expected: JsonObject, actual: JsonObject) -> MatchResult | None:
        """``match_json``'s two objects scored by the unread walk with neither through the
        door (the walk checks the expected side as it reads it too: walk.walk), where this
        entry's records take that walk and no schema is given (the inline loop walks the
        objects); None where they may not, or where the walk met something the door must
        read (nothing is counted): the caller then reads both sides and scores the pair by
        :meth:`scored`."""
        if PLAIN_PAIR and self.plain and READ_PAIR_IN_WALK:  # (_score's steps, in this frame)
            try:
                walked = walk(self.cfg, expected, actual, None, False, True, True)
            except Unread:
                return None
            fields = walked.fields
            if self.finish is not None:
                fields = self.finish(fields, self.options, self.registry)
            return _walk_result(self.metric, self.headline, walked, fields, self.options)
        if not (
            READ_PAIR_IN_WALK
            and self.schema is None
            and (
                self.unread
                or (self.apart and rule_apart.RULE_APART and rule_apart.RULE_APART_UNREAD)
            )
        ):
            return None
        try:  # (_full's call, made here: a call less for every pair)
            found = _score(
                self.metric, self.cfg, None, expected, actual, self.options, self.registry,
                None, True, True,
            )  # fmt: skip
        except Unread:
            return None
        return _conformed(self.validator, actual, found)

    def read_scored(self, expected: object, actual: object, depth: int) -> MatchResult:
        """A record whose metric reads its sides itself (``score_fields``: ``tool_calls``,
        ``trajectory``), each side given as it was read already (an agent's
        :class:`~.reading.agent_messages.Conversation`: its messages read once, for every
        part scored from them): past the door, scored in full, with the room ``depth`` needs
        where it nests deeper than the caller's stack takes (SHALLOW)."""
        sides = cast(JsonValue, expected), cast(JsonValue, actual)
        if depth <= SHALLOW:
            return self._full(*sides, None)
        return call_with_depth(depth, self._full, *sides, None)

    def ruled(self, options: dict[str, object], cfg: WalkConfig) -> Entry:
        """An entry for ``options``, which are this one's with ``ignore`` or ``fields`` rules
        added (``metrics.base.rules_apart``), and ``cfg``, this one's configuration with
        those rules laid over it: its metric, registry, ``truncated`` and schema check as
        they are here (the rules change none of them), its routes worked out afresh."""
        made = Entry.__new__(Entry)
        made.metric, made.registry, made.truncated = self.metric, self.registry, self.truncated
        made.options, made.cfg, made.validator = options, cfg, self.validator
        made.with_schema(self.schema)
        return made

    def tallied(self, result: MatchResult, tallies: list[Tally]) -> None:
        """A record's fields added to ``tallies`` (one not scored from tallies)."""
        if self.countable:  # (counted as they are, as a counted record's are)
            tallies += as_tallies(list(result.fields))
        else:
            tallies += map(TALLY_OF, result.fields)


def entry_for(metric: str, options: dict[str, object], check: bool = False) -> Entry:
    """The entry for ``metric`` with ``options``: ``registry`` and ``truncated`` are taken
    out of them (``check``: an unknown ``truncated`` is refused here, else where it is
    read)."""
    registry = cast(Registry, options.pop("registry", REGISTRY))
    truncated = cast(str, options.pop("truncated", "error"))
    if check:
        check_truncated(truncated)
    return Entry(metric_named(metric, registry), options, registry, truncated)


# Entries kept for kept_entry, by metric, configuration key and ``truncated``
_KEPT: dict[tuple[object, ...], Entry] = {}
# ... and those of options with rules laid over a kept entry (Entry.ruled), by the same
# key of all the options: cleared on their own, so that one-off rules never clear _KEPT
_RULED: dict[tuple[object, ...], Entry] = {}
# ... and the keys of such options met once, not kept yet
_RULES_MET: set[tuple[object, ...]] = set()
# ... and, by the name asked for, the entry of a built-in registry's metric asked for with
# no options (an assertion's usual call), found without the options' checks and key: the
# registry's generation it was made at, its key in _KEPT, the entry (taken while _KEPT
# still holds it there); with one option of a scalar value (``align="hungarian"``), by the
# name, the option's name, the value's type and the value (_plain_key)
_PLAIN: dict[object, tuple[int, tuple[object, ...], Entry]] = {}
_BUILT_IN = frozenset(METRIC_NAMES)


def kept_entry(metric: str, options: dict[str, object]) -> Entry:
    """``entry_for(metric, options, check=True)``, kept where its configuration is kept
    (``config_key``: options of plain data by their content, an inline schema by its
    text) and made again
    when the registry changes: one comparison at a time (``match_json``, a suite of golden
    cases) asks for the same metric and options again and again, and an Entry is its
    configuration, its schema's check and its routes, worked out from those alone. A kept
    Entry is never changed (``with_schema`` is for the fresh Entry of a set of records).

    A comparison's own rules (``ignore=["id"]``) are laid over the kept entry of its other
    options, and the entry they make is kept in a table of its own (``_RULED``, by the
    content of all the options): a loop that asks for the same rules again and again (a
    dataset's records, each ``ignore=["id"]``) finds it, with every table its
    configuration has filled, and a suite of one-off assertions, each its own rule, clears
    only that table, never the entries of the options they share."""
    if not options and type(metric) is str:  # (_plain_entry's first case, written out)
        plain = _PLAIN.get(metric)
        if (
            plain is not None
            and plain[0] == REGISTRY.generation
            and _KEPT.get(plain[1]) is plain[2]
        ):
            return plain[2]
    elif len(options) == 1:  # (one option of plain data: _plain_entry reads its key)
        found_plain = _plain_entry(metric, options)
        if found_plain is not None:
            return found_plain
    # (typed by assignment: a cast is a call, and this runs for every comparison)
    registry: Registry = options.pop("registry", REGISTRY)  # type: ignore[assignment]
    truncated: str = options.pop("truncated", "error")  # type: ignore[assignment]
    check_truncated(truncated)
    found = metric_named(metric, registry)
    if ("ignore" in options or "fields" in options) and rules_apart(found, options):
        entry = _one_rule_entry(found, options, registry, truncated)
        if entry is not None:
            return entry
        whole = config_key(found, options, registry)
        key = None if whole is None else (id(found), truncated, *whole)
        kept = None if key is None else _RULED.get(key)
        if kept is not None and kept.metric is found and kept.registry is registry:
            return kept
        rest = without_rules(options)
        config = config_key(found, rest, registry)
        if config is not None:  # (checked in configure's order: names, the other options,
            # the rules, then the schema check's option)
            # (kept the second time its key is asked for: a rule met once is read afresh)
            keep = key is not None and key in _RULES_MET
            own = plain_copy(options) if keep else options  # (as _kept_entry keeps)
            ruled = with_rules_of(kept_config(found, rest, registry, config), own, registry)
            entry = _kept_entry(found, rest, registry, truncated, config).ruled(own, ruled)
            if keep and key is not None:
                if len(_RULED) >= 256:
                    _RULED.clear()
                _RULED[key] = entry
            elif key is not None:
                if len(_RULES_MET) >= 1024:
                    _RULES_MET.clear()
                _RULES_MET.add(key)
            return entry
    config = config_key(found, options, registry)
    entry = _kept_entry(found, options, registry, truncated, config)
    if (
        registry is REGISTRY
        and truncated == "error"
        and config is not None
        and metric in _BUILT_IN  # (a name no registration can give another metric)
    ):
        plain_key = _plain_key(metric, options)
        if plain_key is not None:
            if len(_PLAIN) >= 64:
                _PLAIN.clear()
            _PLAIN[plain_key] = (registry.generation, (id(found), truncated, *config), entry)
    return entry


def _plain_key(metric: str, options: dict[str, object]) -> object | None:
    """The key ``_PLAIN`` keeps the entry of ``metric`` with ``options`` under: the name
    for no options; for one option of a scalar value that ``config_key`` reads by its
    type and value (not the registry, ``truncated``, a schema or an embedder), the name,
    the option's name, the value's type and the value; for one such option whose value is
    a mapping of plain data (``string_evaluation_type={"evaluation_type": "binary"}``; not
    a rule), the value's content as ``config_key`` reads it (``data_form``) in its place;
    else None, not kept there."""
    if not options:
        return metric
    if len(options) != 1:
        return None
    for name, value in options.items():
        kind = type(value)
        if name in _NOT_PLAIN:
            return None
        if kind in _SCALARS:
            return (metric, name, kind, value)
        if kind is dict and name not in _RULES:
            form = data_form(value)
            return None if form is None else (metric, name, kind, form)
    return None


def _plain_entry(metric: str, options: dict[str, object]) -> Entry | None:
    """The entry ``_PLAIN`` keeps for ``metric`` with ``options`` (``_plain_key``), where
    the registry has not changed since it was made and ``_KEPT`` still holds it; else None."""
    if type(metric) is not str:
        return None
    if not options:
        plain = _PLAIN.get(metric)
    elif len(options) == 1:  # (_plain_key's, written out: this runs for every comparison)
        ((name, value),) = options.items()
        kind = type(value)
        if kind in _SCALARS:
            plain = _PLAIN.get((metric, name, kind, value))  # (a miss for names never kept)
        elif kind is dict and name not in _NOT_DATA:  # (a list is no key: ``ignore=["id"]``)
            form = data_form(value)
            if form is None:
                return None
            plain = _PLAIN.get((metric, name, kind, form))
        else:
            return None
    else:
        return None
    if plain is not None and plain[0] == REGISTRY.generation and _KEPT.get(plain[1]) is plain[2]:
        return plain[2]
    return None


_SCALARS = frozenset({str, int, float, bool, type(None)})
# options whose value a configuration's key reads otherwise, or that kept_entry takes out
_NOT_PLAIN = frozenset({"registry", "truncated", "schema", "embedder"})
# ... and the rules, which kept_entry lays over the kept entry of the other options: a
# mapping under these names is never read into a key of _PLAIN
_RULES = frozenset(RULE_OPTIONS)
_NOT_DATA = _NOT_PLAIN | _RULES


def _one_rule_entry(
    found: Metric, options: dict[str, object], registry: Registry, truncated: str
) -> Entry | None:
    """``kept_entry``'s entry of options whose rules are one rule on one plain key
    (``metrics.base.one_rule``: an assertion's own), laid over the kept entry of the other
    options, without the options' key (their rule read as the rule's content alone, and
    its spec kept by its settings: ``walk_config.rule_spec``); kept in ``_RULED`` as
    ``kept_entry`` keeps others. None where the other options' entry is not kept yet (the
    general way checks them, and keeps it) or the rule is another."""
    rule = one_rule(options) if ONE_RULE_ENTRY else None
    if rule is None:
        return None
    pattern, settings, content = rule
    rest = without_rules(options)
    config = config_key(found, rest, registry)
    if config is None:
        return None
    free = _KEPT.get((id(found), truncated, *config))
    if free is None or free.metric is not found or free.registry is not registry:
        return None  # (the general way: the other options checked, their entry kept)
    key = (_ONE_RULE, id(found), truncated, pattern, content, *config)
    kept = _RULED.get(key)
    if kept is not None and kept.metric is found and kept.registry is registry:
        return kept
    spec = rule_spec(pattern, settings, registry, content)  # (its errors, as field_rules's)
    # (kept the second time its key is asked for: a rule met once is read afresh)
    keep = key in _RULES_MET
    own = plain_copy(options) if keep else options  # (as _kept_entry keeps)
    entry = free.ruled(own, free.cfg.with_rules((FieldRule(PathPattern(pattern), spec),)))
    if keep:
        if len(_RULED) >= 256:
            _RULED.clear()
        _RULED[key] = entry
    else:
        if len(_RULES_MET) >= 1024:
            _RULES_MET.clear()
        _RULES_MET.add(key)
    return entry


def one_rule_pair(
    metric: str, options: dict[str, object], expected: JsonObject, actual: JsonObject
) -> MatchResult | None:
    """``match_json``'s two objects scored under ``options`` that give one rule on one plain
    root key (``metrics.base.one_rule``) with no registry or ``truncated`` of their own,
    where the entry ``kept_entry`` makes for them (the rule laid over the kept entry of
    the other options: ``_one_rule_entry``) would score them by ``Entry.unread_pair``'s
    walk with the rule apart (``rule_apart.walked_apart``, neither side through the door):
    that walk and its scoring, made from the kept entry of the other options and the
    rule's spec (``rule_apart.walked_by_spec``), with no entry or configuration made for
    a rule that an assertion gives once. Whether that entry would walk them so is worked
    out once per kept entry and spec (``_BY_SPEC``): it reads the rule's spec, never its
    key. None, with ``options`` unchanged, where the pair takes another way (or the walk
    met what the door must read): the caller then goes by ``kept_entry``."""
    if not (ONE_RULE_PAIR and READ_PAIR_IN_WALK and rule_apart.RULE_APART_UNREAD):
        return None
    if "registry" in options or "truncated" in options or not rule_apart.RULE_APART:
        return None
    rule = one_rule(options)
    if rule is None:
        return None
    pattern, settings, content = rule
    rest = without_rules(options) if len(options) > 1 else _NO_OPTIONS  # (the rule alone)
    free = _plain_entry(metric, rest)
    if free is None:
        found = metric_named(metric, REGISTRY)  # (kept_entry's first error, where it raises)
        config = config_key(found, rest, REGISTRY)
        if config is None or not rules_apart(found, options):
            return None
        free = _KEPT.get((id(found), "error", *config))
        if free is None or free.metric is not found or free.registry is not REGISTRY:
            return None  # (kept_entry checks the other options, and keeps their entry)
    elif not free.metric.rules_apart:  # (rules_apart: _PLAIN keeps no entry of a schema)
        return None
    found = free.metric
    spec = rule_spec(pattern, settings, REGISTRY, content)  # (its errors, as field_rules's)
    known = _BY_SPEC.get((id(free), id(spec)))
    if known is None or known[0] is not free or known[1] is not spec:
        ruled = free.ruled(options, free.cfg.with_rules((FieldRule(PathPattern(pattern), spec),)))
        known = (free, spec, _walks_apart(ruled))
        if len(_BY_SPEC) >= 256:
            _BY_SPEC.clear()
        _BY_SPEC[(id(free), id(spec))] = known
    if not known[2]:
        return None
    try:
        walked = rule_apart.walked_by_spec(free.cfg, pattern, spec, expected, actual)
    except Unread:
        return None
    # (_score's steps after the walk, for the entry with the rule: no cut, no weight, no
    # conformance: _walks_apart; the headline as the kept entry reads it where no beta is
    # read from the options, which hold the rule too)
    fields = walked.fields
    if found.finish is not None:
        fields = found.finish(fields, options, REGISTRY)
    headline = free.headline if found.beta is None else _ASKED
    return _walk_result(found, headline, walked, fields, options)


def _walks_apart(ruled: Entry) -> bool:
    """Whether ``ruled`` (an entry of one rule on one root key) scores ``match_json``'s two
    objects as ``one_rule_pair`` does: by ``unread_pair``'s walk (no schema; the switches
    are read by the caller), ``_score``'s way with the rule apart, unread (no metric of
    its own fields, no ``prepare`` step, no comparator that prepares its strings), no
    weight, no schema check."""
    metric, cfg = ruled.metric, ruled.cfg
    return (
        ruled.schema is None
        and (ruled.unread or ruled.apart)
        and metric.score_fields is None
        and metric.prepare is None
        and not cfg.prepares
        and bool(cfg.rules)
        and cfg.root_rule is not None
        and not cfg.weighted
        and ruled.validator is None
    )


# the other options where the rule is the only one (never written to)
_NO_OPTIONS: dict[str, object] = {}
# one_rule_pair's answers, by the kept entry and the spec (their ids; both held)
_BY_SPEC: dict[tuple[int, int], tuple[Entry, FieldSpec, bool]] = {}


# the first item of _one_rule_entry's keys (never the first of config_key's: a metric's id)
_ONE_RULE = "one rule"


def _kept_entry(
    found: Metric,
    options: dict[str, object],
    registry: Registry,
    truncated: str,
    config: tuple[object, ...] | None,
) -> Entry:
    """``kept_entry``'s entry of ``options`` as they are, kept under their ``config_key``."""
    if config is None:
        return Entry(found, options, registry, truncated)
    key = (id(found), truncated, *config)
    entry = _KEPT.get(key)
    if entry is None or entry.metric is not found or entry.registry is not registry:
        # (options checked here; its own copy of their lists and mappings: plain_copy,
        # which the configuration kept under the same key holds too)
        own = plain_copy(options)
        cfg = kept_config(found, own, registry, config, copied=True)
        entry = Entry(found, own, registry, truncated, cfg=cfg)
        if len(_KEPT) >= 256:
            _KEPT.clear()
        _KEPT[key] = entry
    return entry


# What ``Metric.headline_score`` gives under an entry's options, decided once per entry
# (``_headline``): recall, F1, or the method's own answer, asked for each record.
_RECALL, _F1, _ASKED = 0, 1, 2


def _walk_result(
    metric: Metric,
    headline: int,
    found: WalkOutput,
    fields: list[FieldResult],
    options: Mapping[str, object],
) -> MatchResult:
    """``_score``'s result of a walk that needs no cut, weight or schema check (``found``,
    its ``fields`` past the metric's ``finish``), the headline score as ``headline`` says
    (``_headline``)."""
    precision, recall = precision_recall(fields)
    # (f_beta's arithmetic where beta is 1: 1.0 * precision is precision itself)
    den = precision + recall
    f1 = 2.0 * precision * recall / den if den > 0 else 0.0
    if headline == _RECALL:
        score = recall
    elif headline == _F1:
        score = f1
    else:
        score = metric.headline_score(precision, recall, f1, options)
    return MatchResult._build(  # (pairings and floors most often empty: no call then)
        metric.name,
        score,
        precision,
        recall,
        f1,
        tuple(fields),
        tuple(found.pairings) if found.pairings else (),
        tuple(found.floors) if found.floors else (),
    )


def _headline(metric: Metric, options: Mapping[str, object]) -> int:
    """How ``metric.headline_score`` reads ``options``: recall (``_RECALL``), or F-beta with
    no beta read, F1 (``_F1``); else ``_ASKED``, asked for each record (a beta read from
    the options, or a subclass's own method)."""
    if type(metric) is not Metric:
        return _ASKED
    if metric.headline == "recall":
        return _RECALL
    return _F1 if metric.beta is None or not options else _ASKED


def _countable(
    metric: Metric, cfg: WalkConfig, schema: SchemaNode | None, options: Mapping[str, object]
) -> bool:
    """Whether a record's scores follow from what its fields count for alone: no judge
    scores a field (its answers are not asked twice), no weight, no ``finish`` step."""
    return (
        generated_scorers.compiles(cfg)
        and not metric.finishes(options)
        and not cfg.weighted
        and not cfg.judged(schema)
    )


class _Rescore:
    """A record scored from counts: what makes its fields when they are first read (its
    full walk), and checks them against the scores it was given."""

    __slots__ = ("entry", "expected", "actual", "depth", "index")

    def __init__(
        self, entry: Entry, expected: JsonValue, actual: JsonValue, depth: int, index: int
    ) -> None:
        self.entry, self.expected, self.actual = entry, expected, actual
        self.depth, self.index = depth, index

    def __call__(self, result: MatchResult) -> tuple[FieldResult, ...]:
        e = self.entry
        full = call_with_depth(
            self.depth,
            lambda: _score(
                e.metric, e.cfg, e.schema, self.expected, self.actual, e.options, e.registry
            ),
        )
        if (full.score, full.precision, full.recall) != (
            result.score,
            result.precision,
            result.recall,
        ):
            raise JsonMatchError(
                f"record {self.index} changed after evaluate_records scored it: its fields "
                f"are made when first read, from the records themselves, and now give score "
                f"{full.score!r} instead of {result.score!r}. Read the fields before changing "
                f"the records, or pass copies"
            )
        return full.fields

    def scored(
        self,
        tallies: list[Tally],
        unread: bool = False,
        unread_expected: bool = False,
        rows: Rows | None = None,
    ) -> MatchResult:
        """The record walked in tally form, each field added to ``tallies`` as its tally
        (``as_tallies``): its result, whose fields this makes when they are first read (its conformance checked here,
        within the room its depth needs, as ``_conformed`` checks a full record's).
        ``unread``: the actual side has not been through the door (walk.walk), nor, with
        ``unread_expected``, the expected one (walk.walk_counted); ``Unread`` is raised,
        before anything is counted, when one must be. ``rows``: the record's fields written
        as report rows too (the scorers' row form; the writer puts them together, ``took``)."""
        e = self.entry
        metric, cfg, schema, options = e.metric, e.cfg, e.schema, e.options
        validator = e.validator
        expected, actual = self.expected, self.actual
        if metric.prepare is not None:
            expected, actual = metric.prepare(cfg, expected, actual)
        if cfg.prepares:
            prefetch_strings(cfg, expected, actual)
        # the generated scorers' tallies, and the general walk's FieldResults among them
        # made tallies (field_results.tally: status and score in the same slots)
        found = walk_counted(cfg, expected, actual, schema, e.roots, unread, unread_expected, rows)
        fields = as_tallies(found.fields) if rows is None else rows.took(found.fields)
        tallies += fields  # (counted by the caller, many records at once: ``Pending``)
        precision, recall = precision_recall(fields)
        f1 = f_beta(precision, recall)
        return MatchResult._build(
            metric.name,
            metric.headline_score(precision, recall, f1, options),
            precision,
            recall,
            f1,
            self,
            tuple(found.pairings),
            tuple(found.floors),
            None if validator is None else validator.check(self.actual),
        )


def _marked(result: MatchResult, cut: Truncation | None) -> MatchResult:
    """``result``, saying where the answer was cut off when it was scored closed; its schema
    violations that the cut made (Truncation.made_by_cut) are not the model's, and are left
    out."""
    if cut is None:
        return result
    conformance = result.conformance
    if conformance is not None and conformance.violations:
        kept = tuple(v for v in conformance.violations if not cut.made_by_cut(v.path, v.keyword))
        dropped = len(conformance.violations) - len(kept)
        if dropped:
            conformance = Conformance(kept, conformance.total - dropped)
            return result.replace(truncated=cut, conformance=conformance)
    return result.replace(truncated=cut)


def _validator(options: Mapping[str, object]) -> Validator | None:
    """The compiled conformance check of the ``schema`` option (None: no schema given, or
    the ``conformance`` option false)."""
    check = options.get("conformance")
    if check is None:
        check = True
    elif not isinstance(check, bool):
        raise ConfigError(f"conformance must be true or false, not {shown(check)}")
    source = options.get("schema")
    if source is None or not check:
        return None
    from .schemas.conformance import validator_for  # (its compiler and `regex`, when used)

    return validator_for(source)


def _conformed(validator: Validator | None, actual: JsonValue, result: MatchResult) -> MatchResult:
    """``result``, saying whether ``actual`` (the compared value) is valid against the
    schema: beside the score, never in it."""
    if validator is None:
        return result
    return result.with_conformance(validator.check(actual))


def _read(value: object, side: str, cfg: WalkConfig) -> tuple[JsonValue, int]:
    """A parsed value through the door (the fields ``ignore`` names are not read)."""
    return read_json(value, side, cfg.is_skipped if cfg.skip_patterns else None)


# what a metric that makes its own fields leaves of a walk: no pairings, no floors
_NOTHING_WALKED = WalkOutput()


def _score(
    metric: Metric,
    cfg: WalkConfig,
    schema: SchemaNode | None,
    expected: JsonValue,
    actual: JsonValue,
    options: Mapping[str, object],
    registry: Registry,
    cut: Truncation | None = None,
    unread: bool = False,
    unread_expected: bool = False,
) -> MatchResult:
    """A record scored in full (``unread``: its actual side checked by the walk, and with
    ``unread_expected`` its expected side, see walk.walk)."""
    if metric.score_fields is not None:  # (a metric that makes its fields itself)
        fields = metric.score_fields(expected, actual, options)
        found = _NOTHING_WALKED
    else:
        if metric.prepare is not None:
            expected, actual = metric.prepare(cfg, expected, actual)
        if cfg.prepares:  # (a call only where a comparator prepares its strings)
            prefetch_strings(cfg, expected, actual)
        # (the rules first, a slot: no call where no rule is apart, nearly every record; an
        # unread record with a rule is one whose entry found that it takes it: Entry.apart)
        apart = (
            None
            if not cfg.rules or cfg.root_rule is None or not (unread or takes(cfg, schema))
            else walked_apart(cfg, expected, actual, unread)
        )
        found = (
            walk(cfg, expected, actual, schema, False, unread, unread_expected)
            if apart is None
            else apart
        )
        fields = found.fields
    if metric.finish is not None:
        fields = metric.finish(fields, options, registry)
    if cut is not None:  # an answer scored closed: what was cut is not invented
        fields = spare_cut_elements(fields, cut.elements)
    if cfg.weighted:
        fields = [fr._replace(weight=cfg.weight_at(fr.path)) for fr in fields]
        precision, recall = weighted_precision_recall(fields)
    else:
        precision, recall = precision_recall(fields)
    f1 = f_beta(precision, recall)
    score = metric.headline_score(precision, recall, f1, options)
    return MatchResult._build(  # (pairings and floors most often empty: no call then)
        metric.name,
        score,
        precision,
        recall,
        f1,
        tuple(fields),
        tuple(found.pairings) if found.pairings else (),
        tuple(found.floors) if found.floors else (),
    )
