"""A smoke test of the benchmark script (the benchmarks themselves are not tests)."""
