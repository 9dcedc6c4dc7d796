"""Imports: one rule, told and checked the same way everywhere (issue 41).

The sandbox offers Python's standard library only, so a submission that imports numpy
is refused there; `make check` refuses the same import before it runs, in the same
sentence (grading/imports.py in the grader, the student kit's ImportRule in
conftest.py). A teacher allows a package per assignment (`[sandbox] packages` in
assignment.toml): the child then reads exactly the package's own folders (and its
.libs), and both the grader and `make check` let the import through."""

import re
import shutil
import subprocess
import sys

import pytest

from autograder import KitError
from autograder.assignment import declared_packages
from autograder.grading import imports
from autograder.sandbox.client import Outcome
from tests.conftest import ROOT, grade_folder, run_public_tests

SENTENCE = ("tictactoe.py imports numpy, which this assignment does not allow: only Python's "
            "standard library may be imported, and the packages the README names")
WINNER = '''

def winner(board):
    """winner with numpy: rows, columns and both diagonals of a 3 x 3 array."""
    grid = np.array([[{X: 1, O: -1}.get(cell, 0) for cell in row] for row in board])
    sums = [*grid.sum(axis=0), *grid.sum(axis=1), grid.trace(), np.fliplr(grid).trace()]
    return X if 3 in sums else O if -3 in sums else None
'''


def with_numpy(folder):
    """A correct tic-tac-toe whose winner uses numpy, imported at the top."""
    source = (ROOT / "solutions/tictactoe/tictactoe.py").read_text(encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tictactoe.py").write_text(
        source.replace("import math\n", "import math\n\nimport numpy as np\n", 1) + WINNER,
        encoding="utf-8")
    return folder


def test_the_declared_packages_are_checked():
    assert declared_packages("a", {"packages": ["numpy"]}) == ("numpy",)
    assert declared_packages("a", {}) == ()
    for bad in (["numpy.linalg"], ["json"], "numpy", [3]):
        with pytest.raises(KitError):
            declared_packages("a", {"packages": bad})
    with pytest.raises(KitError, match="not installed"):
        imports.resolve(("surely_no_such_package_here",))


def test_a_package_is_its_own_folder_and_libs_never_site_packages():
    allowed = imports.resolve(("numpy",))
    (name, folder), = allowed.packages
    assert name == "numpy" and folder.endswith("/numpy")
    assert all(f.rsplit("/", 1)[1] in ("numpy", "numpy.libs") for f in allowed.folders)


def test_the_refusal_is_worded_by_the_exception_s_kinds():
    raised = {"type": "ModuleNotFoundError", "message": "No module named 'numpy'",
              "where": "tictactoe.py, line 14",
              "kinds": ["ModuleNotFoundError", "ImportError", "Exception", "BaseException"]}
    assert imports.refused(raised) == SENTENCE + " (tictactoe.py, line 14)"
    assert imports.refused(raised, ("numpy",)) is None       # allowed: not this rule
    standard = dict(raised, message="No module named 'json.nothing'")
    assert imports.refused(standard) is None                 # the standard library's own
    named = dict(raised, kinds=["Exception", "BaseException"])
    assert imports.refused(named) is None                    # a class merely so named
    assert SENTENCE in imports.refused(Outcome(raised=raised).raised)


@pytest.mark.slow
def test_numpy_is_refused_with_one_sentence_by_the_grader_and_make_check(tmp_path):
    rows = grade_folder("tictactoe", with_numpy(tmp_path / "submissions" / "ana").parent,
                        tmp_path / "out")
    assert rows["ana"]["status"] == "import-error" and float(rows["ana"]["score"]) == 0
    assert rows["ana"]["message"].startswith(SENTENCE), rows["ana"]["message"]
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "assignments/tictactoe", kit)
    with_numpy(kit)
    done = run_public_tests(kit)
    assert done.returncode != 0 and SENTENCE in done.stdout, done.stdout[-2000:]


@pytest.mark.slow
def test_a_package_the_assignment_allows_is_imported_by_both(tmp_path):
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions/tictactoe", course / "solutions/tictactoe")
    shutil.copytree(ROOT / "autograder/suites/tictactoe", course / "suites/tictactoe",
                    ignore=shutil.ignore_patterns("__pycache__"))
    manifest = course / "solutions/tictactoe/assignment.toml"
    manifest.write_text(manifest.read_text() + '\n[sandbox]\npackages = ["numpy"]\n')
    env = {"SPIELBAUM_COURSE": str(course)}
    rows = grade_folder("tictactoe", with_numpy(tmp_path / "submissions" / "ana").parent,
                        tmp_path / "out", env=env)
    assert float(rows["ana"]["score"]) == float(rows["ana"]["max_score"]), rows["ana"]
    released = subprocess.run([sys.executable, "-m", "autograder", "release", "tictactoe"],
                              cwd=ROOT, capture_output=True, text=True,
                              env={**__import__("os").environ, **env})
    assert released.returncode == 0, released.stderr
    kit = course / "assignments/tictactoe"
    assert re.search(r"packages =\s+numpy", (kit / "pytest.ini").read_text())
    with_numpy(kit)
    done = run_public_tests(kit)
    assert done.returncode == 0, done.stdout[-2000:]
