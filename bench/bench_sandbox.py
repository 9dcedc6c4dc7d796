"""What the sandbox's layers cost: this checkout against another, in one run.

For this checkout of the kit and, with --against DIR, another checkout (a git
worktree of an earlier commit: `git worktree add /tmp/before <commit>`), alternating
--repeat times:

- a child's start: --starts sandboxes with every layer this machine offers, each
  started, its (empty) module imported and stopped; the child's CPU time (from
  /proc, all its threads) and the wall time per start;
- a batch: `autograder grade tictactoe examples/tictactoe --jobs 1` in a process of
  its own (inside a PID namespace where the machine offers one); its CPU time and
  the CPU time of everything it started, per submission, and its wall time.

Printed: each side's least of the runs, and this checkout / the other. The grades of
every batch must be the same, else the bench fails.

Usage: python bench/bench_sandbox.py [--against DIR] [--starts 40] [--repeat 3] [--tiny]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STARTS = r'''
import json, os, sys, tempfile, time
from pathlib import Path
from autograder.sandbox import layers
from autograder.sandbox.client import Sandbox
folder = Path(tempfile.mkdtemp())
(folder / "empty.py").write_text("VALUE = 1\n")
chosen = list(layers.available())
ticks = os.sysconf("SC_CLK_TCK")
cpu = wall = 0.0
for _ in range(int(sys.argv[1])):
    began = time.perf_counter()
    box = Sandbox(folder, ["empty"], chosen)
    box.start()
    assert box.import_modules(10).ok
    used = box.cpu_seconds()
    box.kill()
    wall += time.perf_counter() - began
    cpu += used
print(json.dumps({"layers": chosen, "cpu": cpu, "wall": wall}))
'''


def _isolated(command: list[str]) -> list[str]:
    wrap = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
    if shutil.which("unshare") and subprocess.run(wrap + ["true"],
                                                   capture_output=True).returncode == 0:
        return wrap + command
    return command


def starts(kit: Path, count: int) -> dict:
    done = subprocess.run([sys.executable, "-c", STARTS, str(count)], capture_output=True,
                          text=True, cwd=kit, env={**os.environ, "PYTHONPATH": str(kit)})
    if done.returncode:
        raise SystemExit(f"starting children with {kit} failed: {done.stderr[-1500:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return {"cpu": data["cpu"] / count, "wall": data["wall"] / count, "layers": data["layers"]}


def batch(kit: Path, submissions: Path, out: Path) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(_isolated([sys.executable, "-m", "autograder", "grade", "tictactoe",
                                     str(submissions), "--out", str(out), "--jobs", "1"]),
                          capture_output=True, text=True, cwd=kit,
                          env={**os.environ, "PYTHONPATH": str(kit)})
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"grading with {kit} failed: {done.stderr[-1500:]}")
    with (out / "grades.csv").open() as handle:
        rows = [row for row in csv.DictReader(handle)]
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"cpu": cpu / len(rows), "wall": wall / len(rows),
            "grades": [(r["student"], r["score"], r["status"], r["failed"]) for r in rows]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout of the kit")
    parser.add_argument("--starts", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tiny", action="store_true", help="smoke test: measures nothing")
    args = parser.parse_args()
    kits = {"this": ROOT} | ({"other": args.against.resolve()} if args.against else {})
    count, repeat = (3, 1) if args.tiny else (args.starts, args.repeat)
    examples = ROOT / "examples" / "tictactoe"
    with tempfile.TemporaryDirectory() as tmp:
        submissions = Path(tmp) / "batch"
        shutil.copytree(examples, submissions)
        if args.tiny:
            for folder in sorted(submissions.iterdir())[2:]:
                shutil.rmtree(folder)
        best = {name: {"start_cpu": [], "start_wall": [], "cpu": [], "wall": []} for name in kits}
        grades = set()
        for _ in range(repeat):
            for name, kit in kits.items():
                started = starts(kit, count)
                graded = batch(kit, submissions, Path(tmp) / f"out-{name}")
                best[name]["start_cpu"].append(started["cpu"])
                best[name]["start_wall"].append(started["wall"])
                best[name]["cpu"].append(graded["cpu"])
                best[name]["wall"].append(graded["wall"])
                grades.add(json.dumps(graded["grades"]))
                layers = started["layers"]
    print(f"layers: {', '.join(layers)}; {count} starts and "
          f"{len(json.loads(next(iter(grades))))} submissions a run, least of {repeat} runs")
    for name in kits:
        b = {key: min(values) for key, values in best[name].items()}
        print(f"  {name:<6} child start: {b['start_cpu'] * 1000:6.1f} ms CPU, "
              f"{b['start_wall'] * 1000:6.1f} ms wall; grading: {b['cpu']:.3f} s CPU, "
              f"{b['wall']:.3f} s wall a submission")
    if "other" in kits:
        this = {key: min(values) for key, values in best["this"].items()}
        other = {key: min(values) for key, values in best["other"].items()}
        print(f"  this / other: child start {this['start_cpu'] / other['start_cpu']:.2f}x CPU; "
              f"grading {this['cpu'] / other['cpu']:.3f}x CPU, "
              f"{this['wall'] / other['wall']:.3f}x wall a submission")
    if len(grades) != 1:
        print("THE RUNS GAVE DIFFERENT GRADES")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
