"""Run the honest rewrites on a copy of this fixture (a subprocess of the kit test).

    python -m tests.mutate_fixture.honest.drive FIXTURE_COPY OUT_DIR [REWRITE ...]

FIXTURE_COPY is a course folder (solutions/fragile/, and suites/fragile/ with
test_fragile.py); the report goes to OUT_DIR as `autograder honest` writes it.
"""

import os
import sys
from pathlib import Path

from rich.console import Console

from autograder import assignment
from autograder.mutate.honest import report
from autograder.mutate.honest.run import check


def main(argv: list[str]) -> int:
    fixture, out, kinds = Path(argv[0]), Path(argv[1]), argv[2:]
    os.environ["SPIELBAUM_COURSE"] = str(fixture)
    target = assignment.load("fragile")
    honest = check(target, kinds or None, jobs=2, console=Console(stderr=True))
    report.write(honest, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
