"""Run the mutation analysis on a copy of this fixture (a subprocess of the kit test).

    python -m tests.mutate_fixture.drive FIXTURE_COPY OUT_DIR COUNT SEED [--full]

FIXTURE_COPY is a course folder (solutions/tiny/, and suites/tiny/ with
test_weak.py); the report goes to OUT_DIR as `autograder mutate` writes it.
"""

import os
import sys
from pathlib import Path

from rich.console import Console

from autograder import assignment
from autograder.mutate import report
from autograder.mutate.run import analyse


def main(argv: list[str]) -> int:
    fixture, out, count, seed = Path(argv[0]), Path(argv[1]), int(argv[2]), int(argv[3])
    os.environ["SPIELBAUM_COURSE"] = str(fixture)
    target = assignment.load("tiny")
    analysis = analyse(target, count=count, seed=seed, jobs=2, stop_early="--full" not in argv,
                       console=Console(stderr=True))
    report.write(analysis, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
