"""How one field is compared: its comparator, transforms, array alignment, floor, skip and
weight.

A field's spec comes from its eval-schema node (``x-eval-*`` keys), from the ``fields`` and
``ignore`` options (path patterns), or from both, the options winning.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ConfigError
from ..core.slotted import HashedSlotted
from .comparators import BoundComparator
from .transforms import TransformFn


class Align(HashedSlotted):
    """How the elements of an array are paired: ``ordered``, ``key_field`` (with ``key``),
    or ``hungarian``."""

    __slots__ = (
        "mode",
        "key",
    )

    mode: str
    key: str | None

    def __init__(
        self,
        mode: str = "ordered",
        key: str | None = None,
    ) -> None:
        self.mode = mode
        self.key = key


ORDERED = Align()
HUNGARIAN = Align("hungarian")


def parse_align(spec: object, where: str = "align") -> Align:
    """``"ordered"``, ``"hungarian"``, ``{"match_by": "key_field", "key": k}`` (and the
    reference's spellings of the same) as an Align, or ConfigError naming ``where``."""
    if spec is None or spec == "ordered" or spec == {"ordered": True}:
        return ORDERED
    if spec == "hungarian":
        return HUNGARIAN
    if isinstance(spec, Mapping):
        mode = spec.get("match_by")
        extra = set(spec) - {"match_by", "key", "ordered"}
        if extra:
            raise ConfigError(
                f"{where}: unknown keys {sorted(extra)}; known: key, match_by, ordered"
            )
        if mode == "hungarian":
            return HUNGARIAN
        if mode == "key_field":
            key = spec.get("key")
            if not isinstance(key, str) or not key:
                raise ConfigError(f"{where}: key_field alignment needs a 'key' naming the field")
            return Align("key_field", key)
        if mode in (None, "ordered") and spec.get("ordered", True):
            return ORDERED
    raise ConfigError(
        f"{where}: {spec!r} is not an alignment; use 'ordered', 'hungarian' or "
        f"{{'match_by': 'key_field', 'key': NAME}}"
    )


class FieldSpec(HashedSlotted):
    """How a field is compared. None leaves a choice to the metric (its comparator per JSON
    type, its default alignment); ``skip`` fields count nowhere; a field scoring below
    ``min_score`` fails the comparison whatever the overall score; ``weight`` is what the
    field counts for in precision and recall (None: what an enclosing field says, else 1)."""

    __slots__ = (
        "comparator",
        "transform",
        "align",
        "min_score",
        "skip",
        "weight",
    )

    comparator: BoundComparator | None
    transform: TransformFn | None
    align: Align | None
    min_score: float | None
    skip: bool
    weight: float | None

    def __init__(
        self,
        comparator: BoundComparator | None = None,
        transform: TransformFn | None = None,
        align: Align | None = None,
        min_score: float | None = None,
        skip: bool = False,
        weight: float | None = None,
    ) -> None:
        self.comparator, self.transform, self.align = comparator, transform, align
        self.min_score, self.skip, self.weight = min_score, skip, weight

    def over(self, base: FieldSpec | None) -> FieldSpec:
        """This spec laid over ``base``: what this one sets wins."""
        if base is None:
            return self
        return FieldSpec(
            self.comparator if self.comparator is not None else base.comparator,
            self.transform if self.transform is not None else base.transform,
            self.align if self.align is not None else base.align,
            self.min_score if self.min_score is not None else base.min_score,
            self.skip or base.skip,
            self.weight if self.weight is not None else base.weight,
        )


NO_SPEC = FieldSpec()
