"""The engine is generic: a sixth assignment is files, never an engine edit.

This test writes a small Nim assignment into a course folder of its own
(SPIELBAUM_COURSE, see autograder/assignment.py), exactly the files
docs/SUITES.md lists, and takes it through everything the kit does with an
assignment: release, the student's `make check`, bulk grading, the handout
notebook, mutation and similarity. Nothing in `autograder/` names Nim; if a
step needs an engine edit to work here, the engine knows too much.
"""

import csv
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import ROOT

pytestmark = pytest.mark.slow

REFERENCE = '''\
"""Nim with one heap: a move takes 1, 2 or 3 matches; who takes the last match wins."""

import functools


def actions(heap):
    """The takes allowed on a heap of `heap` matches, smallest first."""
    ### BEGIN SOLUTION
    return [take for take in (1, 2, 3) if take <= heap]
    ### END SOLUTION


@functools.cache
def wins(heap):
    """True if the player to move wins with perfect play."""
    ### BEGIN SOLUTION
    return any(not wins(heap - take) for take in actions(heap))
    ### END SOLUTION


def best_take(heap):
    """A take that wins if one does; 1 on a lost heap."""
    ### BEGIN SOLUTION
    for take in actions(heap):
        if not wins(heap - take):
            return take
    return 1
    ### END SOLUTION
'''

PUBLIC_TESTS = '''\
from nim import actions, best_take


def test_actions():
    """actions lists the takes allowed"""
    assert actions(2) == [1, 2]


def test_best_take():
    """best_take wins a heap of five"""
    assert best_take(5) == 1
'''

HIDDEN_SUITE = '''\
"""Hidden suite of the Nim assignment: every heap from 0 to 30."""

from autograder.checking import Case, check_all, short
from autograder.grading.reference import load_reference

ref = load_reference("nim", "nim")
HEAPS = range(31)


def cases(function, expected):
    return [Case(f"{function}({heap})", (heap,), f"a heap of {heap}", expected(heap))
            for heap in HEAPS]


def exact(case, outcome):
    return None if outcome.value == case.expected else f"returned {short(outcome.value)}"


def test_actions(student):
    """actions lists the takes allowed on every heap"""
    chosen = cases("actions", ref.actions)
    check_all("actions listed the wrong takes", chosen,
              student.map("nim.actions", [c.args for c in chosen]), exact)


def test_wins(student):
    """wins knows who wins every heap"""
    chosen = cases("wins", ref.wins)
    check_all("wins got the winner wrong", chosen,
              student.map("nim.wins", [c.args for c in chosen]), exact,
              hint="the player to move wins if some take leaves a lost heap")


def test_best_take(student):
    """best_take takes a winning move wherever there is one"""
    chosen = cases("best_take", ref.wins)

    def winning(case, outcome):
        take, heap = outcome.value, case.args[0]
        if take not in ref.actions(heap) and heap:
            return f"returned {short(take)}, not a legal take"
        if case.expected and ref.wins(heap - take):
            return f"took {take}, which leaves a winning heap to the opponent"
        return None
    check_all("best_take missed a win", chosen,
              student.map("nim.best_take", [c.args for c in chosen]), winning)
'''

RUBRIC = '''\
[points]
test_actions = 1
test_wins = 2
test_best_take = 2

[timeouts]
call = 2.0
imports = 5.0
check = 10.0
test = 60.0

[limits]
memory_mb = 256
'''

MANIFEST = '''\
name = "nim"
title = "Nim with one heap"
modules = ["nim.py"]
files = ["test_nim.py", "README.md"]
public_timeout = 5

[notebook]
try = """
print(nim.actions(2), nim.wins(4), nim.best_take(5))
"""
'''

README = "# Nim\n\nWrite `actions`, `wins` and `best_take` in `nim.py`.\n"

# Who takes the last match wins: heaps divisible by four are lost. This student
# thinks heaps divisible by three are.
WRONG_WINS = REFERENCE.replace("return any(not wins(heap - take) for take in actions(heap))",
                               "return heap % 3 != 0")
# The same answers as the reference, renamed and reworded: a copy in disguise.
DISGUISED = re.sub(r"\btake\b", "grab", REFERENCE.replace("heap", "pile").replace(
    '"""True if the player to move wins with perfect play."""', "# does the mover win?"))


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course folder holding one assignment, Nim, and four submissions."""
    root = tmp_path_factory.mktemp("course")
    write(root / "solutions/nim/assignment.toml", MANIFEST)
    write(root / "solutions/nim/nim.py", REFERENCE)
    write(root / "solutions/nim/test_nim.py", PUBLIC_TESTS)
    write(root / "solutions/nim/README.md", README)
    write(root / "suites/nim/test_hidden.py", HIDDEN_SUITE)
    write(root / "suites/nim/rubric.toml", RUBRIC)
    stripped = REFERENCE.replace("    ### BEGIN SOLUTION\n", "").replace(
        "    ### END SOLUTION\n", "")
    for student, text in (("ada", stripped), ("bob", WRONG_WINS), ("dan", DISGUISED)):
        write(root / f"examples/nim/{student}/nim.py", text)
    return root


def kit(course: Path, *args, cwd=ROOT, check=True, **env):
    """Run one of the kit's commands against the course folder."""
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600,
                          env={**os.environ, "SPIELBAUM_COURSE": str(course), **env})
    if check:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def autograder(course, *args, **kwargs):
    return kit(course, "-m", "autograder", *args, **kwargs)


@pytest.fixture(scope="module")
def released(course):
    autograder(course, "release", "nim")
    return course / "assignments" / "nim"


def test_release_writes_a_skeleton_and_the_student_kit(released):
    skeleton = (released / "nim.py").read_text(encoding="utf-8")
    assert skeleton.count("raise NotImplementedError") == 3
    assert "any(not wins" not in skeleton                 # no solution line ships
    assert (released / "Makefile").is_file() and (released / "test_nim.py").is_file()


def test_make_check_fails_on_the_skeleton_and_passes_on_the_reference(course, released,
                                                                         tmp_path):
    student = tmp_path / "nim"
    shutil.copytree(released, student)
    make = ["make", "--no-print-directory", "check", f"PYTHON={sys.executable}"]
    first = subprocess.run(make, cwd=student, capture_output=True, text=True, timeout=300)
    assert first.returncode != 0 and "actions" in first.stdout
    shutil.copy(course / "solutions/nim/nim.py", student / "nim.py")
    second = subprocess.run(make, cwd=student, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stdout[-2000:]


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    out = tmp_path_factory.mktemp("nim-out")
    autograder(course, "grade", "nim", str(course / "examples/nim"), "--out", str(out))
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return out, {row["student"]: row for row in csv.DictReader(handle)}


def test_grading_gives_the_reference_every_point_and_a_wrong_wins_less(graded):
    _, rows = graded
    assert (rows["ada"]["score"], rows["ada"]["max_score"]) == ("5", "5")
    assert rows["dan"]["score"] == "5"                    # renamed, still right
    # bob's wins is wrong; best_take relies on it and misses wins too
    assert float(rows["bob"]["score"]) == 1.0, rows["bob"]
    feedback = (graded[0] / "bob" / "feedback.md").read_text(encoding="utf-8")
    assert "wins got the winner wrong" in feedback and "heap of 3" in feedback


def test_the_notebook_has_one_graded_cell_per_check(course):
    autograder(course, "nbgrader", "notebooks", "nim")
    import nbformat
    notebook = nbformat.read(course / "solutions/nim/nim.ipynb", as_version=4)
    graded = {cell.metadata["nbgrader"]["grade_id"]: cell.metadata["nbgrader"]["points"]
              for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")}
    assert graded == {"test_actions": 1, "test_wins": 2, "test_best_take": 2}


def test_mutation_grades_mutants_of_the_reference(course, tmp_path):
    out = tmp_path / "mutation"
    autograder(course, "mutate", "nim", "--count", "8", "--jobs", "1", "--out", str(out))
    with open(out / "mutation.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert 0 < len(rows) <= 8
    assert any(row["status"] == "killed" for row in rows), rows
    assert not any(row["status"] == "error" for row in rows), rows


def test_similarity_finds_the_disguised_copy(course, tmp_path):
    out = tmp_path / "similarity"
    autograder(course, "similarity", "nim", str(course / "examples/nim"), "--out", str(out))
    with open(out / "similarity.csv", newline="", encoding="utf-8") as handle:
        pairs = {frozenset((row["a"], row["b"])) for row in csv.DictReader(handle)}
    assert frozenset(("ada", "dan")) in pairs, pairs


def test_the_engine_never_names_the_sixth_assignment():
    named = [p for p in (ROOT / "autograder").rglob("*.py")
             if "nim" in textwrap.dedent(p.read_text(encoding="utf-8")).lower().split()]
    assert not named, named
