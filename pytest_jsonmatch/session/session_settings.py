"""The session's settings as plugin/settings.py reads them: one typed record, handed to the
rest of the plugin. It needs no pytest, so it lives here, beside the parts it extends
(setting_parts.py).

It is a :class:`~..engine.core.slotted.Slotted` class, not a dataclass: it is made at every
pytest start, whether the plugin is used or not, and a frozen dataclass of its fields
compiles its generated methods then (docs/performance.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .channel import Defaults
from .setting_parts import SettingParts

if TYPE_CHECKING:
    from ..calls.targets import TargetSpec
    from ..engine.core.masking import MaskPattern
    from ..reporting.run_model.aggregate import GroupBy
    from ..reporting.run_model.comparisons import ValueMode
    from ..reporting.verdicts.quarantine import Quarantine
    from ..updating.updates import UpdateMode

_OWN = (
    "rootpath",
    "golden",
    "target",
    "targets",
    "defaults",
    "update",
    "report_values",
    "baseline",
    "partial_baseline",
    "shard",
    "group_by",
    "schema_dirs",
    "max_cases",
    "junit_properties",
    "annotations",
    "verbose",
    "full_tracebacks",
    "workers",
    "mask",
    "quarantine",
)


class Settings(SettingParts):
    """The session's settings, read once (plugin/settings.py); the parts other stages parse
    are setting_parts.py's."""

    __slots__ = _OWN
    _fields = (*SettingParts._fields, *_OWN)  # (equality, the repr and replace see them all)

    def __init__(
        self,
        *,
        rootpath: Path,  # the test root: case files, recordings and updates stay inside it
        golden: tuple[Path, ...] = (),
        target: str = "",
        targets: tuple[TargetSpec, ...] = (),  # named targets, in the order they run (selected)
        defaults: Defaults | None = None,  # None: Defaults()
        update: UpdateMode | None = None,
        report_values: ValueMode = "short",
        baseline: str | None = None,
        partial_baseline: bool = False,  # a partial run's report is accepted as the baseline
        shard: tuple[int, int] | None = None,  # shard i of N of a split suite (1-based)
        group_by: GroupBy = "metric",
        schema_dirs: tuple[Path, ...] = (),
        max_cases: int = 10_000,
        junit_properties: bool = True,
        annotations: bool = False,  # GitHub Actions workflow commands for failing cases
        verbose: int = 0,  # pytest's -v count: how much the summary lists
        full_tracebacks: bool = False,  # --tb=long or -vv: a target's whole traceback
        workers: int = 1,  # pytest-xdist processes sharing the session's call limits
        mask: tuple[MaskPattern, ...] = (),  # the user's patterns masked in error reasons
        quarantine: Quarantine | None = None,  # the quarantined cases (None: no quarantine)
        **given: Any,  # the parts other stages parse: SettingParts' given_<part> keywords
    ) -> None:
        super().__init__(**given)
        self.rootpath, self.golden, self.target, self.targets = rootpath, golden, target, targets
        self.defaults = Defaults() if defaults is None else defaults
        self.update, self.report_values, self.baseline = update, report_values, baseline
        self.partial_baseline, self.shard, self.group_by = partial_baseline, shard, group_by
        self.schema_dirs, self.max_cases = schema_dirs, max_cases
        self.junit_properties, self.annotations = junit_properties, annotations
        self.verbose, self.full_tracebacks, self.workers = verbose, full_tracebacks, workers
        self.mask, self.quarantine = mask, quarantine

    @property
    def updating_target(self) -> str:
        """The named target whose outputs ``--jsonmatch-update`` writes: the reference, else
        the first selected (empty: no named targets)."""
        return self.versus.reference or (self.targets[0].name if self.targets else "")
