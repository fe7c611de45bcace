"""Reporting: recorded comparisons to numbers and files, the same for the plugin and the CLI.

Takes one record per comparison (run_model/comparisons.py); gives aggregates, baselines and
their statistics, the gates' verdict, the JSON report and its renderings (text, Markdown,
GitHub, HTML), all written atomically. May import the engine only; never pytest.

Three parts, each importing only the parts below it (tests/test_layout.py holds the order):

- ``run_model``: what a run is, as data: the records, the report's typed dicts
  (report_types.py), the aggregates, the report's lines on disk, its schema and checks;
- ``verdicts``: what a run is worth: statistics, baselines, gates, reliability, shards,
  targets side by side, and the report concluded with its verdict (report.py);
- ``render``: each output format: terminal text, Markdown, GitHub, HTML, the failure
  message, and the files a report is written to.

Importing this package, or any of its parts, imports none of their modules.
"""
