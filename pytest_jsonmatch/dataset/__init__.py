"""Scoring datasets outside pytest: paired gold and predicted records, scored in chunks into
case records and aggregates that merge (by the command line's worker processes, or by any
engine that partitions a dataset, such as Dask)."""

from .scoring import (NO_PREDICTION, GoldError, Pair, ScoreSettings, Scored, comparison_of,
                      score_chunk, score_pairs)
from .sketch import SchemaSketch

__all__ = ["NO_PREDICTION", "GoldError", "Pair", "SchemaSketch", "ScoreSettings", "Scored",
           "comparison_of", "score_chunk", "score_pairs"]
