"""Configuring: a metric's options to the configuration the walk reads.

Takes the options every metric shares (``ignore``, ``fields``, ``align``, ``schema``,
``embedder``); gives a ``WalkConfig`` (the comparator per JSON type, where leaves stop, how
arrays align) with its per-field rules. May import ``core``, ``reading``, ``comparing`` and
``schemas``.
"""
