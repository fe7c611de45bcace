"""Small value classes made without generated code: what the command line's own classes are.

A dataclass writes its methods as source text and compiles it when its module is imported:
about 1 ms a class (a class of 29 fields, 2 ms), and ``jsonmatch score`` made 31 of them
before reading a record, a fifth of its start-up (docs/performance.md). The classes on the
command line's path (the public result classes among them) instead list their fields in
``__slots__``, set them in an ``__init__`` written out (its parameters named as the
fields), and take from
:class:`Slotted` what a dataclass would have generated: equality and a repr read from the
slots, and :meth:`Slotted.replace`; :class:`HashedSlotted` adds the hash of a frozen
dataclass. Such a class compiles with its module (into the ``.pyc``) and costs no more to
make than any other class.

Nothing stops a field being set after construction, where a frozen dataclass refused it:
the classes built on these are treated as immutable (no code assigns their fields once
made), and nothing here depends on it at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # (for type checkers only: typing compiles a bound written as a string)
    from typing import TypeVar

    _S = TypeVar("_S", bound="Slotted")


class Slotted:
    """Equality, a repr and :meth:`replace` read from ``__slots__``.

    ``_uncompared``: the fields equality and the repr leave out (a cache kept beside the
    values). A ``__dict__`` slot (for a ``functools.cached_property``) is no field; a class
    that keeps its fields in its ``__dict__`` instead names them in ``_fields``.
    Unhashable, like a dataclass that is not frozen (see :class:`HashedSlotted`)."""

    __slots__ = ()
    _uncompared: ClassVar[frozenset[str]] = frozenset()
    # worked out once a class (__init_subclass__): its fields, and those compared and shown
    _fields: ClassVar[tuple[str, ...]] = ()
    _shown: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_fields" not in cls.__dict__:  # (a class that keeps its fields in __dict__ names them)
            slots = cls.__dict__.get("__slots__", ())
            cls._fields = tuple(name for name in slots if name not in ("__dict__", "__weakref__"))
        cls._shown = tuple(name for name in cls._fields if name not in cls._uncompared)

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._shown])

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Slotted)
        return self._values() == other._values()

    __hash__: ClassVar[None]  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{type(self).__qualname__}({shown})"

    def replace(self: _S, **changes: Any) -> _S:
        """A copy with ``changes`` (field name -> value), made through ``__init__``, as
        ``dataclasses.replace`` makes one."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        return type(self)(**values)


class HashedSlotted(Slotted):
    """A :class:`Slotted` that hashes by its compared fields less ``_unhashed`` (mappings
    it holds), as a frozen dataclass hashes by the fields ``hash=False`` does not mark."""

    __slots__ = ()
    _unhashed: ClassVar[frozenset[str]] = frozenset()
    _hashed: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._hashed = tuple(name for name in cls._shown if name not in cls._unhashed)

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple([getattr(self, name) for name in self._hashed]))
