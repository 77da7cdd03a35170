"""Helpers shared by the benchmark modules (a leading underscore keeps bench/__main__.py from running it)."""

from __future__ import annotations

import statistics


def median_p95(samples: list[float], digits: int = 2) -> tuple[float, float]:
    """(median, p95) of ``samples``, each rounded to ``digits``.

    p95 is the sample at rank ``int(0.95 * (n - 1))`` of the sorted list (no interpolation), the
    definition every table in bench/results has used, so results stay comparable across runs."""
    ordered = sorted(samples)
    return round(statistics.median(ordered), digits), round(ordered[int(0.95 * (len(ordered) - 1))], digits)


def median_p95_columns(samples: list[float]) -> dict[str, float]:
    """The ``median_ms`` and ``p95_ms`` columns of a latency row, to two decimals."""
    median, p95 = median_p95(samples)
    return {"median_ms": median, "p95_ms": p95}
