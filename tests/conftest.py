"""Loaded once for the whole test session.

pytester's in-process runs drop every module an inner session imports. Compiled modules
cannot be imported twice (a second PyYAML import mixes two generations of its node classes;
scipy's and numpy's refuse), and the package is cheaper to import once, so all of them are
imported here, before any inner run.
"""

import numpy  # noqa: F401
import rapidfuzz.distance  # noqa: F401
import scipy.optimize  # noqa: F401
import scipy.sparse  # noqa: F401
import scipy.stats  # noqa: F401
import yaml  # noqa: F401

import pytest_jsonmatch  # noqa: F401
