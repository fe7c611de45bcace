"""The model of a run: what is recorded of each comparison and what a run adds up to, as data.

Takes the engine's results (MatchResult, FieldResult); gives the records
(records.py), the report's typed dicts (report_types.py), the aggregates (aggregate.py),
the per-field rows the report stores (field_rows.py, comparison_lines.py), the report
spooled and streamed to disk (spool.py), atomic writes (atomic.py), and the shipped schema
(report.schema.json) with the checks of a saved report (validation.py). May import the
engine only: no gate, statistic or rendering.

Importing this package imports none of its modules.
"""
