"""Loaded once for the whole test session.

pytester's in-process runs drop every module an inner session imports. PyYAML's C parser
cannot be imported twice (a second import would mix two generations of its node classes),
and the package is cheaper to import once, so both are imported here, before any inner run.
"""

import yaml  # noqa: F401

import pytest_jsonmatch  # noqa: F401
