"""How options given at several levels merge into one (the session's ``jsonmatch_options``, a
folder's ``jsonmatch.yaml``, a file's ``options``, a case's, ``assert_json_match``'s keywords):
one rule for every level, down to each field's own settings (docs/golden-cases.md, "Defaults
by folder")."""

from __future__ import annotations

from collections.abc import Mapping

# one field's settings that are one choice: the comparator (``tolerance`` is the numeric one's
# shorthand); a level that gives either replaces the other one inherited
_COMPARATOR_SETTINGS = ("comparator", "tolerance")


def merged_options(outer: Mapping[str, object], inner: Mapping[str, object]) -> dict[str, object]:
    """``inner``'s options laid over ``outer``'s, key by key, the inner one winning, except:

    - ``fields`` merge pattern by pattern, and a pattern both give merges setting by setting
      (``comparator`` and ``tolerance`` are one setting). The inner level's patterns come after
      the outer's, so that where several patterns match a field (each setting comes from the
      last that sets it) the nearer level's win;
    - ``ignore`` is the outer patterns and the inner ones: a field either level ignores is
      ignored (as a ``skip`` anywhere skips: nothing un-skips a field);
    - ``tool_args`` (the ``trajectory`` option) merge tool by tool.

    A key given as null (``ignore: null``, ``fields: null``, ``schema: null``) replaces what is
    inherited with nothing. A value of the wrong type replaces the inherited one, for the
    metric to name."""
    out = dict(outer)
    for key, value in inner.items():
        before = out.get(key)
        if key == "ignore":
            out[key] = _ignored(before, value)
        elif key == "fields" and isinstance(before, Mapping) and isinstance(value, Mapping):
            out[key] = _fields(before, value)
        elif key == "tool_args" and isinstance(before, Mapping) and isinstance(value, Mapping):
            out[key] = {**before, **value}
        else:
            out[key] = value
    return out


def ignore_patterns(value: object) -> list[str] | None:
    """An ``ignore`` value's patterns, or None for a value of another type."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(p, str) for p in value):
        return list(value)
    return None


def _ignored(outer: object, inner: object) -> object:
    outer_patterns, inner_patterns = ignore_patterns(outer), ignore_patterns(inner)
    if outer_patterns is None or inner_patterns is None:
        return inner  # nothing inherited (or null), or not patterns: the metric names it
    seen = set(outer_patterns)  # (a set: a file may list many thousands of patterns)
    return outer_patterns + [p for p in inner_patterns if p not in seen]


def _fields(outer: Mapping[object, object], inner: Mapping[object, object]) -> dict[object, object]:
    out = {pattern: settings for pattern, settings in outer.items() if pattern not in inner}
    for pattern, settings in inner.items():
        before = outer.get(pattern)
        if isinstance(before, Mapping) and isinstance(settings, Mapping):
            if any(k in settings for k in _COMPARATOR_SETTINGS):
                before = {k: v for k, v in before.items() if k not in _COMPARATOR_SETTINGS}
            settings = {**before, **settings}
        out[pattern] = settings
    return out
