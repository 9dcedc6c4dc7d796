"""Scale time limits to the grading machine, so a slow machine fails nobody.

A fixed pure-Python workload (the kind of code students write: loops, lists,
small function calls) is timed, best of five; the ratio to the time it takes
on the machine the base limits were set on is the scale, never below 1.
"""

from __future__ import annotations

import functools
import os
import time

# Seconds the workload takes on the 2-core development machine (best of five).
BASELINE_SECONDS = 0.012
MAX_SCALE = 8.0


def _workload() -> int:
    total = 0
    board = [[None] * 3 for _ in range(3)]
    for n in range(6000):
        copy = [row[:] for row in board]
        copy[n % 3][(n // 3) % 3] = "X"
        total += sum(cell is None for row in copy for cell in row)
    return total


def measure() -> float:
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        _workload()
        best = min(best, time.perf_counter() - started)
    return best


@functools.cache
def scale() -> float:
    """SPIELBAUM_TIME_SCALE overrides the measurement (e.g. 3 for a shared server)."""
    forced = os.environ.get("SPIELBAUM_TIME_SCALE")
    if forced:
        return max(1.0, float(forced))
    return min(MAX_SCALE, max(1.0, measure() / BASELINE_SECONDS))
