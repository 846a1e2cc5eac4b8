"""Benchmarks of the product through real processes: intake throughput and console responsiveness."""
