"""nbgrader preprocessors that keep plain `nbgrader autograde` correct and safe.

nbgrader runs every code cell of a submitted notebook in one kernel, the
graded cells after the student's. A student cell (or one the student added)
could then install an IPython input transformer that turns the graded cells
into `pass` (no output scores full points), put a fake module into
`sys.modules`, or import a module whose results lie. The kit's notebooks hold
no student code at all, so during autograding only the graded cells need to
run, and they only ask the kit's sandboxed grader (cells.py):

- `RunOnlyGradedChecks` (after OverwriteCells in `Autograde.sanitize_preprocessors`)
  keeps the graded cells the gradebook knows, one each, with the gradebook's
  source; every other code cell is turned into comments (shown, never run);
  nbgrader's hidden-test markers in student text are defused (ClearHiddenTests
  would crash on them); a graded cell the student deleted is put back.
- `GradeInCleanFolder` (first in `Autograde.autograde_preprocessors`) starts
  the kernel in an empty folder, so no file of the submission (a fake
  `autograder/` package, `json.py`, `ipykernel_launcher.py`) can shadow a
  module the kernel imports, and tells the graded cells where the submission
  is through $SPIELBAUM_SUBMISSION.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from nbformat.v4 import new_code_cell
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor

from . import BEGIN_HIDDEN, END_HIDDEN

MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "BEGIN SOLUTION", "END SOLUTION")
NOT_RUN = "# Not run by the grader: only the graded checks run when a notebook is graded.\n"


def defuse(text: str) -> str:
    """Student text with nbgrader's region markers made harmless."""
    for marker in MARKERS:
        text = text.replace(marker, marker.replace(" ", "_"))
    return text


def graded_checks(db_url: str, assignment: str, notebook: str) -> dict[str, tuple[str, float]]:
    """grade_id -> (source, points) of the autograded code cells in the gradebook."""
    with Gradebook(db_url) as gb:
        try:
            record = gb.find_notebook(notebook, assignment)
        except MissingEntry:
            return {}
        solutions = {cell.name for cell in record.solution_cells}
        sources = {cell.name: cell.source for cell in record.source_cells}
        return {cell.name: (sources.get(cell.name, ""), float(cell.max_score))
                for cell in record.grade_cells
                if cell.cell_type == "code" and cell.name not in solutions}


def test_cell(grade_id: str, source: str, points: float):
    cell = new_code_cell(source, metadata={
        "editable": False, "deletable": False,
        "nbgrader": {"grade": True, "grade_id": grade_id, "locked": True, "points": points,
                     "schema_version": 3, "solution": False, "task": False}})
    cell["id"] = grade_id.replace("_", "-")[:64]
    return cell


def keep_only_checks(nb, checks: dict[str, tuple[str, float]]):
    """The notebook with only `checks` left runnable (see RunOnlyGradedChecks)."""
    seen = set()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if (cell.cell_type == "code" and meta.get("grade") and grade_id in checks
                and grade_id not in seen):
            seen.add(grade_id)
            source, points = checks[grade_id]
            cell.source = source
            meta.update(grade=True, locked=True, solution=False, points=points)
            continue
        if cell.cell_type == "code":
            lines = defuse(cell.source).splitlines() or [""]
            cell.source = NOT_RUN + "\n".join("# " + line for line in lines)
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("nbgrader", None)
        else:
            cell.source = defuse(cell.source)
            if meta.get("grade") or meta.get("solution"):
                cell.metadata.pop("nbgrader", None)
    for grade_id, (source, points) in checks.items():
        if grade_id not in seen:
            nb.cells.append(test_cell(grade_id, source, points))
    return nb


class RunOnlyGradedChecks(NbGraderPreprocessor):
    """Only the gradebook's graded cells stay runnable; see the module docstring."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        checks = graded_checks(info["db_url"], info["assignment"], info["notebook"])
        return keep_only_checks(nb, checks), resources


_CLEAN_FOLDERS: list[str] = []


@atexit.register
def _remove_clean_folders() -> None:
    for folder in _CLEAN_FOLDERS:
        shutil.rmtree(folder, ignore_errors=True)


class GradeInCleanFolder(NbGraderPreprocessor):
    """Run the kernel in an empty folder; point the graded cells at the submission."""

    def preprocess(self, nb, resources):
        metadata = resources.setdefault("metadata", {})
        submission = os.path.abspath(metadata.get("path") or os.getcwd())
        clean = tempfile.mkdtemp(prefix="spielbaum-kernel-")
        _CLEAN_FOLDERS.append(clean)
        metadata["path"] = clean
        os.environ["SPIELBAUM_SUBMISSION"] = submission   # the kernel inherits it
        return nb, resources


__all__ = ["RunOnlyGradedChecks", "GradeInCleanFolder", "keep_only_checks", "defuse",
           "BEGIN_HIDDEN", "END_HIDDEN"]
