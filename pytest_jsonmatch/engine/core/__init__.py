"""Core: what every stage of the engine shares.

Takes nothing from the other stages; gives the error family (``JsonMatchError`` and its
kinds), the JSON value model (type names, ``MISSING``, JSON equality), instance and field
paths, numbers as options take them, and room for deep values. Imports nothing of the
project: every other stage may import it.
"""
