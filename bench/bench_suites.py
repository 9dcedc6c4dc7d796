"""Per-submission grading time of each hidden suite, now and before the proxy protocol.

Issue 10 moved every rule, search and counter out of the sandbox: the student's
searches now call back into the grader for each board method, which costs a
pipe round trip per call. This bench grades the reference submission of each
assignment with today's suite and with the suite of BASELINE (the last commit
before the change, unpacked from git into a temporary folder), one after the
other in the same run on the same machine, and reports the ratio. Target: at
most 1.5x.

Each measurement: in a fresh process, the reference is graded once as the
warm-up the bulk grader does (it fills the caches of expected values), then
once more, timed: the CPU seconds of the grader and every child it started
(what grading costs, whatever else the machine runs) and the wall time.
`--repeat` rounds alternate today's and the baseline's, so a change in the
machine's load falls on both; the medians are compared, the target on CPU.

Also reported: the proxy round trip (a student function calling an `ask`
method of a grader's object) and a `tell` call, next to an in-process method
call measured in the same run. Target: at most 100 us median.

Issue 22 (each function judged with the grader's helpers) measures against
the last commit before it: `--baseline before-blame`, target at most 1.2x.

Run: python bench/bench_suites.py [--repeat N] [--only A,B] [--baseline REV|before-blame]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "17f470bfa418b0a60e5eb9a53c70c8f2240934ea"   # before issue 10 (kit code in the child)
# Named baselines, each with the ratio its issue allows.
BASELINES = {"before-proxies": (BASELINE, 1.5),
             "before-blame": ("3b07e78bcac3346b6b38c4d9f2cb0f82e07d8173", 1.2)}
ASSIGNMENTS = tuple(p.parent.name for p in sorted((ROOT / "solutions").glob("*/assignment.toml")))

# Runs inside a checkout (today's or the baseline's) with that checkout first on sys.path.
MEASURE = r"""
import json, statistics, sys, time
try:
    from autograder import assignment as assignments
except ImportError:                       # a checkout from before assignment.py
    from autograder import slices as assignments
name, repeat = sys.argv[1], int(sys.argv[2])
assignment = assignments.load(name)
try:                                      # today: one Grader holds the set-up
    from autograder.grading.grader import Grader
    grader = Grader(assignment)
    grader.warm_up()
    grade = lambda: grader.grade("reference", assignment.solution_dir)
except ImportError:                       # an older checkout: set up by hand
    from autograder.grading import batch, calibrate
    from autograder.grading.runner import grade_submission
    from autograder.sandbox import layers
    chosen, scale = list(layers.available()), calibrate.scale()
    batch.warm_up(assignment, chosen, scale)
    grade = lambda: grade_submission(assignment, "reference", assignment.solution_dir, layers=chosen,
                                     scale=scale)
import resource
def cpu():
    return sum(getattr(resource.getrusage(who), field) for who in
               (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for field in ("ru_utime", "ru_stime"))
times, cpus, scores = [], [], []
for _ in range(repeat):
    started, used = time.perf_counter(), cpu()
    graded = grade()
    times.append(time.perf_counter() - started)
    cpus.append(cpu() - used)
    scores.append(graded.score == graded.max_score)
print(json.dumps({"median": statistics.median(times), "cpu": statistics.median(cpus),
                  "full": all(scores)}))
"""

STUDENT = '''
import time


def ask_timed(board, n):
    """Each call timed on its own (this is the bench's code, not a student's)."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        board.evaluate()
        samples.append(time.perf_counter() - started)
    samples.sort()
    return [samples[len(samples) // 2], samples[int(len(samples) * 0.99)]]


def tell_many(board, n):
    for _ in range(n):
        board.makeMove(1)
    return board.evaluate()
'''


class Board:
    def __init__(self):
        self.made = 0

    def evaluate(self):
        return 3

    def makeMove(self, move):
        self.made += 1


def measure_suite(checkout: Path, name: str, repeat: int) -> dict:
    done = subprocess.run([sys.executable, "-c", MEASURE, name, str(repeat)], cwd=checkout,
                          capture_output=True, text=True, timeout=1800,
                          env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        raise SystemExit(f"measuring {name} in {checkout} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_checkout(target: Path, revision: str = BASELINE) -> Path:
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def proxy_round_trip(calls: int = 20000) -> dict:
    sys.path.insert(0, str(ROOT))
    from autograder.sandbox import layers
    from autograder.sandbox.client import Sandbox
    from autograder.sandbox.plans import Plan, Proxy

    board = Board()
    started = time.perf_counter()
    for _ in range(calls):
        board.evaluate()
    local = (time.perf_counter() - started) / calls
    result = {"local": local}
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, "bench_student.py").write_text(STUDENT)
        with Sandbox(Path(scratch), ["bench_student"], list(layers.available())) as sandbox:
            sandbox.import_modules(10)
            board = Proxy(Board(), ask=("evaluate",), tell=("makeMove",))
            plan = Plan("ask_timed")
            plan.returns(plan.call("bench_student.ask_timed", board, calls))
            [outcome] = sandbox.plans([plan], 120)
            result["ask_median"], result["ask_p99"] = outcome.value
            plan = Plan("tell_many")
            plan.returns(plan.call("bench_student.tell_many", board, calls))
            started = time.perf_counter()
            [outcome] = sandbox.plans([plan], 120)
            result["tell"] = (time.perf_counter() - started) / calls
            assert outcome.ok, outcome
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=",".join(ASSIGNMENTS))
    parser.add_argument("--baseline", default="before-proxies",
                        help=f"a commit, or one of {', '.join(BASELINES)}")
    parser.add_argument("--skip-proxy", action="store_true", help="only the suites' times")
    args = parser.parse_args()
    revision, target = BASELINES.get(args.baseline, (args.baseline, 1.5))
    names = [n for n in args.only.split(",") if n]
    console = Console()
    if not args.skip_proxy:
        proxy_table(console)
    suites_table(console, names, args.repeat, revision, target)


def proxy_table(console) -> None:
    trip = proxy_round_trip()
    table = Table(title="proxy calls (a student function calling a grader's object)")
    for column in ("measure", "value", "baseline (same run)", "ratio", "target"):
        table.add_column(column)
    us = 1e6
    table.add_row("ask round trip, median of 20,000", f"{trip['ask_median'] * us:.1f} us",
                  f"in-process {trip['local'] * us:.2f} us",
                  f"{trip['ask_median'] / trip['local']:.0f}x", "<= 100 us")
    table.add_row("ask round trip, p99", f"{trip['ask_p99'] * us:.1f} us", "", "", "")
    table.add_row("tell (recorded, no round trip), mean", f"{trip['tell'] * us:.1f} us",
                  f"in-process {trip['local'] * us:.2f} us",
                  f"{trip['tell'] / trip['local']:.0f}x", "")
    console.print(table)


def suites_table(console, names, repeat: int, revision: str, target: float) -> None:
    table = Table(title="per-submission grading time of each hidden suite (the reference)")
    for column in ("assignment", "CPU now", f"CPU before ({revision[:7]})", "CPU ratio",
                   "target", "wall now / before", "full marks now / before"):
        table.add_column(column)
    with tempfile.TemporaryDirectory() as tmp:
        before_root = baseline_checkout(Path(tmp) / "baseline", revision)
        for name in names:
            # Alternated, one grading each, so a change in the machine's load
            # falls on both sides alike.
            runs = {"now": [], "before": []}
            for _ in range(repeat):
                runs["now"].append(measure_suite(ROOT, name, 1))
                runs["before"].append(measure_suite(before_root, name, 1))
            now, before = ({"median": statistics.median(r["median"] for r in side),
                            "cpu": statistics.median(r.get("cpu", 0.0) for r in side),
                            "full": all(r["full"] for r in side)}
                           for side in (runs["now"], runs["before"]))
            table.add_row(name, f"{now['cpu']:.2f} s", f"{before['cpu']:.2f} s",
                          f"{now['cpu'] / before['cpu']:.2f}x", f"<= {target}x",
                          f"{now['median']:.1f} s / {before['median']:.1f} s",
                          f"{now['full']} / {before['full']}")
        shutil.rmtree(before_root, ignore_errors=True)
    console.print(table)


if __name__ == "__main__":
    main()
