"""Pairing: which elements of an expected and an actual array go together.

Takes two arrays and a ``WalkConfig``; gives the chosen element pairs (by index, by a key
field, or by an optimal assignment on pair scores computed a column at a time, a block at a
time for large arrays). May import every stage above ``walking`` except ``metrics``.
"""
