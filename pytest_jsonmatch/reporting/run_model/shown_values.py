"""What a reviewer reads beside a comparison's fields: the case's input and the target's
output (``Shown``), each kept as a report keeps a value (whole, or compact JSON cut short),
and in JSON's terms where it holds what JSON cannot (``json_form``): whatever a target
gives, a report writes it."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, cast

from ...engine.core.errors import shown
from ...engine.core.slotted import HashedSlotted

if TYPE_CHECKING:
    from .report_types import ComparisonDict, JSONValue

# the most characters of compact JSON a report keeps of a case's input or of an output, where
# values are kept short (longer: cut, with ``...``)
SHOWN_LIMIT = 4000


class Shown(HashedSlotted):
    """What a reviewer reads beside a comparison's fields: the case's ``input`` and the
    ``output`` as the target gave it, each kept as a report keeps a value (whole, or compact
    JSON cut to :data:`SHOWN_LIMIT` characters where values are kept short), or None where
    there is none or the report keeps no values; ``cut`` names the sides cut ("i", "o"),
    ``not_json`` those that held what JSON cannot and are kept in its terms (:func:`json_form`)."""

    __slots__ = ("input", "output", "cut", "not_json")

    def __init__(
        self,
        input: JSONValue = None,
        output: JSONValue = None,
        cut: str = "",
        not_json: str = "",
    ) -> None:
        self.input, self.output, self.cut, self.not_json = input, output, cut, not_json

    @classmethod
    def of(cls, given_input: object, output: object, mode: str | None) -> Shown:
        """The input and output kept per ``mode`` (None or ``none``: neither). This is where
        a case's input and a target's output enter a report: whatever they hold, what is kept
        is JSON (:func:`json_form`), so that every report writes it."""
        if mode is None or mode == "none":
            return NOTHING_SHOWN
        kept_in, cut_in, odd_in = _shown_value(given_input, mode)
        kept_out, cut_out, odd_out = _shown_value(output, mode)
        return cls(
            kept_in,
            kept_out,
            ("i" if cut_in else "") + ("o" if cut_out else ""),
            ("i" if odd_in else "") + ("o" if odd_out else ""),
        )

    def write(self, out: ComparisonDict) -> None:
        """The input and output into a comparison's entry, each with its marks."""
        if self.input is not None:
            out["input"] = self.input
            if "i" in self.cut:
                out["input_cut"] = True
            if "i" in self.not_json:
                out["input_not_json"] = True
        if self.output is not None:
            out["output"] = self.output
            if "o" in self.cut:
                out["output_cut"] = True
            if "o" in self.not_json:
                out["output_not_json"] = True

    @classmethod
    def read(cls, data: ComparisonDict) -> Shown:
        """The input and output of a comparison's entry, as :meth:`write` wrote them."""
        return cls(
            data.get("input"),
            data.get("output"),
            ("i" if data.get("input_cut") else "") + ("o" if data.get("output_cut") else ""),
            ("i" if data.get("input_not_json") else "")
            + ("o" if data.get("output_not_json") else ""),
        )


def _shown_value(value: object, mode: str) -> tuple[JSONValue, bool, bool]:
    """``value`` as a report keeps it beside a comparison, whether it was cut, and whether it
    was rewritten in JSON's terms."""
    if value is None:
        return None, False, False
    if isinstance(value, str) and (mode == "full" or len(value) <= SHOWN_LIMIT):
        return value, False, False
    rewritten = False
    try:
        text = _compact(value)
    except Exception:  # noqa: BLE001 - not JSON (or a type of the target's own that raises)
        text, rewritten = _rewritten(value), True
    if mode == "full" or len(text) <= SHOWN_LIMIT:
        return cast("JSONValue", json.loads(text)), False, rewritten
    return text[: SHOWN_LIMIT - 3] + "...", True, rewritten


def _rewritten(value: object) -> str:
    """The compact JSON text of ``value`` in JSON's terms (:func:`json_form`); its repr text
    where even that fails (too deep for the stack left to the caller, a container of the
    target's own type that raises as it is read)."""
    try:
        return _compact(json_form(value))
    except Exception:  # noqa: BLE001 - a report is written whatever an output holds
        return _compact(shown(value, SHOWN_LIMIT))


def _compact(value: object) -> str:
    """``value``'s compact JSON text, strict: NaN and the infinities are a ValueError."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


# How deep json_form walks a value: below it, a container is written as its repr text (cut).
JSON_FORM_DEPTH = 100
# The words a float JSON cannot hold is written as (those JavaScript and Python print).
_NOT_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def json_form(value: object) -> JSONValue:
    """``value`` in JSON's terms, as a report writes a case's input or a target's output that
    holds what JSON cannot (docs/ci.md, "The JSON report"): NaN and the infinities as the
    texts ``"NaN"``, ``"Infinity"``, ``"-Infinity"``; a set as an array of its members,
    sorted by their JSON text; a tuple as an array; a key that is not text as its JSON text
    (``3`` -> ``"3"``, ``(1, 2)`` -> ``"[1,2]"``; a text key of the same name keeps it, the
    other takes its type's name after it); an integer JSON cannot write (over 4,300 digits),
    any other object (a mapping not a dict among them), a container met again inside
    itself and one nested deeper than
    :data:`JSON_FORM_DEPTH`, as its repr text cut to :data:`SHOWN_LIMIT` characters."""
    return _form(value, 0, set())


def _form(value: object, depth: int, inside: set[int]) -> JSONValue:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _NOT_FINITE[repr(float(value))]
    if isinstance(value, int):
        return int(value) if value.bit_length() <= 14_000 else shown(value, SHOWN_LIMIT)
    if not isinstance(value, (dict, list, tuple, set, frozenset)):
        return shown(value, SHOWN_LIMIT)
    if id(value) in inside or depth >= JSON_FORM_DEPTH:
        return shown(value, SHOWN_LIMIT)
    inside.add(id(value))
    try:
        if isinstance(value, dict):
            return _form_of_mapping(value, depth + 1, inside)
        members = [_form(member, depth + 1, inside) for member in value]
        if isinstance(value, (set, frozenset)):
            members.sort(key=lambda member: json.dumps(member, sort_keys=True))
        return members
    finally:
        inside.discard(id(value))


def _form_of_mapping(value: dict[object, object], depth: int, inside: set[int]) -> JSONValue:
    """A dict in JSON's terms (:func:`json_form`): its text keys first, as they are."""
    out: dict[str, JSONValue] = {
        key: _form(member, depth, inside) for key, member in value.items() if isinstance(key, str)
    }
    for key, member in value.items():
        if isinstance(key, str):
            continue
        form = _form(key, depth, inside)
        text = form if isinstance(form, str) else _compact(form)
        while text in out:
            text = f"{text} ({type(key).__name__})"
        out[text] = _form(member, depth, inside)
    return out


NOTHING_SHOWN = Shown()
