"""Synthetic clusters for tests, demos and benchmarks."""
