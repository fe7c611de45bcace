"""The test suite, laid out like the source: engine/, plugin/, golden/ (and benchmarks/).

Every folder is a package, so that two test files may share a name in different folders
and every test file imports the shared helpers the same way, as ``tests.helpers.*``
(pytest puts the repository root on sys.path for a package of tests).
"""
