"""What a graded notebook cell runs: one hidden test's verdict, as nbgrader reads it.

A graded cell calls `verdict(assignment, test)`. The first call in a kernel
grades the submission once with the kit's sandboxed grader in a separate process
(grade_one.py), so student code never enters this kernel. nbgrader scores a code
cell by its outputs (stderr: no points; a number returned: that many; else all):
`outputs` says which a score needs. The folder graded is $SPIELBAUM_SUBMISSION
(set by preprocessors.GradeInCleanFolder), else the kernel's working folder,
where plain nbgrader runs a submission.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import warnings

_graded: dict[tuple[str, str], dict] = {}
GRADING_TIMEOUT = 3600.0


def _number(x: float):
    return int(x) if float(x).is_integer() else round(float(x), 2)


def cell_text(results: dict, test: str) -> tuple[str, float, float]:
    """The text a graded cell shows for `test` (as the kit's feedback words it: never
    the expected answers of a hidden check), its score and its points, from a
    results.json."""
    if not results.get("tests"):
        return f"{test}: {results.get('output', 'not graded')}", 0.0, 0.0
    entry = next((t for t in results["tests"] if t.get("number") == test), None)
    if entry is None:
        return f"{test}: no result from the grader (not run)", 0.0, 0.0
    score, points = float(entry["score"]), float(entry["max_score"])
    mark = "PASS" if entry.get("status") == "passed" else "FAIL"
    lines = [f"{mark}  {entry['name']}  ({_number(score)}/{_number(points)} points)"]
    if mark == "FAIL" and entry.get("output"):
        lines += ["", *("    " + line if line else "" for line in entry["output"].splitlines())]
    return "\n".join(lines), max(0.0, min(score, points)), points


def outputs(score: float, points: float) -> tuple[str | None, float | None]:
    """(the line for stderr, the value to return) that make nbgrader give `score`
    of `points`: (None, None) is all of them."""
    if score <= 0:
        return "no points for this check", None
    if score >= points:
        return None, None
    return None, _number(score)


def _grade(assignment: str, folder: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="spielbaum-cell-") as clean:
        env = {**os.environ, "PYTHONSAFEPATH": "1"}   # cwd is never on the child's sys.path
        env.pop("PYTHONPATH", None)
        done = subprocess.run(
            [sys.executable, "-m", "autograder.nbgrader.grade_one", assignment,
             os.path.abspath(folder)],
            cwd=clean, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=GRADING_TIMEOUT)
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"tests": [], "output": f"the grader could not run: {reason[:300]}"}


def verdict(assignment: str, test: str):
    """Print the verdict of hidden test `test`; nbgrader reads its score from what
    the cell wrote and returned (see `outputs`)."""
    key = (assignment, os.path.abspath(os.environ.get("SPIELBAUM_SUBMISSION") or os.getcwd()))
    points = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if key not in _graded:
                _graded[key] = _grade(*key)
            text, score, points = cell_text(_graded[key], test)
        except Exception as error:   # never a traceback
            text, score = f"{test}: the grader failed ({type(error).__name__}: {error})", 0.0
    print(text)
    failed, value = outputs(score, points)
    if failed:
        sys.stdout.flush()
        print(failed, file=sys.stderr)
    return value
