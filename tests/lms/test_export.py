"""`autograder export moodle|canvas|classroom`: the grades back, each in its LMS's format.

Each file is read back: the Moodle worksheet as Moodle's offline-grading importer
reads it (the columns Identifier, Grade and "Last modified (grade)", the id after
"Participant "), the feedback zip with the kit's own Moodle import and with
Moodle's rule for feedback zips (mod/assign/feedback/file/importziplib.php: the
second "_"-separated field of a path part is the participant id, the third and
fourth the plugin), the Canvas gradebook by its ID and assignment columns, and
each header against the one the LMS publishes. The round trip through real
grading is the slow test at the end.
"""

from __future__ import annotations

import csv
import datetime
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import KitError
from autograder.lms import ROSTER, import_submissions
from autograder.lms.export import CANVAS_FIELDS, CLASSROOM_FIELDS, MOODLE_PARTICIPANT, export
from autograder.outputs import spreadsheet
from tests.conftest import ROOT, in_pid_namespace
from tests.lms.layouts import CORRECT, WRONG, imported_files

#: The worksheet header as Moodle writes it (a published download of one).
MOODLE_HEADER = ('Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
                 '"Grade can be changed","Last modified (submission)",'
                 '"Last modified (grade)","Feedback comments"')
#: GitHub Classroom's grades download, as published by `gh classroom assignment-grades`.
CLASSROOM_HEADER = ("assignment_name,assignment_url,starter_code_url,github_username,"
                    "roster_identifier,student_repository_name,student_repository_url,"
                    "submission_timestamp,points_awarded,points_available")
NOW = datetime.datetime(2027, 1, 15, 14, 5)
STUDENTS = {  # id: (name, score, message)
    "1001": ("Zoë Brontë-Müller", 25, ""),
    "1002": ("Anna_Maria /de la Cruz", 19, "winner: wrong on the anti-diagonal"),
    "1003": ("=HYPERLINK(\"x\")", 0, "<script>alert(1)</script>"),
}


def read_moodle_worksheet(path: Path) -> dict[str, str]:
    """participant id -> grade, read as Moodle's offline-grading importer reads it:
    the columns named Identifier, Grade and "Last modified (grade)" must be
    there; the id is what follows "Participant "."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"Identifier", "Grade", "Last modified (grade)"} - set(reader.fieldnames or ())
        if missing:
            raise KitError(f"{path} is no Moodle grading worksheet: no {', '.join(missing)}")
        return {row["Identifier"][len(MOODLE_PARTICIPANT):]: row["Grade"] for row in reader
                if row["Identifier"].startswith(MOODLE_PARTICIPANT)}


def read_canvas_gradebook(path: Path, column: str) -> dict[str, str]:
    """Canvas user id -> the grade in `column`, as Canvas's gradebook import reads
    the file: students by ID, the "Points Possible" row skipped."""
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = set(CANVAS_FIELDS + [column]) - set(reader.fieldnames or ())
        if missing:
            raise KitError(f"{path} is no Canvas gradebook: no {', '.join(sorted(missing))}")
        return {row["ID"]: row[column] for row in reader
                if row["Student"].strip() != "Points Possible"}

def graded(folder: Path, students=STUDENTS, roster=True) -> Path:
    """A grading's --out folder, as `grade --from moodle` leaves it."""
    folder.mkdir()
    spreadsheet.write(folder / "grades.csv", ["student", "name", "late", "score", "max_score",
                                              "status", "message"],
                      [{"student": s, "name": n, "late": "", "score": p, "max_score": 25,
                        "status": "graded", "message": m}
                       for s, (n, p, m) in students.items()])
    (folder / "run.json").write_text('{"assignment": "tictactoe"}')
    for student, (name, points, _) in students.items():
        (folder / student).mkdir()
        (folder / student / "feedback.md").write_text(f"# {points}/25 for {student}\n")
        (folder / student / "feedback.html").write_text(f"<p>{points}/25</p>\n")
    if roster:
        spreadsheet.write(folder / ROSTER, ["student", "name", "email", "identifier",
                                            "submitted", "source"],
                          [{"student": s, "name": n, "email": f"{s}@example.edu",
                            "identifier": f"Participant {s}", "submitted": "",
                            "source": f"x/{s}"} for s, (n, _, _) in students.items()]
                          + [{"student": "1004", "name": "Not Graded", "email": "",
                              "identifier": "Participant 1004", "submitted": "",
                              "source": ""}])
    return folder


def moodle_feedback_rule(path: str) -> tuple[int, str, str, str] | None:
    """Moodle's is_valid_filename_for_import, in Python: (participant id, plugin
    type, plugin name, file name) for a path of a feedback zip, or None."""
    parts = path.split("/")
    while parts:
        info = parts.pop(0).split("_", 4)
        if len(info) < 4 or not info[1].isdigit():
            continue
        rest = info[4] if len(info) == 5 else ""
        return int(info[1]), info[2], info[3], "/".join([rest] + parts)
    return None


def test_moodle_worksheet_and_feedback_zip_read_back(tmp_path):
    source = graded(tmp_path / "graded")
    paths, lines = export("moodle", source, tmp_path / "back", now=NOW)
    worksheet, feedback = paths
    assert worksheet.read_text(encoding="utf-8").splitlines()[0].replace('"', "") == \
        MOODLE_HEADER.replace('"', "")
    assert read_moodle_worksheet(worksheet) == {"1001": "25", "1002": "19", "1003": "0",
                                               "1004": ""}
    with worksheet.open(encoding="utf-8", newline="") as handle:
        rows = {r["Identifier"]: r for r in csv.DictReader(handle)}
    assert rows["Participant 1002"]["Last modified (grade)"] == "Friday, 15 January 2027, 2:05 PM"
    assert rows["Participant 1004"]["Last modified (grade)"] == "-"     # nothing to import
    assert rows["Participant 1003"]["Full name"].startswith("'=")      # no formula
    assert "&lt;script&gt;" in rows["Participant 1003"]["Feedback comments"]
    assert rows["Participant 1002"]["Maximum Grade"] == "25"
    # Moodle's own rule for the feedback zip finds each participant and the file plugin
    with zipfile.ZipFile(feedback) as archive:
        names = archive.namelist()
        found = {moodle_feedback_rule(n) for n in names}
    assert found == {(int(s), "assignsubmission", "file", f"/{f}") for s in STUDENTS
                     for f in ("feedback.html", "feedback.md")}
    assert "Anna Maria de la Cruz_1002_assignsubmission_file/feedback.html" in names
    # and the kit's import reads it back as each student's folder
    back = import_submissions("moodle", feedback, tmp_path / "reimported")
    for student in STUDENTS:
        assert imported_files(tmp_path / "reimported" / student) == \
            {"feedback.html": (source / student / "feedback.html").read_bytes(),
             "feedback.md": (source / student / "feedback.md").read_bytes()}
    assert {r["student"]: r["name"] for r in back.students}["1001"] == "Zoë Brontë-Müller"
    assert lines == []


def test_out_of_scales_to_the_lms_maximum(tmp_path):
    paths, _ = export("moodle", graded(tmp_path / "g"), tmp_path / "back", out_of=100, now=NOW)
    assert read_moodle_worksheet(paths[0]) == {"1001": "100", "1002": "76", "1003": "0",
                                              "1004": ""}
    with pytest.raises(KitError, match="positive"):
        export("moodle", tmp_path / "g", tmp_path / "other", out_of=0)


def test_canvas_gradebook_reads_back_by_user_id(tmp_path):
    paths, _ = export("canvas", graded(tmp_path / "g"), tmp_path / "back",
                      column="Tic-tac-toe (4242)")
    with paths[0].open(encoding="utf-8", newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0] == CANVAS_FIELDS + ["Tic-tac-toe (4242)"]
    assert table[1][0].strip() == "Points Possible" and table[1][-1] == "25"
    assert read_canvas_gradebook(paths[0], "Tic-tac-toe (4242)") == \
        {"1001": "25", "1002": "19", "1003": "0", "1004": ""}
    paths, _ = export("canvas", tmp_path / "g", tmp_path / "titled")
    assert read_canvas_gradebook(paths[0], "Tic-Tac-Toe with minimax")["1002"] == "19"


def test_classroom_csv_has_github_classrooms_columns(tmp_path):
    students = {"octocat": ("Mona", 25, ""), "ada-l": ("Ada", 12, "")}
    paths, _ = export("classroom", graded(tmp_path / "g", students), tmp_path / "back")
    text = paths[0].read_text(encoding="utf-8")
    assert text.splitlines()[0] == CLASSROOM_HEADER
    with paths[0].open(encoding="utf-8", newline="") as handle:
        rows = {r["github_username"]: r for r in csv.DictReader(handle)}
    assert list(rows["ada-l"]) == CLASSROOM_FIELDS
    assert (rows["ada-l"]["points_awarded"], rows["ada-l"]["points_available"]) == ("12", "25")
    assert rows["octocat"]["student_repository_name"] == "octocat"


def test_ids_the_lms_cannot_take_are_left_out_with_a_line(tmp_path):
    students = {"1001": ("Ada", 25, ""), "alice": ("Alice", 20, "")}
    paths, lines = export("moodle", graded(tmp_path / "g", students, roster=False),
                          tmp_path / "back", now=NOW)
    assert read_moodle_worksheet(paths[0]) == {"1001": "25"}
    assert lines == ["alice: not a Moodle participant number; left out (import the "
                     "submissions with `autograder import moodle`)"]
    _, lines = export("canvas", tmp_path / "g", tmp_path / "canvas")
    assert len(lines) == 1 and lines[0].startswith("alice: not a Canvas user id")


def test_export_writes_only_into_an_empty_folder_or_its_own(tmp_path):
    source = graded(tmp_path / "g")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("the teacher's")
    with pytest.raises(KitError, match="not empty"):
        export("moodle", source, mine)
    assert (mine / "notes.txt").read_text() == "the teacher's"
    export("moodle", source, tmp_path / "back")
    export("moodle", source, tmp_path / "back")              # its own: written again
    with pytest.raises(KitError, match="no grades.csv"):
        export("moodle", tmp_path / "back", tmp_path / "x")


def run(*args, namespace=False, timeout=900):
    command = [sys.executable, "-m", "autograder", *args]
    return subprocess.run(in_pid_namespace(command) if namespace else command, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_export_command_fails_in_one_line(tmp_path):
    done = run("export", "moodle", str(tmp_path / "nothing"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "no grades.csv" in done.stderr


@pytest.mark.slow
@pytest.mark.hostile
def test_a_moodle_round_trip_reads_back_to_the_same_grades(tmp_path):
    """Moodle's download -> `grade --from moodle` -> `export moodle`: the worksheet
    holds grades.csv's scores, the feedback zip each student's feedback; names are
    in the terminal table and the feedback titles; OUT keeps students.csv."""
    download = tmp_path / "GTS-2027-tictactoe.zip"
    with zipfile.ZipFile(download, "w") as archive:
        archive.writestr("Zoë Brontë-Müller_20417_assignsubmission_file/tictactoe.py", CORRECT)
        archive.writestr("Anna Maria de la Cruz_20418_assignsubmission_file/tictactoe.py",
                         WRONG)
        archive.writestr("Jo Notebook_20419_assignsubmission_file/tictactoe.ipynb", b"{}")
    graded_out, back = tmp_path / "graded", tmp_path / "to-moodle"
    done = run("grade", "tictactoe", str(download), "--from", "moodle", "--out",
               str(graded_out), "--jobs", "2", namespace=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"({graded_out / ROSTER} lists each id with its name)" in done.stdout
    assert (graded_out / ROSTER).is_file()                    # kept, not in a deleted folder
    assert "Zoë Brontë-Müller" in done.stdout                 # the terminal table's name
    assert "feedback for Zoë Brontë-Müller (20417)" in \
        (graded_out / "20417" / "feedback.md").read_text(encoding="utf-8")
    with (graded_out / "grades.csv").open(encoding="utf-8", newline="") as handle:
        scores = {r["student"]: r["score"] for r in csv.DictReader(handle)}
    assert scores["20417"] == "25" and scores["20418"] != "25" and scores["20419"] == "0"
    notebook = (graded_out / "20419" / "feedback.md").read_text(encoding="utf-8")
    assert "only the notebook tictactoe.ipynb was handed in" in notebook
    done = run("export", "moodle", str(graded_out), "--out", str(back))
    assert done.returncode == 0, done.stdout + done.stderr
    worksheet = back / "moodle-grading-worksheet.csv"
    assert read_moodle_worksheet(worksheet) == scores
    again = import_submissions("moodle", back / "moodle-feedback-files.zip", tmp_path / "again")
    assert sorted(r["student"] for r in again.students) == sorted(scores)
    assert imported_files(tmp_path / "again" / "20418")["feedback.md"] == \
        (graded_out / "20418" / "feedback.md").read_bytes()
