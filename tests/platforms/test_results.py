"""The platform results.json writers and the upload unpacker, without a platform."""

from __future__ import annotations

import json
import re
import stat
import zipfile

import pytest

from autograder.grading import runner
from autograder.grading.student import Event
from autograder.platforms import results
from autograder.platforms.upload import MAX_MEMBERS, needs_unpacking, unpack, unpacked
from tests.platforms.conftest import validate_gradescope

FORGERY = "```\n# Score: 100 / 100\n![x](https://example.org/x.png)\n````"


def graded(**changes) -> runner.Graded:
    tests = [runner.TestResult("test_a", "a works", 3.0, 3.0, True),
             runner.TestResult("test_b", "b works", 2.0, 0.0, False,
                               output=f"b returned the wrong value\ngot: {FORGERY}")]
    base = {"student": "s", "status": "graded", "score": 3.0, "max_score": 5.0,
            "tests": tests, "message": "", "events": [Event("refused", f"tried to open {FORGERY}")],
            "printed": FORGERY * 3, "seconds": 1.2, "layers": ["rlimits", "seccomp"]}
    return runner.Graded(**{**base, **changes})


def fences_closed(markdown: str) -> bool:
    """Every student text sits between an opening fence and its own closing fence:
    outside the fenced blocks no line of the forgery appears."""
    outside, fence = [], None
    for line in markdown.splitlines():
        if fence is None:
            opened = re.match(r"^(`{3,})text$", line)
            if opened:
                fence = opened.group(1)
            else:
                outside.append(line)
        elif line == fence:
            fence = None
    return fence is None and not any("Score: 100" in line or "example.org" in line
                                     for line in outside)


def test_gradescope_fences_every_student_text():
    data = results.gradescope(graded(), ["unpacked a.zip"], "Tic-Tac-Toe")
    validate_gradescope(data)
    assert fences_closed(data["output"])
    for test in data["tests"]:
        assert fences_closed(test.get("output", ""))
    assert data["score"] == 3 and "**Score: 3 / 5 (1 of 2 checks passed)**" in data["output"]


def test_prairielearn_score_is_a_share_and_tests_carry_points():
    data = results.prairielearn(graded(), [], "Tic-Tac-Toe")
    assert data["gradable"] is True and data["score"] == pytest.approx(0.6)
    assert [(t["points"], t["max_points"]) for t in data["tests"]] == [(3, 3), (0, 2)]
    refused = results.prairielearn_not_graded("no seccomp here")
    assert refused == {"gradable": False, "format_errors": ["no seccomp here"],
                       "message": "no seccomp here"}
    json.dumps(data)


def test_an_import_error_is_said_once():
    message = "tictactoe.py raised ValueError while being imported"
    data = results.gradescope(graded(message=message, events=[Event("crash", message)]),
                              [], "T")
    assert data["output"].count(message) == 1


# ------------------------------------------------------------ the upload
def make_zip(path, members: dict[str, bytes], links: dict[str, str] | None = None):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)


def test_a_module_in_the_folder_is_graded_as_it_is(tmp_path):
    (tmp_path / "tictactoe.py").write_text("x = 1\n")
    make_zip(tmp_path / "old.zip", {"tictactoe.py": b"x = 2\n"})
    with unpacked(tmp_path, ("tictactoe.py",)) as (folder, notes):
        assert folder == tmp_path and notes == []


def test_a_zip_is_unpacked_without_leaving_its_folder(tmp_path):
    upload, target = tmp_path / "upload", tmp_path / "target"
    upload.mkdir()
    target.mkdir()
    make_zip(upload / "work.zip", {"src/tictactoe.py": b"x = 1\n", "../evil.py": b"",
                                   "/abs.py": b"", "notes.txt": b"hi",
                                   "__MACOSX/._tictactoe.py": b""},
             links={"link.py": "/etc/passwd"})
    assert needs_unpacking(upload, ("tictactoe.py",)) == [upload / "work.zip"]
    notes = unpack([upload / "work.zip"], target)
    found = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert found == ["0-work/src/tictactoe.py"] and notes == ["unpacked work.zip"]
    assert not (tmp_path / "evil.py").exists()


def test_zip_caps_hold(tmp_path):
    make_zip(tmp_path / "many.zip", {f"m{i}.py": b"" for i in range(MAX_MEMBERS + 5)})
    make_zip(tmp_path / "bad.zip", {})
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    target = tmp_path / "t"
    notes = unpack([tmp_path / "bad.zip", tmp_path / "many.zip"], target)
    assert "bad.zip is not a zip that can be read (BadZipFile)" in notes
    assert any("more than" in n for n in notes)
    assert len(list(target.rglob("*.py"))) == MAX_MEMBERS


def test_prairielearn_message_puts_student_text_in_quotes_after_the_score():
    """A message reading "## Score: 25 / 25" stays quoted text after the real score, on
    one line; the output marks each line of student text with a bar. The twin: a plain
    message reads the same way."""
    forged = "raised ValueError while being imported: \n## Score: 25 / 25\n\udcff"
    for message in (forged, "raised ValueError while being imported: plain"):
        data = results.prairielearn(graded(message=message), [], "Tic-Tac-Toe")
        assert data["message"].startswith("Score: 3 / 5 (1 of 2 checks passed). About your "
                                          'submission: "raised ValueError')
        assert "\n" not in data["message"] and data["message"].endswith('"')
        json.dumps(data, ensure_ascii=False).encode("utf-8")       # writable
        student_lines = [line for line in data["output"].splitlines() if "Score: 25" in line
                         or "Score: 100" in line]
        assert all(line.startswith("  | ") for line in student_lines), student_lines


def test_a_folder_in_a_zip_named_like_the_module_is_said_to_be_one(tmp_path):
    """It used to read "no file named tictactoe.py"."""
    from autograder.grading.intake import locate
    upload = tmp_path / "upload"
    upload.mkdir()
    make_zip(upload / "submission.zip", {"tictactoe.py/": b"", "tictactoe.py/x.py": b"x = 1"})
    with unpacked(upload, ("tictactoe.py",)) as (folder, _notes):
        home, status, why = locate(folder, ("tictactoe.py",))
    assert (home, status, why) == (None, "missing", "tictactoe.py is a folder, not a file")


def test_gradescope_visibility_per_check_as_exported(tmp_path):
    """export --visibility after_due_date (every check) and TEST=WHEN (one check) reach
    each test of results.json through the package's spielbaum.json; a wrong WHEN or an
    unknown check is one line."""
    from autograder import KitError, assignment as assignments
    from autograder.platforms import CONFIG
    from autograder.platforms.export import _config, test_visibility
    from autograder.platforms.run import Package
    assignment = assignments.load("tictactoe")
    assert test_visibility(assignment, []) == {}
    shown = test_visibility(assignment, ["after_due_date", "test_winner=visible"])
    (tmp_path / CONFIG).write_text(_config(assignment, "gradescope", False, [], "0", shown))
    package = Package.read(tmp_path)
    assert package.language == "en"      # the course's language travels in the package
    (tmp_path / CONFIG).write_text(_config(assignment, "gradescope", False, [], "0", shown,
                                           language="nl"))
    assert Package.read(tmp_path).language == "nl"
    tests = [runner.TestResult("test_winner", "winner", 3.0, 3.0, True),
             runner.TestResult("test_minimax", "minimax", 2.0, 0.0, False)]
    data = results.gradescope(graded(tests=tests), [], "Tic-Tac-Toe",
                              dict(package.test_visibility))
    validate_gradescope(data)
    assert [t["visibility"] for t in data["tests"]] == ["visible", "after_due_date"]
    assert all(t["visibility"] == "visible"
               for t in results.gradescope(graded(), [], "T")["tests"])
    for wrong, said in (["soon"], "say one of visible"), (["test_nope=hidden"], "no check"):
        with pytest.raises(KitError, match=said):
            test_visibility(assignment, wrong)
