"""Golden case files read into :class:`GoldenCase` values: folder defaults, validation, errors
with lines. Nothing here knows pytest: the pytest layer turns each case into a test item.

A case file is read by the safe YAML reader (engine/reading/safe_yaml.py): the C parser
composes a node tree, a check walks it for what a safe loader still lets through, and only
then are values constructed. Every mistake becomes a :class:`CaseFileError` whose text is the
whole report, ``path:line: what is wrong``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from ..engine.core.errors import CaseFileError, JsonMatchError, did_you_mean
from ..engine.core.slotted import Slotted
from ..engine.reading.safe_yaml import (
    decode_text,
    item_nodes,
    key_lines,
    keys_before,
    line_of,
    parse_yaml,
)
from ..engine.reading.user_files import not_regular, read_regular
from .agent_expectations import AGENT_KEYS, ALL_AGENT_KEYS, PLAIN, AgentExpectations, CaseScorer
from .case_layers import Layer, kind_of, layered
from .conversation_cases import ConversationExpectations
from .judge_labels import judge_labels_of
from .marks import MarkError, MarkSpec, fields_expected_to_fail, marks_from
from .node_ids import check_path, fits_test_id

CASE_SUFFIXES = (".jsonmatch.yaml", ".jsonmatch.yml")
DEFAULTS_NAMES = ("jsonmatch.yaml", "jsonmatch.yml")
SETTING_KEYS = ("metric", "threshold", "options", "schema", "repeat", "call_options", "run_options")
CASE_KEYS = frozenset(
    {"id", "description", "expected", "actual", "actual_file", "input", "metric", "threshold"}
    | {"options", "marks", "repeat", "judge_labels"}
).union(ALL_AGENT_KEYS, {"conversation", "tau2", "rubric", "trace"})
SOURCE_KEYS = ("actual", "actual_file", "input")
FILE_KEYS = frozenset({*SETTING_KEYS, "cases", "marks", "description"})
Source = Literal["actual", "actual_file", "input"]


class _NoExpected:
    """The ``expected`` of a case written without one, to be filled in by an update."""

    def __repr__(self) -> str:
        return "<no expected yet>"


NO_EXPECTED = _NoExpected()
_CREATE_HINT = "; run pytest with --jsonmatch-update=create to write it from the actual output"


class GoldenCase(Slotted):
    """One golden case, defaults applied. ``line`` is 1-based; ``source`` says which of
    ``actual``, ``actual_file`` (an absolute path) or ``input`` gives the actual output.
    (Slotted, not a dataclass: one is made for each case.)"""

    __slots__ = (
        "id",
        "path",
        "line",
        "description",
        "expected",
        "actual",
        "actual_file",
        "input",
        "metric",
        "threshold",
        "options",
        "marks",
        "source",
        "repeat",
        "file_sha256",
        "agent",
        "scorer",
        "path_origins",
        "judge_labels",
    )
    # (its fields: ``scorer`` is made from ``agent``, never given)
    _fields = tuple(name for name in __slots__ if name != "scorer")

    def __init__(
        self,
        *,
        id: str,
        path: Path,
        line: int,
        description: str = "",
        expected: object = None,
        actual: object = None,
        actual_file: Path | None = None,
        input: object = None,
        metric: str | None = None,
        threshold: float | None = None,
        options: Mapping[str, object] | None = None,  # None: none
        marks: tuple[MarkSpec, ...] = (),
        source: Source = "actual",
        repeat: int | None = None,  # runs of an ``input`` case's target (None: the session's)
        file_sha256: str = "",  # of the case file's bytes as collection read them
        # an agent's reply's or whole run's expected parts and options, or a conversation's
        # turns (None: a plain case)
        agent: AgentExpectations | ConversationExpectations | None = None,
        # where each option naming paths (ignore, fields, align; xfail for an xfail mark's
        # fields) was set: "" by the case itself, "file:line" by a folder's or a file's
        # settings shared by several cases (cases/typos.py: a typo is a path none of them has)
        path_origins: Mapping[str, str] | None = None,  # None: none
        # a person's verdicts on the judge's fields of this case (``judge_labels``): each
        # field's instance path, as the field tables write it, and True for "same"
        # (calibration/case_labels.py joins them to the judge's calibration)
        judge_labels: Mapping[str, bool] | None = None,  # None: none
    ) -> None:
        self.id, self.path, self.line, self.description = id, path, line, description
        self.expected, self.actual, self.actual_file = expected, actual, actual_file
        self.input, self.metric, self.threshold = input, metric, threshold
        self.options: Mapping[str, object] = {} if options is None else options
        self.marks, self.source, self.repeat = marks, source, repeat
        self.file_sha256, self.agent = file_sha256, agent
        # what scores its output (the session asks it, never the kind of case)
        self.scorer: CaseScorer = PLAIN if agent is None else agent
        self.path_origins: Mapping[str, str] = {} if path_origins is None else path_origins
        self.judge_labels: Mapping[str, bool] = {} if judge_labels is None else judge_labels

    @property
    def default_id(self) -> str:
        """The id a file holding one case gives it when it names none: the file's name up
        to its first dot."""
        return self.path.name.split(".")[0]


class CaseFiles:
    """Reads the case files of one test root. ``golden_dirs`` are the folders whose every
    ``.yaml`` file is a case file; ``max_cases`` bounds one file; ``creating`` lets cases
    leave out ``expected`` (an update that writes it). Folder defaults are read once.

    What a folder's ``jsonmatch.yaml`` or a file of cases sets for all its cases (metric,
    options, schema) is checked when the file is read, under ``metric`` when it names none
    (the session's): a mistake there is one error for the file, not one per case. Schemas'
    ``$ref``s read only under the root and ``schema_dirs``.

    ``read`` and ``settings_read`` keep the SHA-256 of each case file and each folder's
    ``jsonmatch.yaml`` as read (the bytes the cases were made from: a report's provenance,
    which must not hash a file rewritten or edited since)."""

    def __init__(
        self,
        *,
        root: Path,
        golden_dirs: tuple[Path, ...] = (),
        max_cases: int = 10_000,
        creating: bool = False,
        metric: str = "field_f1",
        schema_dirs: tuple[Path, ...] = (),
    ) -> None:
        self.root, self.max_cases, self.creating = root, max_cases, creating
        self.metric, self.schema_dirs = metric, schema_dirs
        self._dirs = tuple(os.path.join(os.path.abspath(p), "") for p in golden_dirs)
        self._defaults: dict[Path, Layer | CaseFileError] = {}
        self._checked: set[str] = set()  # layers found good, by metric and options
        self.read: dict[Path, str] = {}
        self.settings_read: dict[Path, str] = {}

    def is_case_file(self, path: Path) -> bool:
        """Whether ``path`` is a case file: named ``*.jsonmatch.yaml``, or a ``.yaml`` file
        under a golden folder (a folder-defaults file never is)."""
        name = path.name
        if not name.endswith((".yaml", ".yml")) or name in DEFAULTS_NAMES:
            return False  # the cheap test first: most files a session sees end here
        return name.endswith(CASE_SUFFIXES) or str(path).startswith(self._dirs)

    def display(self, path: Path) -> str:
        """``path`` as errors show it: from the test root where it lies inside (a prefix of
        its text: ``Path.relative_to`` cost as much as reading a small case file)."""
        text, under = str(path), os.path.join(self.root, "")
        return text[len(under) :].replace(os.sep, "/") if text.startswith(under) else text

    def load(self, path: Path) -> list[GoldenCase]:
        """Every case of one file, validated and with its defaults applied, each knowing the
        SHA-256 of the file's bytes (an update refuses to write over a file changed since)."""
        shown = self.display(path)
        check_path(shown)  # a test id pytest prints as it is, before the file is read
        raw = read_regular(path, "case file", CaseFileError, shown=shown)
        # of the very bytes the cases are read from
        digest = self.read[path] = hashlib.sha256(raw).hexdigest()
        return self._load(_Where(path, shown, self.root, digest), raw)

    # -- folder defaults ------------------------------------------------------------------

    def _folder_defaults(self, directory: Path) -> Layer:
        """Defaults from every ``jsonmatch.yaml`` between the test root and ``directory``,
        merged outward-in so the nearest folder wins. Cached per folder, errors included."""
        cached = self._defaults.get(directory)
        if isinstance(cached, CaseFileError):
            raise cached
        if cached is not None:
            return cached
        inherited = Layer()
        if directory != self.root and directory.is_relative_to(self.root):
            inherited = self._folder_defaults(directory.parent)
        try:
            layer = self._read_defaults(directory, inherited)
        except CaseFileError as exc:
            self._defaults[directory] = exc
            raise
        self._defaults[directory] = layer
        return layer

    def _read_defaults(self, directory: Path, inherited: Layer) -> Layer:
        for name in DEFAULTS_NAMES:
            path = directory / name
            if path.is_file():
                where = _Where(path, self.display(path), self.root)
                raw = read_regular(path, "file", CaseFileError, shown=where.display)
                self.settings_read[path] = hashlib.sha256(raw).hexdigest()
                data, root = parse_yaml(decode_text(raw, where.display), where.display)
                if not isinstance(data, Mapping):
                    raise where.error(
                        1, f"a defaults file holds a mapping of {', '.join(SETTING_KEYS)}"
                    )
                lines = key_lines(root)
                _no_unknown(data, frozenset(SETTING_KEYS), lines, where, "defaults file")
                layer = layered(data, lines, where, inherited, shared=True)
                self._check_layer(data, layer, lines, where)
                return layer
        return inherited

    # -- cases ----------------------------------------------------------------------------

    def _load(self, where: _Where, raw: bytes) -> list[GoldenCase]:
        path = where.path
        data, root = parse_yaml(decode_text(raw, where.display), where.display, context=_case_above)
        if not isinstance(data, Mapping):
            raise where.error(
                1,
                f"a case file holds a mapping with 'expected' (one case) or "
                f"'cases' (a list), not {kind_of(data)}",
            )
        lines = key_lines(root)
        inherited = self._folder_defaults(path.parent)
        if "cases" not in data:
            # an unknown key first: a misspelt 'expected' is reported as the typo it is
            _no_unknown(data, CASE_KEYS | {"schema"}, lines, where, "case")
            has_source, part = (
                any(k in data for k in keys)
                for keys in (SOURCE_KEYS, (*AGENT_KEYS, "conversation"))
            )
            if "expected" not in data and not (self.creating and has_source or part):
                raise where.error(
                    1,
                    "missing 'expected' (one case) or 'cases' (a list of cases)"
                    + (_CREATE_HINT if has_source else ""),
                )
            layer = layered(data, lines, where, inherited)
            default_id = path.name.split(".")[0]
            return [self._case(data, lines, 1, where, layer, default_id, ())]
        if "expected" in data:
            raise where.error(
                lines["expected"], "give either 'expected' (one case) or 'cases', not both"
            )
        _no_unknown(data, FILE_KEYS, lines, where, "file")
        layer = layered(data, lines, where, inherited, shared=True)
        self._check_layer(data, layer, lines, where)
        file_marks = _marks(data.get("marks"), lines.get("marks", 1), where)
        if fields_expected_to_fail(file_marks) is not None:
            origin = f"{where.display}:{lines['marks']}"
            layer = layer.replace(origins={**layer.origins, "xfail": origin})
        cases, nodes = data["cases"], item_nodes(root, "cases")
        if not isinstance(cases, list) or not cases:
            raise where.error(
                lines["cases"],
                f"cases must be a non-empty list of cases, not "
                f"{kind_of(cases) if cases != [] else 'an empty list'}",
            )
        if len(cases) > self.max_cases:
            raise where.error(
                lines["cases"],
                f"{len(cases):,} cases in one file, more than "
                f"jsonmatch_golden's max_cases ({self.max_cases:,}); split "
                f"the file, or raise the setting",
            )
        out: list[GoldenCase] = []
        first_line: dict[str, int] = {}
        for case, node in zip(cases, nodes):
            line = line_of(node)
            if not isinstance(case, Mapping):
                raise where.error(
                    line, f"each case is a mapping with id and expected, not {kind_of(case)}"
                )
            if "id" not in case:
                raise where.error(
                    line, "case without 'id' (every case in a 'cases' list needs one)"
                )
            made = self._case(case, key_lines(node), line, where, layer, None, file_marks)
            if made.id in first_line:
                raise where.error(
                    line,
                    f"duplicate case id {made.id!r} (first used at line {first_line[made.id]})",
                )
            first_line[made.id] = line
            out.append(made)
        return out

    def _check_layer(
        self, data: Mapping[str, object], layer: Layer, lines: Mapping[str, int], where: _Where
    ) -> None:
        """The metric and options a folder or a file sets for its cases, configured as a
        comparison would configure them (the schema loaded too), once per distinct setting."""
        given = [key for key in ("metric", "options", "schema") if key in data]
        if not given:
            return
        import json

        from ..engine.metrics import metric_named
        from ..engine.metrics.base import configure
        from ..engine.schemas.loading import references_confined_to

        metric = layer.metric or self.metric
        key = json.dumps([metric, layer.options], sort_keys=True, default=repr)
        if key in self._checked:
            return
        try:
            with references_confined_to(
                [self.root, *self.schema_dirs], "jsonmatch_golden's schema_dirs"
            ):
                configure(metric_named(metric), layer.options)
        except JsonMatchError as exc:
            raise where.error(
                lines[given[0]] if len(given) == 1 else lines.get("metric", 1),
                f"{', '.join(given)} for every case: {exc}",
            ) from None
        self._checked.add(key)

    def _case(
        self,
        data: Mapping[str, object],
        lines: Mapping[str, int],
        line: int,
        where: _Where,
        inherited: Layer,
        default_id: str | None,
        file_marks: tuple[MarkSpec, ...],
    ) -> GoldenCase:
        case_id = _case_id(data.get("id", default_id), lines.get("id", line), where)
        name = f"case {case_id!r}: "
        _no_unknown(
            data, CASE_KEYS | ({"schema"} if default_id else frozenset()), lines, where, name[:-2]
        )
        talk = "conversation" in data  # (its target makes its output, turn by turn)
        expected = None if talk else self._expected(data, lines, line, where, name)
        source: Source = "input" if talk else _source(data, line, where, name)
        actual, actual_file = (None, None) if talk else _actual(data, lines, where, name, source)
        description = data.get("description", "")
        if not isinstance(description, str):
            raise where.error(
                lines["description"],
                f"{name}description must be a string, not {kind_of(description)}",
            )
        layer = (
            layered(data, lines, where, inherited, prefix=name) if default_id is None else inherited
        )
        own_marks = _marks(data.get("marks"), lines.get("marks", line), where, name)
        marks = file_marks + own_marks
        origins = dict(layer.origins)
        if fields_expected_to_fail(own_marks) is not None:
            origins["xfail"] = ""

        def said(key: str, why: str) -> CaseFileError:
            return where.error(lines.get(key, line), name + why)

        agent: AgentExpectations | ConversationExpectations | None
        given = data.get("input")
        if talk:
            agent, given = ConversationExpectations.with_input(data, said, layer.run_options)
        else:
            for key in ("tau2", "rubric"):
                if key in data:
                    raise said(key, ConversationExpectations.alone(key))
            agent = AgentExpectations.of_case(
                data,
                lambda key, why: where.error(lines.get(key, 1), name + why),
                layer.metric,
                (layer.call_options, layer.run_options),
            )
        return GoldenCase(
            id=case_id,
            path=where.path,
            line=line,
            description=description,
            expected=expected,
            actual=actual,
            actual_file=actual_file,
            input=given,
            metric=layer.metric,
            threshold=layer.threshold,
            options=layer.options,
            marks=marks,
            source=source,
            repeat=layer.repeat,
            file_sha256=where.sha256,
            agent=agent,
            path_origins=origins,
            judge_labels=judge_labels_of(
                data, lambda why: where.error(lines.get("judge_labels", line), name + why), expected
            ),
        )

    def _expected(
        self,
        data: Mapping[str, object],
        lines: Mapping[str, int],
        line: int,
        where: _Where,
        name: str,
    ) -> object:
        """A case's expected: a mapping or a list; missing while creating, or (None) an agent's."""
        if "expected" not in data and any(key in data for key in AGENT_KEYS):
            return None
        if "expected" not in data and not self.creating:
            raise where.error(
                line,
                f"{name}missing 'expected' (the mapping the output should match){_CREATE_HINT}",
            )
        expected = data.get("expected", NO_EXPECTED)
        if expected is not NO_EXPECTED and not isinstance(expected, (Mapping, list)):
            raise where.error(
                lines["expected"], f"{name}expected must be a mapping, not {kind_of(expected)}"
            )
        return expected


_ID_PATHS = (("id",), ("cases", "[]", "id"))  # where a case's id is given


def _case_above(text: str, line: int) -> str:
    """`` in case 'x'``: the case a YAML syntax error at ``line`` falls in, the last id given
    above it (the file could not be read: its events up to the error are all there is);
    empty when none is."""
    ids = [value for keys, value in keys_before(text, line) if keys in _ID_PATHS]
    return f" in case {ids[-1]!r}" if ids and ids[-1] else ""


def _case_id(case_id: object, line: int, where: _Where) -> str:
    """A case's id (a number is taken as its text): non-empty, and fit for a test id pytest
    prints as it is (node_ids.py: one printable line, no '::', no '##[')."""
    if isinstance(case_id, int) and not isinstance(case_id, bool):
        case_id = str(case_id)
    if not isinstance(case_id, str) or not case_id.strip() or not fits_test_id(case_id):
        raise where.error(
            line,
            f"case id must be a non-empty one-line string without '::' or '##[', not {case_id!r}",
        )
    return case_id


def _actual(
    data: Mapping[str, object], lines: Mapping[str, int], where: _Where, name: str, source: Source
) -> tuple[object, Path | None]:
    """The output a case gives itself (``actual``: a mapping, a list or the model's text),
    or the file holding it (``actual_file``, inside the test root)."""
    actual = data.get("actual")
    if source == "actual" and not isinstance(actual, (Mapping, list, str)):
        raise where.error(
            lines["actual"],
            f"{name}actual must be a mapping or the model's text, not {kind_of(actual)}",
        )
    if source == "actual_file":
        return actual, where.inside_root(data["actual_file"], lines["actual_file"], "actual_file")
    return actual, None


def _source(data: Mapping[str, object], line: int, where: _Where, name: str) -> Source:
    """Which one key gives the actual output."""
    given = [k for k in SOURCE_KEYS if k in data]
    if len(given) != 1:
        found = " and ".join(given) if given else "none"
        raise where.error(
            line, f"{name}give exactly one of actual, actual_file, input (found {found})"
        )
    return "actual" if given[0] == "actual" else "input" if given[0] == "input" else "actual_file"


class _Where:
    """A file being read: its path, the name shown in errors, the test root and (a case
    file's) the SHA-256 of its bytes."""

    def __init__(self, path: Path, display: str, root: Path, sha256: str = "") -> None:
        self.path, self.display, self.root, self.sha256 = path, display, root, sha256

    def error(self, line: int, message: str) -> CaseFileError:
        return CaseFileError(f"{self.display}:{line}: {message}")

    def inside_root(self, value: object, line: int, what: str) -> Path:
        """A path given relative to this file; it must exist and stay inside the test root
        (a shared suite must not read files elsewhere on the machine)."""
        if not isinstance(value, str) or not value:
            raise self.error(line, f"{what} must be a path (a string), not {kind_of(value)}")
        resolved = (self.path.parent / value).resolve()
        if not resolved.is_relative_to(self.root):
            raise self.error(
                line, f"{what} {value!r} points outside the test root {str(self.root)!r}"
            )
        kind = not_regular(resolved)
        if kind is not None:
            raise self.error(
                line, f"{what} {value!r} is not a regular file ({kind}: {str(resolved)!r})"
            )
        if not resolved.is_file():
            raise self.error(
                line, f"{what} {value!r} does not exist (looked for {str(resolved)!r})"
            )
        return resolved


def _no_unknown(
    data: Mapping[str, object],
    known: frozenset[str],
    lines: Mapping[str, int],
    where: _Where,
    what: str,
) -> None:
    for key in data:
        if key not in known:
            raise where.error(
                lines.get(key, 1),
                f"{what}: unknown key {key!r}"
                f"{did_you_mean(key, known)}; "
                f"known keys: {', '.join(sorted(known))}",
            )


def _marks(spec: object, line: int, where: _Where, prefix: str = "") -> tuple[MarkSpec, ...]:
    try:
        return marks_from(spec)
    except MarkError as exc:
        raise where.error(line, f"{prefix}{exc}") from None
