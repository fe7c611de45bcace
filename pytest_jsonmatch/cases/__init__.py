"""Golden case files as data: read, validated, repeated and rewritten in place.

Takes case files (YAML) and the session's typed settings; gives
:class:`~.case_files.GoldenCase` values (with their ``marks`` read as plain data), each case's
repeat rule, and case files whose ``expected`` is rewritten byte for byte on update. May
import the engine and reporting; never calls/, telemetry/, session/ or pytest (those stages
import this one, never the other way round).
"""
