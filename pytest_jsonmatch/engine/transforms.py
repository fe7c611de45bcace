"""Value transforms, applied to both sides of a field before its comparator.

A transform never fails on a value of the wrong type: a string transform leaves a number
as it is, and null is never transformed (the reference raises ``TypeError`` here and loses
the whole run).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from .errors import ComparatorError, ConfigError
from .paths import display_path

TransformFn = Callable[[Any], Any]

_SPACES = re.compile(r"\s+")


def _string_transform(fn: Callable[[str], str]) -> Callable[[Mapping[str, Any] | None], TransformFn]:
    def bind(params: Mapping[str, Any] | None = None) -> TransformFn:
        if params:
            raise ConfigError(f"transform {fn.__name__!r} takes no parameters, got {dict(params)!r}")

        def apply(value: Any) -> Any:
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


def bind_round_digits(params: Mapping[str, Any] | None = None) -> TransformFn:
    params = dict(params or {})
    digits = params.pop("digits", 0)
    if params:
        raise ConfigError(f"transform 'round_digits' knows only 'digits', got {sorted(params)}")
    if type(digits) is not int:
        raise ConfigError(f"transform 'round_digits': digits must be an integer, not {digits!r}")

    def apply(value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return round(value, digits)
        return value

    return apply


BUILTIN_TRANSFORMS: dict[str, Callable[[Mapping[str, Any] | None], TransformFn]] = {
    "lowercase": _string_transform(lowercase),
    "strip": _string_transform(strip),
    "normalize_whitespace": _string_transform(normalize_whitespace),
    "sort_tokens": _string_transform(sort_tokens),
    "strip_accents": _string_transform(strip_accents),
    "round_digits": bind_round_digits,
}


def chain(transforms: list[TransformFn]) -> TransformFn | None:
    """One function applying ``transforms`` left to right, skipping null; None if empty."""
    if not transforms:
        return None
    if len(transforms) == 1:
        only = transforms[0]
        return lambda value: value if value is None else only(value)

    def apply(value: Any) -> Any:
        if value is None:
            return value
        for fn in transforms:
            value = fn(value)
        return value

    return apply


def transformed(transform: TransformFn, value: Any, path: str) -> Any:
    """``transform(value)``; a transform that fails is a ComparatorError naming the field."""
    try:
        return transform(value)
    except Exception as exc:  # noqa: BLE001 - a custom transform failing names its field
        raise ComparatorError(f"a transform failed at {display_path(path)}: {exc!r}") from None
