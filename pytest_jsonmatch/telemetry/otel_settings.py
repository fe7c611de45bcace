"""The ``jsonmatch_otel`` setting: whether each comparison's result goes to OpenTelemetry,
one event per case (``cases``) or per case and per field (``fields``), and how long the end
of the session may wait for the collector (``flush=SECONDS``).

Nothing here imports OpenTelemetry: a session with the setting off never loads it. Where the
events go (endpoint, headers, service name) is not a setting of ours: the standard ``OTEL_*``
environment variables say it, read as the SDK's OTLP/HTTP exporter reads them, and
``OTEL_SDK_DISABLED=true`` turns the export off whatever the setting says.
"""

from __future__ import annotations

import importlib.util
import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..engine.core.errors import ConfigError

if TYPE_CHECKING:
    from .otel_events import Telemetry

OtelMode = Literal["off", "cases", "fields"]
OTEL_MODES: tuple[OtelMode, ...] = ("off", "cases", "fields")
DEFAULT_FLUSH = 5.0  # seconds the end of a session waits, at most, for its events to leave
_EXTRA = 'pip install "pytest-jsonmatch[otel]"'


@dataclass(frozen=True)
class OtelSettings:
    """``mode`` (off, cases, fields) and ``flush``, the most seconds the session's end waits
    for the last events to be sent."""

    mode: OtelMode = "off"
    flush: float = DEFAULT_FLUSH

    @property
    def on(self) -> bool:
        return (
            self.mode != "off" and os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() != "true"
        )

    @classmethod
    def parse(cls, text: str, what: str) -> OtelSettings:
        """``off|cases|fields [flush=SECONDS]``; a mistake is a ConfigError naming ``what``.
        When the export is on, the ``otel`` extra must be installed."""
        mode: OtelMode = "off"
        flush = DEFAULT_FLUSH
        for part in text.split():
            key, eq, value = part.partition("=")
            if not eq and key in OTEL_MODES:
                mode = next(m for m in OTEL_MODES if m == key)
            elif eq and key == "flush":
                try:
                    flush = float(value)
                except ValueError:
                    flush = math.nan
                if not 0 <= flush <= 600:
                    raise ConfigError(
                        f"{what}: flush= takes a number of seconds from 0 to 600, not {value!r}"
                    )
            else:
                raise ConfigError(
                    f"{what}: expected off, cases or fields and optionally "
                    f"flush=SECONDS, not {part!r}"
                )
        settings = cls(mode, flush)
        if settings.on and not installed():
            raise ConfigError(
                f"{what}: OpenTelemetry's SDK and OTLP messages are not installed; {_EXTRA}"
            )
        return settings

    def start(self) -> Telemetry:
        """The session's telemetry, for settings that are ``on`` (otherwise the session's is
        ``setting_parts.Unsent``): OpenTelemetry is imported here, only."""
        from .otel_events import Telemetry

        return Telemetry(per_field=self.mode == "fields", flush=self.flush)


def installed() -> bool:
    """Whether the ``otel`` extra is installed (found without importing OpenTelemetry's
    modules, only its namespace packages)."""
    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("opentelemetry.sdk", "opentelemetry.proto")
        )
    except ImportError:  # a parent package missing
        return False
