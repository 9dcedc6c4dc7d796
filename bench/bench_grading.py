"""Benchmark the grading engine on tic-tac-toe.

Reports, all measured in this one run:
- sandboxed call round trip vs calling the same function in-process (ratio),
- per-call cost inside a pipelined batch (`Student.map`) vs in-process,
- time until a sandboxed child is ready (started, confined, module imported),
- bulk throughput: correct submissions per minute with the full hidden suite,
  with --jobs 1 as the baseline for the parallel run,
- peak memory of a grading worker and of a sandboxed child.

Usage: python bench/bench_grading.py [--submissions N]
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from autograder import ROOT
from autograder.grading import batch
from autograder.sandbox import layers
from autograder.sandbox.client import Sandbox

EXAMPLE = ROOT / "examples" / "tictactoe" / "ada_alphabeta"
BOARD = [["X", "O", "X"], [None, "O", None], [None, None, "X"]]


def _in_process_module():
    spec = importlib.util.spec_from_file_location("bench_ttt", EXAMPLE / "tictactoe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call_overhead(scratch: Path, chosen: list[str]) -> dict:
    module = _in_process_module()
    rounds = 3000
    started = time.perf_counter()
    for _ in range(rounds):
        module.winner(BOARD)
    local = (time.perf_counter() - started) / rounds
    with Sandbox(scratch, ["tictactoe"], chosen) as sandbox:
        sandbox.import_modules(5)
        samples = []
        for _ in range(rounds):
            t = time.perf_counter()
            sandbox.call("tictactoe.winner", (BOARD,), timeout=5)
            samples.append(time.perf_counter() - t)
        boards = [(BOARD,)] * 20000
        t = time.perf_counter()
        sandbox.map("tictactoe.winner", boards, 5)
        batched = (time.perf_counter() - t) / len(boards)
    return {"local": local, "round_trip": statistics.median(samples),
            "p99": sorted(samples)[int(0.99 * len(samples))], "batched": batched}


def child_ready(scratch: Path, chosen: list[str]) -> float:
    samples = []
    for _ in range(20):
        t = time.perf_counter()
        sandbox = Sandbox(scratch, ["tictactoe"], chosen)
        sandbox.start()
        sandbox.import_modules(5)
        samples.append(time.perf_counter() - t)
        sandbox.kill()
    return statistics.median(samples)


def throughput(count: int, jobs: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        for i in range(count):
            shutil.copytree(EXAMPLE, subs / f"student{i:03d}")
        t = time.perf_counter()
        rows = batch.grade_all("tictactoe", subs, Path(tmp) / "out", jobs,
                               console=Console(quiet=True))
        seconds = time.perf_counter() - t
    full = sum(float(r["score"]) == float(r["max_score"]) for r in rows)
    return count / seconds * 60, full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40)
    args = parser.parse_args()
    chosen = list(layers.available())
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        shutil.copy(EXAMPLE / "tictactoe.py", scratch)
        calls = call_overhead(scratch, chosen)
        ready = child_ready(scratch, chosen)
    serial, full_serial = throughput(max(4, args.submissions // 4), 1)
    parallel, full = throughput(args.submissions, 2)
    worker_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss

    table = Table(title=f"grading engine, sandbox layers: {', '.join(chosen)}")
    for column in ("measure", "value", "baseline (same run)", "ratio", "target"):
        table.add_column(column)
    us = 1e6
    table.add_row("call round trip (median)", f"{calls['round_trip'] * us:.0f} us",
                  f"in-process {calls['local'] * us:.1f} us",
                  f"{calls['round_trip'] / calls['local']:.0f}x", "<= 100 us")
    table.add_row("call round trip (p99)", f"{calls['p99'] * us:.0f} us", "", "", "")
    table.add_row("call inside a pipelined batch", f"{calls['batched'] * us:.1f} us",
                  f"in-process {calls['local'] * us:.1f} us",
                  f"{calls['batched'] / calls['local']:.1f}x", "")
    table.add_row("child ready (start, confine, import)", f"{ready * 1000:.0f} ms", "", "",
                  "<= 100 ms")
    table.add_row("throughput, --jobs 2", f"{parallel:.0f} submissions/min",
                  f"--jobs 1: {serial:.0f}/min", f"{parallel / serial:.2f}x",
                  ">= 120/min")
    table.add_row("correct submissions with full marks",
                  f"{full}/{args.submissions} (serial {full_serial})", "", "", "all")
    table.add_row("peak memory: main process / largest worker or child",
                  f"{worker_kb / 1024:.0f} MB / {child_kb / 1024:.0f} MB", "", "", "")
    console.print(table)


if __name__ == "__main__":
    main()
