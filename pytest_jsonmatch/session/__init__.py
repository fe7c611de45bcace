"""A session's plumbing that needs no pytest: the parts plugin/ builds the session from.

Takes the typed setting values, golden cases, the calls stage and telemetry; gives the
settings' parsed parts (:class:`~.setting_parts.SettingParts`, the base of the plugin's
``Settings``), the channel a running test's comparisons reach its session by
(:class:`~.channel.Channel`) with each comparison's :class:`~.outcome.Outcome`, the scoring
and recording of one comparison (``assert_json_match``, the ``json_match`` helper, a golden
run's :func:`~.assertion.compare_and_send`), the judge run ahead of the tests, and the run
record a report keeps. May import the engine, reporting,
cases/, calls/ and telemetry/; never pytest (plugin/ imports this package, never the other
way round).
"""
