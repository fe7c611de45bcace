"""This package's modules imported by Python's own import system, not by pytest's assertion
rewriter.

pytest marks every top-level package of a distribution that has a ``pytest11`` entry point
for assertion rewriting, so each module of this package a session imports (over a hundred in
a golden session) would be loaded by pytest's import hook: the module's source read and
hashed again, and its code unmarshalled from an open file, in every session. That was half of
what a golden session costs beyond its scoring (docs/performance.md, issue 78's fourth
round). The package's ``assert`` statements are internal invariants, never a user's test, so
they need no rewriting: :func:`import_plainly` takes the package off the hook's list.

pytest offers no public way to say so (``PYTEST_DONT_REWRITE`` still loads a module through
the hook), hence the guarded reads of the hook's two attributes: a pytest that names them
otherwise, or a session run with ``--assert=plain``, finds nothing to change, and the
plugin works the same, only slower to start. The user's own test modules, conftest files and
``pytest.register_assert_rewrite`` modules are rewritten as before.
"""

from __future__ import annotations

import sys

PACKAGE = __name__.split(".", 1)[0]
_HOOK = "AssertionRewritingHook"  # (pytest's import hook, found by its class's name)


def import_plainly() -> bool:
    """Take this package off the list of pytest's assertion-rewriting hook, wherever one is
    installed: its modules not imported yet are then imported as any library's are. Whether
    a hook's list held it."""
    found = False
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        decided = getattr(finder, "_marked_for_rewrite_cache", None)
        if type(finder).__name__ != _HOOK or not isinstance(marked, set):
            continue
        if PACKAGE in marked:
            found = True
            marked.discard(PACKAGE)
        if isinstance(decided, dict):  # (what the hook decided of each name, kept)
            for name in [n for n in decided if n == PACKAGE or n.startswith(PACKAGE + ".")]:
                del decided[name]
    return found
