"""Mutation analysis of a hidden suite: which bugs would it miss?

    autograder mutate ASSIGNMENT [--count N] [--seed K] [--out DIR] [--jobs J] [--full]

Single-change mutants of the reference (solutions/<a>/<module>.py, inside the
solution regions only) are graded by the real hidden suite in the real sandbox,
each as if a student had handed it in; a mutant is killed when it loses any
point. DIR/mutation.md and DIR/mutation.csv give the mutation score (killed over
non-equivalent) and every survivor. docs/MUTATION.md is the teacher's guide.

Why the operators are our own (`operators.py`, standard library `ast`), after
trying what installs here:

- cosmic-ray 8.7 (maintained, the suggested model) installs about 30 packages
  into the grader (aiohttp, SQLAlchemy, GitPython, stevedore, ...) that
  `autograder export` would bundle into every platform package, for operators
  that are an internal plugin API over parso; it has no statement deletion and
  no argument swap, which the issue asks for.
- mutmut 3 (maintained) does not write plain mutants: its mutated modules are
  trampolines that import mutmut's runtime, which the sandboxed child (only the
  student's module and the standard library) cannot load.
So the operators are written on `ast` with cosmic-ray's names and set
(comparison, binary and unary operators, and/or, AddNot, True/False, numbers
+-1, break/continue, zero-iteration loops, exception handlers), mutmut's
one-replacement arithmetic table, and statement deletion, argument swaps and
min/max swaps of our own. Each edits only the characters it changes, so the
report quotes the teacher's own line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console



def mutate_cli(name: str, count: int, seed: int, out: str | None, jobs: int,
               full: bool = False, fail_under: float | None = None) -> int:
    from . import report
    from .run import Target, analyse
    target = Target.of(name)
    out_dir = Path(out) if out else Path("out") / "mutation" / name
    analysis = analyse(target, count=count, seed=seed, jobs=jobs, stop_early=not full,
                       console=Console(stderr=True))
    report.write(analysis, out_dir)
    console = Console(width=None if sys.stdout.isatty() else 130)
    console.print(f"{name}: {report.score_line(analysis)} (seed {seed}, "
                  f"{analysis.seconds:.0f} s)", markup=False, highlight=False)
    for verdict in analysis.of("survived"):
        m = verdict.mutant
        console.print(f"  survived: {m.module}:{m.line} {m.operator}: {m.original}  ->  "
                      f"{m.mutated}", markup=False, highlight=False)
    for verdict in analysis.of("error"):
        console.print(f"  grader error: {verdict.mutant.ident}: {verdict.killed_by}",
                      markup=False, highlight=False)
    for entry in analysis.stale:
        console.print(f"  stale allowlist entry: {entry.line!r} {entry.operator}",
                      markup=False, highlight=False)
    console.print(f"report in {out_dir / 'mutation.md'} and {out_dir / 'mutation.csv'}",
                  markup=False, highlight=False)
    if analysis.of("error"):
        return 1
    if fail_under is not None and (analysis.score or 0.0) * 100 < fail_under:
        return 1
    return 0

