"""Reporting: recorded comparisons to numbers and files, the same for the plugin and the CLI.

Takes one record per comparison (reporting/records.py); gives aggregates, baselines and
their statistics, the gates' verdict, the JSON report and its renderings (text, Markdown,
GitHub, HTML), all written atomically. The report's shape is typed in shapes.py. May import
the engine only; never pytest.
"""
