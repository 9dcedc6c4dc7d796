"""The public tests of negamax (`make check`), run as a student runs them.

Each method the student writes gets its own line; a method that stops in
another method's stub says which stub; the most common wrong cut fails; a stub
in the board costs no search line (the search tests run on trees of their own).
"""

import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile_build  # noqa: E402
import wrong_variants as wv  # noqa: E402

from tests.conftest import run_public_tests  # noqa: E402

METHODS = ("winner", "evaluate", "getSide", "getMoves", "makeMove", "undoMove", "explore",
           "getEvaluatedMoves", "getBestMove", "play")


def lines(stdout):
    """{method: verdict} from the summary `make check` prints."""
    found = {}
    for line in stdout.splitlines():
        match = re.match(r"\s+(\w+)\s+(\d+)/(\d+)\s+(.+)$", line)
        if match:
            found[match.group(1)] = match.group(4).strip()
    return found


def check(student_copy, source=None):
    """`make check` on the student's folder, with `source` as negamax.py (None: the stubs)."""
    folder = student_copy("negamax")
    if source is not None:
        (folder / "negamax.py").write_text(source)
    done = run_public_tests(folder)
    return done.stdout, lines(done.stdout)


def test_every_method_has_its_own_line_on_the_stubs(student_copy):
    stdout, verdicts = check(student_copy)
    assert set(verdicts) == set(METHODS), stdout
    # a method whose helper is a stub too says so ([relies_on]: evaluate calls winner)
    assert all(v == "not implemented yet" or v.startswith("blocked by ") and
               v.endswith("(not implemented yet?)") for v in verdicts.values()), stdout
    assert verdicts["winner"] == "not implemented yet"
    assert verdicts["evaluate"] == "blocked by winner (not implemented yet?)", stdout


def test_only_undo_unwritten_is_reported_as_undo_only(student_copy):
    source = hostile_build.strip_markers(hostile_build.stubbed(
        hostile_build.marked_reference(), "undoMove"))
    stdout, verdicts = check(student_copy, source)
    assert verdicts["undoMove"] == "not implemented yet", stdout
    # The searches' public tests run on game trees of their own (issue 22), so the
    # board's stub costs no search line
    assert all(verdicts[m] == "ok" for m in METHODS if m != "undoMove"), stdout


@pytest.mark.parametrize("bug", ["wrong_cut_comparison", "no_pruning", "fail_soft"])
def test_a_wrong_search_fails_a_public_test(student_copy, bug):
    stdout, verdicts = check(student_copy, wv.build(bug))
    assert verdicts["explore"] == "needs work", stdout
    assert all(verdicts[m] == "ok" for m in METHODS[:6]), stdout


def test_the_wrong_cut_is_named(student_copy):
    stdout, _ = check(student_copy, wv.build("wrong_cut_comparison"))
    assert "cut as soon as a child's value is >= beta" in stdout


def test_the_reference_passes_every_line(student_copy):
    folder = student_copy("negamax")
    shutil.copy(wv.REFERENCE, folder / "negamax.py")
    done = run_public_tests(folder)
    assert done.returncode == 0 and set(lines(done.stdout).values()) == {"ok"}, done.stdout
