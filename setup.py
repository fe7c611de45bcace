"""Builds the optional compiled pair-score kernel (pytest_jsonmatch/engine/_pair_kernel.c).

Everything else about the package is in pyproject.toml. Without a C compiler the build
skips the kernel and the engine computes the same pair scores in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("pytest_jsonmatch.engine._pair_kernel",
                             ["pytest_jsonmatch/engine/_pair_kernel.c"], optional=True)])
