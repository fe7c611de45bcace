"""The modules of the project a target imports (calls/project_imports.py), read from their
source: direct and transitive imports, packages and their ``__init__.py``, relative and
namespace imports, imports inside functions, a conditional import of a module that is not
there, cycles; what is not the project (installed packages, a virtual environment inside the
root, modules outside it) neither held nor followed; each module read once. The imports a
module writes (calls/written_imports.py): never one less than parsing it whole finds, read in
one pass whatever the text; the fingerprint's words for what changed."""

from __future__ import annotations

import hashlib
import importlib
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_jsonmatch.calls import project_imports
from pytest_jsonmatch.calls.project_imports import project_modules
from pytest_jsonmatch.calls.written_imports import Import, parsed_imports, written_imports


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project root on ``sys.path`` (as ``pythonpath = .`` puts it); its modules are
    dropped from ``sys.modules`` after the test."""
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_a_tool_module_the_target_imports_is_held_through_other_modules(project):
    # issue 95, F3: the tools live beside the target, and import a module of their own
    _tree(
        project,
        {
            "pi_agent.py": "import json\nfrom pi_warehouse import receive\n",
            "pi_warehouse.py": "import os\nimport pi_db\n\ndef receive(): ...\n",
            "pi_db.py": "import sqlite3\n",
            "pi_unrelated.py": "X = 1\n",
        },
    )
    held = project_modules([project / "pi_agent.py"], project)
    assert held == {
        "pi_db.py": _sha(project / "pi_db.py"),
        "pi_warehouse.py": _sha(project / "pi_warehouse.py"),
    }


def test_packages_their_init_and_from_imports_of_submodules(project):
    _tree(
        project,
        {
            "pi_agent.py": """
                from pi_shop import stock
                from pi_shop.orders import place
                import pi_shop.audit.log as log
                from pi_shop import CONSTANT
            """,
            "pi_shop/__init__.py": "CONSTANT = 1\n",
            "pi_shop/stock.py": "",
            "pi_shop/orders.py": "",
            "pi_shop/audit/__init__.py": "",
            "pi_shop/audit/log.py": "",
            "pi_shop/unused.py": "",
        },
    )
    held = project_modules([project / "pi_agent.py"], project)
    assert list(held) == [
        "pi_shop/__init__.py",
        "pi_shop/audit/__init__.py",
        "pi_shop/audit/log.py",
        "pi_shop/orders.py",
        "pi_shop/stock.py",
    ]


FILES_RELATIVE = {
    "pi_rel/__init__.py": "",
    "pi_rel/common.py": "",
    "pi_rel/agents/__init__.py": "from . import registry\n",
    "pi_rel/agents/registry.py": "",
    "pi_rel/agents/bot.py": """
        from . import tools
        from .helpers import fmt
        from .. import common
        from ..deep.inner import x
    """,
    "pi_rel/agents/tools.py": "",
    "pi_rel/agents/helpers.py": "fmt = str\n",
    "pi_rel/deep/__init__.py": "",
    "pi_rel/deep/inner.py": "x = 1\n",
}


@pytest.mark.parametrize("imported", [True, False], ids=["by-name", "by-folder"])
def test_relative_imports(project, imported):
    # a target imported by name resolves them by its package; one whose name is not known,
    # by its folder: the same modules
    _tree(project, FILES_RELATIVE)
    if imported:
        importlib.import_module("pi_rel.agents.bot")
    held = project_modules([project / "pi_rel/agents/bot.py"], project)
    assert list(held) == [
        "pi_rel/__init__.py",  # the packages above it ran first, and what they import
        "pi_rel/agents/__init__.py",
        "pi_rel/agents/helpers.py",
        "pi_rel/agents/registry.py",
        "pi_rel/agents/tools.py",
        "pi_rel/common.py",
        "pi_rel/deep/__init__.py",
        "pi_rel/deep/inner.py",
    ]


def test_imports_inside_functions_conditional_and_by_written_name(project):
    _tree(
        project,
        {
            "pi_agent.py": """
                from __future__ import annotations
                import importlib
                import typing
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    import pi_types_only
                else:
                    import pi_at_run_time
                if typing.TYPE_CHECKING:
                    from pi_types_only import T
                try:
                    import pi_not_there
                except ImportError:
                    pi_not_there = None
                class Agent:
                    def run(self):
                        import pi_lazy
                        return importlib.import_module("pi_plugin")
                def other():
                    return __import__("pi_dunder")
                if __name__ == "__main__":
                    import pi_script_only
            """,
            "pi_types_only.py": "",
            "pi_at_run_time.py": "",
            "pi_lazy.py": "",
            "pi_plugin.py": "",
            "pi_dunder.py": "",
            "pi_script_only.py": "",
        },
    )
    held = project_modules([project / "pi_agent.py"], project)
    assert list(held) == ["pi_at_run_time.py", "pi_dunder.py", "pi_lazy.py", "pi_plugin.py"]


def test_a_cycle_ends_and_the_start_is_never_held(project):
    _tree(
        project,
        {
            "pi_a.py": "import pi_b\n",
            "pi_b.py": "import pi_c\nimport pi_a\n",
            "pi_c.py": "from pi_b import x\n",
        },
    )
    assert list(project_modules([project / "pi_a.py"], project)) == ["pi_b.py", "pi_c.py"]


def test_namespace_packages_have_no_file_and_their_modules_count(project):
    _tree(project, {"pi_agent.py": "import pi_ns.mod\nfrom pi_ns import other\n"})
    _tree(project, {"pi_ns/mod.py": "", "pi_ns/other.py": ""})
    held = project_modules([project / "pi_agent.py"], project)
    assert list(held) == ["pi_ns/mod.py", "pi_ns/other.py"]


def test_installed_packages_a_venv_inside_the_root_and_the_outside_are_not_the_project(
    project, tmp_path, monkeypatch
):
    venv = project / ".venv/lib/python3.11/site-packages"
    outside = tmp_path / "elsewhere"
    _tree(venv, {"pi_vendor.py": "import pi_mine\n"})  # not followed either
    _tree(outside, {"pi_shared.py": "import pi_mine\n"})
    _tree(project, {"pi_agent.py": "import pi_vendor, pi_shared, yaml\n", "pi_mine.py": ""})
    monkeypatch.syspath_prepend(str(venv))
    monkeypatch.syspath_prepend(str(outside))
    assert project_modules([project / "pi_agent.py"], project) == {}
    # a target outside the root: nothing of it is followed
    _tree(outside, {"pi_out_agent.py": "import pi_mine\n"})
    assert project_modules([outside / "pi_out_agent.py"], project) == {}


def test_a_module_found_first_on_sys_path_wins(project, tmp_path, monkeypatch):
    # the same name in two folders: the one Python would import is held
    _tree(project, {"pi_agent.py": "import pi_twice\n", "first/pi_twice.py": "A = 1\n"})
    _tree(project, {"second/pi_twice.py": "B = 2\n"})
    monkeypatch.syspath_prepend(str(project / "second"))
    monkeypatch.syspath_prepend(str(project / "first"))
    assert list(project_modules([project / "pi_agent.py"], project)) == ["first/pi_twice.py"]


def test_a_module_that_does_not_parse_is_held_its_written_imports_followed(project):
    # its import statements are read as written (the rest of it is never parsed)
    _tree(project, {"pi_agent.py": "import pi_broken, pi_nul\n", "pi_x.py": "", "pi_y.py": ""})
    (project / "pi_broken.py").write_text("import pi_x\ndef (:\n")
    (project / "pi_nul.py").write_bytes(b"import pi_y\n\x00\xff\n")
    deep = "x = " + "(" * 5000 + ")" * 5000 + "\n"
    (project / "pi_deep.py").write_text(deep)
    held = project_modules([project / "pi_agent.py", project / "pi_deep.py"], project)
    assert list(held) == ["pi_broken.py", "pi_nul.py", "pi_x.py", "pi_y.py"]


def test_a_module_past_the_parse_limit_is_digested_whole(project, monkeypatch):
    monkeypatch.setattr(project_imports, "PARSE_LIMIT", 64)
    _tree(project, {"pi_agent.py": "import pi_big\n", "pi_x.py": ""})
    (project / "pi_big.py").write_text("import pi_x\n" + "#" * 100 + "\n")
    held = project_modules([project / "pi_agent.py"], project)
    assert held == {"pi_big.py": _sha(project / "pi_big.py")}


def test_links_into_the_project_and_loops_of_links(project, tmp_path):
    _tree(project, {"pi_agent.py": "import pi_linked, pi_loop\n", "real/pi_target.py": ""})
    (project / "pi_linked.py").symlink_to(project / "real/pi_target.py")
    (project / "pi_loop.py").symlink_to(project / "pi_loop.py")
    # held by its real path, once; the loop is no module
    assert list(project_modules([project / "pi_agent.py"], project)) == ["real/pi_target.py"]


def test_an_import_refused_in_sys_modules_counts_nothing(project, monkeypatch):
    _tree(project, {"pi_agent.py": "import pi_blocked\n", "pi_blocked.py": ""})
    monkeypatch.setitem(sys.modules, "pi_blocked", None)
    assert project_modules([project / "pi_agent.py"], project) == {}


def test_a_dense_project_each_module_read_once(project, monkeypatch):
    # 600 modules, each importing ten others (relative imports of a package): each is read
    # once, and its imports resolved once for every module that writes the same
    count = 600
    files = {
        f"pi_big/m{i}.py": "".join(f"from . import m{(i * 7 + k) % count}\n" for k in range(10))
        for i in range(count)
    }
    files["pi_big/__init__.py"] = ""
    files["pi_agent.py"] = "from pi_big import m0\n"
    _tree(project, files)
    reads: list[str] = []
    real = project_imports._read
    monkeypatch.setattr(project_imports, "_read", lambda p: reads.append(p) or real(p))
    held = project_modules([project / "pi_agent.py"], project)
    assert len(held) == count + 1 and len(reads) == len(set(reads)) == count + 2
    assert list(held)[:3] == ["pi_big/__init__.py", "pi_big/m0.py", "pi_big/m1.py"]


# -- the imports a module writes, as read without parsing it whole ----------------------------

WRITTEN = [
    ("import a, b.c as d\n", [(0, "a", ()), (0, "b.c", ())]),
    ("from a \\\n    import (b,  # the (first)\n    c)\n", [(0, "a", ("b", "c"))]),
    ("x = 1; import a\nif x: from . import b\n", [(0, "a", ()), (1, "", ("b",))]),
    ("import \\\n  a, \\\n  b\n", [(0, "a", ()), (0, "b", ())]),
    ("from ..pkg.mod import *\n", [(2, "pkg.mod", ())]),
    ("import a\r\nfrom b import (\r\n  c,\r\n)\r\n", [(0, "a", ()), (0, "b", ("c",))]),
    ('"""Read from the file, import the rows."""\nimport a\n', [(0, "a", ())]),
    ("def f():\n\timport a\n\treturn __import__('b.c')\n", [(0, "a", ()), (0, "b.c", ())]),
    (
        "import typing\nclass A:\n    if typing.TYPE_CHECKING:\n        import a\n"
        "        # a comment\n\n        from b import c\n    else:\n        import d\n",
        [(0, "typing", ()), (0, "d", ())],
    ),
    ("if TYPE_CHECKING: import a\nimport b\n", [(0, "b", ())]),
    ('if __name__ == "__main__":\n    import a\nimport b\n', [(0, "b", ())]),
    # a guard's text inside a string is none: what follows it still counts
    ('s = """\nif TYPE_CHECKING:"""\n    import a\n', [(0, "a", ())]),
    ("if not TYPE_CHECKING:\n    import a\n", [(0, "a", ())]),
    ("importlib.import_module(name)\nimport_module('.rel')\n", []),
]


@pytest.mark.parametrize("source, imports", WRITTEN)
def test_the_imports_a_module_writes(source, imports):
    found = written_imports(source.encode())
    assert sorted(found) == sorted(Import(*i) for i in imports)
    # never one less than parsing it whole finds (where it parses whole)
    whole = parsed_imports(source.encode())
    assert set(whole) <= set(found)


def test_the_package_s_own_modules_read_as_parsing_them_whole_does():
    calls = Path(project_imports.__file__).parent
    for path in sorted(calls.glob("*.py")):
        source = path.read_bytes()
        assert set(parsed_imports(source)) <= set(written_imports(source)), path.name


# -- the fingerprint: what changed, in words ----------------------------------------------------


def test_what_changed_names_each_module():
    from pytest_jsonmatch.calls.fingerprints import Fingerprint

    was = Fingerprint(imports={"a.py": "1", "gone.py": "2", "same.py": "3"})
    now = Fingerprint(imports={"a.py": "9", "new.py": "4", "same.py": "3"})
    assert now.changes(was) == [
        "module a.py (imported by the target)",
        "module gone.py (no longer imported by the target)",
        "module new.py (imported by the target; the recording holds no digest of it)",
    ]
    # a recording made before imports counted: its modules said once, together
    earlier = Fingerprint.from_dict({"code": {}, "files": {}, "declared": None})
    many = Fingerprint(imports={f"m{i}.py": "1" for i in range(5)})
    assert many.changes(earlier) == [
        "modules m0.py, m1.py, m2.py and 2 more (imported by the target; the recording holds "
        "no digest of them)"
    ]
    assert Fingerprint().changes(earlier) == []


def test_a_fingerprint_takes_its_imports_when_first_read(tmp_path):
    from pytest_jsonmatch.calls.fingerprints import Fingerprint

    taken = []
    lazy = Fingerprint(imports=lambda: taken.append(1) or {"a.py": "1"})
    assert lazy.code == {} and taken == []
    assert lazy.to_dict()["imports"] == {"a.py": "1"} and lazy.imports == {"a.py": "1"}
    assert taken == [1]
    # none: the recording's bytes are those of a recording made before
    assert "imports" not in Fingerprint(imports=dict).to_dict()
    assert Fingerprint.from_dict(lazy.to_dict()) == lazy


def test_a_module_that_binds_the_guard_s_name_itself_has_its_block_counted():
    # TYPE_CHECKING = True (or __name__ rebound): the block runs on import, so it counts
    for source in (
        "TYPE_CHECKING = True\nif TYPE_CHECKING:\n    import a\n",
        "from x import y as TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\n",
        "__name__ = '__main__'\nif __name__ == '__main__':\n    import a\n",
    ):
        assert Import(0, "a") in written_imports(source.encode())
        assert Import(0, "a") in parsed_imports(source.encode())


HOSTILE = {  # each read in one pass: scanned again from each keyword, each takes minutes
    "a statement after each colon": "x" + ": from a" * 20_000 + "\nimport b\n",
    "a from continued on each line": "from \\\n" * 20_000 + "import b\n",
    "words after from": "from a b c " * 20_000 + "\nimport b\n",
    "an unclosed parenthesis each line": "from a import (\n" * 20_000,
    "keywords after a long line": "a" * 200_000 + " import" * 20_000 + "\nimport b\n",
    "guards nested": "".join(" " * i + "if TYPE_CHECKING:\n" for i in range(600)) + "import b\n",
    "a comment's parenthesis, and a long module": "from b import (c,  # (see)\n d)\n"
    + "x = [1, 2, 3]\n" * 50_000,
    "one statement many times": "import b\n" * 100_000,
}


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_module_is_read_in_one_pass(source):
    started = time.perf_counter()
    found = written_imports(source.encode())
    assert time.perf_counter() - started < 5  # (under a second, even on a busy machine)
    assert {i.module for i in found} <= {"b"}


def test_a_module_in_another_encoding():
    # a latin-1 module: its imports read as its coding line says, a name in it too
    source = "# -*- coding: latin-1 -*-\nimport a\nimport café\nx = 'é'\n".encode("latin-1")
    assert sorted(written_imports(source)) == [Import(0, "a"), Import(0, "café")]
