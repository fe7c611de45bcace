"""Results: what scoring produces, and the shared accounting.

Takes nothing but field verdicts; gives ``FieldResult``, ``MatchResult`` and ``RunResult``,
precision, recall and F-beta (weighted or not), per-field aggregates, and the
post-processors that rewrite a comparison's field results. May import ``core`` only.
"""
