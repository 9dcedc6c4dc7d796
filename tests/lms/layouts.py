"""Generated downloads in each LMS's layout, as the LMS writes them.

Each builder writes a download into a folder (or a zip) and returns what the
import must make of it: {student id: (display name, {file: the example it is})}.
The students have names with spaces, accents (some written decomposed, as macOS
does) and hyphens, files uploaded twice (`tictactoe-1.py`, `tictactoe (1).py`),
late resubmissions, zips handed in, and entries the import must skip.
"""

from __future__ import annotations

import io
import json
import unicodedata
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tictactoe"
CORRECT = (EXAMPLES / "ada_alphabeta" / "tictactoe.py").read_bytes()
WRONG = (EXAMPLES / "eve_no_antidiagonal" / "tictactoe.py").read_bytes()
BROKEN = (EXAMPLES / "frank_syntax_error" / "tictactoe.py").read_bytes()


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def write(files: dict[str, bytes], target: Path, as_zip: bool, utf8_flag: bool = True) -> Path:
    """`files` (path -> bytes; a path ending in / is a folder) as a folder, or a zip."""
    if as_zip:
        target = target.with_suffix(".zip")
        with zipfile.ZipFile(target, "w") as archive:
            for name, data in files.items():
                info = (zipfile.ZipInfo if utf8_flag else _Unflagged)(name)
                archive.writestr(info, data)
        return target
    for name, data in files.items():
        path = target / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return target


class _Unflagged(zipfile.ZipInfo):
    """A name written as UTF-8 bytes without the UTF-8 flag, as many tools do."""

    def _encodeFilenameFlags(self):
        return self.filename.encode("utf-8"), self.flag_bits & ~0x800


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# ------------------------------------------------------------ Moodle
def moodle(target: Path, as_zip: bool = True, in_folders: bool = True):
    """"Download all submissions": one folder per student and plugin (in folders),
    or files prefixed the same way (without)."""
    students = {
        "20417": ("Zoë Brontë-Müller", CORRECT),
        "20418": ("Anna Maria de la Cruz", WRONG),
        "20419": ("José Núñez", BROKEN),        # written decomposed, as macOS does
        "20420": ("Participant", CORRECT),      # blind marking: no name
    }
    files: dict[str, bytes] = {}
    for number, (name, module) in students.items():
        shown = nfd(name) if number == "20419" else name
        prefix = f"{shown}_{number}_assignsubmission_file_"
        if in_folders:
            files[f"{prefix}/tictactoe.py"] = module
        else:
            files[f"{prefix}tictactoe.py"] = module
    # Zoë uploaded her module twice: the browser named the second "tictactoe (1).py".
    if in_folders:
        files["Zoë Brontë-Müller_20417_assignsubmission_file_/tictactoe (1).py"] = CORRECT
        files["Anna Maria de la Cruz_20418_assignsubmission_onlinetext_/onlinetext.html"] = \
            b"<p>my notes</p>"
        files["Anna Maria de la Cruz_20418_assignsubmission_file_/.DS_Store"] = b"\0\1"
    files["grading worksheet.csv"] = b"Identifier,Full name\n"
    expected = {n: (name, {"tictactoe.py": module}) for n, (name, module) in students.items()}
    return write(files, target / "moodle", as_zip), expected


# ------------------------------------------------------------ Canvas
def canvas(target: Path, as_zip: bool = True):
    """"Download Submissions": flat files lastfirst[_LATE]_userid_fileid_filename."""
    files = {
        # uploaded twice in the latest attempt: Canvas renamed the second, and its
        # file id is the higher one
        "brontemullerzoe_4711_90001_tictactoe.py": WRONG,
        "brontemullerzoe_4711_90007_tictactoe-1.py": CORRECT,
        # a late resubmission: only the latest attempt is in the download, marked LATE
        "nunezjose_LATE_4712_90010_tictactoe-1.py": CORRECT,
        # a zip handed in
        "delacruzannamaria_4713_90003_submission.zip": zipped({"tictactoe/tictactoe.py": WRONG,
                                                               "__MACOSX/._tictactoe.py": b"x"}),
        "smithjohn_4714_text.html": b"<p>I could not upload</p>",
        "notes.txt": b"not from Canvas",
    }
    expected = {"4711": ("brontemullerzoe", {"tictactoe.py": CORRECT}),
                "4712": ("nunezjose", {"tictactoe.py": CORRECT}),
                "4713": ("delacruzannamaria", {"submission/tictactoe/tictactoe.py": WRONG})}
    return write({f"submissions/{k}": v for k, v in files.items()}, target / "canvas",
                 as_zip), expected


# ------------------------------------------------------------ GitHub Classroom
def classroom(target: Path, as_zip: bool = False):
    """`gh classroom clone student-repos`: a folder per repository, and the roster."""
    files = {
        "tictactoe-submissions/tictactoe-octocat/tictactoe.py": CORRECT,
        "tictactoe-submissions/tictactoe-octocat/README.md": b"# tic-tac-toe\n",
        "tictactoe-submissions/tictactoe-octocat/.git/HEAD": b"ref: refs/heads/main\n",
        "tictactoe-submissions/tictactoe-ada-l/tictactoe.py": WRONG,
        "tictactoe-submissions/tictactoe-ada-l/.github/workflows/classroom.yml": b"on: push\n",
        "tictactoe-submissions/classroom_roster.csv": (
            "identifier,github_username,github_id,name\n"
            "s0001,octocat,1,Mona Lisa Octocat\n"
            "s0002,ada-l,2,Ada Lovelace-Byron\n"
            "s0003,nobody-here,3,Ned Nobody\n").encode(),
    }
    expected = {"octocat": ("Mona Lisa Octocat", {"tictactoe.py": CORRECT,
                                                  "README.md": b"# tic-tac-toe\n"}),
                "ada-l": ("Ada Lovelace-Byron", {"tictactoe.py": WRONG})}
    return write(files, target / "classroom", as_zip), expected


# ------------------------------------------------------------ Gradescope
GRADESCOPE_YAML = """\
submission_101:
  :submitters:
  - :name: Zoë Brontë-Müller
    :sid: '4711'
    :email: zoe@example.edu
  :created_at: 2027-01-15 10:00:00.000000000 +01:00
  :score: 0.0
  :status: processed
  :history: []
submission_102:
  :submitters:
  - :name: José Núñez
    :sid: ''
    :email: jose@example.edu
  - :name: Anna Maria de la Cruz
    :sid: '4713'
    :email: anna@example.edu
  :created_at: 2027-01-16 09:30:00.000000000 +01:00
  :score: 0.0
  :status: processed
  :history:
  - :id: 100
    :created_at: 2027-01-14 09:30:00.000000000 +01:00
    :score: 0.0
submission_103:
  :submitters:
  - :name: Zoë Brontë-Müller
    :sid: '4711'
    :email: zoe@example.edu
  :created_at: 2027-01-14 08:00:00.000000000 +01:00
  :score: 0.0
  :status: processed
  :history: []
submission_104:
  :submitters: []
"""


def gradescope(target: Path, as_zip: bool = True):
    """"Export Submissions": submission_metadata.yml and a folder per submission."""
    files = {
        "assignment_2027_export/submission_metadata.yml": GRADESCOPE_YAML.encode(),
        "assignment_2027_export/submission_101/tictactoe.py": CORRECT,
        "assignment_2027_export/submission_102/tictactoe.py": WRONG,
        "assignment_2027_export/submission_103/tictactoe.py": BROKEN,    # Zoë, earlier
        "assignment_2027_export/submission_104/tictactoe.py": BROKEN,
        "assignment_2027_export/submission_999/tictactoe.py": BROKEN,    # not listed
    }
    expected = {"4711": ("Zoë Brontë-Müller", {"tictactoe.py": CORRECT}),
                "jose@example.edu": ("José Núñez", {"tictactoe.py": WRONG}),
                "4713": ("Anna Maria de la Cruz", {"tictactoe.py": WRONG})}
    return write(files, target / "gradescope", as_zip), expected


# ------------------------------------------------------------ plain layouts
def folders(target: Path, as_zip: bool = False):
    """One folder per student; one holds only submission.zip."""
    files = {
        "alice/submission.zip": zipped({"tictactoe.py": CORRECT}),
        "Zoë Brontë/tictactoe.py": WRONG,
        "bob/tictactoe.py": CORRECT,
        "bob/submission.zip": zipped({"tictactoe.py": BROKEN}),   # the module is there
        "readme.txt": b"loose",
    }
    expected = {"alice": ("", {"submission/tictactoe.py": CORRECT}),
                "Zoë Brontë": ("", {"tictactoe.py": WRONG}),
                "bob": ("", {"tictactoe.py": CORRECT, "submission.zip": None})}
    return write(files, target / "folders", as_zip), expected


def flat(target: Path, as_zip: bool = False):
    """Files named by the student: alice_tictactoe.py, ada_lovelace-tictactoe.py, ..."""
    files = {
        "alice_tictactoe.py": CORRECT,
        "ada_lovelace_tictactoe.py": WRONG,
        "bob-tictactoe.py": CORRECT,
        "carl_tictactoe.py": BROKEN,
        "carl_tictactoe-1.py": CORRECT,          # downloaded again: the newer copy
        "dora.zip": zipped({"tictactoe.py": WRONG}),
        "notes.txt": b"not a submission",
    }
    expected = {"alice": ("", {"tictactoe.py": CORRECT}),
                "ada_lovelace": ("", {"tictactoe.py": WRONG}),
                "bob": ("", {"tictactoe.py": CORRECT}),
                "carl": ("", {"tictactoe.py": CORRECT}),
                "dora": ("", {"dora/tictactoe.py": WRONG})}
    return write(files, target / "flat", as_zip), expected


BUILDERS = {"moodle": moodle, "canvas": canvas, "classroom": classroom,
            "gradescope": gradescope, "folders": folders, "flat": flat}


def imported_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def as_json(value) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
