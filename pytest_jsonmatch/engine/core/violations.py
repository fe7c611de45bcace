"""An answer's conformance to its schema: whether it is valid, and where it is not.

It lives in core because two stages hold it: schemas, whose compiled check
(schemas/conformance.py) finds the violations, and results, where a comparison carries them
beside its score (never in it).
"""

from typing import NamedTuple

from .values import JsonObject


class Violation(NamedTuple):
    """One place where an answer breaks its schema: the answer's ``path`` (``items[0].qty``),
    its ``field_path`` (``items[].qty``, the form per-field tables use) and the ``keyword``."""

    path: str
    field_path: str
    keyword: str


# How many violations of one answer are listed (all are counted): a hostile answer may
# break its schema a million times.
LISTED = 1_000


class Conformance(NamedTuple):
    """Whether an answer is valid against its schema: its violations in the order found, the
    first LISTED of them, and how many there were (``total``; 0: valid)."""

    violations: tuple[Violation, ...] = ()
    total: int = 0

    @property
    def valid(self) -> bool:
        return not self.total

    def to_dict(self) -> JsonObject:
        return {
            "valid": self.valid,
            "total": self.total,
            "violations": [{"path": v.path, "keyword": v.keyword} for v in self.violations],
        }


VALID = Conformance()
