"""The kit's nbgrader side: handout notebooks, safe autograding, the course cycle
(docs/TEACHING.md; command.py lists the steps)."""

from pathlib import Path

#: nbgrader's marker for the hidden part of a test cell.
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"

#: What nbgrader leaves out whenever it copies an assignment (release, submit, collect,
#: autograde, feedback): its own defaults, plus Python environments and caches. A
#: `.venv` is 40 MB and more; it would be copied four times per student. `check.html` is
#: the page `make check HTML=1` writes for the student alone.
IGNORE = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "check.html",
          ".venv", "venv", ".pytest_cache", ".mypy_cache"]


def graded_cell(kind, source: str, grade_id: str, *, locked: bool, grade: bool = False,
                points: float | None = None, solution: bool = False):
    """A cell made by `kind` (nbformat's new_code_cell, new_markdown_cell) with
    nbgrader's metadata; a locked one cannot be edited or deleted in Jupyter."""
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": 3, "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    extra = {"editable": False, "deletable": False} if locked else {}
    cell = kind(source, metadata={**extra, "nbgrader": meta})
    cell["id"] = grade_id.replace("_", "-")[:64]
    return cell


def kit_results(root, name: str) -> Path:
    """Where `make grade-collected` keeps the kit's own results of `name` (one
    folder per student, as `autograder grade` writes them)."""
    return Path(root) / "kit_grades" / name
