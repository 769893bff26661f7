"""Benchmarks: speed and cost goals, measured side by side in one run (not timed tests)."""
