"""nbgrader's feedback page, as the kit writes it: what went wrong first.

nbgrader_config.py calls `configure(c)`, so generate_feedback renders the
template in templates/feedback/: the summary feedback.html shows (grading/report.py),
then the notebook as graded, without JavaScript. `FeedbackSummary` takes the checks
from the kit's results.json of the same grading when it agrees with the gradebook,
else from the graded cells. Every string from a notebook or results.json is student
data: the templates escape it.
"""

from __future__ import annotations

import json
import textwrap
import warnings
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor

from ..outputs import pages, trees
from . import kit_results

# Imported for every nbgrader command: the grader's modules only when a page is made.
TEMPLATES = Path(__file__).with_name("templates")
PREPROCESSOR = "autograder.nbgrader.feedback.FeedbackSummary"
#: The largest results.json the page reads (the grader's caps keep it far smaller).
RESULTS_BYTES = 16 << 20


def configure(c) -> None:
    """nbgrader_config.py's lines for the kit's feedback page: generate_feedback
    renders templates/feedback/ and runs FeedbackSummary after GetGrades. Scoped to
    GenerateFeedback, so formgrader's pages stay nbgrader's."""
    c.GenerateFeedback.HTMLExporter.extra_template_basedirs = [str(TEMPLATES)]
    steps = [step if isinstance(step, str) else f"{step.__module__}.{step.__name__}"
             for step in c.GenerateFeedback.preprocessors]
    if PREPROCESSOR not in steps:
        after = next((i + 1 for i, step in enumerate(steps) if step.endswith("GetGrades")),
                     len(steps))
        steps.insert(after, PREPROCESSOR)
    c.GenerateFeedback.preprocessors = steps


def _graded_cells(nb):
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution") and cell.cell_type == "code":
            yield cell, meta


def _printed(cell) -> str:
    return "".join(output.get("text", "") for output in cell.get("outputs", [])
                   if output.get("output_type") == "stream" and output.get("name") == "stdout")


def _from_cells(nb, titles: dict) -> list:
    """The checks as the graded cells show them (cells.cell_text: a verdict line,
    then the failure indented)."""
    from ..grading.runner import TestResult
    tests = []
    for cell, meta in _graded_cells(nb):
        points, score = float(meta.get("points") or 0), float(meta.get("score") or 0)
        lines = _printed(cell).splitlines()
        output = textwrap.dedent("\n".join(lines[1:])).strip("\n")
        tests.append(TestResult(meta["grade_id"], titles.get(meta["grade_id"], meta["grade_id"]),
                                points, score=score, passed=score >= points, output=output))
    return tests


def _from_results(path: Path, nb) -> list | None:
    """The checks as results.json has them, or None when it is missing, unreadable, or
    scores a graded cell otherwise than the gradebook does (it is not this grading)."""
    from ..grading.runner import TestResult
    try:
        if path.is_symlink() or path.stat().st_size > RESULTS_BYTES:
            return None
        results = json.loads(path.read_text(encoding="utf-8"))
        entries = {entry["number"]: entry for entry in results["tests"]}
        tests = []
        for _cell, meta in _graded_cells(nb):
            entry = entries[meta["grade_id"]]
            if float(entry["score"]) != float(meta.get("score") or 0):
                return None
            extra = entry.get("extra_data") or {}
            tests.append(TestResult(
                meta["grade_id"], str(entry["name"]), float(entry["max_score"]),
                score=float(entry["score"]), passed=entry.get("status") == "passed",
                output=str(entry.get("output") or ""),
                picture=trees.kept(extra.get("picture") if isinstance(extra, dict) else None)))
        return tests
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _one_cause(tests: list) -> list:
    """Every check failed with the same words (the module did not import): said once,
    as feedback.html says it."""
    if len(tests) > 1 and not any(t.passed for t in tests) \
            and len({t.output for t in tests}) == 1 and tests[0].output:
        for test in tests:
            test.root_cause = True
    return tests


def _written(nb, resources) -> list[dict]:
    from nbgrader.api import Gradebook, MissingEntry
    info = resources["nbgrader"]
    answers = [(cell.metadata["nbgrader"]["grade_id"], cell.metadata["nbgrader"])
               for cell in nb.cells if cell.cell_type == "markdown"
               and cell.metadata.get("nbgrader", {}).get("solution")
               and cell.metadata.get("nbgrader", {}).get("grade")]
    if not answers:
        return []
    written = []
    with Gradebook(info["db_url"]) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for grade_id, meta in answers:
            try:
                grade = gb.find_grade(grade_id, info["notebook"], info["assignment"],
                                      info["student"])
            except MissingEntry:
                continue
            if grade.needs_manual_grade:
                state = "waiting"
            elif grade.manual_score is None and not grade.auto_score:
                state = "empty"
            else:
                state = "graded"
            written.append({"id": grade_id, "state": state, "score": grade.score or 0,
                            "points": float(meta.get("points") or grade.max_score or 0)})
    return written


class FeedbackSummary(NbGraderPreprocessor):
    """What the top of the kit's feedback page says (see the module docstring)."""

    def preprocess(self, nb, resources):
        from nbgrader.coursedir import CourseDirectory

        from .. import assignment as assignments
        from ..grading import report
        from . import notebooks
        info = resources["nbgrader"]
        assignment = assignments.load(info["assignment"])
        titles = notebooks.hidden_titles(assignment)
        root = CourseDirectory(config=self.config).root
        path = kit_results(root, info["assignment"]) / info["student"] / "results.json"
        tests = _one_cause(_from_results(path, nb) or _from_cells(nb, titles))
        summary = report.feedback_summary_html(
            assignment.title, info["student"], tests, float(info.get("score") or 0),
            float(info.get("max_score") or 0), _written(nb, resources),
            float(info.get("late_penalty") or 0))
        resources["spielbaum"] = {"style": pages.style(), "summary": summary,
                                  "titles": titles, "words": report.nbgrader_words()}
        return nb, resources
