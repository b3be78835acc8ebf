"""Helpers for the benchmark suites."""


def per_second(benchmark, count):
    """count / mean seconds of one call, or None when timing is disabled (--benchmark-disable)."""
    stats = getattr(benchmark, "stats", None)
    return count / stats.stats.mean if stats else None
