"""Scale time limits to the grading machine, so a slow machine fails nobody.

Every limit in a rubric's `[timeouts]` is seconds of the student's own CPU time, so
the scale says only how much slower this machine's CPU runs student-style Python than
the reference machine. A fixed pure-Python workload is timed on each CPU the grader
may use: the fastest of many runs counts (it is stable on a shared machine), the
slowest CPU's is the machine's, and the scale is that time / BASELINE_SECONDS, between
1 and MAX_SCALE (docs/PERFORMANCE.md). SPIELBAUM_TIME_SCALE pins it; run.json says it.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass

from .. import KitError
from .workers import allowed_cpus, pin

# CPU seconds the workload takes on the 2-core development machine's slower CPU
# (fastest run there; its faster CPU takes 0.008).
BASELINE_SECONDS = 0.0135
MAX_SCALE = 8.0
AGREEMENT = 1.10
ROUNDS = 4
ROUND_SECONDS = 0.1     # CPU time of one round of runs
WARM_UP_SECONDS = 0.02
MAX_CPUS = 8


@dataclass(frozen=True)
class Timing:
    scale: float
    source: str                  # "measured" or "SPIELBAUM_TIME_SCALE"
    samples: tuple[float, ...] = ()


def _workload() -> int:
    total = 0
    board = [[None] * 3 for _ in range(3)]
    for n in range(6000):
        copy = [row[:] for row in board]
        copy[n % 3][(n // 3) % 3] = "X"
        total += sum(cell is None for row in copy for cell in row)
    return total


def _sample() -> float:
    started = time.process_time()
    _workload()
    return time.process_time() - started


def measure() -> tuple[float, tuple[float, ...]]:
    """(CPU seconds of the workload on the slowest CPU, that CPU's fastest runs)."""
    cpus = allowed_cpus()
    try:
        results = [_measure_here() for cpu in cpus[:MAX_CPUS] if pin([cpu])]
    finally:
        pin(cpus)
    return max(results) if results else _measure_here()


def _measure_here() -> tuple[float, tuple[float, ...]]:
    """The fastest runs here, after a warm-up: rounds of ROUND_SECONDS until the two
    fastest agree within AGREEMENT (at most ROUNDS); a run at or below
    BASELINE_SECONDS ends it at once (the fastest only gets faster, the scale is never
    below 1)."""
    end = time.process_time() + WARM_UP_SECONDS
    while time.process_time() < end:
        run = _sample()
        if run <= BASELINE_SECONDS:
            return run, (run,)
    samples: list[float] = []
    for _ in range(ROUNDS):
        end = time.process_time() + ROUND_SECONDS
        while True:     # at least one run a round: on a starved CPU one run outlasts a round
            samples.append(_sample())
            if samples[-1] <= BASELINE_SECONDS:
                return samples[-1], tuple(sorted(samples)[:5])
            if time.process_time() >= end:
                break
        if len(samples) >= 2:
            best, second = sorted(samples)[:2]
            if second <= best * AGREEMENT:
                break
    return min(samples), tuple(sorted(samples)[:5])


@functools.cache
def measure_scale() -> Timing:
    forced = os.environ.get("SPIELBAUM_TIME_SCALE")
    if forced:
        try:
            value = float(forced)
        except ValueError:
            raise KitError(f"SPIELBAUM_TIME_SCALE={forced!r} is not a number "
                           "(e.g. SPIELBAUM_TIME_SCALE=1.5)") from None
        return Timing(max(1.0, value), "SPIELBAUM_TIME_SCALE")
    best, samples = measure()
    return Timing(min(MAX_SCALE, max(1.0, best / BASELINE_SECONDS)), "measured", samples)
