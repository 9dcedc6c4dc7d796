"""Grade where courses already run: Gradescope and PrairieLearn packages.

`autograder export gradescope|prairielearn ASSIGNMENT ... --out DIR` writes a
package that runs the kit's hidden suite and sandbox inside the platform's own
container, with the same verdicts as `autograder grade` (docs/PLATFORMS.md):

- `wheels.py` builds the kit's wheel and downloads its runtime dependencies, so
  nothing is fetched from the network inside the platform;
- `export.py` lays out the package (scripts from `templates/`, the wheels, the
  reference modules, the expected values computed once, `spielbaum.json`);
- `run.py` is what the package runs inside the container: it finds the
  student's files (`upload.py`), probes the sandbox, grades one submission and
  writes the platform's results.json (`results.py`).
"""

PLATFORMS = ("gradescope", "prairielearn")
#: The package's settings, written by the export and read inside the container.
CONFIG = "spielbaum.json"
#: The hidden suite's expected values, computed at export (grading/warm.py).
EXPECTED = "expected.pickle"
