"""The one tree walk: expected and actual side by side, one FieldResult per field.

Every metric runs this walk; its WalkConfig says how it differs (where leaves stop, whether
extra actual fields count, how arrays align, which comparator scores a leaf). Values come
through the door (intake.py), so the walk reads plain JSON and checks nothing, but for the
sides the entry hands it unread, which it checks as it reads them (``Walk.read``,
``Walk.read_expected``). Array pairing
asks pair_scores.py and align.py for the pairs, then walks each pair.
"""

from __future__ import annotations

from typing import Any, cast

from ..comparing.field_spec import FieldSpec
from ..configuring.walk_config import WalkConfig
from ..core.paths import ROOT, Where, display_path
from ..core.values import (
    ARRAY,
    MISSING,
    OBJECT,
    SCALAR_TYPES,
    JsonArray,
    JsonObject,
    JsonValue,
    json_type,
)
from ..judge import UNASKED, BatchScores
from ..pairing.array_pairs import alignment, choose_pairs
from ..pairing.pair_budget import PairBudget
from ..reading.intake import MAX_KEYS
from ..results.field_results import (
    HALLUCINATION,
    MATCH,
    OMISSION,
    SKIPPED,
    FieldResult,
    Pairing,
    WalkOutput,
)
from ..schemas.eval_schema import SchemaNode
from . import generated_scorers as compiled
from . import inline_leaves, leaf_scoring, object_elements
from .index_elements import IndexElements
from .leaf_scoring import NO_DEFERRED, LeafScoring
from .object_elements import ObjectElements
from .ordered_elements import INDEX_SUFFIXES
from .plain_root import PlainRoot
from .unpaired import LoneLeaves, extra_leaf, one_sided, shape_mismatch
from .unread_sides import UnreadSides

# FieldResults and Pairings are built with tuple.__new__: a NamedTuple's own constructor
# takes keywords and costs three times as much, and the walk makes one per field.
_new = tuple.__new__
# an empty mapping never written to: what _walk_pairs keeps no scorers in (a dict made for
# every array would cost nested arrays, whose candidate walks meet each level many times)
_NO_DICT: dict[tuple[object, ...], compiled.Scorer] = {}


def walk(
    cfg: WalkConfig,
    expected: JsonValue,
    actual: object,
    schema: SchemaNode | None,
    tally: bool = False,
    unread: bool = False,
    unread_expected: bool = False,
) -> WalkOutput:
    """Compare two plain JSON values field by field. A batch judge answers once, for every
    field that uses it; when array pairing needed its scores before it could choose pairs,
    the record is walked a second time with every score known. With ``tally``, the fields
    the generated scorers score themselves are tallies instead of FieldResults (generated_scorers.py,
    ``field_results.tally``): the walk's order and arithmetic are the same.

    ``unread``: ``actual`` did not come through the door. The generated scorers take what
    they read of it only when it is what the door would pass (a value equal to and of the
    type of a plain expected value, an object they check key by key); whatever they hand to
    the general walk is checked first (``Walk.read``), and anything else raises ``Unread``,
    for the caller to read ``actual`` through the door and walk it again. An unread walk is
    one no judge can score a field of (``Entry.unread``: a judge is handed the values it
    reads). ``unread_expected``: ``expected`` did not come through the door either
    (``match_json``'s pair of objects, ``Entry.unread_pair``; in this full form, the root
    object and the objects below it that the inline loop walks are checked as it reads
    them, and any other value of that side is read whole where the loop hands it on)."""
    # (a record no judge can score a field of asks none: ``walk_counted``'s promise, and
    # the unread walk's)
    judge = BatchScores(cfg.registry) if not unread and cfg.judged(schema) else UNASKED
    found = Walk(cfg, judge, None, tally, unread, unread_expected)
    if schema is None:  # (the root's steps taken in one frame: plain_root.py)
        found.plain_root(expected, actual)
    else:
        found.run(expected, actual, schema)
    if judge.waiting:
        judge.resolve()
    if judge.rewalk:
        found = Walk(cfg, judge, None, tally, unread, unread_expected)
        found.run(expected, actual, schema)
        judge.resolve()
    return found.finish() if found.deferred else found.out  # (finish's own test, no call)


# Root scorers kept by the expected object's keys (``walk_counted``): one dict per set of
# records, made by its caller, where the schema, the configuration and the form are fixed.
Roots = dict[tuple[str, ...], "compiled.Scorer"]


def walk_counted(
    cfg: WalkConfig,
    expected: JsonValue,
    actual: object,
    schema: SchemaNode | None,
    roots: Roots,
    unread: bool,
    unread_expected: bool = False,
    rows: Any = None,
) -> WalkOutput:
    """``walk(..., tally=True)`` for a record no judge can score a field of (an Entry's
    ``countable`` records): no batch of scores is kept, and the root object's scorer is
    kept in ``roots`` by its keys (the record's node, flags and configuration are its
    set's: ``root_scorer`` would find the same one). ``unread_expected``: ``expected``
    did not come through the door either, and is checked as ``actual`` is (the tally
    form's scorers check what they read of it, ``Walk.read_expected`` what they hand on);
    a scorer is made only for keys that are strings (``generated_scorers._make``), so a
    record whose keys find one has string keys. ``rows``: a row writer
    (``row_scorers.Rows``), for the scorers' row form, which keeps its own root scorers."""
    form: compiled.Form = True
    if rows is not None:
        rows.restart()
        form, roots = rows.form, rows.roots
    found = Walk(cfg, UNASKED, None, form, unread, unread_expected)
    found.rows = rows
    scorer = None
    if object_root(cfg, expected, actual):
        expected = cast(JsonObject, expected)
        keys = tuple(expected)
        scorer = roots.get(keys)
        if scorer is None:  # (looked up once: a lookup counts a sighting of the shape)
            scorer = root_scorer(cfg, expected, schema, form)
            if scorer is not None:
                roots[keys] = scorer
    found.from_root(expected, actual, schema, scorer)
    return found.finish()


def object_root(cfg: WalkConfig, expected: object, actual: object) -> bool:
    """Whether a record's root is an object pair a root scorer may take: both sides objects,
    expected not empty, no rules."""
    return type(expected) is dict and type(actual) is dict and bool(expected) and not cfg.rules


def root_scorer(
    cfg: WalkConfig, expected: JsonObject, schema: SchemaNode | None, tally: compiled.Form
) -> compiled.Scorer | None:
    """The generated scorer of a record's root object, a non-empty one walked without rules,
    where ``node()`` and ``obj()`` would find it (a schema node with properties and no
    comparator is no leaf); None where the general walk takes the root."""
    if (
        schema is not None
        and schema.type == OBJECT
        and schema.properties
        and schema.spec.comparator is None
        and not schema.spec.skip
        and compiled.compiles(cfg)
    ):
        return compiled.scorer_for(schema, expected, ROOT, cfg, tally)
    return None


class Walk(LeafScoring, UnreadSides, ObjectElements, IndexElements, PlainRoot):
    """One walk of one record; see :func:`walk`."""

    def __init__(
        self,
        cfg: WalkConfig,
        judge: BatchScores,
        budget: PairBudget | None,
        tally: compiled.Form = False,
        unread: bool = False,
        unread_expected: bool = False,
        lone: LoneLeaves | None = None,
    ) -> None:
        self.cfg, self.judge = cfg, judge
        self.budget = budget  # for candidate pairs (pair_budget.py); None: array() makes it
        self.tally = tally  # generated scorers in tally form, or row form (see walk())
        self.rows: Any = None  # the row form's row writer (walk_counted)
        self.unread = unread  # the actual side has not come through the door (see walk())
        # nor has the expected side (walk_counted: only the tally form reads it so)
        self.unread_expected = unread_expected
        # a candidate pair's walk (_pair_walk) keeps the leaves of its lone elements there, for
        # the walks above it, which meet those elements again inside their own lone ones
        self.lone = lone
        self.out = WalkOutput()
        self.deferred = NO_DEFERRED  # the judge's placeholders (LeafScoring)

    def run(self, expected: JsonValue, actual: object, schema: SchemaNode | None) -> None:
        scorer = None
        if schema is not None and object_root(self.cfg, expected, actual):
            scorer = root_scorer(self.cfg, cast(JsonObject, expected), schema, self.tally)
        self.from_root(expected, actual, schema, scorer)

    def from_root(
        self, expected: JsonValue, actual: object, schema: SchemaNode | None, scorer: Any
    ) -> None:
        """The record walked from its root: its root object by ``scorer``, when given (what
        ``root_scorer`` finds for a non-empty object walked without rules), else as
        ``node()`` and ``obj()`` take it."""
        if scorer is not None:
            scorer(self, expected, actual, ROOT, 0)
        elif (
            schema is None and self.cfg.leaf_depth != 0 and object_root(self.cfg, expected, actual)
        ):
            # (object_root: both are objects, which obj reads where their sides are unread;
            # past the door's bound on keys, the door reads the expected one and names it)
            if self.unread_expected and len(expected) > MAX_KEYS:  # type: ignore[arg-type]
                self.refuse()
            self.obj(expected, actual, ROOT, None, 0)  # type: ignore[arg-type]
        else:
            self.node(self.read_expected(expected, 0), self.read(actual, 0), ROOT, schema, 0)

    # -- one node ---------------------------------------------------------------------------

    def node(
        self, expected: Any, actual: Any, where: Where, node: SchemaNode | None, depth: int
    ) -> None:
        # (``expected`` and ``actual``: JSON values or MISSING, read by the tag json_type
        # names, which mypy cannot follow; a cast per node would cost on this hot path)
        cfg = self.cfg
        spec = (
            cfg.spec_at(where.path, node)
            if cfg.rules
            else (node.spec if node is not None else None)
        )
        if spec is not None and spec.skip:
            if expected is not MISSING or actual is not MISSING:
                self.out.fields.append(
                    FieldResult(
                        where.path,
                        SKIPPED,
                        0.0,
                        expected,
                        actual,
                        "",
                        "ignored",
                        where.field,
                        where.actual,
                    )
                )
            return
        if expected is MISSING:
            if actual is not MISSING and cfg.count_extras:
                one_sided(self.out, cfg, actual, where, node, HALLUCINATION, depth)
            return
        if actual is MISSING:
            one_sided(self.out, cfg, expected, where, node, OMISSION, depth)
            return
        if (spec is not None and spec.comparator is not None) or cfg.is_leaf(node, expected, depth):
            self.leaf(expected, actual, where, spec, node)
            return
        type_e, type_a = json_type(expected), json_type(actual)
        if (
            cfg.schema_driven
            and node is not None
            and node.type in (OBJECT, ARRAY)
            and not type_e == type_a == node.type
        ):
            shape_mismatch(self.out, cfg, expected, actual, where, node, depth)
        elif type_e == OBJECT and type_a == OBJECT:
            self.obj(expected, actual, where, node, depth)
        elif type_e == ARRAY and type_a == ARRAY:
            self.array(expected, actual, where, node, spec, depth)
        elif type_e in (OBJECT, ARRAY) or type_a in (OBJECT, ARRAY):
            shape_mismatch(self.out, cfg, expected, actual, where, node, depth)
        else:
            self.leaf(expected, actual, where, spec, node)

    # -- objects ----------------------------------------------------------------------------

    def obj(
        self,
        expected: JsonObject,
        actual: JsonObject,
        where: Where,
        node: SchemaNode | None,
        depth: int,
    ) -> None:
        """Two objects walked key by key (a generated scorer's where one fits ``node``).
        ``actual`` may be unread (``self.unread``): the scorers and the inline loop check
        what they take of it, and the general loop reads it first."""
        if not expected and not actual and _both_empty(self, expected, actual, where):
            return
        props = node.properties if node is not None else None
        if props is not None and expected and compiled.compiles(self.cfg):
            scorer = compiled.scorer_for(
                node,  # type: ignore[arg-type]
                expected,
                where,
                self.cfg,
                self.tally,
            )
            if scorer is not None:  # this node and key shape, in straight-line code
                scorer(self, expected, actual, where, depth)
                return
        self._keys(expected, actual, where, node, props, depth)

    def _keys(
        self,
        expected: JsonObject,
        actual: JsonObject,
        where: Where,
        node: SchemaNode | None,
        props: dict[str, SchemaNode] | None,
        depth: int,
    ) -> None:
        """``obj``'s loop over the keys where no generated scorer takes the object: the inline
        loop where the configuration plans one, else each key its general way; then the
        keys only ``actual`` has."""
        cfg = self.cfg
        plan = (
            cfg.inline_plan(node, depth + 1 == cfg.leaf_depth, where.path)
            if inline_leaves.INLINE_LEAVES
            else None
        )
        if plan is None:
            self.keys_read(expected, actual, where, props, depth)
            return
        inline_leaves.inline_keys(self, expected, actual, where, props, depth, plan)
        if not actual.keys() <= expected.keys():
            inline_leaves.answer_extras(self, expected, actual, where, props, depth)

    def key_of_object(
        self,
        key: str,
        value: JsonValue,
        other: object,
        where: Where,
        props: dict[str, SchemaNode] | None,
        depth: int,
    ) -> None:
        """One key of an expected object walked: skipped when a schema-driven metric's
        schema does not know it, else its node."""
        child = where.key(key)
        if self.cfg.schema_driven and props is not None and key not in props:
            self.out.fields.append(
                FieldResult(
                    child.path,
                    SKIPPED,
                    0.0,
                    value,
                    other,
                    "",
                    "not in the schema",
                    child.field,
                    child.actual,
                )
            )
            return
        self.node(value, other, child, props.get(key) if props is not None else None, depth + 1)

    def _extra_keys(
        self,
        expected: JsonObject,
        actual: JsonObject,
        where: Where,
        props: dict[str, SchemaNode] | None,
        depth: int,
    ) -> None:
        """Fields only actual has: hallucinations (one each when the schema does not know
        them, however large). A scalar no node or rule can give a spec is its one field
        here, as ``one_sided`` makes it (no field for a null where nulls count as absent); in
        a walk that writes rows, such a field is its row and tally (``extra_leaf``)."""
        cfg, rows = self.cfg, self.rows
        direct = props is None and not cfg.rules and not cfg.schema_driven
        for key, value in actual.items():
            if key in expected:
                continue
            child = where.actual_key(key)
            if direct and type(value) in SCALAR_TYPES:
                if value is not None or not cfg.null_absent:
                    extra_leaf(self.out, rows, child, value, "")
                continue
            if cfg.schema_driven and (props is None or key not in props):
                if cfg.rules and cfg.is_skipped(child.path):
                    self.out.fields.append(
                        FieldResult(
                            child.path, SKIPPED, 0.0, MISSING, value, "", "ignored", child.field
                        )
                    )
                else:
                    extra_leaf(self.out, rows, child, value, "not in the schema")
                continue
            self.node(
                MISSING, value, child, props.get(key) if props is not None else None, depth + 1
            )

    # -- arrays -----------------------------------------------------------------------------

    def array(
        self,
        expected: JsonArray,
        actual: JsonArray,
        where: Where,
        node: SchemaNode | None,
        spec: FieldSpec | None,
        depth: int,
    ) -> None:
        """Two arrays walked element by element, paired as the array's alignment says."""
        cfg = self.cfg
        if not expected and not actual and _both_empty(self, expected, actual, where):
            return
        items = cfg.items_of(node, expected)
        by_score = cfg.array_mode == "similarity" or (
            cfg.array_mode == "align" and alignment(cfg, spec).mode == "hungarian"
        )
        walked: dict[tuple[int, int], WalkOutput] = {}  # pairs already walked for their score

        def walk_candidate(
            e: JsonValue, a: JsonValue, pair_where: Where
        ) -> tuple[WalkOutput, bool]:
            sub = self._pair_walk(e, a, pair_where, items, depth)
            return sub.out, not sub.deferred

        if self.budget is None:  # (the walk's first array: its candidate walks share it)
            self.budget = PairBudget()
        scored, lone_e, lone_a = choose_pairs(
            cfg, self.budget, expected, actual, where, items, spec, walk_candidate, walked
        )
        if by_score or any(i != j for i, j, _ in scored):
            shown = display_path(where.path)
            self.out.pairings.extend(_new(Pairing, (shown, i, j, score)) for i, j, score in scored)
        self._walk_pairs(scored, walked, expected, actual, where, items, depth)
        walked.clear()
        lone = self.lone
        keep = lone is not None and by_score
        for i in lone_e:
            left = expected[i], where.element(i)
            one_sided(self.out, cfg, *left, items, OMISSION, depth + 1, lone, keep)
        if cfg.count_extras:
            for j in lone_a:
                extra = actual[j], where.element(j, where.actual_path)
                one_sided(self.out, cfg, *extra, items, HALLUCINATION, depth + 1, lone, keep)

    def _walk_pairs(
        self,
        scored: list[tuple[int, int, float]],
        walked: dict[tuple[int, int], WalkOutput],
        expected: JsonArray,
        actual: JsonArray,
        where: Where,
        items: SchemaNode | None,
        depth: int,
    ) -> None:
        """The chosen pairs walked in order: a pair already walked for its score taken as
        that walk found it, any other walked as :meth:`node` walks it (two objects handed to
        :meth:`obj` at once where node() would find and do just that: elements of an object
        node, or of no node where no rule, schema or leaf depth can apply)."""
        cfg = self.cfg
        objects = (  # (the node of object elements, None where the elements are not so)
            items
            if compiled.compiles(cfg)
            and items is not None
            and compiled.child_kind(items, cfg.default_align) == compiled.OBJECT_NODE
            else None
        )
        if objects is not None and object_elements.OBJECT_ELEMENTS:  # (set up once: its own loop)
            self.object_pairs(scored, walked, expected, actual, where, depth, objects)
            return
        plain = items is None and not cfg.rules and not cfg.schema_driven and cfg.leaf_depth is None
        if objects is None and items is not None and items.plain is not None:
            if leaf_scoring.LEAF_ELEMENTS and compiled.compiles(cfg):  # (its own loop)
                self.leaf_pairs(scored, walked, expected, actual, where, depth, items)
                return
        if plain and inline_leaves.INLINE_LEAVES:  # (its own loop: this frame keeps its size)
            inline_leaves.plain_pairs(self, scored, walked, expected, actual, where, depth)
            return
        tally, below = self.tally, depth + 1
        path, field, moved, side = where.path, where.field + "[]", where.actual, where.actual_path
        longest = max(len(expected), len(actual))  # (the first indices' text made once)
        index = (
            INDEX_SUFFIXES if longest <= len(INDEX_SUFFIXES) else [f"[{k}]" for k in range(longest)]
        )
        # (each element shape's scorer, by its keys; a dict only where object elements are)
        found_scorers: dict[tuple[object, ...], compiled.Scorer] = {} if objects else _NO_DICT
        for i, j, _ in scored:
            found = walked.get((i, j)) if walked else None
            if found is not None:  # its walk is the one node() would do: take it as it is
                self.out.fields.extend(found.fields)
                self.out.pairings.extend(found.pairings)
                self.out.floors.extend(found.floors)
                continue
            e, a = expected[i], actual[j]
            # (where.pair(i, j), as the plain tuple a scorer takes)
            at = (path + index[i], field, side + index[j] if moved is not None or i != j else None)
            if objects is not None and type(e) is dict and type(a) is dict and e:
                shape = (*e, at[2] is None)  # (what of the element scorer_for's shape reads)
                scorer = found_scorers.get(shape)
                if scorer is None and (scorer := compiled.scorer_for(objects, e, at, cfg, tally)):
                    found_scorers[shape] = scorer  # (kept for the array's other elements)
                if scorer is not None:  # (obj()'s first step, taken here)
                    scorer(self, e, a, at, below)
                else:
                    self._keys(e, a, _new(Where, at), objects, objects.properties, below)
            elif plain and type(e) is dict and type(a) is dict:
                self.obj(e, a, _new(Where, at), items, below)
            elif actual is self.unread_of:  # (unread elements: UnreadSides.unread_array)
                self.node_read(e, a, _new(Where, at), items, below)
            else:
                self.node(e, a, _new(Where, at), items, below)

    def _pair_walk(
        self,
        expected: JsonValue,
        actual: JsonValue,
        where: Where,
        items: SchemaNode | None,
        depth: int,
    ) -> Walk:
        """The walk of one candidate pair, on its own (sharing this record's judge and
        budget), exactly as :meth:`_walk_pairs` walks it once paired."""
        if self.lone is None:
            self.lone = LoneLeaves()  # (shared by every candidate walk below this one)
        # (in tally form, not row form: a candidate's rows would not be the report's)
        sub = Walk(self.cfg, self.judge, self.budget, bool(self.tally), lone=self.lone)
        sub.node(expected, actual, where, items, depth + 1)
        if sub.deferred:
            self.judge.rewalk = True  # scores pending: pairing must wait for the judge
        return sub


def _both_empty(
    walk: Walk, expected: JsonObject | JsonArray, actual: JsonObject | JsonArray, where: Where
) -> bool:
    """Whether two empty objects or arrays are one field, a match (a schema-driven walk's: it
    is made here), not walked."""
    if not walk.cfg.schema_driven:
        return False
    path, field, at = where
    walk.out.fields.append(
        FieldResult(path, MATCH, 1.0, expected, actual, "", "both empty", field, at)
    )
    return True
