"""Honest rewrites: the dual of mutation analysis (docs/MUTATION.md, "Honest rewrites").

    autograder honest ASSIGNMENT [--rewrite NAME ...] [--out DIR] [--jobs J] [--list]

Mutation analysis proves that a hidden suite notices bugs; this proves that it
lets correct code through. Each *rewrite* (rewrites/) changes the reference
the way an honest student's code differs from it (calls by keyword, an exception
that subclasses the specified one, German names, a debug print, a decorator...)
without changing anything the specification promises. Each rewritten reference
is first run next to the reference on a few calls (behaviour.py; a difference
is the rewrite's bug, never blamed on the suite), then graded by the real hidden
suite in the real sandbox exactly as mutants are (mutate/run.py), and must score
full marks. The report names every point a rewrite lost: the check, the points
and the first line of its feedback.
"""
