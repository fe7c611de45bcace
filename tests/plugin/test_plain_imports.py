"""The package's modules are imported by Python's import system, not by pytest's assertion
rewriter (plugin/plain_imports.py): a session loads them as any library's, while the user's
test modules and conftest files are rewritten as before, and nothing warns."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from pytest_jsonmatch.plugin import plain_imports

ROOT = Path(__file__).resolve().parents[2]


class AssertionRewritingHook:
    """A stand-in with the two attributes of pytest's hook that import_plainly reads."""

    def __init__(self, marked: set[str], decided: dict[str, bool]) -> None:
        self._must_rewrite = marked
        self._marked_for_rewrite_cache = decided

    def find_spec(self, *args: object) -> None:
        return None


class OtherFinder:
    _must_rewrite = {"pytest_jsonmatch"}  # (not pytest's hook: left as it is)

    def find_spec(self, *args: object) -> None:
        return None


def test_the_package_leaves_the_hooks_list_and_its_decisions(monkeypatch):
    hook = AssertionRewritingHook(
        {"pytest_jsonmatch", "pytest_jsonmatch_extra", "conftest_helpers"},
        {
            "pytest_jsonmatch": True,
            "pytest_jsonmatch.engine.match": True,
            "pytest_jsonmatch_extra": True,  # (another package whose name starts alike)
            "numpy": False,
        },
    )
    other = OtherFinder()
    monkeypatch.setattr(sys, "meta_path", [other, hook, *sys.meta_path])
    assert plain_imports.import_plainly() is True
    assert hook._must_rewrite == {"pytest_jsonmatch_extra", "conftest_helpers"}
    assert hook._marked_for_rewrite_cache == {"pytest_jsonmatch_extra": True, "numpy": False}
    assert other._must_rewrite == {"pytest_jsonmatch"}
    assert plain_imports.import_plainly() is False  # (taken off once: nothing left to do)


def test_a_hook_without_those_attributes_is_left_alone(monkeypatch):
    class AssertionRewritingHookOfAnotherPytest:
        pass

    bare = AssertionRewritingHook.__new__(AssertionRewritingHook)  # (neither attribute)
    monkeypatch.setattr(
        sys, "meta_path", [AssertionRewritingHookOfAnotherPytest(), bare, *sys.meta_path]
    )
    assert plain_imports.import_plainly() is False
    assert vars(bare) == {}


def test_a_session_imports_the_package_plainly_and_rewrites_the_users_tests(pytester, monkeypatch):
    pytester.makefile(
        ".jsonmatch.yaml",
        case="expected: {a: 1, b: [1, 2]}\nactual: {a: 1, b: [1, 2]}\n",
    )
    pytester.makeconftest(
        """
        import sys

        def pytest_sessionfinish(session):
            loaders = {
                name: type(module.__loader__).__name__
                for name, module in sys.modules.items()
                if name.startswith("pytest_jsonmatch.") and getattr(module, "__loader__", None)
            }
            hooked = sorted(n for n, kind in loaders.items() if kind == "AssertionRewritingHook")
            print(f"LOADED {len(loaders)} HOOKED {hooked}")
        """
    )
    pytester.makepyfile(
        """
        def test_users_own_assert_is_rewritten():
            left, right = [1, 2, 3], [1, 2, 4]
            assert left == right
        """
    )
    # pytest marks a regular install's package for rewriting (an editable one, as in this
    # project's own environment, it may not find): marked so here, by a plugin loaded first
    pytester.makepyfile(
        mark_like_a_wheel="""
        import pytest

        pytest.register_assert_rewrite("pytest_jsonmatch")
        """
    )
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    result = pytester.runpytest_subprocess(
        "-p", "mark_like_a_wheel", "-p", "no:cacheprovider", "-p", "no:benchmark", "-s"
    )
    result.assert_outcomes(passed=1, failed=1)
    # the user's assert, rewritten: pytest's introspection shows where the lists differ
    result.stdout.fnmatch_lines(["*At index 2 diff: 3 != 4*"])
    found = re.search(r"LOADED (\d+) HOOKED (\[.*\])", result.stdout.str())
    assert found is not None, result.stdout.str()
    loaded, hooked = int(found[1]), found[2]
    # the golden case imported the engine, the session and the reporting (over a hundred
    # modules); only those the package's root imports, before the entry point takes the
    # package off, are the hook's
    assert loaded > 100
    assert 0 < hooked.count("pytest_jsonmatch.") <= 12, hooked
    assert "pytest_jsonmatch.plugin.plain_imports" in hooked
    assert "pytest_jsonmatch.engine.match" not in hooked
    # (a module pytest finds imported before it could rewrite it is a warning: none here)
    assert "PytestAssertRewriteWarning" not in result.stdout.str()
    assert "warning" not in result.stdout.str().lower()
