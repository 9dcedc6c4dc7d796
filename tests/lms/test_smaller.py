"""The issue's smaller points, each next to its honest twin: the wording of an
import failure chosen by what the exception is (not by its class's name), and the
tournament's reasons when fewer than two players remain. (A notebook-only
submission and `grade --from`'s students.csv are in test_hostile.py and
test_export.py; the exchange's owners in tests/nbgrader/test_exchange_owner.py.)
"""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from autograder.sandbox.client import Outcome
from autograder.grading.student import _import_failure
from tests.conftest import ROOT, in_pid_namespace
from tests.lms.layouts import BROKEN, CORRECT

def raised(kind: str, kinds, message: str = "boom") -> Outcome:
    record = {"type": kind, "message": message, "where": None}
    if kinds is not None:
        record["kinds"] = kinds
    return Outcome(raised=record)


def test_the_wording_follows_the_exceptions_kinds_not_its_name():
    fake_exit = _import_failure(raised("SystemExit", ["Exception", "BaseException"]), 5.0)
    assert fake_exit.detail == "raised SystemExit while being imported: boom"
    fake_syntax = _import_failure(raised("SyntaxError", ["ValueError", "Exception",
                                                         "BaseException"]), 5.0)
    assert fake_syntax.detail.startswith("raised SyntaxError while being imported")
    real_exit = _import_failure(raised("SystemExit", ["SystemExit", "BaseException"],
                                       "called exit(3)"), 5.0)
    assert real_exit.detail == "exited while being imported: called exit(3)"
    renamed = _import_failure(raised("Oops", ["SyntaxError", "Exception", "BaseException"],
                                     "bad (x.py, line 1)"), 5.0)   # a subclass: it is one
    assert renamed.detail.startswith("your file does not parse")


@pytest.mark.slow
@pytest.mark.hostile
def test_a_class_named_systemexit_chooses_no_wording_when_graded(tmp_path):
    subs = tmp_path / "subs"
    modules = {"fake_exit": "class SystemExit(Exception):\n    pass\n\nraise SystemExit('x')\n",
               "real_exit": "raise SystemExit(3)\n",
               "real_syntax": BROKEN.decode(), "ada": CORRECT.decode()}
    for student, text in modules.items():
        (subs / student).mkdir(parents=True)
        (subs / student / "tictactoe.py").write_text(text)
    done = subprocess.run(in_pid_namespace(
        [sys.executable, "-m", "autograder", "grade", "tictactoe", str(subs), "--out",
         str(tmp_path / "out"), "--jobs", "2"]), cwd=ROOT, capture_output=True, text=True,
        timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    with (tmp_path / "out" / "grades.csv").open(encoding="utf-8") as handle:
        said = {r["student"]: r["message"] for r in csv.DictReader(handle)}
    assert said["fake_exit"].startswith("raised SystemExit while being imported")
    assert said["real_exit"].startswith("exited while being imported")
    assert said["real_syntax"].startswith("your file does not parse")
    assert said["ada"] == ""


def test_too_few_players_keeps_the_reasons_for_those_left_out():
    from autograder.tournament.run import _too_few

    class Player:
        name = "ada"
    line = _too_few([Player()], {"bob": "no file named connect4.py in the submission",
                                 "eve\x1b[2J": "connect4.py holds a NUL byte (line 1)"})
    assert line.startswith("a tournament needs at least two players; entered: ada")
    assert "bob: no file named connect4.py" in line and "eve\\x1b[2J: connect4.py" in line
    assert "\n" not in line and "\x1b" not in line
    assert _too_few([], {}) == "a tournament needs at least two players; entered: nobody"


def test_the_tournament_command_says_why_in_one_line(tmp_path):
    (tmp_path / "subs" / "bob").mkdir(parents=True)           # no module: left out
    (tmp_path / "subs" / "bob" / "notes.txt").write_text("x")
    done = subprocess.run([sys.executable, "-m", "autograder", "tournament", "connect4",
                           str(tmp_path / "subs"), "--out", str(tmp_path / "t"),
                           "--bundled", "none"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "not entered: bob: no file named connect4.py" in done.stderr
