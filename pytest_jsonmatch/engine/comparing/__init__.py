"""Comparing: one expected value against one actual value, scored in [0, 1].

Takes comparator and transform specs (``"levenshtein"``, ``{"numeric": {"abs": 0.01}}``);
gives bound comparators, their all-pairs forms for arrays, per-field specs, and the
registry where every extension lands (the ``semantic`` comparator built from ``judge``).
May import ``core``, ``results`` and ``judge``.
"""
