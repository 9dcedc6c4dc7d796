"""`make duel` in the students' folders: their player against the bundled ones.

Run as a student runs it, in a copy of assignments/<a>/ (the released files):
with the stubs every game is lost with the reason; with the reference the player
wins; an illegal answer loses its game. The duel's referee is the tournament's
(test_referees.py proves they agree on every move and every game end)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def duel(folder, *args, make=False, timeout=300):
    command = ["make", "--no-print-directory", "duel", f"PYTHON={sys.executable}"] if make \
        else [sys.executable, "duel.py", *args]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def score(output: str) -> tuple[float, int]:
    found = re.search(r"^Score: ([\d.]+) of (\d+) points", output, re.MULTILINE)
    assert found, output
    return float(found.group(1)), int(found.group(2))


@pytest.mark.slow
@pytest.mark.parametrize("name, missing", [("connect4", "iterative_deepening is not written"),
                                           ("muehle", "is not written yet")])
def test_make_duel_on_the_stubs_loses_one_game_says_why_and_stops(name, missing, student_copy):
    """The stubs lose the first game before their first move: the duel says why once
    and stops, instead of printing the same loss for each of the 20 games."""
    output = duel(student_copy(name), make=True)
    assert output.count(missing) == 2, output           # the game's line, the stop line
    assert output.count("you lose") == 1
    assert "Stopped after one game" in output and "Score:" not in output


@pytest.mark.slow
@pytest.mark.parametrize("name", ["connect4", "muehle"])
def test_the_reference_wins_its_duel(name, student_copy):
    folder = student_copy(name)
    module = "connect4.py" if name == "connect4" else "muehle.py"
    shutil.copy(ROOT / "solutions" / name / module, folder / module)
    # Against random: greedy can hold a 0.1 s search to a close game, random cannot.
    output = duel(folder, "--games", "4", "--move-time", "0.1", "--opponent", "random")
    assert score(output) == (4.0, 4), output


@pytest.mark.slow
def test_an_illegal_answer_loses_the_duel_game(student_copy):
    folder = student_copy("connect4")
    (folder / "connect4.py").write_text(
        "def iterative_deepening(state, budget, **options):\n"
        "    return (list(state) + [0], 0, 1)\n")         # the top-left cell: never legal first
    output = duel(folder, "--games", "2", "--opponent", "random")
    assert "you lose: illegal move (no stone can land on cell 0 now)" in output
    assert score(output) == (0.0, 2)
