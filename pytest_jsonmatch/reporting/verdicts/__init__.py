"""What a run is worth: its statistics, its gates and its verdict.

Takes the run model (run_model/: records, aggregates, saved reports); gives the paired
statistics (stats.py), the comparison against a baseline (baseline.py), the printed
changes (changes.py), the gates and their shared table (gates.py, gate_specs.py,
reliability_gates.py, undecided_verdicts.py), repeated runs (reliability.py,
field_counts.py), quarantine, cases matched across runs (case_matching.py), saved runs side
by side (runs.py), named targets (versus.py), shards and their checks, provenance, and the
JSON report concluded with its verdict, written and read back (report.py). May import the
engine and run_model; never a rendering.

Importing this package imports none of its modules (the plugin reads gate_specs.py at
start-up and nothing heavier).
"""
