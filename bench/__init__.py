"""Benchmarks (`make bench`): scripts, not timed tests. Each module in this package that
defines ``run() -> list[dict]`` is run in turn; rows are printed as a table and written to
``bench/results/latest.md`` with the machine and the data's as-of date."""
