"""The plugin's settings, listed once: each one's name, help, ini type and default, and
whether it has a flag. plugin/settings.py declares them to pytest and reads them; the list
itself needs no pytest (tests and the docs' checks read the helps).
"""

from __future__ import annotations

from typing import Literal

from ..engine.core.slotted import Slotted
from ..reporting.render.formats import files_help
from ..reporting.verdicts.gate_specs import plugin_help
from .setting_parts import PREFIX

IniType = Literal["string", "paths", "linelist", "args", "bool"]


class Setting(Slotted):  # (not a dataclass nor a NamedTuple: made at every start, unused)
    """One setting: ini ``jsonmatch_<name>`` of ``ini`` type (None: a flag only) and, when
    ``metavar`` is given, the flag ``--jsonmatch-<name>`` (``append``: given many times)."""

    __slots__ = ("name", "help", "ini", "default", "metavar", "append")

    def __init__(
        self,
        name: str,
        help: str,
        ini: IniType | None = "string",
        default: str | bool | list[str] = "",
        metavar: str | None = None,
        append: bool = False,
    ) -> None:
        self.name, self.help, self.ini, self.default = name, help, ini, default
        self.metavar, self.append = metavar, append

    @property
    def key(self) -> str:
        return PREFIX + self.name

    @property
    def flag(self) -> str:
        return "--jsonmatch-" + self.name.replace("_", "-")


SETTINGS = (
    Setting(
        "golden",
        "folders whose .yaml/.yml files are golden case files; schema_dirs=PATH (once "
        "a folder) lets a case's schema $refs read a folder outside the test root, "
        "max_cases=N bounds the cases of one file (default 10000)",
        "args",
        [],
    ),
    Setting(
        "target",
        "package.module:function producing actual output from a golden case's input (may be async)",
        metavar="MODULE:FUNCTION",
    ),
    Setting(
        "targets",
        "several named targets, one 'NAME = package.module:function' a line "
        "(calls keys may follow: 'concurrency=2 rate=60/min'); every 'input:' "
        "case runs once per target, as 'case[NAME]'; the flag selects which "
        "run: a,b",
        "linelist",
        [],
        metavar="NAME,NAME",
    ),
    Setting(
        "reference",
        "the target the others are held to, case by case and field by field, "
        "by the max_drop rules of jsonmatch_gates; latency_p95=1.2x and cost=0.50 (or 1.5x) "
        "bound the others' p95 latency and total cost",
        metavar="NAME [latency_p95=LIMIT] [cost=LIMIT]",
    ),
    Setting(
        "metric",
        "default metric of assertions and cases (default: field_f1)",
        default="field_f1",
        metavar="NAME",
    ),
    Setting(
        "threshold",
        "default threshold a comparison's score must reach (default: 1.0)",
        default="1.0",
        metavar="SCORE",
    ),
    Setting("options", 'default metric options, a JSON or YAML mapping (e.g. {"ignore": ["id"]})'),
    Setting(
        "record",
        "record and replay the outputs of 'input:' golden cases, as vcrpy does: "
        "off (call the target), once, none (replay only) or all (re-record); "
        "files=GLOB and fingerprint=MODULE:FUNCTION make recordings stale when "
        "a prompt file or a declared model changes; prune removes unused ones; "
        "scrub=PATH,... (or scrub=/REGEX/) records volatile values as <scrubbed>",
        default="off",
        metavar="MODE [files=GLOB] [fingerprint=M:F] [prune] [scrub=PATH,...]",
    ),
    Setting(
        "update",
        "write actual outputs into golden case files as their 'expected': create "
        "(cases without one), fix (failing cases) or all (every case scoring below "
        "1.0); add ',review' to write nothing but a review of the edits (jsonmatch "
        "accept writes them), ',ci' to update although the CI variable is set",
        ini=None,
        metavar="create|fix|all[,review][,ci]",
    ),
    Setting(
        "repeat",
        "run the target of every 'input:' golden case N times (a case's own "
        "'repeat:' wins), and pass a repeated case by its 'mean' score (default), "
        "'all' its runs or a 'majority': e.g. '5 majority'",
        metavar="[N] [mean|all|majority]",
    ),
    Setting(
        "calls",
        "how the target is called: concurrency=N (calls at a time, default 1), "
        "timeout=SECONDS, retries=N (after a failed connection, HTTP 408/409/429/"
        "5xx), retry_timeouts=yes (retry a timed-out call too), rate=N/s|min|hour "
        "(starts by the whole process); e.g. "
        "'concurrency=8 timeout=30'; a flag's keys override the ini's",
        metavar="KEY=VALUE ...",
    ),
    Setting(
        "report",
        f"write the session's report to each PATH, by its suffix: {files_help()}; "
        "values=short|full|none is how much of each field's "
        "values it keeps (short: 200 characters, the default), junit=no leaves "
        "each comparison's metric and score out of JUnit XML properties, "
        "group_by=file|folder prints and writes one per-field table per case file "
        "or folder (default: per metric)",
        "args",
        [],
        metavar="PATH|KEY=VALUE",
        append=True,
    ),
    Setting(
        "baseline",
        "compare this run case by case with a JSON report saved before; the "
        "report of a run that stopped early is refused unless 'partial' follows",
        metavar="PATH [partial]",
    ),
    Setting(
        "shard",
        "this run is shard i of N of a split suite: its report says so and it judges "
        "no gate; 'jsonmatch merge' joins the shards' reports and judges the whole run",
        metavar="i/N",
    ),
    Setting(
        "gates",
        plugin_help(),
        metavar="KEY=VALUE ...",
        append=True,
    ),
    Setting(
        "field_floors",
        "per-field floors, one 'field.path=score' a line, patterns allowed "
        "(items[].*=0.8), 'group:field.path=score' for one table; a line "
        "'strict' makes a floor that matches no field fail the session (a run of "
        "part of the suite skips, and names, those of groups it did not run); "
        "the flag gives one floor (or 'strict') each time, replacing the ini's of "
        "the same field and group",
        "linelist",
        [],
        metavar="[GROUP:]PATTERN=SCORE|strict",
        append=True,
    ),
    Setting(
        "judge",
        "the LLM judge of the 'semantic' comparator: model=NAME endpoint=URL "
        "key_env=VARIABLE prompt=FILE batch=N price_in=X price_out=X, and its own "
        "concurrency/timeout/retries/rate keys; model_env= and endpoint_env= read the "
        "model and the URL from variables; a flag changes only the keys it gives "
        "(docs/judge.md)",
        metavar="KEY=VALUE ...",
    ),
    Setting(
        "otel",
        "send gen_ai.evaluation.result events to OpenTelemetry (docs/telemetry.md)",
        metavar="off|cases|fields [flush=SECONDS]",
    ),
    Setting(
        "quarantine",
        "a YAML file of quarantined cases '{case: ID, reason: TEXT, until: YYYY-MM-DD}': "
        "each runs and is reported, but no gate counts it through its date",
        metavar="PATH",
    ),
    Setting(
        "mask",
        "regular expressions, one a line: what they match in an error's reason is "
        "masked as *** in every report (credential shapes always are)",
        "linelist",
        [],
    ),
)
BY_NAME = {s.name: s for s in SETTINGS}
