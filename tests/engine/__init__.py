"""Tests of the engine (pytest_jsonmatch.engine): one file per engine module, one per metric."""
