"""The built-in comparators, for tests that check an error lists them among the known names."""

from __future__ import annotations

BUILTIN_COMPARATORS = (
    "exact",
    "jaccard",
    "levenshtein",
    "normalized",
    "numeric",
    "oneof",
    "relative",
    "threshold",
)


def assert_lists_builtin_comparators(message: str) -> None:
    listed = message.split("known comparators: ", 1)[1].split(", ")
    assert set(BUILTIN_COMPARATORS) <= set(listed)
