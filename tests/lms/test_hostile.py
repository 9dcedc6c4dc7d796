"""The red team's ways into `autograder import`, each next to its honest twin.

Every archive is built here with zipfile, small: the budgets are what make
them cheap, so each test also bounds the time (and, for the deep paths, the
memory) the import may take. For each attack: every other student is imported
as the honest download imports them, the student who made it gets one line,
and nothing of the teacher's is touched.
"""

from __future__ import annotations

import bz2
import io
import os
import time
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest

from autograder import KitError
from autograder.grading import intake
from autograder.grading.download import STUDENT_ENTRIES
from autograder.lms import IMPORT_MARKER, ROSTER, import_submissions
from tests.lms.layouts import CORRECT, WRONG, imported_files, zipped


def moodle_zip(path: Path, extra: dict[str, bytes] | None = None) -> Path:
    """A Moodle download (Moodle 4.1 folders, no trailing "_") of three honest
    students, and `extra` entries beside them."""
    files = {"Ada Byron_1001_assignsubmission_file/tictactoe.py": CORRECT,
             "Bo Li_1002_assignsubmission_file/tictactoe.py": WRONG,
             "Cy Ng_1005_assignsubmission_file/tictactoe.py": CORRECT} | (extra or {})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def honest_students(out: Path) -> dict:
    return {s: imported_files(out / s) for s in ("1001", "1002", "1005")}


@pytest.fixture
def honest(tmp_path):
    out = tmp_path / "honest"
    imported = import_submissions("moodle", moodle_zip(tmp_path / "honest.zip"), out,
                                  "tictactoe")
    assert [r["student"] for r in imported.students] == ["1001", "1002", "1005"]
    assert honest_students(out)["1002"] == {"tictactoe.py": WRONG}
    return honest_students(out)


def rows(imported) -> dict:
    return {r["student"]: r for r in imported.students}


# ------------------------------------------------------------ 1. depth
def test_a_2000_level_path_is_its_students_line_and_costs_little(tmp_path, honest):
    deep = {f"Dee Pp_1004_assignsubmission_file/{n}/" + "a/" * 2000 + "x.py": b"x"
            for n in range(30)}          # distinct folders: the old listing kept each path
    download = moodle_zip(tmp_path / "deep.zip", deep)
    assert download.stat().st_size < 300_000
    tracemalloc.start()
    started = time.perf_counter()
    try:
        imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 10
    assert peak < 64 << 20, peak >> 20              # was about 1 GB for a 70 KB zip
    assert honest_students(tmp_path / "out") == honest
    assert rows(imported)["1004"]["notes"].startswith("not imported: folders more than 32 deep")
    said = [line for line in imported.skipped if "1004" in line]
    assert len(said) == 1 and "not imported" in said[0] and "\n" not in said[0]
    assert not (tmp_path / "out" / "1004").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.zip", "honest", "honest.zip",
                                                          "out"]   # no staging left


def test_a_deep_folder_on_disk_stops_at_its_student(tmp_path):
    """The same from a download unpacked into a folder (walked one folder at a time)."""
    download = tmp_path / "download"
    (download / "Ada Byron_1001_assignsubmission_file").mkdir(parents=True)
    (download / "Ada Byron_1001_assignsubmission_file" / "tictactoe.py").write_bytes(CORRECT)
    _deep_tree(download / "Dee Pp_1004_assignsubmission_file", 300)
    imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
    assert imported_files(tmp_path / "out" / "1001") == {"tictactoe.py": CORRECT}
    assert "folders more than 32 deep" in rows(imported)["1004"]["notes"]


def _deep_tree(top: Path, levels: int) -> None:
    """`levels` nested folders below `top`, made through folder descriptors (the
    path is longer than PATH_MAX)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir("d" * 20, dir_fd=fd)
        inner = os.open("d" * 20, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def test_remove_tree_removes_a_tree_deeper_than_recursion_and_path_max(tmp_path):
    _deep_tree(tmp_path / "staging", 2_500)            # ~52 KB of path, 2,500 levels
    (tmp_path / "keep").mkdir()
    (tmp_path / "staging" / "link").symlink_to(tmp_path / "keep")
    intake.remove_tree(tmp_path / "staging")
    assert not (tmp_path / "staging").exists() and (tmp_path / "keep").is_dir()


# ------------------------------------------------------------ 2. bytes read and attempted
FIVE_MB = b"\0" * (5 << 20)
STREAMS = {zipfile.ZIP_BZIP2: bz2.compress(FIVE_MB),                       # 45 bytes
           zipfile.ZIP_DEFLATED: zlib.compress(FIVE_MB, 9, wbits=-15)}      # 5 KB


class _Compressed:
    """zipfile's compressor for an entry whose stream is made once (making each
    of 300 streams anew takes 20 s; the bytes written are the same)."""

    def __init__(self, stream: bytes):
        self.stream = stream

    def compress(self, data):
        return b""

    def flush(self):
        return self.stream


def bombs(archive: zipfile.ZipFile, names, method: int) -> None:
    """Entries of 5 MB of zeros, compressed with `method`, whose CRC is wrong:
    each read decompresses 5 MB and then fails."""
    made = zipfile._get_compressor
    zipfile._get_compressor = lambda kind, level=None: _Compressed(STREAMS[method])
    try:
        for name in names:
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            archive.writestr(info, FIVE_MB)
    finally:
        zipfile._get_compressor = made
    for info in archive.filelist:          # the central directory's CRC is what is checked
        if info.filename in names:
            info.CRC ^= 1


def crc_bomb(entries: int, method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        bombs(archive, [f"part{n}.py" for n in range(entries)], method)
    return buffer.getvalue()


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2],
                         ids=["deflate", "bzip2"])
@pytest.mark.parametrize("where", ["handed-in zip", "download"])
def test_a_checksum_bomb_is_charged_what_it_decompresses(tmp_path, honest, where, method):
    download = tmp_path / "bomb.zip"
    names = [f"Bom Ber_1003_assignsubmission_file/part{n}.py" for n in range(300)]
    if where == "handed-in zip":                 # 300 entries: 1.5 GB to decompress
        moodle_zip(download, {"Bom Ber_1003_assignsubmission_file/work.zip":
                              crc_bomb(300, method)})
    else:                                        # the same entries in the LMS's zip
        moodle_zip(download)
        with zipfile.ZipFile(download, "a") as archive:
            bombs(archive, names, method)
    started = time.perf_counter()
    imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
    assert time.perf_counter() - started < 5     # was 9 s for 300 entries, 17 min for 33k
    assert honest_students(tmp_path / "out") == honest
    note = rows(imported)["1003"]["notes"]
    # deflate is read, and each failed read is charged its 5 MB; bzip2 (decompressed
    # whole by zipfile, however large) is never read, and each try counts as a read
    assert note == ("not imported: more than 20 MB read (or attempted)"
                    if method == zipfile.ZIP_DEFLATED else
                    "not imported: more than 200 files to read"), note
    assert not (tmp_path / "out" / "1003").exists()


def test_many_small_failing_reads_are_counted_as_reads(tmp_path, honest):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for n in range(500):
            archive.writestr(f"f{n}.txt", b"x")
        for info in archive.filelist:
            info.CRC ^= 1
    download = moodle_zip(tmp_path / "many.zip",
                          {"Ma Ny_1003_assignsubmission_file/work.zip": buffer.getvalue()})
    imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
    assert honest_students(tmp_path / "out") == honest
    assert "not imported: more than 200 files to read" in rows(imported)["1003"]["notes"]


def test_too_many_entries_in_a_handed_in_zip(tmp_path, honest):
    many = zipped({f"f{n}.txt": b"" for n in range(STUDENT_ENTRIES + 5)})
    download = moodle_zip(tmp_path / "many.zip",
                          {"Ma Ny_1003_assignsubmission_file/work.zip": many})
    imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
    assert honest_students(tmp_path / "out") == honest
    assert "not imported" in rows(imported)["1003"]["notes"]
    assert "10,000" in rows(imported)["1003"]["notes"]


def test_a_long_path_is_refused_before_anything_is_written(tmp_path, honest):
    long_path = "/".join(["n" * 200] * 8) + "/tictactoe.py"       # 1,600 bytes, 9 levels
    download = moodle_zip(tmp_path / "long.zip",
                          {f"Lo Ng_1003_assignsubmission_file/{long_path}": CORRECT})
    imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
    assert honest_students(tmp_path / "out") == honest
    assert "a path longer than 1,000 bytes" in rows(imported)["1003"]["notes"]


# ------------------------------------------------------------ 3. Moodle ids
def test_a_display_name_cannot_claim_another_participant(tmp_path, honest):
    forged = {"Eve X_1002_assignsubmission_file__1003_assignsubmission_file/tictactoe.py":
              CORRECT,
              "Eve_X_1002_assignsubmission_file_1003_assignsubmission_file_tictactoe.py": CORRECT}
    imported = import_submissions("moodle", moodle_zip(tmp_path / "forged.zip", forged),
                                  tmp_path / "out", "tictactoe")
    assert honest_students(tmp_path / "out") == honest     # 1002 holds only her own module
    assert rows(imported)["1002"]["name"] == "Bo Li"
    said = [line for line in imported.skipped if line.startswith("Eve")]
    assert len(said) == 2 and all("more than one participant" in line for line in said)
    assert "1003" not in rows(imported)


def test_an_underscore_in_the_name_part_is_not_moodles(tmp_path, honest):
    forged = {"X_Y_1003_assignsubmission_file/tictactoe.py": CORRECT}
    imported = import_submissions("moodle", moodle_zip(tmp_path / "f.zip", forged),
                                  tmp_path / "out", "tictactoe")
    assert honest_students(tmp_path / "out") == honest
    assert any("underscore" in line for line in imported.skipped)
    assert "1003" not in rows(imported)


def test_moodle_before_and_after_4_1_and_without_folders_read_alike(tmp_path):
    for number, names in enumerate([
            ("Ada Byron_1001_assignsubmission_file/tictactoe.py",),          # 4.1 and later
            ("Ada Byron_1001_assignsubmission_file_/tictactoe.py",),         # before 4.1
            ("Ada Byron_1001_assignsubmission_file_tictactoe.py",)]):        # not in folders
        download = tmp_path / f"m{number}.zip"
        with zipfile.ZipFile(download, "w") as archive:
            archive.writestr(names[0], CORRECT)
        imported = import_submissions("moodle", download, tmp_path / f"o{number}", "tictactoe")
        assert rows(imported)["1001"]["name"] == "Ada Byron"
        assert rows(imported)["1001"]["identifier"] == "Participant 1001"
        assert imported_files(tmp_path / f"o{number}" / "1001") == {"tictactoe.py": CORRECT}


# ------------------------------------------------------------ 4. Classroom
def classroom(target: Path, renamed: bool) -> Path:
    repos = {"tictactoe-alice": CORRECT, "tictactoe-carol": WRONG, "tictactoe-dan": CORRECT}
    if renamed:                     # bob renamed his repository to claim alice's place
        repos["a-alice"] = WRONG
    else:
        repos["tictactoe-bob"] = WRONG
    for repo, module in repos.items():
        (target / repo).mkdir(parents=True)
        (target / repo / "tictactoe.py").write_bytes(module)
    (target / "classroom_roster.csv").write_text(
        "identifier,github_username,github_id,name\n" + "".join(
            f"s{n},{u},{n},{u.title()} Example\n"
            for n, u in enumerate(["alice", "bob", "carol", "dan"])))
    return target


def test_two_repositories_of_one_user_are_both_refused(tmp_path):
    honest = import_submissions("classroom", classroom(tmp_path / "h", False), tmp_path / "ho")
    assert sorted(rows(honest)) == ["alice", "bob", "carol", "dan"]
    assert rows(honest)["alice"]["name"] == "Alice Example"
    attacked = import_submissions("classroom", classroom(tmp_path / "a", True), tmp_path / "ao")
    assert sorted(rows(attacked)) == ["carol", "dan"]     # the prefix still holds for them
    for student in ("carol", "dan"):
        assert imported_files(tmp_path / "ao" / student) == \
            imported_files(tmp_path / "ho" / student)
    said = [line for line in attacked.skipped if "map to the GitHub user alice" in line]
    assert len(said) == 1 and "a-alice" in said[0] and "tictactoe-alice" in said[0]
    assert not any("is later" in line for line in attacked.skipped)


# ------------------------------------------------------------ 5. the teacher's files
def test_import_writes_only_into_an_empty_folder_or_its_own(tmp_path):
    download = moodle_zip(tmp_path / "d.zip")
    teacher = tmp_path / "course"
    (teacher / "solutions").mkdir(parents=True)
    (teacher / "solutions" / "key.py").write_text("mine")
    (teacher / ROSTER).write_text("student,name\n")          # a students.csv of their own
    with pytest.raises(KitError, match="not empty and was not made by autograder import"):
        import_submissions("moodle", download, teacher, "tictactoe")
    assert (teacher / "solutions" / "key.py").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    import_submissions("moodle", download, empty, "tictactoe")
    assert (empty / IMPORT_MARKER).is_file()
    import_submissions("moodle", download, empty, "tictactoe")     # its own: replaced
    assert sorted(p.name for p in empty.iterdir() if p.is_dir()) == ["1001", "1002", "1005"]


def test_grade_out_is_refused_unless_empty_or_its_own(tmp_path):
    subs = tmp_path / "subs"
    (subs / "solutions").mkdir(parents=True)                 # a student named solutions
    (subs / "solutions" / "tictactoe.py").write_bytes(CORRECT)
    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    (course / "solutions" / "tictactoe.py").write_text("the teacher's reference")
    with pytest.raises(KitError, match="not empty and was not made by autograder grade"):
        intake.claim_out_dir(subs, course)
    assert (course / "solutions" / "tictactoe.py").read_text() == "the teacher's reference"
    fresh = tmp_path / "out"
    intake.claim_out_dir(subs, fresh)
    (fresh / "solutions").mkdir()
    intake.claim_out_dir(subs, fresh)         # an earlier run's: its own
    assert (fresh / intake.GRADE_MARKER).is_file()


def test_grade_command_says_why_in_one_line(tmp_path):
    import subprocess
    import sys
    from tests.conftest import ROOT
    subs = tmp_path / "subs"
    (subs / "solutions").mkdir(parents=True)
    (subs / "solutions" / "tictactoe.py").write_bytes(CORRECT)
    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    (course / "solutions" / "tictactoe.py").write_text("the teacher's reference")
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "tictactoe", str(subs),
                           "--out", str(course)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "was not made by autograder grade" in done.stderr and "choose another" in done.stderr
    assert (course / "solutions" / "tictactoe.py").read_text() == "the teacher's reference"


# ------------------------------------------------------------ 7. notebook-only
def test_a_notebook_without_the_module_says_so_and_how(tmp_path):
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "tictactoe.ipynb").write_text("{}")
    home, status, why = intake.locate(tmp_path / "ada", ("tictactoe.py",))
    assert home is None and status == "missing"
    assert "only the notebook tictactoe.ipynb was handed in" in why
    assert "hand in tictactoe.py beside it" in why
    (tmp_path / "bob").mkdir()                       # the honest twin: both handed in
    (tmp_path / "bob" / "tictactoe.ipynb").write_text("{}")
    (tmp_path / "bob" / "tictactoe.py").write_bytes(CORRECT)
    assert intake.locate(tmp_path / "bob", ("tictactoe.py",))[0] == tmp_path / "bob"


def test_grade_replaces_only_student_folders_it_wrote(tmp_path):
    """In its own OUT, grading again replaces a student's folder only when the
    grader wrote it: `autograder mutate`'s default out/mutation stays, also for a
    student named mutation, and an unmarked OUT holding only it may be graded into."""
    out = tmp_path / "out"
    (out / "mutation" / "tictactoe").mkdir(parents=True)
    (out / "mutation" / "tictactoe" / "mutation.md").write_text("the report")
    intake.claim_out_dir(tmp_path / "subs", out)
    assert (out / intake.GRADE_MARKER).is_file()
    assert not intake.graded_folder(out / "mutation")
    (out / "mutation" / "results.json").write_text("{}")     # a student named mutation
    assert not intake.graded_folder(out / "mutation")
    (out / "ada").mkdir()
    for name in ("results.json", "feedback.md", "feedback.html", "fingerprint.json"):
        (out / "ada" / name).write_text("{}")
    assert intake.graded_folder(out / "ada") and intake.graded_folder(out / "bob")


def test_the_imports_own_budget_stops_with_a_line_and_keeps_who_came_before(
        tmp_path, monkeypatch):
    import autograder.lms as lms
    monkeypatch.setattr(lms, "IMPORT_BYTES", len(CORRECT) + len(WRONG) + 10)
    imported = import_submissions("moodle", moodle_zip(tmp_path / "d.zip"), tmp_path / "out",
                                  "tictactoe")
    assert [r["student"] for r in imported.students] == ["1001", "1002"]
    assert imported.skipped[-1].endswith("1005 and the students after were not imported")
    assert "read (or attempted) more than" in imported.skipped[-1]
