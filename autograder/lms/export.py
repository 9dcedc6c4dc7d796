"""Grades back to the LMS: `autograder export moodle|canvas|classroom GRADED --out DIR`.

GRADED is what `autograder grade` wrote (grades.csv, a feedback folder per
student, run.json, and the import's students.csv). Each format is the LMS's own
import format, from its documentation and code (docs/TEACHING.md, "Grades back
to the LMS", names the files and how each LMS takes them). `--out-of N` scales
the points to the LMS's maximum grade; an id the LMS cannot take is left out
with a line; DIR is written only when it is new, empty or an earlier export's.
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import html
import io
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import KitError, assignment as assignments
from ..grading.intake import claim_folder, read_module
from ..outputs import spreadsheet
from ..outputs.paths import ROSTER, student_id_problem
from ..outputs.text import visible

FORMATS = ("moodle", "canvas", "classroom")
EXPORT_MARKER = ".spielbaum-export"
FEEDBACK_FILES = ("feedback.html", "feedback.md")
#: Moodle's offline grading worksheet, as Moodle writes its header (assign_grading_table).
MOODLE_FIELDS = ["Identifier", "Full name", "Email address", "Status", "Grade",
                 "Maximum Grade", "Grade can be changed", "Last modified (submission)",
                 "Last modified (grade)", "Feedback comments"]
MOODLE_PARTICIPANT = "Participant "        # get_string('hiddenuser', 'assign')
CANVAS_FIELDS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CLASSROOM_FIELDS = ["assignment_name", "assignment_url", "starter_code_url", "github_username",
                    "roster_identifier", "student_repository_name", "student_repository_url",
                    "submission_timestamp", "points_awarded", "points_available"]
FILES = {"moodle": ("moodle-grading-worksheet.csv", "moodle-feedback-files.zip"),
         "canvas": ("canvas-gradebook.csv",), "classroom": ("classroom-grades.csv",)}
GRADES_BYTES = 64 << 20


@dataclass
class Graded:
    """What the export reads from a grading's output folder."""
    folder: Path
    assignment: str
    title: str
    rows: list[dict]                         # grades.csv, ids unquoted
    roster: dict[str, dict]                  # students.csv of the import ({} without one)
    lines: list[str] = field(default_factory=list)


# ------------------------------------------------------------ reading what grade wrote
def _csv_rows(path: Path) -> list[dict]:
    try:
        text = read_module(path, GRADES_BYTES).decode("utf-8-sig", errors="replace")
    except Exception as error:       # IntakeError, or a file that vanished
        raise KitError(f"{path} could not be read ({error})") from None
    return [{k: spreadsheet.uncell(v or "") for k, v in row.items() if k} for row in
            csv.DictReader(io.StringIO(text))]


def read_graded(folder: Path) -> Graded:
    grades = folder / "grades.csv"
    if not grades.is_file():
        raise KitError(f"{folder} holds no grades.csv: give the --out folder of "
                       "`autograder grade`")
    rows = [r for r in _csv_rows(grades) if r.get("student")]
    roster = {r["student"]: r for r in _csv_rows(folder / ROSTER) if r.get("student")} \
        if (folder / ROSTER).is_file() else {}
    assignment = title = ""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        assignment = title = str(json.loads((folder / "run.json").read_text(encoding="utf-8"))
                                 .get("assignment", ""))
    with contextlib.suppress(Exception):     # an assignment of another kit version: its name
        title = assignments.load(assignment).title if assignment else ""
    return Graded(folder, assignment, title, rows, roster)


def _number(value: float) -> str:
    return f"{round(value, 2):g}"


def scaled(row: dict, out_of: float | None) -> tuple[str, str]:
    """(grade, maximum) as the LMS gets them: the kit's points, or scaled to out_of."""
    try:
        score, maximum = float(row["score"]), float(row["max_score"])
    except (KeyError, ValueError):
        return "", ""
    if out_of is None or maximum <= 0:
        return _number(score), _number(maximum)
    return _number(score * out_of / maximum), _number(out_of)


def _comment(row: dict, grade: str, maximum: str) -> str:
    """The feedback comment: the score and the grader's one-line message, as text
    (Moodle stores comments as HTML: every character of it is escaped)."""
    message = visible(row.get("message", ""), lines=False)
    text = f"{grade}/{maximum}" + (f": {message}" if message else "")
    return html.escape(text[:1000])


def _students(graded: Graded) -> list[tuple[str, dict, dict | None]]:
    """(id, roster row, grades row or None) for every graded or imported student."""
    by_id = {row["student"]: row for row in graded.rows}
    ids = sorted(set(by_id) | set(graded.roster))
    return [(i, graded.roster.get(i, {}), by_id.get(i)) for i in ids]


def _name(known: dict, row: dict | None) -> str:
    return (known.get("name") or (row or {}).get("name") or "").strip()


# ------------------------------------------------------------ Moodle
def _moodle_time(when: datetime.datetime) -> str:
    """Moodle's own way of writing a time in the worksheet (userdate's default,
    "%A, %d %B %Y, %I:%M %p"), which its importer reads back with strtotime."""
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    months = ["January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"]
    hour = when.hour % 12 or 12
    return (f"{days[when.weekday()]}, {when.day} {months[when.month - 1]} {when.year}, "
            f"{hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}")


def moodle_folder_name(student: str, name: str) -> str:
    """The folder Moodle's download gives a student's file submission (and its
    feedback-zip import reads): the full name with "_" as spaces, the id."""
    shown = re.sub(r"[\x00-\x1f\x7f/\\:*?\"<>|]", "", name.replace("_", " ")).strip()
    return f"{shown[:100] or 'Participant'}_{student}_assignsubmission_file"


def moodle(graded: Graded, out: Path, out_of: float | None, now: datetime.datetime) -> list:
    worksheet, feedback = (out / name for name in FILES["moodle"])
    rows, students = [], _students(graded)
    common = next((scaled(r, out_of)[1] for _, _, r in students if r), "")
    with zipfile.ZipFile(feedback, "w", zipfile.ZIP_DEFLATED) as archive:
        for student, known, row in students:
            if not student.isdigit():
                graded.lines.append(f"{visible(student, False)}: not a Moodle participant "
                                    "number; left out (import the submissions with "
                                    "`autograder import moodle`)")
                continue
            name = _name(known, row)
            grade, maximum = scaled(row, out_of) if row else ("", common)
            rows.append({
                "Identifier": f"{MOODLE_PARTICIPANT}{student}", "Full name": name,
                "Email address": known.get("email", ""),
                "Status": "Submitted for grading" if row else "No submission",
                "Grade": grade, "Maximum Grade": maximum, "Grade can be changed": "Yes",
                "Last modified (submission)": known.get("submitted") or "-",
                "Last modified (grade)": _moodle_time(now) if row else "-",
                "Feedback comments": _comment(row, grade, maximum) if row else ""})
            if row:
                _add_feedback(archive, graded.folder / student,
                              moodle_folder_name(student, name))
    spreadsheet.write(worksheet, MOODLE_FIELDS, rows, {
        "Full name", "Email address", "Last modified (submission)", "Feedback comments"})
    return [worksheet, feedback]


def _add_feedback(archive: zipfile.ZipFile, folder: Path, prefix: str) -> None:
    for name in FEEDBACK_FILES:
        path = folder / name
        if path.is_file() and not path.is_symlink() and not folder.is_symlink():
            archive.writestr(f"{prefix}/{name}", read_module(path))


# ------------------------------------------------------------ Canvas
def canvas(graded: Graded, out: Path, out_of: float | None, column: str | None = None) -> list:
    path = out / FILES["canvas"][0]
    column = column or graded.title or graded.assignment or "Spielbaum"
    rows, maximum_all = [], ""
    for student, known, row in _students(graded):
        if not student.isdigit():
            graded.lines.append(f"{visible(student, False)}: not a Canvas user id; left out "
                                "(import the submissions with `autograder import canvas`)")
            continue
        grade, maximum = scaled(row, out_of) if row else ("", "")
        maximum_all = maximum_all or maximum
        rows.append({"Student": _name(known, row), "ID": student, "SIS User ID": "",
                     "SIS Login ID": "", "Section": "", column: grade})
    points = {"Student": "    Points Possible", column: maximum_all or _number(out_of or 0)}
    spreadsheet.write(path, CANVAS_FIELDS + [column], [points] + rows, {"Student"})
    return [path]


# ------------------------------------------------------------ GitHub Classroom
def classroom(graded: Graded, out: Path, out_of: float | None) -> list:
    path = out / FILES["classroom"][0]
    rows = []
    for student, known, row in _students(graded):
        if row is None:
            continue
        grade, maximum = scaled(row, out_of)
        source = known.get("source", "")
        rows.append({"assignment_name": graded.title or graded.assignment,
                     "github_username": student,
                     "roster_identifier": known.get("identifier", ""),
                     "student_repository_name": source.rsplit("/", 1)[-1] if source else "",
                     "submission_timestamp": known.get("submitted", ""),
                     "points_awarded": grade, "points_available": maximum})
    spreadsheet.write(path, CLASSROOM_FIELDS, rows,
                      set(CLASSROOM_FIELDS) - {"points_awarded", "points_available"})
    return [path]


# ------------------------------------------------------------ the command
def export(layout: str, graded_folder: Path, out: Path, out_of: float | None = None,
           column: str | None = None, now: datetime.datetime | None = None
           ) -> tuple[list[Path], list[str]]:
    """Write the files of `layout` into `out`; (their paths, lines for the teacher)."""
    if layout not in FORMATS:
        raise KitError(f"unknown format {layout!r} (known: {', '.join(FORMATS)})")
    if out_of is not None and not out_of > 0:
        raise KitError("--out-of must be a positive number (the LMS's maximum grade)")
    graded = read_graded(graded_folder)
    for student in list(graded.roster):
        if student_id_problem(student):          # never a path: ids name zip folders
            graded.lines.append(f"{visible(student, False)}: not a usable student id; "
                                "left out")
            graded.roster.pop(student)
    graded.rows = [r for r in graded.rows if not student_id_problem(r["student"])]
    if graded_folder.resolve() in (out.resolve(), *out.resolve().parents):
        raise KitError(f"--out {out} is inside the graded folder {graded_folder}; choose a "
                       "folder outside it")
    claim_folder(out, EXPORT_MARKER, "autograder export")
    if layout == "moodle":
        paths = moodle(graded, out, out_of, now or datetime.datetime.now())
    elif layout == "canvas":
        paths = canvas(graded, out, out_of, column)
    else:
        paths = classroom(graded, out, out_of)
    return paths, graded.lines
