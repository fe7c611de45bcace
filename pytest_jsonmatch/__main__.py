"""``python -m pytest_jsonmatch`` and the ``jsonmatch`` program: the command line."""

import sys

from .engine.core.gc_pause import fewer_collections


def run() -> int:
    """The ``jsonmatch`` program: the command its command line names, run, its exit status
    given back. The cyclic collector passes less often from here on, before the command's
    modules are imported (``fewer_collections``): at Python's default, the imports of a
    command of one record set off about ten passes over what they made, which lives as long
    as the process (docs/performance.md)."""
    with fewer_collections():
        from .cli.app import main

        return main()


if __name__ == "__main__":  # not when a worker process re-imports the main module
    sys.exit(run())
