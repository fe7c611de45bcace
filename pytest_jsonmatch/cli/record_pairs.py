"""Gold records paired with predictions: by an id field, by file name (two folders), or by
position.

By id, the predictions are read ahead only as far as the next gold record's id: files
written in the same order pair as they stream, and predictions out of order wait in memory
until their gold record comes. Each gold id is remembered (a duplicate is an error), so
memory grows by about the size of an id per record. A gold record without a prediction is
a case that could not be scored (score 0); predictions no gold record asked for are
counted and named in a warning.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..dataset import NO_PREDICTION, Pair
from ..dataset.undecoded import decoded
from ..engine.core.errors import shown
from .datasets import Record, RecordValue, folder_files, is_folder, read_records
from .input_error import InputError
from .inputs import read_bytes

NAMED = 5  # unpaired predictions named in the warning


@dataclass
class PairingSettings:
    gold: str
    pred: str
    id_field: str | None = None
    gold_field: str | None = None
    pred_field: str | None = None


@dataclass
class Leftovers:
    """Predictions no gold record was paired with (filled in as pairing ends)."""

    count: int = 0
    named: list[str] = field(default_factory=list)

    def warning(self, pred: str) -> str | None:
        if not self.count:
            return None
        more = f" and {self.count - len(self.named)} more" if self.count > len(self.named) else ""
        return (
            f"{pred}: {self.count} prediction{'' if self.count == 1 else 's'} no gold "
            f"record has ({', '.join(self.named)}{more}), not scored"
        )


def pairs(
    settings: PairingSettings, leftovers: Leftovers, undecoded: bool = False
) -> Iterator[Pair]:
    """The pairs of a run, in the gold records' order. With ``undecoded``, records paired by
    position and scored whole may stay :class:`Undecoded` lines, to be decoded where they are
    scored (pairing by id, or scoring one field, reads the records here)."""
    if is_folder(settings.gold) != is_folder(settings.pred):
        raise InputError(f"{settings.gold} and {settings.pred}: give two folders or two files")
    if is_folder(settings.gold):
        yield from _by_name(settings, leftovers)
    elif settings.id_field is not None:
        yield from _by_id(settings, leftovers)
    else:
        whole = settings.gold_field is None and settings.pred_field is None
        yield from _by_position(settings, undecoded and whole)


def _value(record: Record, key: str | None, what: str) -> RecordValue:
    if key is None:
        return record.value
    if not isinstance(record.value, dict) or key not in record.value:
        raise InputError(f"{record.where}: the {what} record has no field {key!r}")
    return record.value[key]


def _id_of(record: Record, key: str) -> str:
    if not isinstance(record.value, dict) or key not in record.value:
        raise InputError(f"{record.where}: the record has no id field {key!r}")
    value = record.value[key]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            f"{record.where}: the id field {key!r} must be a string or an "
            f"integer, not {json_type_phrase(value)}"
        )
    return str(value)


def json_type_phrase(value: object) -> str:
    """A value's JSON type as a message phrases it (``an object``, ``a number``)."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _pair(
    case_id: str, gold: Record, pred: Record | None, s: PairingSettings, missing: str = ""
) -> Pair:
    expected = _value(gold, s.gold_field, "gold")
    actual = _value(pred, s.pred_field, "predicted") if pred is not None else NO_PREDICTION
    return Pair(case_id, expected, actual, gold.where, gold.file, gold.line, missing)


def _by_position(s: PairingSettings, undecoded: bool) -> Iterator[Pair]:
    gold = read_records(s.gold, True, undecoded)
    pred = read_records(s.pred, False, undecoded)
    n = 0
    for g in gold:
        p = next(pred, None)
        n += 1
        if p is None:
            decoded(g.value)  # read, as -j 1 reads it, before the lengths are compared
            rest = 1 + _count(gold)
            raise InputError(
                f"{s.pred} has {n - 1} records and {s.gold} at least {n - 1 + rest}: "
                f"pairing by position needs as many (or pair by --id-field)"
            )
        yield _pair(str(n), g, p, s)
    extra = _count(pred)
    if extra:
        raise InputError(
            f"{s.gold} has {n} records and {s.pred} {n + extra}: pairing by "
            f"position needs as many (or pair by --id-field)"
        )


def _count(records: Iterator[Record]) -> int:
    """How many records are left, each read (a record that is not JSON is an error here,
    before the counts are compared, whether or not the reader decoded it)."""
    n = 0
    for record in records:
        decoded(record.value)
        n += 1
    return n


def _by_id(s: PairingSettings, leftovers: Leftovers) -> Iterator[Pair]:
    assert s.id_field is not None
    pred = read_records(s.pred, False)
    waiting: dict[str, Record] = {}
    seen: set[str] = set()
    for g in read_records(s.gold, True):
        key = _id_of(g, s.id_field)
        if key in seen:
            raise InputError(f"{g.where}: id {shown(key)} is given to an earlier gold record too")
        found = waiting.pop(key, None)
        while found is None:
            p = next(pred, None)
            if p is None:
                break
            pkey = _prediction_id(p, s.id_field, waiting, seen)
            if pkey == key:
                found = p
            else:
                waiting[pkey] = p
        seen.add(key)
        yield _pair(key, g, found, s, f"no prediction has {s.id_field} {shown(key)} in {s.pred}")
    for p in pred:
        waiting[_prediction_id(p, s.id_field, waiting, seen)] = p
    _leftover(waiting, leftovers)


def _prediction_id(p: Record, key: str, waiting: dict[str, Record], paired: set[str]) -> str:
    """The id of prediction ``p``, read ahead: InputError when an earlier prediction has it,
    whether that one still waits or was paired already (a gold id met before ``p`` was read
    either found its prediction or read the file to its end)."""
    pkey = _id_of(p, key)
    if pkey in waiting or pkey in paired:
        raise InputError(f"{p.where}: id {shown(pkey)} is given to an earlier prediction too")
    return pkey


def _by_name(s: PairingSettings, leftovers: Leftovers) -> Iterator[Pair]:
    paths: dict[str, Path] = {}
    for key, path in folder_files(s.pred):
        if key in paths:
            raise InputError(f"{s.pred}: two files for record {key!r}: {paths[key]} and {path}")
        paths[key] = path
    for g in read_records(s.gold, True):
        assert g.key is not None
        pred_path = paths.pop(g.key, None)
        pred = None
        if pred_path is not None:
            name = str(pred_path)
            pred = Record(read_bytes(name), name, name, None, g.key)
        yield _pair(g.key, g, pred, s, f"no file {g.key}.* in {s.pred}")
    _leftover(paths, leftovers)


def _leftover(waiting: Mapping[str, object], leftovers: Leftovers) -> None:
    leftovers.count = len(waiting)
    leftovers.named = sorted(waiting)[:NAMED]
