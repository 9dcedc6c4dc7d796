"""What the sandbox costs the student's own code: the same calls in a child and in-process.

The student's CPU time is judged inside the sandboxed child (client.py), where the
child's threads and its watched doors (child.watch_doors) run beside the student's
code. In one run, for each bundled tic-tac-toe example named (slow, correct, built on deepcopy as
most students write it), minimax on every unfinished position with 5 or more marks:

- in-process: this process, the module imported plainly (the baseline);
- in the sandbox: a real child with every layer this machine offers, the same calls
  in one map, its CPU time read from /proc.

Both on one CPU (as bulk grading runs a child, grading/workers.py), best of --repeat
rounds, alternating. Printed: each side's CPU seconds and their ratio. Then what a
child's start and import cost in CPU time.

Usage: python bench/bench_child_penalty.py [--examples NAME ...] [--repeat 4]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EXAMPLES = ROOT / "examples" / "tictactoe"


def load(example: str):
    source = next((EXAMPLES / example).rglob("tictactoe.py"))
    spec = importlib.util.spec_from_file_location(f"student_{example}", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return source, module


def positions(game, marks: int) -> list[tuple]:
    """Every unfinished position with at least `marks` marks, as fresh argument tuples."""
    from bench_child_calls import reachable
    return [(json.loads(key),) for key, board in reachable(game).items()
            if not game.terminal(board) and sum(c is not None for r in board for c in r) >= marks]


def in_process(game, calls) -> float:
    started = time.process_time()
    for args in calls:
        game.minimax(*args)
    return time.process_time() - started


def in_sandbox(source: Path, calls) -> float:
    from autograder.sandbox import layers
    from autograder.sandbox.client import Sandbox
    with tempfile.TemporaryDirectory(prefix="spielbaum-bench-") as scratch:
        shutil.copy(source, Path(scratch) / "tictactoe.py")
        with Sandbox(Path(scratch), ["tictactoe"], list(layers.available())) as sandbox:
            assert sandbox.import_modules(10).answered
            sandbox.new_check()
            before = sandbox.cpu_seconds()
            outcomes = sandbox.map("tictactoe.minimax", calls, 30.0)
            assert all(o.answered for o in outcomes)
            return sandbox.cpu_seconds() - before


def starts(count: int = 20, rounds: int = 3) -> None:
    """CPU time of a child's start and import of an empty module (every layer), the
    child's own time: what each of a batch's children costs before the first call."""
    import resource
    from autograder.sandbox import layers
    from autograder.sandbox.client import Sandbox

    def children_cpu() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime
    with tempfile.TemporaryDirectory(prefix="spielbaum-bench-") as scratch:
        Path(scratch, "empty.py").write_text("VALUE = 1\n")
        best = None
        for _ in range(rounds):
            before = children_cpu()
            for _ in range(count):
                with Sandbox(Path(scratch), ["empty"], list(layers.available())) as sandbox:
                    assert sandbox.import_modules(10).answered
            each = (children_cpu() - before) / count
            best = each if best is None else min(best, each)
    print(f"  a child's start and import: {best * 1000:.1f} ms of CPU "
          f"(best of {rounds} rounds of {count})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", nargs="+",
                        default=["bob_plain", "judy_nested", "lena_slow_deep_copies"])
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--marks", type=int, default=5, help="positions with at least this many")
    options = parser.parse_args()
    from autograder.grading import workers as pool
    with pool.one_cpu():
        for example in options.examples:
            source, game = load(example)
            calls = positions(game, options.marks)
            alone, boxed = [], []
            for _ in range(options.repeat):
                alone.append(in_process(game, calls))
                boxed.append(in_sandbox(source, calls))
            print(f"{example}: {len(calls):,} minimax calls; in-process {min(alone):.3f} s, "
                  f"in the sandbox {min(boxed):.3f} s CPU (best of {options.repeat}): "
                  f"{min(boxed) / min(alone):.3f}x")
        starts()
    return 0


if __name__ == "__main__":
    sys.exit(main())
