"""The ``jsonmatch`` command line (also ``python -m pytest_jsonmatch``). It never imports
pytest: the engine, the dataset scoring and the reporting package are all it needs."""

from .app import main

__all__ = ["main"]
