"""Similarity report: find copied submissions in a batch (docs/SIMILARITY.md).

    autograder similarity ASSIGNMENT SUBMISSIONS_DIR --out OUT [--floor 0.5] [--jobs N]

Writes OUT/similarity.csv and OUT/similarity.html. The winnowing is copydetect's;
the kit adds the token streams it compares (tokens.py, the structure package), the
handed-out code removed as boilerplate, the behaviour records, and the report.
"""

#: Pairs below this score are left out of the report (see docs/SIMILARITY.md).
FLOOR = 0.5
