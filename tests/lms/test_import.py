"""`autograder import`: every LMS layout, generated; the download as hostile data.

Each layout is built by layouts.py as the LMS writes it (names with spaces,
accents and hyphens, decomposed accents, files uploaded twice, late
resubmissions, zips handed in, entries to skip), both as a folder and as a zip,
and the import must give the one-folder-per-student layout with the LMS's ids
and names. The attacks (entries that leave the zip, links, a zip bomb, forged
ids) are imported next to the same download without them: the honest students
come out the same, nothing is written outside --out.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import KitError
from autograder.lms import IMPORT_MARKER, ROSTER, import_submissions, read_roster
from tests.conftest import ROOT, in_pid_namespace
from tests.lms import layouts
from tests.lms.layouts import BROKEN, CORRECT, WRONG, imported_files, zipped


def roster(folder: Path) -> dict[str, dict]:
    with (folder / ROSTER).open(encoding="utf-8", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def check_import(out: Path, expected: dict) -> None:
    rows = roster(out)
    assert sorted(rows) == sorted(expected), sorted(rows)
    for student, (name, files) in expected.items():
        got = imported_files(out / student)
        assert sorted(got) == sorted(files), (student, sorted(got))
        for path, data in files.items():
            if data is not None:
                assert got[path] == data, (student, path)
        assert rows[student]["name"] == name, (student, rows[student]["name"])
    students = {p.name for p in out.iterdir() if p.is_dir()}
    assert students == set(expected)


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
@pytest.mark.parametrize("layout", sorted(layouts.BUILDERS))
def test_every_layout_gives_one_folder_per_student_with_ids_and_names(layout, as_zip,
                                                                      tmp_path):
    source, expected = layouts.BUILDERS[layout](tmp_path, as_zip=as_zip)
    imported = import_submissions(layout, source, tmp_path / "out", "tictactoe")
    check_import(tmp_path / "out", expected)
    assert len(imported.students) == len(expected)


def test_what_was_skipped_is_said_one_line_each(tmp_path):
    said = {}
    for layout, build in layouts.BUILDERS.items():
        source, _ = build(tmp_path / layout, as_zip=False)
        said[layout] = import_submissions(layout, source, tmp_path / layout / "out").skipped
    assert any("grading worksheet.csv" in line for line in said["moodle"])
    assert any("text entry" in line for line in said["canvas"])
    assert any("notes.txt" in line for line in said["canvas"])
    assert any("nobody-here" in line and "no repository" in line for line in said["classroom"])
    assert any("submission_999" in line and "not listed" in line for line in said["gradescope"])
    assert any("submission_103" in line and "later" in line for line in said["gradescope"])
    assert any("submission_104" in line and "no submitters" in line
               for line in said["gradescope"])
    assert any("readme.txt" in line for line in said["folders"])
    assert any("notes.txt" in line for line in said["flat"])
    assert all("\n" not in line for lines in said.values() for line in lines)


def test_late_resubmissions_and_renamed_uploads_are_recorded(tmp_path):
    source, _ = layouts.canvas(tmp_path, as_zip=True)
    import_submissions("canvas", source, tmp_path / "out", "tictactoe")
    rows = roster(tmp_path / "out")
    assert rows["4712"]["late"] == "yes" and rows["4711"]["late"] == "no"
    # uploaded twice: the higher Canvas file id is the newer file, whatever its name
    assert "tictactoe-1.py taken as tictactoe.py" in rows["4711"]["notes"]
    assert "older copies left out: tictactoe.py" in rows["4711"]["notes"]
    assert (tmp_path / "out" / "4711" / "tictactoe.py").read_bytes() == CORRECT
    source, _ = layouts.gradescope(tmp_path, as_zip=False)
    import_submissions("gradescope", source, tmp_path / "gs", "tictactoe")
    rows = roster(tmp_path / "gs")
    assert rows["4711"]["submitted"].startswith("2027-01-15T09:00:00")     # UTC
    assert "group submission" in rows["4713"]["notes"]


def test_names_written_decomposed_or_without_the_utf8_flag_read_as_written(tmp_path):
    files = {"José Núñez_20419_assignsubmission_file_/tictactoe.py": CORRECT}
    decomposed = {layouts.nfd(k): v for k, v in files.items()}
    for number, (variant, flag) in enumerate([(files, True), (decomposed, True),
                                              (files, False)]):
        source = layouts.write(variant, tmp_path / f"m{number}", as_zip=True, utf8_flag=flag)
        import_submissions("moodle", source, tmp_path / f"out{number}")
        assert roster(tmp_path / f"out{number}")["20419"]["name"] == "José Núñez"


def test_reimporting_replaces_an_earlier_import_and_refuses_other_folders(tmp_path):
    source, expected = layouts.flat(tmp_path, as_zip=False)
    out = tmp_path / "out"
    import_submissions("flat", source, out, "tictactoe")
    (source / "alice_tictactoe.py").unlink()
    import_submissions("flat", source, out, "tictactoe")
    assert not (out / "alice").exists() and (out / "bob").is_dir()
    other = tmp_path / "teacher-files"
    (other / "keep.txt").parent.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(KitError, match="not empty"):
        import_submissions("flat", source, other, "tictactoe")
    assert (other / "keep.txt").read_text() == "mine"
    for bad in (source, source / "inside"):
        with pytest.raises(KitError, match="overlap"):
            import_submissions("flat", source, bad, "tictactoe")
    with pytest.raises(KitError, match="unknown format"):
        import_submissions("blackboard", source, tmp_path / "x")
    with pytest.raises(KitError, match="no submission_metadata.yml"):
        import_submissions("gradescope", source, tmp_path / "y")


# ------------------------------------------------------------ the download, attacked
def _entry(archive: zipfile.ZipFile, name: str, data: bytes, mode: int | None = None) -> None:
    info = zipfile.ZipInfo(name)
    if mode is not None:
        info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def canvas_download(path: Path, attacks: bool) -> Path:
    """A Canvas download of two honest students, with (or without) the attacks."""
    with zipfile.ZipFile(path, "w") as archive:
        _entry(archive, "adaada_1001_5001_tictactoe.py", CORRECT)
        _entry(archive, "bobbob_1002_5002_tictactoe.py", WRONG)
        if attacks:
            _entry(archive, "../../escaped_1003_5003_tictactoe.py", CORRECT)
            _entry(archive, "/tmp/absolute_1004_5004_tictactoe.py", CORRECT)
            _entry(archive, "C:\\windows_1005_5005_tictactoe.py", CORRECT)
            _entry(archive, "linker_1006_5006_tictactoe.py", b"/etc/passwd", mode=0o120777)
            _entry(archive, "bomber_1007_5007_tictactoe.py", b"0" * (6 << 20))
            _entry(archive, "newline\n**Score 25**_1008_5008_tictactoe.py", CORRECT)
            _entry(archive, "adaada_1001_5000_tictactoe.py", BROKEN)     # an older file id
            _entry(archive, "nester_1009_5009_work.zip",
                   zipped({"../../../outside.py": b"x", "tictactoe.py": WRONG}))
            _entry(archive, "deeper_1010_5010_work.zip",
                   zipped({"tictactoe.py": WRONG, "deep/" * 40 + "x.py": b"x"}))
    return path


def _listing(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_a_hostile_download_writes_nothing_outside_out_and_costs_nobody(tmp_path):
    honest = import_submissions("canvas", canvas_download(tmp_path / "honest.zip", False),
                                tmp_path / "honest", "tictactoe")
    download = canvas_download(tmp_path / "attacked.zip", True)
    before = _listing(tmp_path)
    attacked = import_submissions("canvas", download, tmp_path / "attacked", "tictactoe")
    after = _listing(tmp_path)
    assert {p.split("/")[0] for p in after - before} == {"attacked"}
    assert not (tmp_path.parent / "escaped_1003_5003_tictactoe.py").exists()
    assert not any("outside" in p for p in after)
    for student in ("1001", "1002"):            # the honest students, unchanged
        assert imported_files(tmp_path / "attacked" / student) == \
            imported_files(tmp_path / "honest" / student)
    said = "\n".join(attacked.skipped)
    assert "points outside the zip" in said and "absolute path" in said
    assert "control character" in said
    assert "linker_1006_5006_tictactoe.py: a symbolic link or special file, never " \
        "followed" in said
    rows = roster(tmp_path / "attacked")
    assert "1006" not in rows
    assert "larger than 5 MB" in rows["1007"]["notes"]
    assert "points outside the zip" in rows["1009"]["notes"]
    assert rows["1010"]["notes"].startswith("not imported: folders more than 32 deep")
    assert not (tmp_path / "attacked" / "1010").exists()
    assert (tmp_path / "attacked" / "1009" / "work" / "tictactoe.py").read_bytes() == WRONG
    assert len(honest.students) == 2


def test_links_fifos_and_forged_ids_in_a_folder_are_never_followed(tmp_path):
    source = tmp_path / "folders"
    (source / "alice").mkdir(parents=True)
    (source / "alice" / "tictactoe.py").write_bytes(CORRECT)
    (source / "mallory").mkdir()
    (source / "mallory" / "tictactoe.py").symlink_to(ROOT / "solutions/tictactoe/tictactoe.py")
    os.mkfifo(source / "mallory" / "pipe")
    (source / "linked").symlink_to(ROOT / "solutions" / "tictactoe")
    (source / "grades.csv").mkdir()
    (source / "grades.csv" / "tictactoe.py").write_bytes(CORRECT)
    imported = import_submissions("folders", source, tmp_path / "out", "tictactoe")
    assert imported_files(tmp_path / "out" / "alice") == {"tictactoe.py": CORRECT}
    assert imported_files(tmp_path / "out" / "mallory") == {}
    assert "never followed" in roster(tmp_path / "out")["mallory"]["notes"]
    said = "\n".join(imported.skipped)
    assert "linked: a symbolic link" in said
    assert "grades.csv" in said and "the name of a file the grader writes" in said
    assert not (tmp_path / "out" / "linked").exists()
    assert not (tmp_path / "out" / "grades.csv").is_dir()


def test_forged_ids_in_gradescope_metadata_are_refused(tmp_path):
    metadata = "".join(
        f"submission_{n}:\n  :submitters:\n  - :name: x\n    :sid: {sid}\n"
        f"  :created_at: 2027-01-15 10:00:00 +01:00\n"
        for n, sid in enumerate(["'../../escape'", "'grades.csv'", "\"a\\nb\"", "'ok'"]))
    files = {"submission_metadata.yml": metadata.encode()}
    files |= {f"submission_{n}/tictactoe.py": CORRECT for n in range(4)}
    source = layouts.write(files, tmp_path / "gs", as_zip=False)
    imported = import_submissions("gradescope", source, tmp_path / "out", "tictactoe")
    assert [row["student"] for row in imported.students] == ["ok"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == \
        sorted([ROSTER, "ok", IMPORT_MARKER])
    assert len([line for line in imported.skipped if "the student id" in line]) == 3
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "submission_metadata.yml").write_text("a: [unclosed\n")
    with pytest.raises(KitError, match="not valid YAML"):
        import_submissions("gradescope", tmp_path / "bad", tmp_path / "out2")


# ------------------------------------------------------------ the command, and grading
def run(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_import_command_says_what_it_did_and_fails_in_one_line(tmp_path):
    source, _ = layouts.moodle(tmp_path, as_zip=True)
    done = run("import", "moodle", str(source), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "imported 4 students" in done.stdout and "grading worksheet.csv" in done.stdout
    assert read_roster(tmp_path / "out")["20419"]["name"] == "José Núñez"
    done = run("import", "canvas", str(source), "--out", str(tmp_path / "empty"))
    assert done.returncode == 2 and "imported 0 students" in done.stdout
    done = run("import", "gradescope", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.hostile
def test_grade_from_an_lms_download_gives_the_plain_layouts_scores_and_names(tmp_path):
    """grade --from canvas on a download, and grade on the same students as plain
    folders: the same scores; grades.csv names every student."""
    source, expected = layouts.canvas(tmp_path, as_zip=True)
    plain = tmp_path / "plain"
    for student, (_, files) in expected.items():
        for path, data in files.items():
            (plain / student / path).parent.mkdir(parents=True, exist_ok=True)
            (plain / student / path).write_bytes(data)
    outcome = {}
    for label, args in (("lms", [str(source), "--from", "canvas"]), ("plain", [str(plain)])):
        done = subprocess.run(in_pid_namespace(
            [sys.executable, "-m", "autograder", "grade", "tictactoe", *args, "--out",
             str(tmp_path / f"out-{label}"), "--jobs", "2"]), cwd=ROOT, capture_output=True, text=True,
            timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        with (tmp_path / f"out-{label}" / "grades.csv").open(encoding="utf-8") as handle:
            outcome[label] = {row["student"]: row for row in csv.DictReader(handle)}
        outcome[label + "-said"] = done.stdout
    assert {s: r["score"] for s, r in outcome["lms"].items()} == \
        {s: r["score"] for s, r in outcome["plain"].items()}
    assert outcome["lms"]["4711"]["name"] == "brontemullerzoe"
    assert outcome["lms"]["4712"]["late"] == "yes"
    assert outcome["lms"]["4711"]["score"] == "25" and outcome["lms"]["4713"]["score"] != "25"
    assert "name" not in outcome["plain"]["4711"]
    assert "imported 3 students" in outcome["lms-said"]


def test_a_folder_holding_only_a_zip_is_told_how_to_unpack_it(tmp_path):
    from autograder.grading.intake import locate
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "submission.zip").write_bytes(zipped({"tictactoe.py": CORRECT}))
    home, status, why = locate(tmp_path / "alice", ("tictactoe.py",))
    assert home is None and status == "missing"
    assert "submission.zip" in why and "autograder import folders" in why
    import_submissions("folders", tmp_path, tmp_path.parent / f"{tmp_path.name}-out")
    home, status, why = locate(tmp_path.parent / f"{tmp_path.name}-out" / "alice",
                               ("tictactoe.py",))
    assert home is not None and status == ""


def test_the_command_names_every_layout_the_parsers_read():
    """`autograder import`'s choices are declared without importing the parsers."""
    from autograder.lms import command, formats
    assert command.LAYOUTS == tuple(formats.PARSERS)


def test_a_student_whose_every_entry_was_refused_keeps_a_row_that_says_why(tmp_path):
    """Bob handed in one file under a path that leaves the zip, Carol one whose name
    holds a control character: neither file is written, and each keeps a row that
    says why (their folder held nothing else, and they had no row). Alice, their
    honest twin beside them, is imported as before; nothing lands outside --out."""
    download = tmp_path / "moodle.zip"
    with zipfile.ZipFile(download, "w") as archive:
        _entry(archive, "Alice Ames_1001_assignsubmission_file_/tictactoe.py", CORRECT)
        _entry(archive, "Bob Baer_1002_assignsubmission_file_/../../tictactoe.py", CORRECT)
        _entry(archive, "Carol Cho_1003_assignsubmission_file_/tic\x1btactoe.py", CORRECT)
    before = _listing(tmp_path)
    imported = import_submissions("moodle", download, tmp_path / "out", "tictactoe")
    assert {p.split("/")[0] for p in _listing(tmp_path) - before} == {"out"}
    rows = roster(tmp_path / "out")
    assert sorted(rows) == ["1001", "1002", "1003"], rows
    assert imported_files(tmp_path / "out" / "1001") == {"tictactoe.py": CORRECT}
    assert imported_files(tmp_path / "out" / "1002") == {}
    assert imported_files(tmp_path / "out" / "1003") == {}
    assert rows["1002"]["name"] == "Bob Baer"
    assert "points outside the zip (..); not imported" in rows["1002"]["notes"]
    assert "control character; not imported" in rows["1003"]["notes"]
    assert "\x1b" not in rows["1003"]["notes"] and "\x00" not in rows["1003"]["notes"]
    assert "not imported" not in rows["1001"]["notes"]
    said = "\n".join(imported.skipped)      # the import's own list says it too
    assert "points outside the zip" in said and "control character" in said


def test_a_refused_name_in_a_students_folder_is_on_that_students_row(tmp_path):
    source = tmp_path / "folders"
    (source / "alice").mkdir(parents=True)
    (source / "alice" / "tictactoe.py").write_bytes(CORRECT)
    (source / "bob").mkdir()
    (source / "bob" / "tic\ntactoe.py").write_bytes(CORRECT)
    import_submissions("folders", source, tmp_path / "out", "tictactoe")
    rows = roster(tmp_path / "out")
    assert sorted(rows) == ["alice", "bob"]
    assert imported_files(tmp_path / "out" / "bob") == {}
    assert "control character; not imported" in rows["bob"]["notes"]
    assert "not imported" not in rows["alice"]["notes"]


def test_the_roster_reads_back_what_the_csv_writer_quoted(tmp_path):
    """students.csv quotes a formula-like start ('=...): the roster gives the name and
    the id as imported, so feedback titles show the name and the id finds its folder."""
    from autograder.grading.intake import roster_names
    from autograder.lms import ROSTER_FIELDS, add_names
    from autograder.outputs import spreadsheet
    student, name = "=cmd", "=HYPERLINK(\"x\")"
    spreadsheet.write(tmp_path / ROSTER, ROSTER_FIELDS,
                      [{"student": student, "name": name, "late": "no"},
                       {"student": "plain", "name": "Ada", "late": "yes"}])
    assert "'=cmd" in (tmp_path / ROSTER).read_text(encoding="utf-8")     # quoted on disk
    assert roster_names(tmp_path) == {student: name, "plain": "Ada"}
    spreadsheet.write(tmp_path / "grades.csv", ["student", "score"],
                      [{"student": student, "score": 1}, {"student": "plain", "score": 2}])
    assert add_names(tmp_path, read_roster(tmp_path))
    with (tmp_path / "grades.csv").open(encoding="utf-8", newline="") as handle:
        rows = {spreadsheet.uncell(r["student"]): r for r in csv.DictReader(handle)}
    assert rows[student]["name"] == "'" + name and rows[student]["late"] == "no"
    assert rows["plain"]["name"] == "Ada"
