"""Grade where courses already run: Gradescope and PrairieLearn packages.

`autograder export gradescope|prairielearn ASSIGNMENT ... --out DIR` writes a
package that grades inside the platform's container with the same verdicts as
`autograder grade` (docs/PLATFORMS.md): wheels.py gathers the wheels it installs,
export.py lays it out, and run.py is what it runs there (upload.py finds the
student's files, results.py writes the platform's results.json).
"""

PLATFORMS = ("gradescope", "prairielearn")
#: The package's settings, written by the export and read inside the container.
CONFIG = "spielbaum.json"
#: The hidden suite's expected values, computed at export (grading/warm.py).
EXPECTED = "expected.pickle"
