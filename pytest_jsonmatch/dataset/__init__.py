"""Datasets: many gold and predicted records scored outside pytest.

Takes paired records and the scoring settings; gives case records and aggregates that merge
in any order (the command line's worker processes, or Dask). May import the engine and
reporting; never pytest.
"""

from .scoring import (
    NO_PREDICTION,
    GoldError,
    Pair,
    Scored,
    ScoreSettings,
    comparison_of,
    score_chunk,
    score_pairs,
)
from .sketch import SchemaSketch

__all__ = [
    "NO_PREDICTION",
    "GoldError",
    "Pair",
    "SchemaSketch",
    "ScoreSettings",
    "Scored",
    "comparison_of",
    "score_chunk",
    "score_pairs",
]
