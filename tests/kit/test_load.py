"""A grade must not depend on how busy the grading machine is.

Slow but correct tic-tac-toe submissions, as students write them (unpruned
minimax, deep copies), are graded twice for
real: once on a quiet machine, once with three busy loops started right after
the grader's start-up calibration, so the calibration cannot absorb the load.
Every score must be the same, and full. (Time limits are seconds of the
child's CPU time; before, they were wall-clock seconds, and these students lost
up to 6 of 25 points under this load.)
"""

import time

import pytest

from autograder import ROOT
from tests.conftest import grade_under_load

pytestmark = pytest.mark.slow

PLAIN = ROOT / "examples" / "tictactoe" / "bob_plain" / "tictactoe.py"

# Each makes the plain solution slower in a way real submissions are slow.
SLOWER = {
    "copies_the_board_for_actions": [
        ("def actions(board):\n    return {",
         "def actions(board):\n    board = copy.deepcopy(board)\n    return {"),
    ],
}


def slow_submissions(folder):
    plain = PLAIN.read_text()
    (folder / "plain").mkdir(parents=True)
    (folder / "plain" / "tictactoe.py").write_text(plain)
    for name, edits in SLOWER.items():
        text = plain
        for old, new in edits:
            assert old in text, (name, old)
            text = text.replace(old, new, 1)
        (folder / name).mkdir()
        (folder / name / "tictactoe.py").write_text(text)


def grade(subs, out, load: int) -> dict:
    return grade_under_load("tictactoe", subs, out, load, timeout=900)


@pytest.mark.exhaustive     # make test-all (CI's budget); CPU-time limits are tested in tests/kit/test_sandbox.py
def test_slow_correct_submissions_score_the_same_on_a_busy_machine(tmp_path):
    slow_submissions(tmp_path / "subs")
    quiet = grade(tmp_path / "subs", tmp_path / "quiet", load=0)
    started = time.monotonic()
    loaded = grade(tmp_path / "subs", tmp_path / "loaded", load=3)
    assert time.monotonic() - started < 900
    for student, row in quiet.items():
        assert row["score"] == row["max_score"], row
        assert loaded[student]["score"] == row["score"], (row, loaded[student])
        assert loaded[student]["timeouts"] == "0", loaded[student]
