"""Helpers shared by the test files; not tests themselves."""
