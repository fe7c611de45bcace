"""OpenTelemetry export: each comparison's result as a ``gen_ai.evaluation.result`` event.

Takes the ``jsonmatch_otel`` setting and the session's comparisons; gives the session's spans
and events, sent by the user's SDK or by the session's own OTLP/HTTP outbox. Nothing imports
OpenTelemetry until the setting is on. May import the engine and reporting; never cases/,
calls/, session/ or pytest.
"""
