"""Each output format: a run's report shown to a person or a tool.

Takes a report (run_model's typed dicts) and the verdicts' figures; gives the terminal text
(text.py, tables.py, reliability_text.py), Markdown (markdown.py), GitHub annotations
(github.py), the HTML page (html.py, html_cases.py, html_script.py, runs_chart.py), the
message of a failed comparison (failure_message.py), the table of formats (formats.py) and
the report files a run writes (report_files.py). May import the engine, run_model and
verdicts.

Importing this package imports none of its modules.
"""
