"""Mutation analysis of a hidden suite: which bugs would it miss?

    autograder mutate ASSIGNMENT [--count N] [--seed K] [--out DIR] [--jobs J] [--full]
                               [--scheduler tcp://HOST:PORT]

Single-change mutants of the reference (solutions/<a>/<module>.py, inside the
solution regions only) are graded by the real hidden suite in the real sandbox,
each as if a student had handed it in; a mutant is killed when it loses any
point. DIR/mutation.md and DIR/mutation.csv give the mutation score (killed over
non-equivalent) and every survivor. docs/MUTATION.md is the teacher's guide; it
also says why the operators (operators.py) are the kit's own, not cosmic-ray's or mutmut's.
"""
