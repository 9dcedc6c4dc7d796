"""nbgrader preprocessors that keep plain `nbgrader autograde` correct and safe.

nbgrader runs every code cell of a submitted notebook in one kernel, the graded
cells after the student's: a student cell could rewrite the graded cells or fake a
module in `sys.modules`. The kit's graded cells only ask its sandboxed grader
(cells.py), so during autograding only they run:

- `RepairNotebook` (first of all) drops malformed parts of a cell (metadata
  nbgrader's validator refuses, an id nbformat does not allow): one student's
  broken notebook never stops everyone's grading.
- `RunOnlyGradedChecks` (after OverwriteCells) keeps one of each graded cell the
  gradebook knows, with its source, and one of each written answer (the
  student's text, the gradebook's metadata), putting back deleted ones; every
  other code cell becomes comments, and nbgrader's markers in student text are
  defused.
- `GradeInCleanFolder` (first autograde step) starts the kernel in an empty
  folder, so no file of the submission shadows a module the kernel imports.
- `SanitizeMarkup` (before any HTML nbgrader renders) shows student Markdown and
  raw cells through `outputs.html.student_markdown` and keeps only plain-text
  outputs.
"""

from __future__ import annotations

import atexit
import functools
import os
import re
import shutil
import tempfile
import uuid

from nbformat import from_dict
from nbformat.v4 import new_code_cell, new_markdown_cell
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor

from ..outputs.html import student_markdown
from ..outputs.markdown import fenced
from . import graded_cell

MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "BEGIN SOLUTION", "END SOLUTION")
NOT_RUN = "# Not run by the grader: only the graded checks run when a notebook is graded.\n"


def defuse(text: str) -> str:
    """Student text with nbgrader's region markers made harmless (ClearHiddenTests
    would crash on them)."""
    for marker in MARKERS:
        text = text.replace(marker, marker.replace(" ", "_"))
    return text


def graded_cells(db_url: str, assignment: str, notebook: str
                 ) -> tuple[dict[str, tuple[str, float]], dict[str, tuple[float, str]]]:
    """The gradebook's graded cells of `notebook`: the autograded code cells
    (grade_id -> (source, points)) and the Markdown cells graded by hand, nbgrader's
    "manually graded answer" (grade_id -> (points, checksum of the handout's cell))."""
    checks, answers = {}, {}
    with Gradebook(db_url) as gb:
        try:
            record = gb.find_notebook(notebook, assignment)
        except MissingEntry:
            return checks, answers
        solutions = {cell.name for cell in record.solution_cells}
        sources = {cell.name: (cell.source, cell.checksum) for cell in record.source_cells}
        for cell in record.grade_cells:
            source, checksum = sources.get(cell.name, ("", ""))
            if cell.cell_type == "code" and cell.name not in solutions:
                checks[cell.name] = (source, float(cell.max_score))
            elif cell.cell_type == "markdown" and cell.name in solutions:
                answers[cell.name] = (float(cell.max_score), checksum or "")
    return checks, answers


def answer_cell(grade_id: str, points: float, checksum: str):
    """An empty written answer, as the gradebook knows it."""
    cell = graded_cell(new_markdown_cell, "", grade_id, locked=False, grade=True,
                       solution=True, points=points)
    cell.metadata.nbgrader["checksum"] = checksum
    return cell


def keep_only_checks(nb, checks: dict[str, tuple[str, float]],
                     answers: dict[str, tuple[float, str]] | None = None):
    """The notebook with only `checks` left runnable, and the written `answers`
    kept (see RunOnlyGradedChecks)."""
    seen = set()
    answers = answers or {}
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
        if (cell.cell_type == "markdown" and meta.get("grade") and grade_id in answers
                and grade_id not in seen):
            seen.add(grade_id)          # the student's text; the gradebook's points
            points, checksum = answers[grade_id]
            cell.source = defuse(cell.source)
            cell.metadata["nbgrader"] = from_dict(dict(
                answer_cell(grade_id, points, checksum).metadata["nbgrader"]))
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
            nb.cells.append(graded_cell(new_code_cell, source, grade_id, locked=True,
                                        grade=True, points=points))
    for grade_id, (points, checksum) in answers.items():
        if grade_id not in seen:
            nb.cells.append(answer_cell(grade_id, points, checksum))
    return nb


class RunOnlyGradedChecks(NbGraderPreprocessor):
    """Only the gradebook's graded cells stay runnable; see the module docstring."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        cells = graded_cells(info["db_url"], info["assignment"], info["notebook"])
        return keep_only_checks(nb, *cells), resources


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


# ------------------------------------------------------------ a notebook as data
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
CELL_TYPES = ("code", "markdown", "raw")


def repair(nb) -> list[str]:
    """Make a submitted notebook's structure one the kit and nbgrader can read,
    dropping what is malformed; one line per repair, for the teacher."""
    from nbgrader.nbgraderformat import MetadataValidator
    notes, kept = [], []
    cells = nb.get("cells")
    if not isinstance(cells, list):
        nb["cells"] = []
        return ["the notebook has no list of cells"]
    validator = MetadataValidator()
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") not in CELL_TYPES:
            notes.append(f"cell {number} is not a notebook cell: left out")
            continue
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = from_dict({})
            notes.append(f"cell {number}: its metadata is not a mapping: dropped")
        source = cell.get("source", "")
        if not isinstance(source, str):
            ok = isinstance(source, list) and all(isinstance(line, str) for line in source)
            cell["source"] = "".join(source) if ok else ""
        if "nbgrader" in cell["metadata"]:
            try:
                if not isinstance(cell["metadata"]["nbgrader"], dict):
                    raise TypeError("not a mapping")
                validator.validate_cell(cell)
            except Exception as error:  # noqa: BLE001 (nbgrader's validator raises many kinds)
                cell["metadata"].pop("nbgrader")
                notes.append(f"cell {number}: its nbgrader metadata is malformed "
                             f"({str(error).splitlines()[0][:80]}): ignored")
        if "id" in cell and not (isinstance(cell["id"], str) and _CELL_ID.match(cell["id"])):
            cell["id"] = uuid.uuid4().hex[:12]
            notes.append(f"cell {number}: its id is not one nbformat allows: replaced")
        kept.append(cell)
    nb["cells"] = kept
    return notes


@functools.cache
def handout_sources() -> frozenset[str]:
    """The Markdown of every handout notebook the kit makes: text that is the kit's,
    not a student's, when a submitted notebook still holds it unchanged."""
    from .. import KitError, assignment as assignments
    from . import notebooks
    sources = set()
    for name in assignments.names():
        try:
            built = notebooks.build(name)
        except (KitError, OSError, KeyError):
            continue         # an assignment without a rubric has no notebook
        sources |= {cell.source for cell in built.cells if cell.cell_type == "markdown"}
    return frozenset(sources)


def sanitize_markup(nb):
    """Every piece of a notebook a browser would render, made inert unless it is
    the handout's own (see the module docstring)."""
    trusted = handout_sources()
    for cell in nb.cells:
        cell.pop("attachments", None)
        if cell.cell_type == "raw":
            cell.cell_type = "markdown"
            cell.source = student_markdown(fenced(cell.source))
            for key in ("format", "raw_mimetype"):
                cell.metadata.pop(key, None)
        elif cell.cell_type == "markdown" and cell.source not in trusted:
            cell.source = student_markdown(cell.source)
        elif cell.cell_type == "code":
            cell.outputs = [_plain_output(o) for o in cell.get("outputs", [])
                            if o.get("output_type") in ("stream", "execute_result",
                                                        "display_data", "error")]
    metadata = {key: nb.metadata[key] for key in ("kernelspec",) if key in nb.metadata}
    language = nb.metadata.get("language_info")
    if isinstance(language, dict) and isinstance(language.get("name"), str):
        metadata["language_info"] = {"name": language["name"]}
    nb.metadata = from_dict(metadata)
    return nb


def _plain_output(output):
    if output.get("output_type") in ("execute_result", "display_data"):
        text = output.get("data", {}).get("text/plain", "")
        output["data"] = from_dict({"text/plain": text})
        output["metadata"] = from_dict({})
    return output


class RepairNotebook(NbGraderPreprocessor):
    """Drop malformed parts of a submitted notebook (see the module docstring)."""

    def preprocess(self, nb, resources):
        for note in repair(nb):
            self.log.warning("%s: %s", resources.get("unique_key", "notebook"), note)
        return nb, resources


class SanitizeMarkup(NbGraderPreprocessor):
    """Student markup made inert before any HTML is made (see the module docstring)."""

    def preprocess(self, nb, resources):
        repair(nb)
        return sanitize_markup(nb), resources

