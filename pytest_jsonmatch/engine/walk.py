"""The one tree walk: expected and actual side by side, emitting a FieldResult per field.

Every metric runs this walk; a WalkConfig says how it differs (where leaves stop, whether
extra actual fields count, how arrays align, which comparator scores a leaf). Array
pairing asks align.py for the pairs and recurses into them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from . import align as _align
from .comparators import BoundComparator
from .errors import ComparatorError, JsonMatchError, ParseError
from .registry import REGISTRY, BatchItem, Registry, check_score
from .results import (HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED, FieldResult,
                      FloorFailure, Pairing)
from .pair_scores import SMALL_PAIRS, NeedJudgeFirst, PairScores, kernel_args
from .schema import ORDERED, Align, SchemaNode, infer_node
from .transforms import TransformFn
from .values import (_SEGMENTS, _TYPE_OF, ARRAY, MISSING, NULL, NUMBER, OBJECT, PathPattern,
                     check_finite, check_json_inside, display_path, error_at, index_segment,
                     invalid_inside, json_equal, json_type, key_segment)

# Python types whose values are JSON scalars, for the inline fast path (exact types only:
# subclasses and oddities take the general path, which checks them).
_SCALARS = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list, tuple})
# How obj() picks the comparator of a leaf it scores inline: the schema's plain comparator,
# the policy's for an expected scalar (inferred schema), for a whole value one level down,
# or for a pair of scalars.
_BY_PROPS, _INFERRED, _WHOLE, _SCALAR_PAIR = "props", "inferred", "whole", "scalar pair"
# A FieldResult built straight from a tuple: the NamedTuple's own __new__ is a Python
# function taking keywords, and costs three times as much (one per field, every field).
new_tuple = tuple.__new__
_NO_TYPES: dict[type, BoundComparator] = {}



@dataclass(frozen=True)
class FieldRule:
    """Per-field settings from the ``fields`` option (and ``ignore``, as ``skip``)."""

    pattern: PathPattern
    comparator: BoundComparator | None = None
    transform: TransformFn | None = None
    align: Align | None = None
    min_score: float | None = None
    skip: bool = False


@dataclass
class _Settings:
    comparator: BoundComparator | None = None
    transform: TransformFn | None = None
    align: Align | None = None
    min_score: float | None = None
    skip: bool = False


# What a node's settings come from: the rules that matched it, or (without rules) its schema
# node, which carries the same attributes.
FieldSettings = _Settings | SchemaNode


@dataclass(frozen=True)
class WalkConfig:
    """How a metric walks. ``leaf_depth=1`` compares each top-level value as a whole.
    ``count_extras``: actual fields that expected lacks become hallucinations.
    ``null_absent``: a null with nothing on the other side is not a field.
    ``schema_driven``: keys the schema does not know are skipped (expected) or one
    hallucination each (actual), containers that disagree in shape are one mismatch, and
    empty containers are fields of their own.
    ``array_mode``: ``index`` | ``align`` (schema / ``align`` option) | ``similarity``."""

    type_policy: Mapping[str, BoundComparator]
    leaf_depth: int | None = None
    count_extras: bool = True
    null_absent: bool = False
    schema_driven: bool = False
    array_mode: str = "index"
    default_align: Align = ORDERED
    array_threshold: float = 0.0
    schema: SchemaNode | None = None
    rules: tuple[FieldRule, ...] = ()
    registry: Registry = REGISTRY

    @cached_property
    def scalar_policy(self) -> dict[type, BoundComparator]:
        """The per-type comparator by the Python type of a JSON scalar."""
        return {kind: self.type_policy[tag] for kind, tag in _TYPE_OF.items()
                if kind in _SCALARS and tag in self.type_policy}

    @cached_property
    def equal_one_policy(self) -> dict[type, BoundComparator]:
        """scalar_policy's comparators that score equal values 1, by Python type."""
        return {kind: comp for kind, comp in self.scalar_policy.items() if comp.equal_one}

    @cached_property
    def skip_patterns(self) -> list[PathPattern]:
        """The patterns of the ``ignore`` rules (made once per configuration, not per walk)."""
        return [rule.pattern for rule in self.rules if rule.skip]

    @cached_property
    def kernel_args(self) -> tuple[float, float] | None:
        """(t, w) when the compiled pair-score kernel computes this configuration's pair
        similarities (see pair_scores.kernel_args)."""
        return kernel_args(self)

    @cached_property
    def policy_equal_one(self) -> bool:
        """Every per-type comparator scores equal values 1 (see BoundComparator.equal_one)."""
        return all(comp.equal_one for comp in self.type_policy.values())


class WalkOutput(NamedTuple):
    """What one walk found (a NamedTuple: one per comparison, built without a call)."""

    fields: list[FieldResult]
    pairings: list[Pairing]
    floors: list[FloorFailure]


class Walk:
    __slots__ = ("cfg", "schema", "memo", "collected", "out", "pairings", "floors", "pending",
                 "_has_rules", "_skip_rules")

    def __init__(self, cfg: WalkConfig, schema: SchemaNode | None = None,
                 memo: dict[tuple[str, str, str], float] | None = None,
                 collected: list[tuple[tuple[str, str, str], BoundComparator, BatchItem]] | None = None
                 ) -> None:
        self.cfg = cfg
        self.schema = schema if schema is not None else cfg.schema
        # Batch (judge) scores already obtained this record, by (comparator, path, actual path);
        # while ``collected`` is a list, the walk only gathers what a judge must score.
        self.memo: dict[tuple[str, str, str], float] = {} if memo is None else memo
        self.collected = collected
        self.out: list[FieldResult] = []
        self.pairings: list[Pairing] = []
        self.floors: list[FloorFailure] = []
        self.pending: list[tuple[int, BoundComparator, BatchItem, float | None]] = []
        self._has_rules = bool(cfg.rules)
        self._skip_rules = cfg.skip_patterns

    # -- entry ----------------------------------------------------------------------------

    def sub_walk(self) -> Walk:
        """A walk of one element pair, sharing this record's judge scores."""
        return Walk(self.cfg, None, self.memo, self.collected)

    def run(self, expected: Any, actual: Any) -> WalkOutput:
        cfg = self.cfg
        try:
            if (type(expected) is dict and type(actual) is dict and not self._has_rules
                    and self.schema is None and not cfg.schema_driven and cfg.leaf_depth != 0):
                # two objects at the root with nothing to look up: node() would call obj()
                self.obj(expected, actual, "", "", None, None, 0)
            else:
                self.node(expected, actual, "", "", None, self.schema, 0)
        except NeedJudgeFirst:
            # Pairing needs judge scores before the walk can go on: gather every field any
            # pairing could ask for, judge them in one call per comparator, walk again.
            gathered: list[tuple[tuple[str, str, str], BoundComparator, BatchItem]] = []
            Walk(self.cfg, self.schema, self.memo, gathered).node(
                expected, actual, "", "", None, self.schema, 0)
            self._judge([(key, comp, item) for key, comp, item in gathered if key not in self.memo])
            fresh = Walk(self.cfg, self.schema, self.memo)
            return fresh.run(expected, actual)
        if self.pending:
            self._resolve_batches()
        return new_tuple(WalkOutput, (self.out, self.pairings, self.floors))

    # -- per node -------------------------------------------------------------------------

    def settings(self, path: str, snode: SchemaNode | None) -> FieldSettings | None:
        if not self._has_rules:
            return snode  # a schema node carries the same settings
        s = _Settings()
        if snode is not None:
            s.comparator, s.transform, s.align, s.skip = (
                snode.comparator, snode.transform, snode.align, snode.skip)
        for rule in self.cfg.rules:
            if rule.pattern.matches(path):
                if rule.skip:
                    s.skip = True
                if rule.comparator is not None:
                    s.comparator = rule.comparator
                if rule.transform is not None:
                    s.transform = rule.transform
                if rule.align is not None:
                    s.align = rule.align
                if rule.min_score is not None:
                    s.min_score = rule.min_score
        return s

    def node(self, e: Any, a: Any, path: str, fpath: str, apath: str | None,
             snode: SchemaNode | None, depth: int) -> None:
        s = self.settings(path, snode)
        if s is not None and s.skip:
            if e is not MISSING or a is not MISSING:
                self.out.append(FieldResult(path, SKIPPED, 0.0, e, a, "", "ignored", fpath, apath))
            return
        if e is MISSING:
            if a is not MISSING and self.cfg.count_extras:
                self.one_sided(a, path, fpath, snode, HALLUCINATION, depth)
            return
        if a is MISSING:
            self.one_sided(e, path, fpath, snode, OMISSION, depth)
            return
        cfg = self.cfg
        if depth == cfg.leaf_depth or (s is not None and s.comparator is not None) or (
                cfg.schema_driven and (snode.is_leaf if snode is not None else _inferred_leaf(e))):
            self.leaf(e, a, path, fpath, apath, s, snode)
            return
        te, ta = json_type(e, path), json_type(a, path)
        if cfg.schema_driven and snode is not None and (
                (snode.type == OBJECT and not te == ta == OBJECT)
                or (snode.type == ARRAY and not te == ta == ARRAY)):
            # values of another shape than the schema's container: compared whole, once
            self.shape_mismatch(e, a, te, ta, path, fpath, apath, snode, depth)
        elif te == OBJECT and ta == OBJECT:
            self.obj(e, a, path, fpath, apath, snode, depth)
        elif te == ARRAY and ta == ARRAY:
            self.array(e, a, path, fpath, apath, snode, s, depth)
        elif te in (OBJECT, ARRAY) or ta in (OBJECT, ARRAY):
            self.shape_mismatch(e, a, te, ta, path, fpath, apath, snode, depth)
        else:
            self.leaf(e, a, path, fpath, apath, s, snode)

    def leaf(self, e: Any, a: Any, path: str, fpath: str, apath: str | None,
             s: FieldSettings | None, snode: SchemaNode | None) -> None:
        comp = s.comparator if s is not None else None
        if comp is None:
            if snode is not None and self.cfg.schema_driven and snode.default_comparator is not None:
                comp = snode.default_comparator
            else:
                comp = self.cfg.type_policy[json_type(e, path)]
        if type(e) is float:
            check_finite(e, path, "expected")
        if type(a) is float:
            check_finite(a, path, "actual")
        ev, av = e, a
        if self._skip_rules and self.cfg.leaf_depth is not None:
            # a whole-value comparison still honours ignore patterns that reach inside it
            ev, av = self._prune(e, path), self._prune(a, path)
        if s is not None and s.transform is not None:
            try:
                ev, av = s.transform(e), s.transform(a)
            except Exception as exc:  # noqa: BLE001 - a custom transform failing names its field
                raise ComparatorError(f"a transform failed at {display_path(path)}: {exc!r}") from None
        min_score = s.min_score if s is not None else None
        if comp.batch:
            key = (comp.name, path, apath or path)
            judged = self.memo.get(key)
            if judged is None:
                item = BatchItem(path, e, a, ev, av, comp.params or {})
                if self.collected is not None:
                    self.collected.append((key, comp, item))
                else:
                    self.pending.append((len(self.out), comp, item, min_score))
                self.out.append(FieldResult(path, MISMATCH, 0.0, e, a, comp.name, "pending", fpath, apath))
                return
            score = judged
        else:
            score = self.score_leaf(comp, ev, av, path)
            if score < 1.0 and not (type(ev) in _SCALARS and type(av) in _SCALARS):
                self.check_unread(ev, av, path)  # a mismatch stops reading at the first difference
        self.out.append(FieldResult(path, MATCH if score >= 1.0 else MISMATCH, score, e, a,
                                    comp.name, "", fpath, apath))
        if min_score is not None and score < min_score:
            self.floors.append(FloorFailure(path, min_score, score))

    @staticmethod
    def score_leaf(comp: BoundComparator, ev: Any, av: Any, path: str) -> float:
        try:
            return comp.score(ev, av)
        except ComparatorError as exc:
            raise ComparatorError(f"{exc} at {display_path(path)}") from None
        except ParseError as exc:  # a value that is not JSON, found inside a whole-value compare
            raise whole_value_error(ev, av, path, exc) from None
        except JsonMatchError:
            raise
        except Exception as exc:  # noqa: BLE001 - name the comparator and field, not a deep traceback
            raise ComparatorError(
                f"comparator {comp.name!r} raised {type(exc).__name__}: {exc} at {display_path(path)}"
            ) from None

    def check_unread(self, e: Any, a: Any, path: str) -> None:
        """Values taken whole that nothing read to the end (a comparison stops at the first
        difference; one side alone is not compared) may still hold a NaN, an infinity or a
        non-JSON object: an error, as anywhere else. MISSING: no value on that side. What
        ``ignore`` names inside them is not read."""
        for value, side in ((e, "expected"), (a, "actual")):
            if value is not MISSING:
                check_json_inside(self._prune(value, path) if self._skip_rules else value, path, side)

    def _prune(self, value: Any, path: str) -> Any:
        tag = json_type(value, path)
        if tag == OBJECT:
            out = {}
            for key, child in value.items():
                cpath = key_segment(path, key)
                if not any(p.matches(cpath) for p in self._skip_rules):
                    out[key] = self._prune(child, cpath)
            return out
        if tag == ARRAY:
            return [self._prune(child, index_segment(path, i)) for i, child in enumerate(value)]
        return value

    def obj(self, e: Mapping[str, Any], a: Mapping[str, Any], path: str, fpath: str,
            apath: str | None, snode: SchemaNode | None, depth: int) -> None:
        cfg = self.cfg
        if cfg.schema_driven and not e and not a:
            self.out.append(FieldResult(path, MATCH, 1.0, e, a, "", "both empty", fpath, apath))
            return
        # Scalar leaves that need no per-field settings are scored inline: most fields of
        # most records take this path, and a call per node is most of a small record's cost.
        # With field_f1 and no schema, a node without a schema node (``snode`` None) stands for
        # the schema inferred from expected: its keys are expected's, its scalars leaves.
        # ``pick``: which rule picks an inline leaf's comparator (hoisted out of the loop).
        if snode is None:  # most objects (no schema): the short way to the same settings
            props = None
            schema_keys = False
            inline = not self._has_rules
            pick = (_INFERRED if cfg.schema_driven else
                    _WHOLE if depth + 1 == cfg.leaf_depth else _SCALAR_PAIR)
        else:
            props = snode.properties
            schema_keys = cfg.schema_driven and props is not None
            inline = not self._has_rules and cfg.schema_driven
            pick = _BY_PROPS if props is not None else (
                _WHOLE if depth + 1 == cfg.leaf_depth else _SCALAR_PAIR)
        policy = cfg.type_policy
        out = self.out
        segment_forms = _SEGMENTS.get
        # key_segment's forms of a key: [0] at the root, [1] below a parent; "" + form is
        # the form itself, so a child's path is its parent's plus the form that parent needs
        at_path, at_fpath, at_apath = 1 if path else 0, 1 if fpath else 0, 1 if apath else 0
        by_scalar_type = cfg.scalar_policy
        same_fpath = fpath == path
        append = out.append
        # Every rule but the schema's picks a scalar's comparator by its type: for equal
        # scalars of one type, most fields, the comparator is known to say 1.
        equal_one = cfg.equal_one_policy if pick is not _BY_PROPS else _NO_TYPES
        for key, ev in e.items():
            av = a.get(key, MISSING)
            if inline and av is not MISSING:
                tv = type(ev)
                if tv is type(av) and (comp := equal_one.get(tv)) is not None and ev == av:
                    if tv is float and ev - ev != 0.0:  # an infinity (NaN is never equal)
                        check_finite(ev, key_segment(path, key), "expected")
                    status, score = MATCH, 1.0
                else:
                    ta = type(av)
                    if (tv is float and not (ev - ev == 0.0)) or (ta is float and not (av - av == 0.0)):
                        check_finite(ev, key_segment(path, key), "expected") if tv is float else None
                        check_finite(av, key_segment(path, key), "actual")
                    if pick is _SCALAR_PAIR:
                        comp = by_scalar_type.get(tv) if ta in _SCALARS else None
                    elif pick is _INFERRED:
                        comp = policy[_TYPE_OF[tv]] if tv in _SCALARS else None
                    elif pick is _BY_PROPS:
                        child = props.get(key)  # type: ignore[union-attr]
                        comp = child.plain if child is not None else None
                    else:
                        comp = policy.get(_TYPE_OF.get(tv))  # type: ignore[arg-type]
                    if comp is not None:
                        if tv is ta and tv in _SCALARS and ev == av and comp.equal_one:
                            status, score = MATCH, 1.0  # a schema's comparator (_BY_PROPS)
                        else:
                            try:
                                score = comp.score(ev, av)
                            except ParseError as exc:  # NaN deep inside a whole-value comparison
                                raise whole_value_error(ev, av, key_segment(path, key), exc) from None
                            status = MATCH if score >= 1.0 else MISMATCH
                            if (status is MISMATCH and pick is not _SCALAR_PAIR  # two scalars there
                                    and (tv in _CONTAINERS or ta in _CONTAINERS)):
                                self.check_unread(ev, av, key_segment(path, key))
                if comp is not None:
                    forms = segment_forms(key)
                    if forms is None:
                        cpath = key_segment(path, key)
                        cfpath = cpath if same_fpath else key_segment(fpath, key)
                        capath = key_segment(apath, key) if apath is not None else None
                    else:  # key_segment, inlined: three paths per field add up
                        cpath = path + forms[at_path]
                        cfpath = cpath if same_fpath else fpath + forms[at_fpath]
                        capath = None if apath is None else apath + forms[at_apath]
                    append(new_tuple(FieldResult, (cpath, status, score, ev, av, comp.name, "",
                                                   cfpath, capath)))
                    continue
            cpath = key_segment(path, key)
            cfpath = key_segment(fpath, key)
            capath = key_segment(apath, key) if apath is not None else None
            if schema_keys and key not in props:  # type: ignore[operator]
                out.append(FieldResult(cpath, SKIPPED, 0.0, ev, av, "", "not in the schema",
                                       cfpath, capath))
                continue
            self.node(ev, av, cpath, cfpath, capath,
                      props.get(key) if props is not None else None, depth + 1)
        if not cfg.count_extras or a.keys() <= e.keys():
            return  # no field of actual's left over (a set test, in C)
        for key, av in a.items():
            if key in e:
                continue
            cpath = key_segment(apath if apath is not None else path, key)
            cfpath = key_segment(fpath, key)
            if cfg.schema_driven and (props is None or key not in props):
                # a field the schema does not know is one hallucination, however large
                s = self.settings(cpath, None) if self._has_rules else None
                if s is not None and s.skip:
                    self.out.append(FieldResult(cpath, SKIPPED, 0.0, MISSING, av, "", "ignored", cfpath))
                else:
                    self.check_unread(MISSING, av, cpath)
                    self.out.append(FieldResult(cpath, HALLUCINATION, 0.0, MISSING, av, "",
                                                "not in the schema", cfpath))
                continue
            self.node(MISSING, av, cpath, cfpath, None,
                      props.get(key) if props is not None else None, depth + 1)

    # -- one side only --------------------------------------------------------------------

    def one_sided(self, value: Any, path: str, fpath: str, snode: SchemaNode | None,
                  status: str, depth: int) -> None:
        """Every leaf under ``value`` becomes an omission or a hallucination."""
        cfg = self.cfg
        s = self.settings(path, snode) if depth else None
        if s is not None and s.skip:
            return
        e, a = (value, MISSING) if status == OMISSION else (MISSING, value)
        leaf_here = depth == cfg.leaf_depth or (
            cfg.schema_driven and (snode.is_leaf if snode is not None else _inferred_leaf(value)))
        tag = json_type(value, path)
        if not leaf_here and tag == OBJECT:
            props = snode.properties if snode is not None else None
            if cfg.schema_driven and snode is not None and snode.type not in (None, "object"):
                pass  # an object where the schema expects something else: one field below
            else:
                for key, child in value.items():
                    if cfg.schema_driven and props is not None and key not in props:
                        continue
                    self.one_sided(child, key_segment(path, key), key_segment(fpath, key),
                                   props.get(key) if props is not None else None, status, depth + 1)
                return
        elif not leaf_here and tag == ARRAY:
            if value or not cfg.schema_driven:
                items = snode.items if snode is not None else self._infer_items(value)
                item_fpath = index_segment(fpath, None)
                for i, child in enumerate(value):
                    self.one_sided(child, index_segment(path, i), item_fpath, items, status, depth + 1)
                return
        elif tag == NULL and cfg.null_absent:
            return
        elif cfg.schema_driven and tag == NULL and snode is not None and snode.type == "object":
            return  # a one-sided null object holds no fields
        # counted as it is, never compared: the one place to find a NaN or a set in it
        if tag == OBJECT or tag == ARRAY or (tag == NUMBER and not value - value == 0.0):
            self.check_unread(e, a, path)
        self.out.append(FieldResult(path, status, 0.0, e, a, "", "", fpath))
        if status == OMISSION and s is not None and s.min_score is not None and s.min_score > 0:
            self.floors.append(FloorFailure(path, s.min_score, 0.0))

    def shape_mismatch(self, e: Any, a: Any, te: str, ta: str, path: str, fpath: str,
                       apath: str | None, snode: SchemaNode | None, depth: int) -> None:
        """A container on one side, something else (or the other kind of container) on the
        other."""
        cfg = self.cfg
        reason = f"expected {te}, got {ta}"
        if cfg.schema_driven:
            if te == NULL and ta == NULL:
                return  # null on both sides of a container field: nothing to score
            if te == NULL:
                self.one_sided(a, path, fpath, snode, HALLUCINATION, depth)
            elif ta == NULL:
                self.one_sided(e, path, fpath, snode, OMISSION, depth)
            elif json_equal(e, a):
                self.out.append(FieldResult(path, MATCH, 1.0, e, a, "", "", fpath, apath))
            else:
                self.check_unread(e, a, path)
                self.out.append(FieldResult(path, MISMATCH, 0.0, e, a, "", reason, fpath, apath))
            return
        if te not in (OBJECT, ARRAY):
            # a scalar expected, a container found: the scalar is wrong
            if te == NULL and cfg.null_absent:
                self.one_sided(a, path, fpath, snode, HALLUCINATION, depth)
                return
            # the container is read below if it counts, else here
            self.check_unread(e, MISSING if cfg.count_extras else a, path)
            self.out.append(FieldResult(path, MISMATCH, 0.0, e, a, "", reason, fpath, apath))
            if cfg.count_extras:
                before = len(self.out)
                self.one_sided(a, path, fpath, snode, HALLUCINATION, depth)
                if len(self.out) > before:
                    # one actual leaf already stands against the expected scalar as the mismatch
                    del self.out[before]
            return
        before = len(self.out)
        self.one_sided(e, path, fpath, snode, OMISSION, depth)
        for i in range(before, len(self.out)):
            self.out[i] = self.out[i]._replace(actual=a, reason=f"actual holds {ta} here")
        if cfg.count_extras:
            self.one_sided(a, path, fpath, snode, HALLUCINATION, depth)
        else:
            self.check_unread(MISSING, a, path)

    # -- arrays ---------------------------------------------------------------------------

    def array(self, e: list[Any], a: list[Any], path: str, fpath: str, apath: str | None,
              snode: SchemaNode | None, s: FieldSettings | None, depth: int) -> None:
        cfg = self.cfg
        if cfg.schema_driven and not e and not a:
            self.out.append(FieldResult(path, MATCH, 1.0, e, a, "", "both empty", fpath, apath))
            return
        items = snode.items if snode is not None else self._infer_items(e)
        item_fpath = index_segment(fpath, None)
        scored: list[tuple[int, int, float]] | None = None
        # an empty side pairs nothing (and gives the pair scores no shape to carry)
        nothing: tuple[list[tuple[int, int, float]], list[int], list[int]] | None = (
            ([], list(range(len(e))), list(range(len(a)))) if not (e and a) else None)
        if cfg.array_mode == "similarity":
            found = nothing or (self._identical(e, a, items) if cfg.array_threshold < 1.0 else None)
            if found is None:
                scores, scale = PairScores(self, path, items).matrix(e, a, "similarity")
                found = _align.assign(scores, cfg.array_threshold, minimize_distance=True,
                                      scale=scale)
            scored, lone_e, lone_a = found
            pairs = [(i, j) for i, j, _ in scored]
        else:
            mode = (s.align if s is not None and s.align is not None else None) or cfg.default_align
            if cfg.array_mode == "index" or mode.mode == "ordered":
                pairs, lone_e, lone_a = _align.ordered_pairs(len(e), len(a))
            elif mode.mode == "key_field":
                pairs, lone_e, lone_a = _align.key_field_pairs(e, a, mode.key)  # type: ignore[arg-type]
            else:
                found = nothing or self._identical(e, a, items)
                if found is None:
                    scores, scale = PairScores(self, path, items).matrix(e, a, "f1")
                    found = _align.assign(scores, 0.0, scale=scale)
                scored, lone_e, lone_a = found
                pairs = [(i, j) for i, j, _ in scored]
        if scored is not None or (pairs and any(i != j for i, j in pairs)):
            where = display_path(path)
            self.pairings.extend(
                [new_tuple(Pairing, (where, i, j, sc)) for i, j, sc in scored] if scored is not None
                else [new_tuple(Pairing, (where, i, j, 1.0)) for i, j in pairs])
        base_a = apath if apath is not None else path
        # Two objects with nothing to look up on the way (no rules, no schema, not a leaf
        # depth): node() would only find that out and call obj(); elements go straight there.
        straight = not (self._has_rules or cfg.schema_driven or items is not None
                        or cfg.leaf_depth is not None)
        for i, j in pairs:
            child_apath = index_segment(base_a, j) if (i != j or apath is not None) else None
            ev, av = e[i], a[j]
            if straight and type(ev) is dict and type(av) is dict:
                self.obj(ev, av, index_segment(path, i), item_fpath, child_apath, None, depth + 1)
            else:
                self.node(ev, av, index_segment(path, i), item_fpath, child_apath, items, depth + 1)
        for i in lone_e:
            self.one_sided(e[i], index_segment(path, i), item_fpath, items, OMISSION, depth + 1)
        if cfg.count_extras:
            for j in lone_a:
                self.one_sided(a[j], index_segment(base_a, j), item_fpath, items, HALLUCINATION, depth + 1)

    def _infer_items(self, elements: list[Any]) -> SchemaNode | None:
        """field_f1 without a schema: the items schema of an array, inferred (pooled) from the
        expected elements, exactly as inferring the whole record's schema would give it."""
        return infer_node(list(elements), self.cfg.registry) if self.cfg.schema_driven else None

    def equal_scores_one(self, items: SchemaNode | None) -> bool:
        """Whether equal values are sure to score 1 in elements of ``items``: no per-field
        rules, and only comparators that give equal values 1 (not ``oneof``, whose score
        ignores the expected value, nor custom ones)."""
        return (not self._has_rules and self.cfg.policy_equal_one
                and (items is None or _schema_gives_equal_one(items)))

    def _identical(self, e: list[Any], a: list[Any], items: SchemaNode | None
                   ) -> tuple[list[tuple[int, int, float]], list[int], list[int]] | None:
        """Pairs of identical elements (see align.identical_pairs) when identical elements are
        sure to score 1 (equal_scores_one)."""
        if not (e and a) or not self.equal_scores_one(items):
            return None
        if len(e) * len(a) <= SMALL_PAIRS:
            # A few elements: their pair scores are cheap and pairing by them is exact, so
            # only an in-order copy, the commonest case, is worth catching first.
            if e == a and _strictly_equal(e, a):
                return [(i, i, 1.0) for i in range(len(e))], [], []
            return None
        return _align.identical_pairs(e, a)

    # -- batch comparators ---------------------------------------------------------------

    def _resolve_batches(self) -> None:
        pending, self.pending = self.pending, []
        self._judge([((comp.name, item.path, self.out[index].actual_path or item.path), comp, item)
                     for index, comp, item, _ in pending])
        for index, comp, item, min_score in pending:
            fr = self.out[index]
            score = self.memo[(comp.name, item.path, fr.actual_path or item.path)]
            self.out[index] = FieldResult(fr.path, MATCH if score >= 1.0 else MISMATCH, score,
                                          fr.expected, fr.actual, comp.name, "", fr.field_path,
                                          fr.actual_path)
            if min_score is not None and score < min_score:
                self.floors.append(FloorFailure(fr.path, min_score, score))

    def _judge(self, entries: list[tuple[tuple[str, str, str], BoundComparator, BatchItem]]) -> None:
        """One call per batch comparator with every field it must score; scores go to memo."""
        groups: dict[str, list[tuple[tuple[str, str, str], BatchItem]]] = {}
        for key, comp, item in entries:
            groups.setdefault(comp.name, []).append((key, item))
        for name, group in groups.items():
            fn = self.cfg.registry.batch_function(name)
            items = [item for _, item in group]
            try:
                answers = list(fn(items))
            except Exception as exc:  # noqa: BLE001 - a judge failing is reported, named
                paths = ", ".join(display_path(it.path) for it in items)
                raise ComparatorError(
                    f"batch comparator {name!r} failed for {len(items)} field(s) ({paths}): "
                    f"{type(exc).__name__}: {exc}") from None
            failed: list[str] = []
            for k, (key, item) in enumerate(group):
                answer = answers[k] if k < len(answers) else None
                if answer is None or isinstance(answer, BaseException):
                    failed.append(f"{display_path(item.path)} ({answer!r})" if answer is not None
                                  else f"{display_path(item.path)} (no answer)")
                    continue
                try:
                    self.memo[key] = check_score(name, answer)
                except ComparatorError as exc:
                    failed.append(f"{display_path(item.path)} ({exc})")
            if failed:
                raise ComparatorError(
                    f"batch comparator {name!r} gave no usable score for: " + "; ".join(failed))


def whole_value_error(e: Any, a: Any, path: str, exc: ParseError) -> ParseError:
    """The error to raise when comparing ``e`` and ``a`` whole at ``path`` met a value that
    is not JSON: it names that value's own field and side where it can be found."""
    return invalid_inside(e, path, "expected") or invalid_inside(a, path, "actual") or error_at(path, exc)


def _gives_equal_one(comp: BoundComparator | None) -> bool:
    return comp is None or comp.equal_one


def _schema_gives_equal_one(node: SchemaNode) -> bool:
    if not _gives_equal_one(node.comparator):
        return False
    children = list((node.properties or {}).values())
    if node.items is not None:
        children.append(node.items)
    return all(_schema_gives_equal_one(child) for child in children)


def _strictly_equal(e: list[Any], a: list[Any]) -> bool:
    """``e == a`` under JSON's rules too (Python's also says ``True == 1``); a NaN, which the
    walk reports by its field, is not equal."""
    try:
        return json_equal(e, a)
    except ParseError:
        return False


def _inferred_leaf(value: Any) -> bool:
    """Whether an inferred schema makes ``value``'s node a leaf: everything but a non-empty
    object and an array (an empty object infers no properties, so it is compared whole)."""
    if isinstance(value, (list, tuple)):
        return False
    return not (isinstance(value, dict) and value)
