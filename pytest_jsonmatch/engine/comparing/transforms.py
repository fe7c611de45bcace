"""Value transforms, applied to both sides of a field before its comparator.

A transform never fails on a value of the wrong type: a string transform leaves a number
as it is, and a built-in transform never sees null (the reference raises ``TypeError`` here
and loses the whole run). A registered (custom) transform is called on null too, as
extract-eval calls its custom transforms (``null_to_empty`` turns null into ``""``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.errors import ComparatorError, ConfigError, shown
from ..core.paths import display_path
from ..core.values import JsonValue

if TYPE_CHECKING:
    from _typeshed import ConvertibleToFloat

# A bound transform: a value to the value its comparator sees. A registered transform's
# result is taken as JSON (json_type refuses what is not, when the comparator reads it).
TransformFn = Callable[[JsonValue], JsonValue]
# What binds a transform to its parameters (None: none given).
TransformFactory = Callable[[Mapping[str, object] | None], TransformFn]

_SPACES = re.compile(r"\s+")


def _string_transform(fn: Callable[[str], str]) -> TransformFactory:
    def bind(params: Mapping[str, object] | None = None) -> TransformFn:
        if params:
            raise ConfigError(
                f"transform {fn.__name__!r} takes no parameters, got {shown(dict(params))}"
            )

        def apply(value: JsonValue) -> JsonValue:
            return fn(value) if isinstance(value, str) else value

        return apply

    return bind


def lowercase(text: str) -> str:
    return text.lower()


def strip(text: str) -> str:
    return text.strip()


def normalize_whitespace(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def sort_tokens(text: str) -> str:
    return " ".join(sorted(text.split()))


def without_marks(text: str) -> str:
    """``text`` decomposed (NFD) with its combining marks dropped: "é" -> "e"."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def strip_accents(text: str) -> str:
    return unicodedata.normalize("NFC", without_marks(text))


# round_digits' range: past 400 places either way a float is unchanged, and rounding an integer
# to -n places computes 10**n, cheap at 10,000 and without end at 10**30.
ROUND_DIGITS_LIMIT = 10_000


def bind_round_digits(params: Mapping[str, object] | None = None) -> TransformFn:
    params = dict(params or {})
    digits = params.pop("digits", 0)
    if params:
        raise ConfigError(f"transform 'round_digits' knows only 'digits', got {sorted(params)}")
    if type(digits) is not int:
        raise ConfigError(
            f"transform 'round_digits': digits must be an integer, not {shown(digits)}"
        )
    if not -ROUND_DIGITS_LIMIT <= digits <= ROUND_DIGITS_LIMIT:
        raise ConfigError(
            f"transform 'round_digits': digits must be an integer from {-ROUND_DIGITS_LIMIT:,} "
            f"to {ROUND_DIGITS_LIMIT:,}, not {shown(digits)}"
        )

    def apply(value: JsonValue) -> JsonValue:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return round(value, digits)
        return value

    return apply


_TRUE_WORDS = frozenset({"1", "true"})
_FALSE_WORDS = frozenset({"0", "false"})
_CONVERT_TO = ("bool", "float", "int", "str")


def _to_bool(value: object) -> bool:
    """extract-eval's strict reading: a boolean, 0 or 1, or "true"/"false"/"1"/"0" (any
    case, surrounding spaces ignored); anything else raises ValueError."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    raise ValueError(f"{shown(value)} is not a boolean")


def _to_float(value: ConvertibleToFloat) -> float:
    number = float(value)
    if number - number != 0.0:  # "nan", "inf": not JSON numbers
        raise ValueError(f"{shown(value)} is not a finite number")
    return number


def _to_str(value: object) -> str:
    """Python's ``str``, as the reference converts; an object's keys in sorted order first,
    at every level, so that the text does not depend on the order the keys came in (JSON
    objects have none: the reference's text, and its score, would)."""
    if type(value) is not dict and type(value) is not list:
        return str(value)
    return str(_keys_sorted(value))


def _keys_sorted(value: object) -> object:
    if type(value) is dict:
        return {key: _keys_sorted(value[key]) for key in sorted(value)}
    if type(value) is list:
        return [_keys_sorted(item) for item in value]
    return value


# Python's conversions: each takes any value, raising TypeError or ValueError for one it
# cannot convert (``int`` and ``float`` declare narrower types than they accept)
_CONVERTERS: dict[str, Callable[[Any], JsonValue]] = {
    "bool": _to_bool,
    "float": _to_float,
    "int": int,
    "str": _to_str,
}


def bind_type_convert(params: Mapping[str, object] | None = None) -> TransformFn:
    """extract-eval's ``type_convert``: ``{"to": "str" | "int" | "float" | "bool"}``, with
    Python's conversions (``str(True)`` is ``"True"``, ``int(2.9)`` is 2, ``int("2.5")``
    fails). A value that does not convert is left as it is (the reference raises and loses
    the run), as every transform here leaves a value it cannot handle."""
    params = dict(params or {})
    target = params.pop("to", None)
    if params:
        raise ConfigError(f"transform 'type_convert' knows only 'to', got {sorted(params)}")
    if target not in _CONVERTERS:
        raise ConfigError(
            f"transform 'type_convert': to must be one of {', '.join(_CONVERT_TO)}, not {target!r}"
        )
    convert = _CONVERTERS[target]

    def apply(value: JsonValue) -> JsonValue:
        try:
            return convert(value)
        except (TypeError, ValueError, OverflowError):
            return value

    return apply


def _skipping_null(factory: TransformFactory) -> TransformFactory:
    """A built-in transform's factory whose bound functions are marked to be skipped on null
    (see chain): ``type_convert`` to ``str`` would otherwise turn null into ``"None"``."""

    def bind(params: Mapping[str, object] | None = None) -> TransformFn:
        fn = factory(params)
        fn.skips_null = True  # type: ignore[attr-defined]
        return fn

    return bind


BUILTIN_TRANSFORMS: dict[str, TransformFactory] = {
    "lowercase": _skipping_null(_string_transform(lowercase)),
    "strip": _skipping_null(_string_transform(strip)),
    "normalize_whitespace": _skipping_null(_string_transform(normalize_whitespace)),
    "sort_tokens": _skipping_null(_string_transform(sort_tokens)),
    "strip_accents": _skipping_null(_string_transform(strip_accents)),
    "round_digits": _skipping_null(bind_round_digits),
    "type_convert": _skipping_null(bind_type_convert),
}


def skips_null(fn: TransformFn) -> bool:
    """Whether ``fn`` leaves null alone without being called (the built-in transforms); a
    registered transform is called on null."""
    return getattr(fn, "skips_null", False) is True


def chain(transforms: list[TransformFn]) -> TransformFn | None:
    """One function applying ``transforms`` left to right; None if empty. Null passes the
    built-in transforms untouched and goes to the registered ones (extract-eval's rule)."""
    if not transforms:
        return None
    if all(skips_null(fn) for fn in transforms):
        if len(transforms) == 1:
            only = transforms[0]
            return lambda value: value if value is None else only(value)

        def apply_not_null(value: JsonValue) -> JsonValue:
            if value is None:
                return value
            for fn in transforms:
                value = fn(value)
            return value

        return apply_not_null

    def apply(value: JsonValue) -> JsonValue:
        for fn in transforms:
            if value is None and skips_null(fn):
                continue
            value = fn(value)
        return value

    return apply


def transformed(transform: TransformFn, value: JsonValue, path: str) -> JsonValue:
    """``transform(value)``; a transform that fails is a ComparatorError naming the field."""
    try:
        return transform(value)
    except Exception as exc:  # noqa: BLE001 - a custom transform failing names its field
        raise ComparatorError(f"a transform failed at {display_path(path)}: {shown(exc)}") from None
