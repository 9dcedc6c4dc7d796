"""Mutation analysis: every hidden suite's mutation score, and the early stop's saving.

For each assignment, a seeded sample of mutants of the reference (the kit test's:
40, seed 0) is graded by the hidden suite in the sandbox with `--jobs 2`; printed:
killed, survived, allowlisted equivalents met, the score (issue 12 asks for at
least 98%) and the time per mutant. Then one assignment's sample is graded twice,
stopping each mutant's run at its first lost point (what `autograder mutate` does)
and, as the baseline in the same run, running every check (`--full`); the ratio
is the early stop's speed-up, and the verdicts must be the same.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import assignment as assignments  # noqa: E402
from autograder.mutate.run import analyse  # noqa: E402

REQUIRED = 0.98


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="assignments (default: all)")
    parser.add_argument("--speedup", default="negamax",
                        help="the assignment whose sample is also graded without the early stop")
    parser.add_argument("--speedup-count", type=int, default=20)
    args = parser.parse_args()
    quiet = Console(stderr=True, quiet=True)
    print(f"mutation score per assignment: {args.count} mutants each, seed {args.seed}, "
          f"--jobs {args.jobs}")
    print(f"{'assignment':<11} {'killed':>6} {'survived':>8} {'equiv.':>6} {'score':>7} "
          f"{'seconds':>8} {'s/mutant':>8}")
    for name in args.only or assignments.names():
        result = analyse(assignments.load(name), count=args.count, seed=args.seed, jobs=args.jobs,
                         console=quiet)
        killed, survived = len(result.of("killed")), len(result.of("survived"))
        graded = killed + survived + len(result.of("error"))
        score = f"{result.score:.1%}" if result.score is not None else "-"
        flag = "" if (result.score or 0) >= REQUIRED else "  (below 98%)"
        print(f"{name:<11} {killed:>6} {survived:>8} {len(result.of('equivalent')):>6} "
              f"{score:>7} {result.seconds:>8.0f} {result.seconds / max(graded, 1):>8.2f}"
              + flag, flush=True)
        for verdict in result.of("survived"):
            m = verdict.mutant
            print(f"    survivor {m.module}:{m.line} {m.operator}: {m.mutated}")
        for verdict in result.of("error"):
            print(f"    grader error {verdict.mutant.ident}: {verdict.killed_by}")
    target = assignments.load(args.speedup)
    early = analyse(target, count=args.speedup_count, seed=args.seed, jobs=args.jobs,
                    console=quiet)
    full = analyse(target, count=args.speedup_count, seed=args.seed, jobs=args.jobs,
                   stop_early=False, console=quiet)
    same = [v.status for v in early.verdicts] == [v.status for v in full.verdicts]
    print(f"early stop ({args.speedup}, {args.speedup_count} mutants, "
          f"{len(early.of('killed'))} killed), grading the mutants: {early.grading_seconds:.0f} s, "
          f"against every check run {full.grading_seconds:.0f} s: "
          f"{full.grading_seconds / early.grading_seconds:.2f}x faster; "
          f"verdicts {'the same' if same else 'DIFFERENT'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
