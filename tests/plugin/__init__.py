"""Tests of the pytest layer (plugin, assertion, settings, report, hooks), mostly run through
pytester, one file per area."""
