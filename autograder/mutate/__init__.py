"""Mutation analysis of a hidden suite: which bugs would it miss?

    autograder mutate ASSIGNMENT [--count N] [--seed K] [--out DIR] [--jobs J] [--full]
                               [--scheduler tcp://HOST:PORT]

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
