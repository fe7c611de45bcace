"""Pairing: which items of the expected side go with which of the actual side.

Takes two arrays and a ``WalkConfig`` (array_pairs.py), or two sides' calls and their rules
(call_pairing.py: the ``tool_calls`` and ``trajectory`` metrics); gives the chosen pairs (by
index, by a key field, first fit, or an optimal assignment on pair scores, solved by the
one routine ``assignment.assign``). May import every stage above ``walking`` except
``metrics``.

One budget rule bounds every pairing (pair_budget.py holds its account and costs):

1. Only items that may pair are scored: elements of one array, calls of one function.
2. Scoring is paid from one budget per comparison, ``PairBudget``: a record's candidate walks
   of array elements (``WALKS``, 3,000 units: a walk, and one more per 16 fields it made),
   charged as they are made; or the checks of its calls (``STEPS``, 5,000,000 steps of about
   a microsecond, the engine's limit for one comparison), weighed from the calls' sizes
   before any pair is checked, or, for BFCL's parallel pairing (first fit, its checks not
   weighed), ``UNWEIGHED_PAIR_STEPS`` (125) a pair: at most 40,000 pairs.
3. One assignment's table holds at most ``TABLE_CELLS`` (1,000,000) cells; past it, an
   array's pair scores come a block of lines at a time (blockwise.py, the same pairs) and
   calls are assigned one function at a time.
4. Past the budget nothing more is scored, and pairs are chosen without scores: an array's
   candidates by the overlap of their leaf values, calls in order within their function
   (first fit where a pair must be valid). Where first fit itself would check more than the
   budget holds, the comparison is refused: a ConfigError naming the steps, the limit and
   the functions that cost most. No pairing hangs.
"""
