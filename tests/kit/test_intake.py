"""Every byte a student controls is data: names, shapes, encodings and text, graded for real.

One batch (tests/kit/intake_batch.py) holds every attack on what surrounds the
sandbox next to honest twins; it is graded once with `autograder grade` in a
PID namespace. Each test judges one attack: it gains nothing, it is named in a
clear line, and every other student keeps the score their module earns.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, in_pid_namespace
from tests.kit import intake_batch

pytestmark = [pytest.mark.slow, pytest.mark.hostile]


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    base = tmp_path_factory.mktemp("intake")
    tries = intake_batch.build(base / "subs")
    done = subprocess.run(  # noqa: PLW1510 (checked below, with the output)
        in_pid_namespace([sys.executable, "-m", "autograder", "grade", "tictactoe",
                          str(base / "subs"), "--out", str(base / "out"), "--jobs", "2"]),
        cwd=ROOT, capture_output=True, timeout=900)
    assert done.returncode == 0, done.stdout.decode(errors="replace") + \
        done.stderr.decode(errors="replace")
    with (base / "out" / "grades.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    yield {"tries": tries, "rows": rows, "out": base / "out", "subs": base / "subs",
           "stdout": done.stdout, "stderr": done.stderr}
    intake_batch.remove_tree(base / "subs")     # too deep for pytest's own clean-up


def row(batch, name: str) -> dict:
    """A student's row; names are as grades.csv shows them (formulas quoted)."""
    shown = {"=SUM(1;2)": "'=SUM(1;2)", "@cmd": "'@cmd", "caf\udce9": "caf\\udce9",
             "line\n**Score: 25 of 25**": "line\n**Score: 25 of 25**"}.get(name, name)
    return batch["rows"][shown]


def test_honest_twins_get_what_their_module_earns_whatever_their_name(batch):
    for name, source in intake_batch.HONEST.items():
        expected = "25" if source is intake_batch.CORRECT else None
        got = row(batch, name)
        assert got["status"] == "graded", (name, got)
        if expected:
            assert got["score"] == expected, (name, got)
    assert row(batch, "eve")["score"] == row(batch, "@cmd")["score"]
    assert 0 < int(row(batch, "eve")["score"]) < 25


def test_terminal_escapes_and_markup_in_student_text_are_shown_not_obeyed(batch):
    """The summary table on stdout: no escape sequence of the student's reaches the
    terminal, markup is printed as text (no MarkupError, exit 0), and the forged row
    for s7_forge is inside the attacker's own note, not a row of its own."""
    out = batch["stdout"].decode("utf-8")
    assert "\x1b]0;pwned" not in out and "\x1b[2J" not in out and "\x07" not in out
    assert "\\x1b[2J" in out                                    # shown as an escape
    assert not any(line.startswith("│ s7_forge") for line in out.splitlines())
    lines = [line for line in out.splitlines() if line.startswith("│")]
    students = {line.split("│")[1].strip() for line in lines} - {""}
    assert "s7_forge" not in students
    notes = "".join(line.split("│")[-2] for line in lines).replace(" ", "")
    for shown in (intake_batch.MARKUP, "a[/tictactoe.py, b]/tictactoe.py"):
        assert shown.replace(" ", "") in notes, shown
    for name in ("a[", "b]", "brackets"):
        assert name in students
    assert "score distribution" in out                          # the table was printed


def test_formulas_in_grades_csv_are_text(batch):
    """OWASP's rule: a cell a spreadsheet would evaluate starts with a quote; numbers,
    including a name like -2, stay as they are; nothing else changes."""
    rows = batch["rows"]
    for student, values in rows.items():
        for key, cell in values.items():
            assert not cell.lstrip(" ").startswith(("=", "+", "@", "\t", "\r")), (key, cell)
            if cell.startswith("-"):
                assert cell == "-2" and key == "student", (key, cell)
    # A class named SystemExit chooses no wording: the child names an exception's
    # builtin kinds by identity (issue 42), and this one is only an Exception.
    assert row(batch, "fake_exit")["message"].startswith(
        "raised SystemExit while being imported: =")
    assert row(batch, "formula")["message"].startswith("raised ValueError")
    assert row(batch, "=SUM(1;2)")["score"] == "25"


def test_a_lone_surrogate_anywhere_is_written_as_its_escape(batch):
    """A surrogate in an exception message or in a folder name (a byte that is not
    UTF-8) used to stop the reports of the whole batch: now it is written as `\\udcff`."""
    assert "caf\\udce9 \\udcff" in row(batch, "surrogate")["message"]
    folder = batch["out"] / "surrogate"
    for name in ("feedback.md", "feedback.html", "results.json"):
        assert "\\udcff" in (folder / name).read_text(encoding="utf-8")
    json.loads((folder / "results.json").read_text(encoding="utf-8"))
    printed = row(batch, "bytes")
    assert printed["score"] == "25", printed
    for name in ("feedback.md", "feedback.html", "results.json"):
        (batch["out"] / "bytes" / name).read_text(encoding="utf-8")
    from markdown_it import MarkdownIt
    named = (batch["out"] / "caf\udce9" / "feedback.md").read_text(encoding="utf-8")
    assert "feedback for caf\\udce9</h1>" in MarkdownIt("commonmark").render(named)


def test_shapes_cost_a_line_not_a_crash(batch):
    """1,100 nested folders beside the module: graded, with a note; the module at the
    bottom of them: missing, saying where the grader stopped looking; a 300 MB module,
    a NUL byte, a folder named tictactoe.py: each says what it is."""
    assert row(batch, "deep")["score"] == "25"
    feedback = (batch["out"] / "deep" / "feedback.md").read_text(encoding="utf-8")
    assert "folders more than 32 deep" in feedback
    bottom = row(batch, "deep_module")
    assert bottom["status"] == "missing" and "folders more than 32 deep" in bottom["message"]
    huge = row(batch, "huge")
    assert huge["status"] == "import-error" and "300 MB, larger than the 5 MB" in huge["message"]
    nul = row(batch, "nul")
    assert nul["status"] == "import-error" and "holds a NUL byte (line" in nul["message"]
    assert "line None" not in nul["message"]
    folder = row(batch, "folder_module")
    assert folder["status"] == "missing" and "is a folder, not a file" in folder["message"]
    assert row(batch, "brackets")["status"] == "ambiguous"


def test_names_that_cannot_be_student_ids_get_a_row_and_no_folder(batch):
    """A folder named grades.csv, or with a newline forging a score line: a row with
    status bad-name and a line saying why; grades.csv is the grader's, complete."""
    for name in ("grades.csv", "line\n**Score: 25 of 25**"):
        got = row(batch, name)
        assert got["status"] == "bad-name" and got["score"] == "0", got
        assert "rename the folder" in got["message"]
    assert (batch["out"] / "grades.csv").is_file()
    assert not (batch["out"] / "line\n**Score: 25 of 25**").exists()
    said = batch["stderr"].decode("utf-8")
    assert "grades.csv: not a usable student id" in said
    assert "line\\x0a**Score: 25 of 25**: not a usable student id" in said.replace("\n", "")


def test_hidden_folders_and_loose_files_are_mentioned(batch):
    said = batch["stderr"].decode("utf-8").replace("\n", " ")
    assert ".carol: a hidden folder, not graded" in said
    assert "dora_tictactoe.py: a file, not a student folder" in said
    assert ".carol" not in batch["rows"] and "dora_tictactoe.py" not in batch["rows"]


def test_feedback_markdown_shows_names_as_text(batch):
    """feedback.md, rendered by a CommonMark renderer: the name <img onerror> is text,
    and the only bold line is the real score."""
    from markdown_it import MarkdownIt
    text = (batch["out"] / "<img src=x onerror=alert(1)>" / "feedback.md").read_text()
    html = MarkdownIt("commonmark").render(text)
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[0].endswith("feedback for \\<img src=x onerror=alert(1)\\>")


def test_out_inside_the_submissions_is_refused_with_one_line(tmp_path):
    """--out equal to, or inside, the submissions folder: one line, exit 2, and every
    submission still there (it used to delete them all and exit 0)."""
    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)
    (subs / "ada" / "tictactoe.py").write_text(intake_batch.CORRECT)
    for out in (subs, subs / "results", subs / "ada"):
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", "tictactoe",
                               str(subs), "--out", str(out)], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "inside the submissions folder" in done.stderr
        assert (subs / "ada" / "tictactoe.py").read_text() == intake_batch.CORRECT
