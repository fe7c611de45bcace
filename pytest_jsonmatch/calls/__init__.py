"""Calling targets and the judge, and keeping what they returned: the calls stage.

Takes golden cases (cases/), the target (the user's function) and the call settings; gives
each run's output with where it came from and what its call took
(:class:`~.case_outputs.Produced`): called live by the :class:`~.runner.Runner` (concurrency,
timeouts, retries, rate limits shared across processes, calls in flight under xdist), or
replayed from a recording checked against its fingerprint; the judge's calls and recorded
verdicts go the same way. May import the engine, reporting and cases/; never telemetry/,
session/ or pytest.
"""
