"""The engine stands alone: importing and using it loads neither pytest nor the plugin, and
scipy only once an assignment has to be solved."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_engine_import_loads_neither_pytest_nor_the_plugin():
    out = run("""
        import sys
        from pytest_jsonmatch.engine.match import match_json
        match_json({"a": 1}, {"a": 1}, metric="field_match")
        print(sorted(m for m in ("pytest", "_pytest", "pytest_jsonmatch.plugin") if m in sys.modules))
    """)
    assert out.strip() == "[]"


def test_package_api_loads_neither_pytest_nor_the_plugin():
    out = run("""
        import sys
        from pytest_jsonmatch import match_json, evaluate_records
        match_json({"a": [1, 2]}, {"a": [1, 2]}, metric="field_f1")
        evaluate_records([{"a": 1}], [{"a": 1}], metric="json_similarity")
        print(sorted(m for m in ("pytest", "_pytest", "pytest_jsonmatch.plugin") if m in sys.modules))
    """)
    assert out.strip() == "[]"


def test_scipy_is_not_imported_until_an_assignment_is_needed():
    out = run("""
        import sys
        from pytest_jsonmatch import match_json
        doc = {"a": 1, "s": "x y", "t": [1, 2, {"b": "c"}], "o": {"p": [True, None]}}
        other = {"a": 2, "s": "x", "t": [2, 1], "o": {"p": [False]}}
        for metric in ("field_match", "field_match_normalized", "json_similarity", "field_f1"):
            match_json(other, doc, metric=metric)
        match_json(other, doc, metric="field_f1", align={"match_by": "key_field", "key": "b"})
        match_json({"a": 1}, {"a": 1, "b": 2}, metric="structural_f1")
        before = "scipy" in sys.modules
        # a permutation pairs identical elements without a solver, and a table of up to 64
        # cells is solved in plain Python (pairing/small_assignment.py); nine elements a
        # side need SciPy's solver (100 and 200 score 0 with every partner: a tie)
        match_json({"t": [2, 1]}, {"t": [1, 2]}, metric="structural_f1")
        match_json({"t": [2, 3]}, {"t": [1, 2]}, metric="structural_f1")
        match_json({"t": [2, 3, 4]}, {"t": [1, 2, 5]}, metric="structural_f1")
        same = "scipy" in sys.modules
        nine = list(range(1, 9))
        match_json({"t": nine + [200]}, {"t": nine + [100]}, metric="structural_f1")
        after = "scipy" in sys.modules
        assert not same
        print(before, after)
    """)
    assert out.split() == ["False", "True"]


def test_scipy_is_imported_for_hungarian_alignment_only_when_used():
    out = run("""
        import sys
        from pytest_jsonmatch import match_json
        match_json({"t": [1, 2]}, {"t": [1, 2]}, metric="field_f1")
        before = "scipy" in sys.modules
        r = match_json({"t": [2, 1]}, {"t": [1, 2]}, metric="field_f1", align="hungarian")
        assert "scipy" not in sys.modules and r.f1 == 1.0  # identical elements pair directly
        # [2, 3] vs [1, 2], and [1, 2, 3] vs [1, 1, 1], small tables: solved without SciPy
        match_json({"t": [2, 3]}, {"t": [1, 2]}, metric="field_f1", align="hungarian")
        match_json({"t": [1, 2, 3]}, {"t": [1, 1, 1]}, metric="field_f1", align="hungarian")
        assert "scipy" not in sys.modules
        # [1, 2, ..., 9] vs nine 1s: any expected 1 may pair with the 1 (a tie of 81 cells,
        # past the plain solver's cap); the rest differ (F1 0) and stay apart: F1 = 1/9
        r = match_json(
            {"t": [1] * 9}, {"t": list(range(1, 10))}, metric="field_f1", align="hungarian"
        )
        print(before, "scipy" in sys.modules, r.f1 == 1 / 9)
    """)
    assert out.split() == ["False", "True", "True"]


def test_the_version_is_defined_once_and_is_what_the_installed_metadata_says():
    # pyproject.toml reads pytest_jsonmatch/version.py, so the two cannot drift apart.
    from importlib.metadata import version

    import pytest_jsonmatch
    from pytest_jsonmatch.reporting.verdicts.report import run_info

    assert pytest_jsonmatch.__version__ == version("pytest-jsonmatch")
    assert run_info(["pytest"], None)["plugin_version"] == pytest_jsonmatch.__version__
    assert "__version__" in pytest_jsonmatch.__all__


def test_the_lazy_api_table_and_the_typed_imports_name_the_same_things():
    # the package root lists its API once for run time (_API) and once for type checkers
    # (the TYPE_CHECKING imports): the two must agree, and every name must resolve
    import ast
    from pathlib import Path

    import pytest_jsonmatch

    tree = ast.parse(Path(pytest_jsonmatch.__file__).read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    typed = {
        alias.asname: "." + ("." * (imp.level - 1)) + imp.module
        for imp in block.body
        for alias in imp.names
    }
    assert typed == pytest_jsonmatch._API
    for name in pytest_jsonmatch.__all__:
        assert getattr(pytest_jsonmatch, name) is not None


def test_loading_the_plugin_loads_neither_the_engine_nor_numpy():
    # pytest imports the plugin at every start; the engine loads when a test first uses it
    out = run("""
        import sys
        import pytest_jsonmatch.plugin
        heavy = ("numpy", "scipy", "rapidfuzz", "yaml", "pytest_jsonmatch.engine.match",
                 "pytest_jsonmatch.engine.walking.walk")
        print(sorted(m for m in heavy if m in sys.modules))
    """)
    assert out.strip() == "[]"
