"""What a folder's ``jsonmatch.yaml``, a file of cases and a case each set for the cases below
them (metric, threshold, repeat, options, schema, call and run options), laid over what is
inherited; and where each path an option names was set (cases/typos.py judges a folder's or
a file's paths over all the cases they apply to).

One rule lays options over options at every level (:func:`merged_options`): the session's
``jsonmatch_options``, each folder's, the file's, the case's, and the keywords of
``assert_json_match`` over the session's. A nearer level adds to what it inherits and wins
only where it sets the same thing, down to one field's one setting, so that a file's
``fields: {lines: ...}`` never drops a folder's ``fields: {note: ...}``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from ..engine.core.errors import CaseFileError
from ..engine.core.slotted import Slotted
from .agent_expectations import call_options_of
from .option_merge import ignore_patterns, merged_options
from .python_names import with_named_tools


class Where(Protocol):
    """The file being read, as case_files.py's ``_Where`` gives it: the name errors show,
    its errors, and a path it names that must stay inside the test root."""

    display: str

    def error(self, line: int, message: str) -> CaseFileError: ...

    def inside_root(self, value: object, line: int, what: str) -> Path: ...


MAX_REPEAT = 1000


class Layer(Slotted):
    """What a folder, a file or a case sets for the cases below it. (Slotted, not a
    dataclass: one is made for each case.)"""

    __slots__ = (
        "metric",
        "threshold",
        "repeat",
        "options",
        "call_options",
        "run_options",
        "origins",
    )

    def __init__(
        self,
        metric: str | None = None,
        threshold: float | None = None,
        repeat: int | None = None,
        options: Mapping[str, object] | None = None,  # None: none (as each mapping below)
        call_options: Mapping[str, object] | None = None,
        run_options: Mapping[str, object] | None = None,
        origins: Mapping[str, str] | None = None,  # GoldenCase.path_origins
    ) -> None:
        self.metric, self.threshold, self.repeat = metric, threshold, repeat
        self.options: Mapping[str, object] = {} if options is None else options
        self.call_options: Mapping[str, object] = {} if call_options is None else call_options
        self.run_options: Mapping[str, object] = {} if run_options is None else run_options
        self.origins: Mapping[str, str] = {} if origins is None else origins


def path_origins(given: Mapping[str, object], origin: str) -> dict[str, str]:
    """Where each path ``given`` (a level's options) names was set, keyed as cases/typos.py
    looks them up: ``ignore PATTERN``, ``fields PATTERN`` and ``align`` (the key field of
    every array). ``origin``: ``file:line`` of a shared level's setting, "" a case's own."""
    out: dict[str, str] = {}
    for text in ignore_patterns(given.get("ignore")) or ():
        out[f"ignore {text}"] = origin
    fields = given.get("fields")
    for pattern in fields if isinstance(fields, Mapping) else ():
        out[f"fields {pattern}"] = origin
    if "align" in given:
        out["align"] = origin
    return out


def kind_of(value: object) -> str:
    names = {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def layered(
    data: Mapping[str, object],
    lines: Mapping[str, int],
    where: Where,
    inherited: Layer,
    prefix: str = "",
    shared: bool = False,
) -> Layer:
    """A case's metric, threshold, options and schema: ``inherited`` with this level's laid
    over it. Options merge as :func:`merged_options` says, so a folder may set ``ignore`` and
    ``fields`` and a case add its own of both. ``shared``: this level is a folder's or a
    file's, for several cases (the origin of the paths its options name)."""
    options: dict[str, object] = dict(inherited.options)
    metric, threshold, repeat = inherited.metric, inherited.threshold, inherited.repeat
    if "metric" in data:
        given = data["metric"]
        if not isinstance(given, str) or not given:
            raise where.error(
                lines["metric"], f"{prefix}metric must be a metric name, not {kind_of(given)}"
            )
        metric = given
    if "threshold" in data:
        t = data["threshold"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= 1:
            raise where.error(
                lines["threshold"], f"{prefix}threshold must be a number in [0, 1], not {t!r}"
            )
        threshold = float(t)
    if "repeat" in data:
        n = data["repeat"]
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_REPEAT:
            raise where.error(
                lines["repeat"],
                f"{prefix}repeat must be a whole number from 1 to {MAX_REPEAT}, not {n!r}",
            )
        repeat = n
    if "options" in data:
        opts = data["options"]
        if not isinstance(opts, Mapping):
            raise where.error(
                lines["options"], f"{prefix}options must be a mapping, not {kind_of(opts)}"
            )
        clash = sorted({"metric", "threshold"} & set(opts))
        if clash:
            raise where.error(
                lines["options"],
                f"{prefix}options may not set {clash[0]!r}; give it beside options",
            )
        own = with_named_tools(opts, lambda m: where.error(lines["options"], prefix + m))
        options = merged_options(options, own)
        if isinstance(opts.get("schema"), str):
            options["schema"] = str(where.inside_root(opts["schema"], lines["options"], "schema"))
    if "schema" in data:
        schema = data["schema"]  # null drops a schema inherited from a folder
        if schema is not None and not isinstance(schema, Mapping):
            schema = str(where.inside_root(schema, lines["schema"], "schema"))
        options["schema"] = schema
    calls = call_options_of(data, lines, where.error, inherited.call_options, prefix)
    runs = call_options_of(data, lines, where.error, inherited.run_options, prefix, "run_options")
    origins = inherited.origins  # (shared with the level above unless this one names paths)
    given = data.get("options")
    named = (
        path_origins(given, f"{where.display}:{lines['options']}" if shared else "")
        if isinstance(given, Mapping)
        else {}
    )
    if named:
        origins = {**origins, **named}
    return Layer(metric, threshold, repeat, options, calls, runs, origins)
