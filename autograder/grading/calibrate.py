"""Scale time limits to the grading machine, so a slow machine fails nobody.

What is scaled: every limit in a rubric's `[timeouts]`. The limits are seconds of
the student's own CPU time (client.py), so the scale only has to say how much
slower this machine's CPU runs student-style Python than the machine the base
limits were set on; how busy the machine is does not enter (other processes'
work is not the student's CPU time).

How it is measured: a fixed pure-Python workload (the kind of code students
write: loops, lists, small function calls) is timed in CPU seconds of this process,
after a short warm-up, again and again for ROUND_SECONDS; the fastest run counts
(single runs vary widely on a shared virtual machine; the fastest is stable). If the
two fastest runs disagree by more than AGREEMENT, another round is taken, up to
ROUNDS. A run at or below BASELINE_SECONDS ends the measuring at once: the fastest
run only gets faster, and the scale is never below 1. This is done on each CPU the
grader may use (at most MAX_CPUS), pinned there, and the slowest CPU's speed is the
machine's: the student's process may run on any of them. The scale is that time /
BASELINE_SECONDS, at most MAX_SCALE. Why these sizes: docs/PERFORMANCE.md,
"Figures the code cites".
SPIELBAUM_TIME_SCALE pins it, so two machines (or a regrade) give the same
verdicts; the scale used is written to `run.json` beside grades.csv.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass

from .. import KitError

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
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return _measure_here()
    results = []
    try:
        for cpu in cpus[:MAX_CPUS]:
            os.sched_setaffinity(0, {cpu})
            results.append(_measure_here())
    except OSError:
        results.append(_measure_here())
    finally:
        os.sched_setaffinity(0, cpus)
    return max(results)


def _measure_here() -> tuple[float, tuple[float, ...]]:
    # A run at or below BASELINE_SECONDS settles it (the module's docstring).
    end = time.process_time() + WARM_UP_SECONDS
    while time.process_time() < end:
        run = _sample()
        if run <= BASELINE_SECONDS:
            return run, (run,)
    samples: list[float] = []
    for _ in range(ROUNDS):
        end = time.process_time() + ROUND_SECONDS
        while time.process_time() < end:
            samples.append(_sample())
            if samples[-1] <= BASELINE_SECONDS:
                return samples[-1], tuple(sorted(samples)[:5])
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


def scale() -> float:
    """The factor every rubric time limit is multiplied by on this machine."""
    return measure_scale().scale
