"""Benchmarks of the scheduling core that print ratios against a baseline run in the same process."""
