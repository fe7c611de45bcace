"""Tests of golden YAML case files (golden.py, safe_yaml.py), run through pytester."""
