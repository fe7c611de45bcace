from typing import Any

def similarity_rows(expected: Any, actual: Any, t: float, w: float, /
                    ) -> tuple[list[list[float]], float] | None: ...

def dominant_pairs(rows: list[list[float]], margin: float, /
                   ) -> list[tuple[int, int, float]] | None: ...
