"""What the OpenTelemetry export says of its collector's URL (telemetry/otlp_export.py):
the URL's user and password, and its control characters, never as given."""

from __future__ import annotations

import logging

from pytest_jsonmatch.telemetry.otlp_export import Endpoint


def test_a_collectors_url_is_named_without_its_user_and_password(caplog):
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-user:SECRETPW@127.0.0.1:4318",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",  # a warning that names the URL
    }
    with caplog.at_level(logging.WARNING, "pytest_jsonmatch.otel"):
        endpoint = Endpoint.of("logs", env)
    assert endpoint.url == "http://otel-user:SECRETPW@127.0.0.1:4318/v1/logs"  # as given
    assert endpoint.shown == "http://***@127.0.0.1:4318/v1/logs"
    (said,) = [r.getMessage() for r in caplog.records]
    assert "http://***@127.0.0.1:4318/v1/logs" in said and "SECRETPW" not in said


def test_a_collectors_url_holding_a_line_break_is_named_on_one_line():
    endpoint = Endpoint.of(
        "logs", {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://h:1/v1/logs\n::warning::x"}
    )
    assert endpoint.shown == "http://h:1/v1/logs\\x0a::warning::x"
