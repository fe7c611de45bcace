"""Which framework tests a run holds: a framework's own test module is collected only where the
framework is installed, and a test parametrized over the frameworks keeps only the installed
ones; the rest are reported as deselected (with the reason in the header), never skipped.

.ci/run installs pydantic-evals and inspect-ai in its main and highest-version runs, and runs
the deepeval tests in an environment of their own (deepeval brings a pytest plugin of its own):
every framework test runs in one of CI's runs."""

from __future__ import annotations

from .frameworks import FRAMEWORKS, installed

# a framework's own test module
MODULES = {
    "test_pydantic_evals.py": "pydantic_evals",
    "test_inspect_ai.py": "inspect_ai",
    "test_deepeval.py": "deepeval",
}


def _missing() -> list[str]:
    return [module for module in FRAMEWORKS if not installed(module)]


def pytest_report_header(config):
    missing = _missing()
    if missing:
        return [
            f"jsonmatch integrations: not installed, their tests deselected: {', '.join(missing)}"
        ]
    return []


def pytest_ignore_collect(collection_path, config):
    framework = MODULES.get(collection_path.name)
    return True if framework is not None and not installed(framework) else None


def pytest_collection_modifyitems(config, items):
    missing = set(_missing())
    if not missing:
        return
    kept, dropped = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        framework = callspec.params.get("framework") if callspec is not None else None
        (dropped if framework in missing else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
