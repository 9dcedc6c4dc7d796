"""Grade one submission folder with the kit's sandboxed grader; print results.json.

    python -m autograder.nbgrader.grade_one ASSIGNMENT FOLDER

What a graded notebook cell runs (cells.verdict): the same `Grader` as
`autograder grade`, so both give the same score. The last line of stdout is the
results.json; nothing else is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import assignment
from ..grading import report
from ..grading.grader import Grader


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.nbgrader.grade_one")
    parser.add_argument("assignment")
    parser.add_argument("folder")
    args = parser.parse_args(argv)
    # The same rule as the bulk grader: a grader bug scores 0 and says so.
    grader = Grader(assignment.load(args.assignment))
    results = report.results_json(grader.grade("student", Path(args.folder)))
    sys.stdout.write("\n" + json.dumps(results) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
