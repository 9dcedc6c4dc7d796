"""Similarity report: find copied submissions in a batch.

    autograder similarity ASSIGNMENT SUBMISSIONS_DIR --out OUT [--floor 0.5] [--jobs N]

Writes OUT/similarity.csv (one row per pair whose score reaches the floor) and
OUT/similarity.html (the pairs ranked, each with both files side by side and the
shared code highlighted, and the groups of three or more mutually similar
submissions). The submissions folder follows `autograder grade`'s conventions: one
folder per student, the module found anywhere inside it, exactly once.

The comparison itself is copydetect's (winnowed k-gram fingerprints, MIT licence,
on PyPI): a library made for this, used by course staff for exactly this job.
What the kit adds is what copydetect's own filter leaves open for Python and a
teacher needs: a tokenisation that renaming, reformatting, comments, docstrings and
`pass` cannot move (`tokens.py`), the code students received removed as boilerplate,
reproducible numbers, and a report that shows the matched regions.
"""

#: Pairs below this score are left out of the report (see docs/SIMILARITY.md).
FLOOR = 0.5
