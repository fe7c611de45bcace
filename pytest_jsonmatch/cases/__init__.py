"""Golden cases outside pytest: case files, their outputs, recordings, repeats and updates.

Takes case files (YAML), a target (the user's function) and the session's typed settings;
gives :class:`~.case_files.GoldenCase` values, each run's output with where it came from and
what its call took (:class:`~.case_outputs.Produced`), recordings written and replayed, case
files rewritten in place, and the channel a running test's comparisons reach its session by
(:class:`~.channel.Channel`). May import the engine and reporting; never pytest (the pytest layer,
plugin/, turns cases into test items and imports this package, never the other way round).
"""
