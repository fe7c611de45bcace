"""The conformance check generated as Python, a function per schema node.

:mod:`~pytest_jsonmatch.engine.schemas.conformance` compiles a schema into a graph of
closures, a call per keyword and per value. For the keywords most schemas are made of, it
also describes each node here as a :class:`NodePlan`; :func:`generate` turns the plans into
one function per node, as straight-line Python, and compiles it once:

- the value's Python type is read once per node, and each type gets its own branch, with
  the keywords that apply to it (``type`` decided when the code is written wherever the
  branch's type decides it: nothing to test at run time for a string against
  ``"type": "string"``);
- an object's ``properties`` are a chain of key tests in one loop over its keys, and
  ``required`` a membership test per name; an array's ``items`` one loop;
- a child node with no loop of its own (a scalar's schema, a reference to one) is written
  inline in its parent's loop instead of called;
- a keyword the generator does not write (``anyOf``, ``allOf``, ``not``, ``if``,
  ``patternProperties``, ``prefixItems``, ``contains``, ``multipleOf``, ...) is its closure,
  called from the generated code with the same arguments.

Every violation comes out in the closures' order, with the same place and keyword (the
closures stay the reference: tests/engine/schemas/test_conformance_code.py holds the two to
each other on generated schemas and answers). Nothing from the schema is written into the
text: a key, a limit, a pattern or an enum is a constant the text names ``c0``, ``c1``, ...
``validator_for(schema).source`` is the text for a schema, to print and read.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias, cast

from ..core.values import SCALAR_TYPES, TYPE_OF, JsonValue

# What a node's keywords become, each a tuple whose first item names its kind:
#   ("type", allowed Python types, whether a whole float counts as an integer)
#   ("bound", keyword, operator text, limit, measured by len())
#   ("pattern", compiled regex)   ("enum", keys)   ("const", key)
#   ("ref", node key)             ("properties", {name: node key}, closed, required names)
#   ("items", node key)           ("call", the keyword's closure)
Step: TypeAlias = tuple[object, ...]
NodeKey = Hashable
# Each kind of step as its writer reads it (``_Writer.step_<kind>``, found by name).
_TypeStep: TypeAlias = tuple[str, frozenset[type], bool]
_BoundStep: TypeAlias = tuple[str, str, str, float, bool]
_EnumStep: TypeAlias = tuple[str, frozenset[object]]
_NodeStep: TypeAlias = tuple[str, NodeKey]  # ("ref", node key) and ("items", node key)
_PropertiesStep: TypeAlias = tuple[str, dict[str, NodeKey], bool, tuple[str, ...]]
# An answer's place, built as the check descends and read only for a violation: None (the
# root), or (the parent's place, a key or an index).
Place: TypeAlias = "tuple[Place, str | int] | None"
Found: TypeAlias = list[tuple[Place, str]]
# A node's check of a value: it appends the violations it finds to ``found``.
Check: TypeAlias = Callable[[JsonValue, Place, Found], None]

# The keywords' kind each Python type of a JSON value takes (a boolean and null: none).
KIND_OF = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "",
    type(None): "",
}
KNOWN_TYPES: tuple[type, ...] = tuple(KIND_OF)  # the types the door gives, in branch order
_OTHER = object  # stands for a Python type none of KNOWN_TYPES: a value the door left unread
# A scalar's type tag: its JSON-equality key is (tag, value) (conformance_keywords.equality_key).
SCALAR_TAGS = {
    python_type: tag for python_type, tag in TYPE_OF.items() if python_type in SCALAR_TYPES
}
INLINE_LINES = 12  # a loopless child node inlined up to this many lines of its own
INLINE_DEPTH = 4  # nodes inlined within each other at most (the text's nesting stays shallow)
CHAIN_KEYS = 12  # properties tested as a chain of key comparisons; more: a dict of callees


class _Site(NamedTuple):
    """Where a node's lines are written: the name of the value's variable, the expression of
    its place, its Python type where the caller's branch decided it (``_OTHER``: not
    decided, dispatch), the depth of the loops around it (their variables are named by
    it), and the nodes being inlined there (one of them met again, a reference cycle, is
    called)."""

    v: str
    place: str
    known: type
    depth: int
    inlining: tuple[NodeKey, ...]


@dataclass
class NodePlan:
    """One schema node's keywords, as :func:`~conformance._joined` applies them: the
    general ones (``$ref``, ``type``, ``enum``, ...) in order, then those of the value's
    kind; ``type`` left out for the Python types it surely allows. ``true`` and ``false``
    schemas are plans too (no step; one that always fails)."""

    general: list[Step] = field(default_factory=list)
    by_kind: dict[str, list[Step]] = field(default_factory=dict)
    surely: frozenset[type] = frozenset()
    refuse: bool = False

    def steps(self, python_type: type) -> list[Step]:
        """The steps a value of ``python_type`` goes through (``_OTHER``: the general)."""
        if python_type is _OTHER:
            return self.general
        kind = KIND_OF[python_type]
        return [s for s in self.general if not (s[0] == "type" and python_type in self.surely)] + (
            self.by_kind.get(kind, []) if kind else []
        )


def generate(
    plans: dict[NodeKey, NodePlan], root: NodeKey, key: Callable[[JsonValue], object]
) -> tuple[Check, str]:
    """The root node's generated check ``check(value, place, found)`` and the module text it
    was compiled from. ``key`` is the closures' JSON-equality key (enum, const)."""
    writer = _Writer(plans)
    source = writer.module(root)
    namespace: dict[str, object] = {"_key": key, "NoneType": type(None)}
    namespace.update((f"c{i}", value) for i, value in enumerate(writer.constants))
    exec(compile(source, "<jsonmatch conformance>", "exec"), namespace)  # noqa: S102
    return cast(Check, namespace[writer.name(root)]), source  # (the text defines it so)


class _Writer:
    def __init__(self, plans: dict[NodeKey, NodePlan]) -> None:
        self.plans = plans
        self.constants: list[object] = []
        self._constant_names: dict[int, str] = {}
        self._names: dict[NodeKey, str] = {}
        self._waiting: list[NodeKey] = []
        self._inline: dict[NodeKey, bool] = {}
        self._callees: list[tuple[str, dict[str, NodeKey]]] = []

    def constant(self, value: object) -> str:
        name = self._constant_names.get(id(value))
        if name is None:
            name = self._constant_names[id(value)] = f"c{len(self.constants)}"
            self.constants.append(value)
        return name

    def name(self, node: NodeKey) -> str:
        name = self._names.get(node)
        if name is None:
            name = self._names[node] = f"node{len(self._names)}"
            self._waiting.append(node)
        return name

    def module(self, root: NodeKey) -> str:
        self.name(root)
        out: list[str] = []
        done = 0
        while done < len(self._waiting):
            node = self._waiting[done]
            done += 1
            out += [f"def {self._names[node]}(v0, place, found):"]
            out += _indent(self.body(node, _Site("v0", "place", _OTHER, 0, ())), 1) or ["    pass"]
            out.append("")
        for name, callees in self._callees:  # a key's node function, for a long key list
            pairs = ", ".join(
                f"{self.constant(key)}: {self._names[node]}" for key, node in callees.items()
            )
            out.append(f"{name} = {{{pairs}}}")
        return "\n".join(out) + "\n"

    # -- a node's code: the lines that append its violations for the value in ``v`` --

    def body(self, node: NodeKey, site: _Site) -> list[str]:
        """A node's lines for the value at ``site``, dispatched on its type where the
        caller's branch did not decide it."""
        plan = self.plans[node]
        if plan.refuse:
            return [f"found.append(({site.place}, 'false'))"]
        if site.known is not _OTHER:
            return self.steps(plan.steps(site.known), site)
        by_type = {t: self.steps(plan.steps(t), site._replace(known=t)) for t in KNOWN_TYPES}
        other = self.steps(plan.general, site)
        groups: dict[tuple[str, ...], list[type]] = {}
        lines: Sequence[str]
        for python_type, lines in by_type.items():
            if lines != other:
                groups.setdefault(tuple(lines), []).append(python_type)
        if not groups:
            return other
        t = f"t{site.depth}"
        out = [f"{t} = type({site.v})"]
        if len(groups) == 1:
            ((lines, types),) = groups.items()
            if not other:  # values of these types checked, any other passes
                return out + [f"if {_is_one_of(t, types)}:"] + _indent(list(lines), 1)
            if not lines:  # values of these types pass, any other gets ``other``
                return out + [f"if not ({_is_one_of(t, types)}):"] + _indent(other, 1)
        word = "if"
        for lines, types in sorted(groups.items(), key=lambda g: KNOWN_TYPES.index(g[1][0])):
            out.append(f"{word} {_is_one_of(t, types)}:")
            out += _indent(list(lines), 1) or ["    pass"]
            word = "elif"
        if other:
            out.append("else:")
            out += _indent(other, 1)
        return out

    def steps(self, steps: list[Step], site: _Site) -> list[str]:
        out: list[str] = []
        for step in steps:
            out += getattr(self, f"step_{step[0]}")(step, site)
        return out

    def fail(self, place: str, keyword: str) -> str:
        return f"found.append(({place}, {keyword!r}))"

    def step_type(self, step: Step, site: _Site) -> list[str]:
        _, allowed, whole_floats = cast(_TypeStep, step)
        if site.known in allowed:
            return []
        if site.known is float and whole_floats:
            return [f"if not {site.v}.is_integer():", "    " + self.fail(site.place, "type")]
        return [self.fail(site.place, "type")]  # no value of this type has an allowed type

    def step_bound(self, step: Step, site: _Site) -> list[str]:
        _, keyword, operator, limit, measured = cast(_BoundStep, step)
        measure = f"len({site.v})" if measured else site.v
        return [
            f"if not {measure} {operator} {self.constant(limit)}:",
            "    " + self.fail(site.place, keyword),
        ]

    def step_pattern(self, step: Step, site: _Site) -> list[str]:
        return [
            f"if {self.constant(step[1])}.search({site.v}) is None:",
            "    " + self.fail(site.place, "pattern"),
        ]

    def step_enum(self, step: Step, site: _Site) -> list[str]:
        keys, v, fail = cast(_EnumStep, step)[1], site.v, self.fail(site.place, "enum")
        if site.known in SCALAR_TAGS:  # a scalar's key is (its tag, itself): a set of the values
            tag = SCALAR_TAGS[site.known]
            values = frozenset(k[1] for k in keys if type(k) is tuple and k[0] == tag)
            if not values:
                return [fail]
            return [f"if {v} not in {self.constant(values)}:", "    " + fail]
        return [f"if _key({v}) not in {self.constant(keys)}:", "    " + fail]

    def step_const(self, step: Step, site: _Site) -> list[str]:
        fail = self.fail(site.place, "const")
        return [f"if _key({site.v}) != {self.constant(step[1])}:", "    " + fail]

    def step_call(self, step: Step, site: _Site) -> list[str]:
        return [f"{self.constant(step[1])}({site.v}, {site.place}, found)"]

    def step_ref(self, step: Step, site: _Site) -> list[str]:
        return self.child(cast(_NodeStep, step)[1], site)

    def child(self, node: NodeKey, site: _Site) -> list[str]:
        """A node's check of the value at ``site``: inline where the node has no loop of its
        own (and is not one being inlined already: a reference cycle), else a call of its
        function."""
        node, inlining = self.target(node), site.inlining
        if node not in inlining and len(inlining) < INLINE_DEPTH and self.loopless(node):
            inner = site._replace(depth=site.depth + 1, inlining=inlining + (node,))
            lines = self.body(node, inner)
            if len(lines) <= INLINE_LINES:
                return lines
        return [f"{self.name(node)}({site.v}, {site.place}, found)"]

    def target(self, node: NodeKey) -> NodeKey:
        """The node a node that is a ``$ref`` and nothing else stands for (followed through
        such references, not round a cycle of them): the same violations at the same place."""
        seen = {node}
        while True:
            plan = self.plans[node]
            if (
                plan.refuse
                or len(plan.general) != 1
                or plan.general[0][0] != "ref"
                or any(plan.by_kind.values())
                or plan.general[0][1] in seen
            ):
                return node
            node = cast(_NodeStep, plan.general[0])[1]
            seen.add(node)

    def loopless(self, node: NodeKey, seen: tuple[NodeKey, ...] = ()) -> bool:
        """Whether a node's code has no loop: no ``properties`` or ``items`` of its own or
        through its references (a cycle of references, or a chain longer than INLINE_DEPTH,
        counts as a loop: its function is called, which is never wrong)."""
        known = self._inline.get(node)
        if known is None:
            plan = self.plans[node]
            steps = plan.general + [s for kind in plan.by_kind.values() for s in kind]
            known = len(seen) < INLINE_DEPTH and all(
                s[0] not in ("properties", "items")
                and (
                    s[0] != "ref"
                    or (
                        s[1] not in seen
                        and s[1] != node
                        and self.loopless(cast(_NodeStep, s)[1], seen + (node,))
                    )
                )
                for s in steps
            )
            self._inline[node] = known
        return known

    def step_properties(self, step: Step, site: _Site) -> list[str]:
        _, named, closed, required = cast(_PropertiesStep, step)
        v, place, depth = site.v, site.place, site.depth
        k, item = f"k{depth + 1}", f"v{depth + 1}"
        at = f"({place}, {k})"
        member = _Site(item, at, _OTHER, depth + 1, site.inlining)
        out: list[str] = []
        if named:
            out.append(f"for {k}, {item} in {v}.items():")
            if len(named) <= CHAIN_KEYS:
                word = "if"
                for name, node in named.items():
                    out.append(f"    {word} {k} == {self.constant(name)}:")
                    out += _indent(self.child(node, member), 2) or ["        pass"]
                    word = "elif"
                if closed:
                    out += ["    else:", "        " + self.fail(at, "additionalProperties")]
            else:  # a dict from a key to its node's function, written after the functions
                named = {name: self.target(node) for name, node in named.items()}
                for node in named.values():
                    self.name(node)
                table, f = f"c{len(self.constants)}", f"f{depth + 1}"
                self.constants.append(None)  # the name taken; the module's last lines set it
                self._callees.append((table, named))
                out += [
                    f"    {f} = {table}.get({k})",
                    f"    if {f} is not None:",
                    f"        {f}({item}, {at}, found)",
                ]
                if closed:
                    out += ["    else:", "        " + self.fail(at, "additionalProperties")]
        elif closed:
            out += [f"for {k} in {v}:", "    " + self.fail(at, "additionalProperties")]
        for name in required:
            c = self.constant(name)
            out += [f"if {c} not in {v}:", "    " + self.fail(f"({place}, {c})", "required")]
        return out

    def step_items(self, step: Step, site: _Site) -> list[str]:
        depth = site.depth + 1
        i, item = f"i{depth}", f"v{depth}"
        element = _Site(item, f"({site.place}, {i})", _OTHER, depth, site.inlining)
        lines = self.child(cast(_NodeStep, step)[1], element)
        if not lines:
            return []
        return [f"for {i}, {item} in enumerate({site.v}):"] + _indent(lines, 1)


def _is_one_of(t: str, types: list[type]) -> str:
    return " or ".join(f"{t} is {python_type.__name__}" for python_type in types)  # NoneType too


def _indent(lines: list[str], levels: int) -> list[str]:
    pad = "    " * levels
    return [pad + line for line in lines]
