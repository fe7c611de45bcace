"""What a golden suite names that matches nothing, never silent (issue 75): a path a case
names that matches no field of it, and a golden folder pytest does not collect.

A case names paths in ``fields``, ``ignore``, an array's key field (``align: {match_by:
key_field, key: sku}``, in ``fields`` or for every array) and its xfail mark's ``fields``. A
path names something of the case when it matches a path of the case's expected value or of
its actual one: the expected value's every node (an agent's end state under ``state``), and
every field the comparison scored or skipped, their enclosing values too (the actual
fields the metric read, a run's steps under ``run``). A key field names something when an
element of an array it pairs holds it.

A path the case sets itself is judged on the case; a path a folder's ``jsonmatch.yaml`` or
a file's settings set for several cases, on all of them together (:class:`SharedPaths`): it
is a typo only when none of them has it. The message names the file, the case (or how many
cases) and the nearest paths the case has.

A ``jsonmatch_golden`` folder outside every path pytest collects by default (``testpaths``,
or the folder it runs in) holds cases no run sees: :func:`uncollected_folders` names it and
how to collect it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..engine.core.errors import CaseFileError, JsonMatchWarning
from ..engine.core.paths import PathPattern, index_segment, key_segment, nearest_paths
from ..engine.results.field_results import MatchResult
from .marks import MarkSpec, fields_expected_to_fail

if TYPE_CHECKING:
    from .case_files import GoldenCase

# a value's nodes looked at, at most, per case: the paths of a larger value beyond it are
# not read (a path found nowhere in them is then not called a typo: see CasePaths.complete)
MAX_NODES = 200_000


class PathWarning(JsonMatchWarning):
    """A path a case file names (``fields``, ``ignore``, a key field, xfail's ``fields``)
    that matches no field of the cases it applies to."""


class NamedPath(NamedTuple):
    """One path a case names: under which ``option``, its ``text``, and for a key field the
    pattern of the arrays it pairs (``within``; "" for every array)."""

    option: str
    text: str
    within: str = ""
    origin: str = ""  # "" the case's own; "file:line" of the shared setting

    @property
    def said(self) -> str:
        if self.option == "key field":
            where = f" of {self.within}" if self.within else ""
            return f"key field {self.text!r}{where}"
        return f"{self.option} {self.text!r}"


def named_paths(
    options: Mapping[str, object], origins: Mapping[str, str], marks: Iterable[MarkSpec]
) -> list[NamedPath]:
    """The paths a case's ``options`` and xfail mark name (their types already checked by
    the comparison's reading: what is not of its type is left out here). ``origins``: where
    each was set, by ``ignore PATTERN``, ``fields PATTERN``, ``align`` and ``xfail``
    (cases/case_layers.py's ``path_origins``); a path not there is the case's own."""
    out: list[NamedPath] = []
    ignore = options.get("ignore")
    texts = [ignore] if isinstance(ignore, str) else ignore if isinstance(ignore, list) else []
    for text in texts:
        if isinstance(text, str):
            out.append(NamedPath("ignore", text, origin=origins.get(f"ignore {text}", "")))
    fields = options.get("fields")
    for text, settings in fields.items() if isinstance(fields, Mapping) else ():
        origin = origins.get(f"fields {text}", "")
        out.append(NamedPath("fields", str(text), origin=origin))
        key = _key_of(settings.get("align") if isinstance(settings, Mapping) else None)
        if key:
            out.append(NamedPath("key field", key, str(text), origin))
    key = _key_of(options.get("align"))
    if key:
        out.append(NamedPath("key field", key, origin=origins.get("align", "")))
    xfail = fields_expected_to_fail(marks)
    for pattern in xfail.patterns if xfail is not None else ():
        out.append(NamedPath("xfail fields", pattern.text, origin=origins.get("xfail", "")))
    return out


def _key_of(align: object) -> str:
    if isinstance(align, Mapping) and align.get("match_by") == "key_field":
        key = align.get("key")
        return key if isinstance(key, str) else ""
    return ""


class CasePaths:
    """Every path of one case: its values' nodes and its scored rows, enclosing paths too."""

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.complete = True  # False: a value had more nodes than MAX_NODES

    def add_value(self, value: object, prefix: str = "") -> None:
        """Every node of ``value`` (a mapping or a list), at its path below ``prefix``."""
        stack: list[tuple[object, str]] = [(value, prefix)]
        while stack:
            node, path = stack.pop()
            if len(self.paths) >= MAX_NODES:
                self.complete = False
                return
            self.paths.add(path)
            if isinstance(node, Mapping):
                stack.extend((v, key_segment(path, str(k))) for k, v in node.items())
            elif isinstance(node, list):
                stack.extend((v, index_segment(path, i)) for i, v in enumerate(node))

    def add_rows(self, result: MatchResult) -> None:
        """The paths of a comparison's rows (and of the values enclosing them)."""
        from ..engine.core.paths import parent_path

        for row in result.fields:
            for path in (row.path, row.actual_path):
                while path and path not in self.paths:
                    self.paths.add(path)
                    path = parent_path(path)

    def has(self, named: NamedPath) -> bool:
        """Whether ``named`` names a field of these paths."""
        if named.option != "key field":
            pattern = PathPattern(named.text)
            return any(pattern.matches(path) for path in self.paths)
        return named.text in self._keys_in(named.within)

    def _keys_in(self, within: str) -> set[str]:
        """The keys of the elements of the arrays ``within`` matches (every array: "")."""
        from ..engine.core.paths import parent_path, path_segments

        arrays = PathPattern(within) if within else None
        keys: set[str] = set()
        for path in self.paths:
            last = path_segments(path)[-1:] if path else ()
            if not last or last[0][0] != "k":
                continue
            element = parent_path(path)
            segments = path_segments(element)
            if segments and segments[-1][0] == "i":
                array = parent_path(element)
                if arrays is None or arrays.matches(array):
                    keys.add(last[0][1:])
        return keys

    def nearest(self, named: NamedPath) -> list[str]:
        """What ``named`` was likely meant to be: the nearest paths (indices folded, as the
        field tables show them), or keys of the arrays it pairs."""
        if named.option == "key field":
            return nearest_paths(named.text, self._keys_in(named.within) or self._keys_in(""))
        import re

        folded = {re.sub(r"\[\d+\]", "[]", path) for path in self.paths if path}
        return nearest_paths(named.text, folded)


def unmatched_text(named: NamedPath, nearest: Iterable[str], cases: str) -> str:
    """The warning's words: ``fields 'refund_amont' matches no field of the case; did you
    mean 'refund_amount'?`` (``cases``: "the case", "any of its 12 cases")."""
    close = nearest_paths(named.text, nearest)  # (the nearest of several cases' nearest)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    what = (
        "names no key of the arrays it pairs in"
        if named.option == "key field"
        else ("matches no field of")
    )
    return f"{named.said} {what} {cases}{hint}"


@dataclass
class _Seen:
    """A shared path's tally: the cases it applied to, those that had it, the nearest paths
    of those that did not."""

    cases: int = 0
    had: int = 0
    nearest: set[str] = field(default_factory=set)


class SharedPaths:
    """The paths a folder's or a file's settings name, judged over every case they applied
    to in the session: a typo is one none of them has. Kept as plain data, so that xdist's
    workers hand theirs to the controller (:meth:`data`, :meth:`merge`)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str, str, str], _Seen] = {}

    def note(self, named: NamedPath, had: bool, nearest: Iterable[str], cases: int = 1) -> None:
        key = (named.origin, named.option, named.text, named.within)
        seen = self.seen.setdefault(key, _Seen())
        seen.cases += cases
        seen.had += had
        if not had:
            seen.nearest.update(nearest)

    def data(self) -> list[list[object]]:
        """Plain data (lists of strings and numbers) for a worker's output."""
        return [[*key, s.cases, s.had, sorted(s.nearest)] for key, s in self.seen.items()]

    def merge(self, data: object) -> None:
        """A worker's :meth:`data` added to these."""
        for row in data if isinstance(data, list) else ():
            origin, option, text, within, cases, had, nearest = row
            named = NamedPath(str(option), str(text), str(within), str(origin))
            self.note(named, False, map(str, nearest), int(cases))
            self.seen[(named.origin, named.option, named.text, named.within)].had += int(had)

    def typos(self) -> list[str]:
        """One line for each shared path none of its cases had: ``file:line: ...``."""
        out = []
        for (origin, option, text, within), seen in sorted(self.seen.items()):
            if seen.had:
                continue
            whom = (
                "the case it applies to"
                if seen.cases == 1
                else f"any of the {seen.cases} cases it applies to"
            )
            named = NamedPath(option, text, within, origin)
            out.append(f"{origin}: {unmatched_text(named, seen.nearest, whom)}")
        return out


def case_paths(case: GoldenCase, results: list[MatchResult]) -> CasePaths:
    """The paths of ``case``: its expected value's (an agent's expected end state under
    ``state``) and its comparisons' rows (which hold the actual fields the metric read: a
    hallucination, a field skipped)."""
    paths = CasePaths()
    if isinstance(case.expected, (Mapping, list)):
        paths.add_value(case.expected)
    if case.agent is not None and isinstance(case.agent.state, Mapping):
        paths.add_value(case.agent.state, "state")
    for result in results:
        paths.add_rows(result)
    return paths


def add_outputs(paths: CasePaths, case: GoldenCase, outputs: list[object]) -> None:
    """The paths of a plain case's actual outputs (text read leniently, as the comparison read
    it), for a path neither its expected value nor its rows have (a field a metric that counts
    no extras never made a row of). A reply's or a run's answer is read through its rows."""
    from ..engine.core.errors import JsonMatchError
    from ..engine.reading.parse import parse_actual

    if case.agent is not None:
        return
    for output in outputs:
        try:
            paths.add_value(parse_actual(output, allow_array=True, truncated="close"))
        except JsonMatchError:
            pass  # an answer that cannot be read has no fields (its comparison says so)


def case_typos(
    case: GoldenCase,
    outputs: list[object],
    results: list[MatchResult],
    shared: SharedPaths,
    strict: str = "",
) -> list[PathWarning]:
    """The paths ``case`` names, judged on its runs' ``outputs`` and ``results``: a warning
    for each of its own that matches no field of it, naming the case and ``strict``, the
    setting that makes it an error (a CaseFileError, with ``strict`` given); a folder's or a
    file's paths are noted in ``shared``, judged over all their cases at the end."""
    named = named_paths(case.options, case.path_origins, case.marks)
    if not named or not results:
        return []
    paths = case_paths(case, results)
    if not all(paths.has(one) for one in named):  # (the outputs read again only then)
        add_outputs(paths, case, outputs)
    typos = []
    for one in named:
        had = paths.has(one) or not paths.complete
        nearest = [] if had else paths.nearest(one)
        if one.origin:
            shared.note(one, had, nearest)
        elif not had:
            typos.append(unmatched_text(one, nearest, "the case"))
    setting = strict or "'strict' in jsonmatch_field_floors"
    if typos and strict:
        raise CaseFileError(f"{'; '.join(typos)} ({setting})")
    return [PathWarning(f"case {case.id!r}: {typo} ({setting} fails it)") for typo in typos]


def uncollected_folders(
    golden: Iterable[Path], args: list[str], testpaths: bool, here: Path
) -> list[str]:
    """A line for each golden folder outside every path of ``args`` (as pytest collects them
    by default: ``testpaths``, else the folder ``here`` it runs in), with how to collect it."""
    looked = [Path(os.path.abspath(here / arg.split("::")[0])) for arg in args]
    out = []
    for folder in map(Path, map(os.path.abspath, golden)):
        if any(folder.is_relative_to(p) or p.is_relative_to(folder) for p in looked):
            continue
        shown = os.path.relpath(folder, here) if folder.is_relative_to(here) else str(folder)
        shown = shown.replace(os.sep, "/")
        if testpaths:
            where = f"pytest collects testpaths ({', '.join(args)}) only"
            fix = f"add {shown!r} to testpaths, or name it: pytest {shown}"
        else:
            where, fix = (
                f"it lies outside {str(here)!r}, where pytest runs",
                f"name it: pytest {shown}",
            )
        out.append(f"jsonmatch_golden folder {shown!r} is not collected: {where}; {fix}")
    return out
