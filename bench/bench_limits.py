"""Bulk grading with CPU-time limits against the wall-clock limits before them.

Issue 20 made every time limit seconds of the child's own CPU time, read by the
grader from /proc while it waits, with a wall-clock backstop, and put the
channel behind deadlines and caps (issue 18). This bench grades one batch (the
tic-tac-toe examples plus slow but correct submissions as students write them)
with today's kit and with BASELINE (the last commit with wall-clock limits,
unpacked from git into a temporary folder), alternating A, B, A, B so that both
see the same machine, and reports the median wall time of each and the ratio.
Target: at most 1.1x. The scores of both must agree except where BASELINE was
wrong (listed).

Run: python bench/bench_limits.py [--rounds N] [--jobs J]
"""

from __future__ import annotations

import argparse
import csv
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
BASELINE = "e902ce55b49bc321c5c4c7eb438843670e73915d"   # wall-clock limits (before issue 20)
SLOW = ROOT / "examples" / "tictactoe" / "bob_plain" / "tictactoe.py"


def checkout(commit: str, target: Path) -> Path:
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def batch_folder(target: Path) -> Path:
    """The examples (hostile ones included), plus three copies of a slow solution."""
    shutil.copytree(ROOT / "examples" / "tictactoe", target)
    for number in range(3):
        (target / f"slow_{number}").mkdir()
        shutil.copy(SLOW, target / f"slow_{number}" / "tictactoe.py")
    return target


def grade(kit: Path, submissions: Path, out: Path, jobs: int) -> tuple[float, dict]:
    shutil.rmtree(out, ignore_errors=True)
    command = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable,
               "-m", "autograder", "grade", "tictactoe", str(submissions), "--out", str(out),
               "--jobs", str(jobs)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=kit, capture_output=True, text=True, timeout=3600,
                          env={"PYTHONPATH": str(kit), "PATH": "/usr/bin:/bin",
                               "CI": "true"})
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"grading with {kit} failed:\n{done.stderr[-2000:]}")
    with (out / "grades.csv").open(encoding="utf-8") as handle:
        return seconds, {row["student"]: row["score"] for row in csv.DictReader(handle)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        before = checkout(BASELINE, tmp / "before")
        submissions = batch_folder(tmp / "submissions")
        times = {"now": [], "before": []}
        scores = {}
        for _ in range(args.rounds):
            for label, kit in (("now", ROOT), ("before", before)):
                seconds, scores[label] = grade(kit, submissions, tmp / f"out-{label}",
                                               args.jobs)
                times[label].append(seconds)
    now, then = statistics.median(times["now"]), statistics.median(times["before"])
    table = Table(title=f"grading {len(scores['now'])} tic-tac-toe submissions, "
                        f"--jobs {args.jobs}, median of {args.rounds}")
    for column in ("limits", "wall time", "ratio", "target"):
        table.add_column(column)
    table.add_row("CPU time + backstop (now)", f"{now:.1f} s", f"{now / then:.2f}x", "<= 1.1x")
    table.add_row(f"wall clock ({BASELINE[:7]})", f"{then:.1f} s", "1.00x", "")
    console = Console()
    console.print(table)
    differ = {s: (scores["before"].get(s), score) for s, score in scores["now"].items()
              if scores["before"].get(s) != score}
    for student, (old, new) in sorted(differ.items()):
        console.print(f"score differs for {student}: {old} before, {new} now")
    if not differ:
        console.print("every score is the same with both")


if __name__ == "__main__":
    main()
