"""Walking: expected and actual side by side, one field result per field.

Takes a ``WalkConfig``, an optional schema graph and two plain JSON values; gives the
``FieldResult`` of every field (matches, mismatches, omissions, hallucinations) and the
pairings chosen. May import ``core``, ``results``, ``comparing``, ``judge`` (batching),
``schemas``, ``configuring`` and ``pairing``.
"""
