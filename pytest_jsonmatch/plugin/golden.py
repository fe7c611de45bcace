"""YAML golden case files -> pytest items: loading, defaults, targets, errors with lines.

A case file is read in three steps: the C YAML parser composes a node tree (fast, no Python
objects built yet), ``_check_tree`` walks that tree once for what a safe loader still lets
through (tags that are not plain JSON, non-string and duplicate keys, alias bombs), and only
then are values constructed. Every mistake becomes a :class:`CaseFileError` whose text is the
whole report, ``path:line: what is wrong``, shown by pytest as a collection error.

Nothing here imports yaml or the engine until a file is known to be a case file: pytest
offers every file of the tree to ``collect_file``, and a session without case files must not
pay for them.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from ..engine.core.errors import CaseFileError, JsonMatchError, did_you_mean, printable
from ..engine.reading.user_files import not_regular, read_regular, read_regular_text
from ..engine.reading.safe_yaml import item_nodes, key_lines, line_of, read_yaml
from ..engine.schemas.loading import references_confined_to
from . import case_marks, recorded_outputs
from . import channel

CASE_SUFFIXES = (".jsonmatch.yaml", ".jsonmatch.yml")
DEFAULTS_NAMES = ("jsonmatch.yaml", "jsonmatch.yml")
SETTING_KEYS = ("metric", "threshold", "options", "schema", "repeat")
CASE_KEYS = frozenset({"id", "description", "expected", "actual", "actual_file", "input",
                       "metric", "threshold", "options", "marks", "repeat"})
MAX_REPEAT = 1000
SOURCE_KEYS = ("actual", "actual_file", "input")
FILE_KEYS = frozenset({*SETTING_KEYS, "cases", "marks", "description"})

# A case written without 'expected', to be filled in by --jsonmatch-update=create.
NO_EXPECTED: Any = type("NoExpected", (), {"__repr__": lambda self: "<no expected yet>"})()
_CREATE_HINT = "; run pytest with --jsonmatch-update=create to write it from the actual output"

_DIRS_KEY = pytest.StashKey[tuple[str, ...]]()
_DEFAULTS_KEY = pytest.StashKey[dict[str, Any]]()
_TARGET_KEY = pytest.StashKey[Any]()


@dataclass(frozen=True)
class GoldenCase:
    """One golden case, defaults applied. ``line`` is 1-based; ``source`` says which of
    ``actual``, ``actual_file`` (an absolute path) or ``input`` gives the actual output."""

    id: str
    path: Path
    line: int
    description: str = ""
    expected: Any = None
    actual: Any = None
    actual_file: Path | None = None
    input: Any = None
    metric: str | None = None
    threshold: float | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    marks: tuple[Any, ...] = ()
    source: str = "actual"
    repeat: int | None = None  # runs of an ``input`` case's target (None: the session's)
    file_sha256: str = ""  # of the case file's bytes as collection read them


def add_options(parser: pytest.Parser) -> None:
    parser.addini("jsonmatch_golden", type="paths", default=[],
                  help="jsonmatch: folders whose .yaml/.yml files are golden case files")
    parser.addini("jsonmatch_target", type="string", default="",
                  help="jsonmatch: package.module:function producing actual output from a "
                       "golden case's input (may be async)")


def _session(config: pytest.Config) -> Any:
    """The session object of the plugin (session.py), or None."""
    return config.pluginmanager.get_plugin("jsonmatch-session")


def _channel(config: pytest.Config) -> channel.Channel:
    """The channel of ``config``'s session, where its cases' comparisons go (the current
    one should the session object be missing)."""
    session = _session(config)
    return session.channel if session is not None else channel.current()


def _update_mode(config: pytest.Config) -> str | None:
    session = _session(config)
    return session.settings.update if session is not None else None


# -- which files ------------------------------------------------------------------------------


def collect_file(file_path: Path, parent: pytest.Collector) -> GoldenFile | None:
    name = file_path.name
    if not name.endswith((".yaml", ".yml")) or name in DEFAULTS_NAMES:
        return None  # the cheap test first: most files a session sees end here
    if name.endswith(CASE_SUFFIXES) or _under_golden_dir(file_path, parent.config):
        return GoldenFile.from_parent(parent, path=file_path)
    return None


def _under_golden_dir(file_path: Path, config: pytest.Config) -> bool:
    dirs = config.stash.get(_DIRS_KEY, None)
    if dirs is None:
        try:
            paths = config.getini("jsonmatch_golden")
        except ValueError:  # the ini option is not registered (plugin half-loaded)
            paths = []
        dirs = tuple(os.path.join(os.path.abspath(p), "") for p in paths)
        config.stash[_DIRS_KEY] = dirs
    text = str(file_path)
    return any(text.startswith(d) for d in dirs)


# -- reading YAML -----------------------------------------------------------------------------


# -- settings and defaults --------------------------------------------------------------------


class _Where:
    """A file being read: its path, the name shown in errors, and the test root."""

    def __init__(self, path: Path, display: str, root: Path) -> None:
        self.path, self.display, self.root = path, display, root

    def error(self, line: int, message: str) -> CaseFileError:
        return CaseFileError(f"{self.display}:{line}: {message}")

    def inside_root(self, value: Any, line: int, what: str) -> Path:
        """A path given relative to this file; it must exist and stay inside the test root
        (a shared suite must not read files elsewhere on the machine)."""
        if not isinstance(value, str) or not value:
            raise self.error(line, f"{what} must be a path (a string), not {_kind(value)}")
        resolved = (self.path.parent / value).resolve()
        if not resolved.is_relative_to(self.root):
            raise self.error(line, f"{what} {value!r} points outside the test root {str(self.root)!r}")
        kind = not_regular(resolved)
        if kind is not None:
            raise self.error(line, f"{what} {value!r} is not a regular file ({kind}: {str(resolved)!r})")
        if not resolved.is_file():
            raise self.error(line, f"{what} {value!r} does not exist (looked for {str(resolved)!r})")
        return resolved


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string",
             list: "a list", dict: "a mapping", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _layered(data: Mapping[str, Any], lines: Mapping[str, int], where: _Where,
              inherited: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A case's metric, threshold, options and schema: ``inherited`` with this level's laid over
    it.
    Options merge key by key, so a folder may set ``ignore`` and a case add ``fields``."""
    options: dict[str, Any] = dict(inherited.get("options") or {})
    out: dict[str, Any] = {"metric": inherited.get("metric"), "repeat": inherited.get("repeat"),
                           "threshold": inherited.get("threshold"), "options": options}
    if "metric" in data:
        if not isinstance(data["metric"], str) or not data["metric"]:
            raise where.error(lines["metric"], f"{prefix}metric must be a metric name, not {_kind(data['metric'])}")
        out["metric"] = data["metric"]
    if "threshold" in data:
        t = data["threshold"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 1:
            raise where.error(lines["threshold"], f"{prefix}threshold must be a number in [0, 1], not {t!r}")
        out["threshold"] = float(t)
    if "repeat" in data:
        n = data["repeat"]
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_REPEAT:
            raise where.error(lines["repeat"], f"{prefix}repeat must be a whole number from 1 to "
                                               f"{MAX_REPEAT}, not {n!r}")
        out["repeat"] = n
    if "options" in data:
        opts = data["options"]
        if not isinstance(opts, Mapping):
            raise where.error(lines["options"], f"{prefix}options must be a mapping, not {_kind(opts)}")
        clash = sorted({"metric", "threshold"} & set(opts))
        if clash:
            raise where.error(lines["options"], f"{prefix}options may not set {clash[0]!r}; give it beside options")
        options.update(opts)
        if isinstance(opts.get("schema"), str):
            options["schema"] = str(where.inside_root(opts["schema"], lines["options"], "schema"))
    if "schema" in data:
        schema = data["schema"]  # null drops a schema inherited from a folder
        if schema is not None and not isinstance(schema, Mapping):
            schema = str(where.inside_root(schema, lines["schema"], "schema"))
        options["schema"] = schema
    return out


def _folder_defaults(directory: Path, config: pytest.Config) -> dict[str, Any]:
    """Defaults from every ``jsonmatch.yaml`` between the test root and ``directory``,
    merged outward-in so the nearest folder wins. Cached per folder, errors included."""
    cache = config.stash.setdefault(_DEFAULTS_KEY, {})
    key = str(directory)
    if key in cache:
        if isinstance(cache[key], CaseFileError):
            raise cache[key]
        return cache[key]
    root = config.rootpath
    inherited: dict[str, Any] = {}
    if directory != root and directory.is_relative_to(root):
        inherited = _folder_defaults(directory.parent, config)
    try:
        cache[key] = _read_defaults(directory, config, inherited)
    except CaseFileError as exc:
        cache[key] = exc
        raise
    return cache[key]


def _read_defaults(directory: Path, config: pytest.Config, inherited: dict[str, Any]) -> dict[str, Any]:
    for name in DEFAULTS_NAMES:
        path = directory / name
        if path.is_file():
            where = _Where(path, _display(path, config), config.rootpath)
            data, root = read_yaml(path, where.display)
            if not isinstance(data, Mapping):
                raise where.error(1, f"a defaults file holds a mapping of {', '.join(SETTING_KEYS)}")
            lines = key_lines(root)
            _no_unknown(data, frozenset(SETTING_KEYS), lines, where, "defaults file")
            return _layered(data, lines, where, inherited)
    return inherited


def _no_unknown(data: Mapping[str, Any], known: frozenset[str], lines: Mapping[str, int],
                where: _Where, what: str) -> None:
    for key in data:
        if key not in known:
            raise where.error(lines.get(key, 1), f"{what}: unknown key {key!r}"
                                                 f"{did_you_mean(key, known)}; "
                                                 f"known keys: {', '.join(sorted(known))}")


def _display(path: Path, config: pytest.Config) -> str:
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return str(path)


# -- cases ------------------------------------------------------------------------------------


def _max_cases(config: pytest.Config) -> int:
    text = str(config.getini("jsonmatch_max_cases") or "").strip()
    if not text.isdigit() or int(text) < 1:
        raise pytest.UsageError(f"pytest-jsonmatch: jsonmatch_max_cases must be a whole number of "
                                f"cases, 1 or more, not {text!r}")
    return int(text)


def load_cases(path: Path, config: pytest.Config) -> list[GoldenCase]:
    """Every case of one file, validated and with its defaults applied, each knowing the
    SHA-256 of the file's bytes (an update refuses to write over a file changed since)."""
    digest = hashlib.sha256(read_regular(path, "case file", CaseFileError,
                                         shown=_display(path, config))).hexdigest()
    return [replace(case, file_sha256=digest) for case in _load_cases(path, config)]


def _load_cases(path: Path, config: pytest.Config) -> list[GoldenCase]:
    where = _Where(path, _display(path, config), config.rootpath)
    data, root = read_yaml(path, where.display)
    if not isinstance(data, Mapping):
        raise where.error(1, f"a case file holds a mapping with 'expected' (one case) or "
                             f"'cases' (a list), not {_kind(data)}")
    lines = key_lines(root)
    inherited = _folder_defaults(path.parent, config)
    creating = _update_mode(config) == "create"
    if "cases" not in data:
        # an unknown key first: a misspelt 'expected' is reported as the typo it is
        _no_unknown(data, CASE_KEYS | {"schema"}, lines, where, "case")
        has_source = any(k in data for k in SOURCE_KEYS)
        if "expected" not in data and not (creating and has_source):
            raise where.error(1, "missing 'expected' (one case) or 'cases' (a list of cases)"
                                 + (_CREATE_HINT if has_source else ""))
        settings = _layered(data, lines, where, inherited)
        default_id = path.name.split(".")[0]
        return [_case(data, lines, 1, where, settings, default_id, (), creating)]
    if "expected" in data:
        raise where.error(lines["expected"], "give either 'expected' (one case) or 'cases', not both")
    _no_unknown(data, FILE_KEYS, lines, where, "file")
    settings = _layered(data, lines, where, inherited)
    file_marks = _marks(data.get("marks"), lines.get("marks", 1), where)
    cases, nodes = data["cases"], item_nodes(root, "cases")
    if not isinstance(cases, list) or not cases:
        raise where.error(lines["cases"], f"cases must be a non-empty list of cases, not {_kind(cases) if cases != [] else 'an empty list'}")
    limit = _max_cases(config)
    if len(cases) > limit:
        raise where.error(lines["cases"], f"{len(cases):,} cases in one file, more than "
                                          f"jsonmatch_max_cases ({limit:,}); split the file, or "
                                          f"raise the setting")
    out: list[GoldenCase] = []
    first_line: dict[str, int] = {}
    for case, node in zip(cases, nodes):
        line = line_of(node)
        if not isinstance(case, Mapping):
            raise where.error(line, f"each case is a mapping with id and expected, not {_kind(case)}")
        if "id" not in case:
            raise where.error(line, "case without 'id' (every case in a 'cases' list needs one)")
        made = _case(case, key_lines(node), line, where, settings, None, file_marks, creating)
        if made.id in first_line:
            raise where.error(line, f"duplicate case id {made.id!r} (first used at line {first_line[made.id]})")
        first_line[made.id] = line
        out.append(made)
    return out


def _case(data: Mapping[str, Any], lines: Mapping[str, int], line: int, where: _Where,
          inherited: Mapping[str, Any], default_id: str | None, file_marks: tuple[Any, ...],
          creating: bool = False) -> GoldenCase:
    case_id = data.get("id", default_id)
    if isinstance(case_id, int) and not isinstance(case_id, bool):
        case_id = str(case_id)
    if not isinstance(case_id, str) or not case_id.strip() or "::" in case_id or not case_id.isprintable():
        raise where.error(lines.get("id", line), f"case id must be a non-empty one-line string "
                                                 f"without '::', not {case_id!r}")
    name = f"case {case_id!r}: "
    _no_unknown(data, CASE_KEYS | ({"schema"} if default_id else frozenset()), lines, where, name[:-2])
    if "expected" not in data and not creating:
        raise where.error(line, f"{name}missing 'expected' (the mapping the output should "
                                f"match){_CREATE_HINT}")
    expected = data.get("expected", NO_EXPECTED)
    if expected is not NO_EXPECTED and not isinstance(expected, (Mapping, list)):
        raise where.error(lines["expected"], f"{name}expected must be a mapping, not {_kind(expected)}")
    given = [k for k in SOURCE_KEYS if k in data]
    if len(given) != 1:
        found = " and ".join(given) if given else "none"
        raise where.error(line, f"{name}give exactly one of actual, actual_file, input (found {found})")
    source = given[0]
    actual, actual_file = data.get("actual"), None
    if source == "actual" and not isinstance(actual, (Mapping, list, str)):
        raise where.error(lines["actual"], f"{name}actual must be a mapping or the model's text, not {_kind(actual)}")
    if source == "actual_file":
        actual_file = where.inside_root(data["actual_file"], lines["actual_file"], "actual_file")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise where.error(lines["description"], f"{name}description must be a string, not {_kind(description)}")
    settings = _layered(data, lines, where, inherited, prefix=name) if default_id is None else inherited
    marks = file_marks + _marks(data.get("marks"), lines.get("marks", line), where, name)
    return GoldenCase(case_id, where.path, line, description, expected, actual, actual_file,
                      data.get("input"), settings["metric"], settings["threshold"],
                      settings["options"], marks, source, settings["repeat"])


def _marks(spec: Any, line: int, where: _Where, prefix: str = "") -> tuple[Any, ...]:
    try:
        return case_marks.marks_from(spec)
    except case_marks.MarkError as exc:
        raise where.error(line, f"{prefix}{exc}") from None


# -- targets ----------------------------------------------------------------------------------


def produce_output(case: GoldenCase, config: pytest.Config, repeat: int = 0, runs: int = 1,
                   record: str = "off", live: Callable[[int], Any] | None = None,
                   figures: list[Any] | None = None) -> tuple[Any, str, str]:
    """The output of run ``repeat`` of a case: (output, where it came from, what was recorded).
    Given in the case or its file; for ``input`` cases, made by the target or replayed from a
    recording, by the record mode (recorded_outputs.py). ``live(repeat)`` makes the call
    (the session's runner: runner.py) and gives its ``Done``; the call's figures (latency,
    attempts, usage), or a replayed recording's, are appended to ``figures``."""
    if case.source == "actual":
        return case.actual, "case", ""
    if case.source == "actual_file":
        assert case.actual_file is not None
        return read_regular_text(case.actual_file, "actual_file", CaseFileError), "case", ""
    call = live if live is not None else (lambda k: direct_call(case, config))
    if record == "off":
        return _live_output(call(repeat), figures), "live", ""
    path = recording_of(case, config, repeat, runs)
    existing = recorded_outputs.read_recording(path) if record != "all" else None
    if existing is not None and existing.input_sha256 == recorded_outputs.input_digest(case.input):
        if figures is not None:
            figures.append(existing.call)
        return existing.output, "replayed", ""
    shown = recorded_outputs.relative(path, config.rootpath)
    if record == "none":
        if existing is None:
            raise CaseFileError(f"no recording of this case ({shown}): record it with "
                                f"--jsonmatch-record=once")
        raise CaseFileError(f"the recording {shown} is stale (the case's input changed since it "
                            f"was recorded): re-record it with --jsonmatch-record=once")
    done = call(repeat)
    output = _live_output(done, figures)
    # written here, by the test that consumes the output (never by the thread that made it)
    recorded_outputs.write_recording(path, case.id, case.input, output, repeat,
                                     done.figures.to_dict())
    return output, "live", "stale" if existing is not None else "recorded"


def recording_of(case: GoldenCase, config: pytest.Config, repeat: int, runs: int) -> Path:
    return recorded_outputs.inside_root(
        recorded_outputs.recording_path(case.path, case.id, repeat, runs), config.rootpath)


def needs_call(case: GoldenCase, config: pytest.Config, repeat: int, runs: int,
               record: str) -> bool:
    """Whether run ``repeat`` of a case calls the target (not replayed, not given)."""
    if case.source != "input" or record == "none":
        return False
    if record in ("off", "all"):
        return True
    existing = recorded_outputs.read_recording(recording_of(case, config, repeat, runs))
    return existing is None or existing.input_sha256 != recorded_outputs.input_digest(case.input)


def _live_output(done: Any, figures: list[Any] | None) -> Any:
    if figures is not None:
        figures.append(done.figures)
    if done.error is not None:
        raise done.error
    return done.value


def direct_call(case: GoldenCase, config: pytest.Config) -> Any:
    """One call made now, serially, without a session's runner (no timeout, no retries)."""
    from .runner import Runner

    runner = Runner(1)
    try:
        return runner.take(("direct", case.id), lambda awaited: target_call(case, config, awaited))
    finally:
        runner.close()


def target_call(case: GoldenCase, config: pytest.Config, awaited: Callable[[Any], Any]) -> Any:
    """The target's output for a case's input: the hook's answer, else the ini target's. An
    awaitable a target returns is run by ``awaited``; an async hook that answers None leaves
    the case to the ini target too."""
    result = awaited(config.hook.pytest_jsonmatch_target(case=case, config=config))
    if result is None:
        result = awaited(_ini_target(config)(case.input))
    return result


def call_target(case: GoldenCase, config: pytest.Config) -> Any:
    """The target's output for a case's input, called now (see :func:`target_call`)."""
    done = direct_call(case, config)
    if done.error is not None:
        raise done.error
    output = done.value
    return output


def _ini_target(config: pytest.Config) -> Any:
    """The function named by ini ``jsonmatch_target`` (imported once per session)."""
    cached = config.stash.get(_TARGET_KEY, None)
    if cached is not None:
        return cached
    try:
        spec = config.getini("jsonmatch_target")
    except ValueError:
        spec = ""
    if not spec:
        raise CaseFileError("this case gives 'input' but no target makes output from it: set ini "
                            "jsonmatch_target = package.module:function, or implement the hook "
                            "pytest_jsonmatch_target in a conftest.py")
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise CaseFileError(f"jsonmatch_target {spec!r} must look like package.module:function")
    try:
        target = getattr(importlib.import_module(module_name.strip()), attr.strip())
    except ModuleNotFoundError as exc:
        raise CaseFileError(f"jsonmatch_target {spec!r}: cannot import {exc.name!r} (is its folder "
                            f"on sys.path? the ini option pythonpath = . adds the root)") from None
    except AttributeError:
        raise CaseFileError(f"jsonmatch_target {spec!r}: module {module_name!r} has no {attr!r}") from None
    if not callable(target):
        raise CaseFileError(f"jsonmatch_target {spec!r} is not callable")
    config.stash[_TARGET_KEY] = target
    return target


# -- pytest nodes -----------------------------------------------------------------------------


class GoldenFile(pytest.File):
    """A YAML case file; each case becomes a :class:`GoldenItem`."""

    def collect(self) -> Iterator[GoldenItem]:
        for case in load_cases(self.path, self.config):
            yield GoldenItem.from_parent(self, name=case.id, case=case)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, JsonMatchError):
            return printable(str(excinfo.value))  # the whole report; a traceback adds nothing
        return super().repr_failure(excinfo)


def _repeat_summary(scores: list[float], threshold: float, rule: str) -> str:
    passed = sum(score >= threshold - 1e-9 for score in scores)
    mean = sum(scores) / len(scores)
    return (f"repeated case failed ({rule}): mean score {mean:.4f} over {len(scores)} runs, "
            f"{passed}/{len(scores)} at or above threshold {threshold:.4f} "
            f"(runs: {', '.join(f'{s:.4f}' for s in scores)})")


class GoldenItem(pytest.Item):
    """One golden case: produce the actual output, then ``assert_json_match`` it."""

    def __init__(self, *, case: GoldenCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        for mark in case.marks:
            self.add_marker(mark)

    def runtest(self) -> None:
        from .assertion import compare_and_record, failure

        case, session = self.case, _session(self.config)
        session_channel = _channel(self.config)
        defaults = session_channel.defaults
        record = session.settings.record if session is not None else "off"
        update = session.settings.update if session is not None else None
        runs = self.runs()
        outputs, results = [], []
        live = session.live_call(self) if session is not None else None
        for repeat in range(runs):
            figures: list[Any] = []
            try:
                output, source, recorded = produce_output(case, self.config, repeat, runs, record,
                                                          live, figures)
            except Exception as exc:
                # the case was attempted and not scored: it counts, as an error
                if session is not None and figures:
                    session.note_call(self, repeat, figures[0])
                session_channel.record(channel.Outcome(
                    case.metric or defaults.metric, case.threshold if case.threshold is not None
                    else defaults.threshold, error=channel.one_line(exc), repeat=repeat,
                    source="live" if case.source == "input" else "case"))
                raise
            outputs.append(output)
            if session is not None and figures:
                session.note_call(self, repeat, figures[0])
            if case.expected is not NO_EXPECTED:  # (none: --jsonmatch-update=create)
                with references_confined_to(self._schema_dirs(), "jsonmatch_schema_dirs"):
                    results.append(compare_and_record(output, case.expected, case.metric,
                                                      case.threshold, case.options,
                                                      session_channel, repeat, source, recorded))
        passed = self._passed(results)
        # "all" rewrites a case that does not score 1.0 (an output spelt otherwise but scoring
        # 1.0 is a right answer: its expected stays as the reviewer wrote it)
        if case.expected is NO_EXPECTED or (update == "fix" and not passed) or (
                update == "all" and results and results[0][0].score < 1.0):
            self._update(outputs[0], session)
            return
        if not passed:
            worst, limit = min(results, key=lambda pair: pair[0].score)
            if runs == 1:
                raise failure(worst, limit, defaults.verbosity)
            rule = self.config.getini("jsonmatch_repeat_pass") or "mean"
            raise AssertionError(_repeat_summary([r.score for r, _ in results], limit, rule)
                                 + "\nthe worst run:\n"
                                 + str(failure(worst, limit, defaults.verbosity)))

    def _schema_dirs(self) -> list[Path]:
        """Where the ``$ref``s of a case file's schema may read: the test root, and the
        folders ``jsonmatch_schema_dirs`` lists (a case file may come from an untrusted pull
        request; it must not read the machine's other files)."""
        return [self.config.rootpath, *self.config.getini("jsonmatch_schema_dirs")]

    def _passed(self, results: list[Any]) -> bool:
        """Whether the runs pass: the one run's verdict, or the repeat rule's."""
        from ..reporting.aggregate import case_passes

        if not results:
            return True
        if len(results) == 1:
            result, limit = results[0]
            return bool(result.passed(limit))
        rule = self.config.getini("jsonmatch_repeat_pass") or "mean"
        return not any(result.floor_failures for result, _ in results) and case_passes(
            [result.score for result, _ in results], results[0][1], rule)

    def _parsed(self, output: Any) -> Any:
        """An output as the JSON value it holds (model text parsed leniently)."""
        from ..engine.metrics import metric_named
        from ..engine.reading.intake import read_json
        from ..engine.reading.parse import parse_actual

        metric = metric_named(self.case.metric or _channel(self.config).defaults.metric)
        return read_json(parse_actual(output, allow_array=metric.allow_array), "actual")[0]

    def _update(self, output: Any, session: Any) -> None:
        """Ask for this case's expected to become ``output`` (written at the end of the
        session, by the controller under xdist)."""
        case = self.case
        session.pending_updates.append({
            "path": str(case.path), "display": _display(case.path, self.config),
            "case_id": case.id, "line": case.line, "value": self._parsed(output),
            "default_id": case.path.name.split(".")[0], "sha256": case.file_sha256,
            "root": str(self.config.rootpath)})

    def runs(self) -> int:
        """How many times the case's target runs: only ``input`` cases repeat."""
        if self.case.source != "input":
            return 1
        if self.case.repeat is not None:
            return self.case.repeat
        session = _session(self.config)
        return session.settings.repeat or 1 if session is not None else 1

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.case.line - 1, f"{self.case.id} (line {self.case.line})"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        exc = excinfo.value
        if isinstance(exc, AssertionError):
            # the message's first line (metric, score, threshold) is what the short summary shows
            about = f"\ncase: {printable(self.case.description)}" if self.case.description else ""
            return str(exc) + about
        if isinstance(exc, JsonMatchError):
            where = f"{_display(self.path, self.config)}:{self.case.line}"
            return f"{where}: case {self.case.id!r}: {printable(str(exc))}"
        return super().repr_failure(excinfo)
