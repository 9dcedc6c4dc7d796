"""Write what grading found: results.json, feedback.md/.html, grades.csv.

Each kind of file is written through its module in autograder/outputs/, so a
student's name, output or exception text can neither break a file nor stop the
batch's reports. feedback.html reads first what went wrong (each failure with its
drawing, results.json's `extra_data.picture`), then the passes, folded.
"""

from __future__ import annotations

import traceback
from pathlib import Path

import jinja2

from .. import i18n
from ..outputs import html, jsondata, markdown, pages, spreadsheet
from ..outputs.text import visible, writable
from . import behaviour_record
from ..checking.failures import is_hint_line
from .runner import Graded, TestResult, unrun_tests

# Only what grading decides: re-running, or grading on a cluster, gives a byte-identical
# file. How long each submission took is in its results.json (execution_time).
CSV_FIELDS = ["student", "score", "max_score", "status", "passed", "failed", "timeouts",
              "crashes", "refused", "message"]


def _environment(finalize, autoescape: bool, code) -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        autoescape=autoescape, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True, finalize=finalize)
    environment.filters["fenced"] = markdown.fenced
    environment.filters["code"] = code           # the kit's `backticked` names as code
    environment.filters["block"] = _block
    environment.globals["page_style"] = pages.style() if autoescape else ""
    return environment


def _block(output: str):
    """A check's output for the HTML page: every line escaped as it is, but a hint
    (the kit's prose) with its `backticked` names as <code>."""
    from markupsafe import Markup, escape
    return Markup("\n").join(html.with_code(line) if is_hint_line(line)
                             else escape(visible(line)) for line in output.splitlines())


_MARKDOWN = _environment(markdown.finalize, autoescape=False, code=markdown.with_code)
_HTML = _environment(html.finalize, autoescape=True, code=html.with_code)


def number(x: float):
    """Points as the kit writes them: an int when whole, else to two places."""
    return int(x) if float(x).is_integer() else round(float(x), 2)


def results_json(graded: Graded) -> dict:
    """Gradescope's results.json schema."""
    return jsondata.plain_data({
        "score": number(graded.score),
        "max_score": number(graded.max_score),
        "execution_time": round(graded.seconds, 2),
        "output": graded.message or f"{number(graded.score)}/{number(graded.max_score)} points",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [{
            "name": test.title,
            "number": test.name,
            "score": number(test.score),
            "max_score": number(test.max_score),
            "status": "passed" if test.passed else "failed",
            "output": test.output,
            "visibility": "visible",
            # a failure's drawing (outputs/trees.py), for the pages made from this file
            **({"extra_data": {"picture": test.picture}} if test.picture else {}),
        } for test in graded.tests],
        "extra_data": {"status": graded.status, "events": [str(e) for e in graded.events],
                       "sandbox_layers": graded.layers, "grader_peak_mb": graded.peak_mb},
    })


def _words(title: str, tests: list[TestResult], language: str | None) -> dict:
    """What every feedback template says the same way, in the course's language: the
    title (assignment.toml's English, a message of the catalogs), the checks passed,
    and the drawings (in the grader's words, outputs/trees.py)."""
    language = i18n.course_language(language)
    say = i18n.translation(language, i18n.GRADER).gettext
    return {"title": i18n.translator(language)(title), "n": number, "language": language,
            "passed": sum(t.passed for t in tests), "_": i18n.translator(language),
            "picture": lambda value, key: pages.picture(value, say, key)}


def _context(graded: Graded, title: str, language: str | None, name: str = "") -> dict:
    # One root cause (the module did not import) is said once, not per test.
    root = next((t.output for t in graded.tests if t.root_cause), None)
    # The student's name from an LMS import goes beside the id (escaped like any text).
    student = f"{name} ({graded.student})" if name and name != graded.student \
        else graded.student
    return {"g": graded, "root": root, "student": student,
            **_words(title, graded.tests, language)}


def feedback_markdown(graded: Graded, title: str, language: str | None = None,
                      name: str = "") -> str:
    return _MARKDOWN.get_template("feedback.md.j2").render(
        _context(graded, title, language, name))


def feedback_html(graded: Graded, title: str, language: str | None = None,
                  name: str = "") -> str:
    return _HTML.get_template("feedback.html.j2").render(_context(graded, title, language, name))


def feedback_summary_html(title: str, student: str, tests: list[TestResult], score: float,
                          max_score: float, written: list[dict] = (), late_penalty: float = 0,
                          language: str | None = None):
    """The top of another page's feedback (nbgrader's, autograder/nbgrader/feedback.py)
    in feedback.html's words and order: the score, each written answer's state
    (`{"id", "state": "empty" | "waiting" | "graded", "score", "points"}`), the
    failures in full, the passes folded. Markup, for the page's own template."""
    from markupsafe import Markup
    return Markup(_HTML.get_template("feedback.nbgrader.html.j2").render(
        student=student, tests=tests, score=score, max_score=max_score, written=list(written),
        late_penalty=late_penalty, **_words(title, tests, language)))


def nbgrader_words(language: str | None = None) -> dict:
    """The few words of the nbgrader page's own template (its cell headings)."""
    _ = i18n.translator(i18n.course_language(language))
    return {"answer": _("Your answer"), "comment": _("Comment"), "passed": _("pass").upper()}


def write_student(out_dir: Path, graded: Graded, title: str, name: str = "") -> None:
    folder = out_dir / graded.student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(jsondata.dumps(results_json(graded), indent=2) + "\n",
                                         encoding="utf-8")
    (folder / "feedback.md").write_text(feedback_markdown(graded, title, name=name),
                                        encoding="utf-8")
    (folder / "feedback.html").write_text(feedback_html(graded, title, name=name),
                                          encoding="utf-8")
    if graded.details:          # for the teacher only: the kit's traceback of its error
        (folder / "grader-error.txt").write_text(writable(graded.details), encoding="utf-8")
    behaviour_record.write(folder, graded.behaviour)


def write_row(out_dir: Path, graded: Graded, grader, name: str = "") -> dict:
    """Write one student's files (`grader`'s assignment) and return their row; a
    failure while writing is the student's row too (the traceback in
    `<student>/grader-error.txt`)."""
    try:
        write_student(out_dir, graded, grader.assignment.title, name)
    except Exception:
        graded = grader.error(graded.student, "grader error while writing the feedback",
                              traceback.format_exc(limit=30))
        try:
            write_student(out_dir, graded, grader.assignment.title)
        except Exception:
            pass        # the row below still reaches grades.csv
    return csv_row(graded)


def refused(assignment, student: str, why: str) -> Graded:
    """The row of a folder whose name cannot be a student id (nothing is written
    for it but its row in grades.csv)."""
    rubric = assignment.rubric()
    message = (f"not graded: the folder's name {why}; rename the folder and grade again")
    return Graded(student, "bad-name", 0.0, rubric.max_score,
                  unrun_tests(assignment.suite_dir, rubric.points, message), message)


def csv_row(graded: Graded) -> dict:
    return {
        "student": graded.student, "score": number(graded.score),
        "max_score": number(graded.max_score), "status": graded.status,
        "passed": sum(t.passed for t in graded.tests),
        "failed": sum(not t.passed for t in graded.tests),
        "timeouts": graded.timeouts, "crashes": graded.crashes, "refused": graded.refused,
        "message": graded.message,
    }


def write_grades(out_dir: Path, rows: list[dict]) -> Path:
    return spreadsheet.write(out_dir / "grades.csv", CSV_FIELDS,
                             sorted(rows, key=lambda r: r["student"]))
