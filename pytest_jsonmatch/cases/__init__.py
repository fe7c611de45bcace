"""Golden case files as data: read, validated and repeated (rewriting them on update is
updating/'s).

Takes case files (YAML) and the session's typed settings; gives
:class:`~.case_files.GoldenCase` values (with their ``marks`` read as plain data) and each
case's repeat rule. May import the engine and reporting; never updating/, calls/,
telemetry/, session/ or pytest (those stages import this one, never the other way round).
"""
