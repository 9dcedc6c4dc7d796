"""Writing an assignment as docs/AUTHORING.md teaches it (issue 44).

`autograder new` and its refusals; the tutorial's connect3, built from the very
blocks of code the page shows (so the page cannot drift), in a course folder of the
test's own, through release, `make check`, `check-suite`, a graded batch, the
notebook, mutation and similarity; and `check-suite` naming the problems of a suite
written to have them (a check near its time limit, one not deterministic).
"""

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import ROOT
from autograder.cli import main
from tests.conftest import in_pid_namespace

TUTORIAL = ROOT / "docs" / "AUTHORING.md"
#: <!-- connect3: PATH -->, or <!-- connect3: PATH, from "LINE" --> (the file is kept
#: before the line that starts so, the block replaces the rest), or <!-- connect3: PATH,
#: up to "LINE" --> (the block replaces what stands before that line), then a block.
BLOCK = re.compile(r'<!-- connect3: (?P<path>[\w/.]+)(?:, (?P<how>from|up to) "(?P<line>[^"]+)")?'
                   r' -->\n```\w*\n(?P<text>.*?)```', re.S)
#: Each function's points in the tutorial's rubric (result's two checks together).
POINTS = {"player": 1, "actions": 1, "result": 2, "winner": 2, "value": 2, "best_action": 2}


def blocks() -> list[re.Match]:
    return list(BLOCK.finditer(TUTORIAL.read_text(encoding="utf-8")))


def apply(course: Path, block: re.Match) -> None:
    """Write one of the tutorial's blocks where it says."""
    path, text = course / block["path"], block["text"]
    if block["how"] is None:
        path.write_text(text, encoding="utf-8")
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next((n for n, line in enumerate(lines) if line.startswith(block["line"])), None)
    assert at is not None, f"{block['path']} has no line starting {block['line']!r}"
    if block["how"] == "from":
        path.write_text("".join(lines[:at]) + text, encoding="utf-8")
    else:                           # one blank line before what is kept, two before a def
        gap = "\n\n" if lines[at].startswith(("def ", "@")) else "\n"
        path.write_text(text + gap + "".join(lines[at:]), encoding="utf-8")


def hand_written(found: list[re.Match]) -> int:
    """Lines a teacher types: every non-blank line of the tutorial's blocks."""
    return sum(1 for block in found for line in block["text"].splitlines() if line.strip())


def kit(course: Path, *args, check=True, timeout=900, **env) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "SPIELBAUM_COURSE": str(course), **env})
    if check:
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done


# ------------------------------------------------------------ new
@pytest.mark.parametrize("name, words", [
    ("Connect3", "use a lower-case letter"), ("3row", "use a lower-case letter"),
    ("con-nect", "use a lower-case letter"), ("../x", "use a lower-case letter"),
    ("a" * 33, "at most 32"), ("class", "keyword"), ("match", "keyword"),
    ("random", "standard library"), ("test_rows", "taken"), ("conftest", "taken"),
    ("tictactoe", "already an assignment")])
def test_new_refuses_a_name_that_cannot_be_one_in_one_line(name, words, tmp_path, capsys,
                                                           monkeypatch):
    monkeypatch.setenv("SPIELBAUM_COURSE", str(tmp_path))
    assert main(["new", name]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and words in said and "Traceback" not in said, said
    assert not any(tmp_path.iterdir())


def test_new_writes_the_files_once_and_never_overwrites(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SPIELBAUM_COURSE", str(tmp_path))
    assert main(["new", "connect3"]) == 0
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["solutions/connect3/README.md", "solutions/connect3/assignment.toml",
                       "solutions/connect3/connect3.py", "solutions/connect3/test_connect3.py",
                       "suites/connect3/rubric.toml", "suites/connect3/test_hidden.py"]
    capsys.readouterr()
    assert main(["new", "connect3"]) == 2               # the assignment exists
    assert "already an assignment 'connect3'" in capsys.readouterr().err
    shutil.rmtree(tmp_path / "solutions")               # a suite folder left behind
    assert main(["new", "connect3"]) == 2
    said = capsys.readouterr().err
    assert "suites/connect3 already exists: new never overwrites" in said, said
    assert (tmp_path / "suites/connect3/test_hidden.py").read_text().startswith('"""')


def test_new_needs_to_be_told_where(capsys, monkeypatch):
    monkeypatch.delenv("SPIELBAUM_COURSE", raising=False)
    assert main(["new", "connect3"]) == 2
    assert "set SPIELBAUM_COURSE" in capsys.readouterr().err
    assert not (ROOT / "solutions" / "connect3").exists()


# ------------------------------------------------------------ the tutorial
def test_the_tutorial_is_at_most_250_hand_written_lines_and_applies(tmp_path, monkeypatch):
    found = blocks()
    assert {b["path"] for b in found} == {
        "solutions/connect3/connect3.py", "solutions/connect3/assignment.toml",
        "solutions/connect3/test_connect3.py", "solutions/connect3/README.md",
        "suites/connect3/test_hidden.py", "suites/connect3/rubric.toml"}
    assert hand_written(found) <= 250, hand_written(found)
    monkeypatch.setenv("SPIELBAUM_COURSE", str(tmp_path))
    assert main(["new", "connect3", "--title", "Connect Three"]) == 0
    for block in found:
        apply(tmp_path, block)
    for path in tmp_path.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")   # no half-applied file
    rubric = (tmp_path / "suites/connect3/rubric.toml").read_text(encoding="utf-8")
    checks = re.findall(r"^def (test_\w+)", (tmp_path / "suites/connect3/test_hidden.py")
                        .read_text(encoding="utf-8"), re.M)
    assert set(checks) == set(re.findall(r"^(test_\w+) =", rubric, re.M))


@pytest.fixture(scope="module")
def connect3(tmp_path_factory):
    """The tutorial's connect3 in a course folder, released, with a batch of three:
    ada (the reference), bob (actions largest first), cleo (winner misses a diagonal)."""
    course = tmp_path_factory.mktemp("course")
    kit(course, "new", "connect3", "--title", "Connect Three")
    for block in blocks():
        apply(course, block)
    kit(course, "release", "connect3")
    reference = (course / "solutions/connect3/connect3.py").read_text(encoding="utf-8")
    plain = re.sub(r" *### (BEGIN|END) SOLUTION\n", "", reference)
    bugs = {"ada": plain,
            "bob": plain.replace("for column in range(COLUMNS) if",
                                 "for column in reversed(range(COLUMNS)) if"),
            "cleo": plain.replace("(1, 1), (1, -1))", "(1, 1))")}
    for student, text in bugs.items():
        assert student == "ada" or text != plain
        folder = course / "examples/connect3" / student
        folder.mkdir(parents=True)
        (folder / "connect3.py").write_text(text, encoding="utf-8")
    return course


@pytest.mark.slow
def test_make_check_fails_on_the_skeleton_and_passes_on_the_reference(connect3, tmp_path):
    student = tmp_path / "connect3"
    shutil.copytree(connect3 / "assignments/connect3", student)
    make = ["make", "--no-print-directory", "check", f"PYTHON={sys.executable}"]
    first = subprocess.run(make, cwd=student, capture_output=True, text=True, timeout=300)
    assert first.returncode != 0 and "not implemented yet" in first.stdout, first.stdout
    shutil.copy(connect3 / "solutions/connect3/connect3.py", student)
    second = subprocess.run(make, cwd=student, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stdout[-3000:]
    assert all(re.search(rf"^\s+{f}\s+\d+/\d+\s+ok", second.stdout, re.M) for f in POINTS)


@pytest.mark.slow
def test_each_bug_of_the_batch_costs_only_its_own_functions_points(connect3, tmp_path):
    command = in_pid_namespace([sys.executable, "-m", "autograder", "grade", "connect3",
                                str(connect3 / "examples/connect3"), "--out", str(tmp_path)])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "SPIELBAUM_COURSE": str(connect3)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with (tmp_path / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    full = float(rows["ada"]["max_score"])
    assert full == sum(POINTS.values())
    assert float(rows["ada"]["score"]) == full
    assert float(rows["bob"]["score"]) == full - POINTS["actions"], rows["bob"]
    assert float(rows["cleo"]["score"]) == full - POINTS["winner"], rows["cleo"]
    feedback = (tmp_path / "cleo" / "feedback.md").read_text(encoding="utf-8")
    assert "winner returned a wrong value" in feedback and ". . . ." in feedback  # drawn


@pytest.mark.slow
@pytest.mark.exhaustive
def test_the_notebook_has_a_graded_cell_per_check(connect3):
    done = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "notebooks",
                           "connect3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "SPIELBAUM_COURSE": str(connect3)})
    assert done.returncode == 0, done.stderr[-3000:]
    import nbformat
    notebook = nbformat.read(connect3 / "solutions/connect3/connect3.ipynb", as_version=4)
    graded = {cell.metadata["nbgrader"]["grade_id"] for cell in notebook.cells
              if cell.metadata.get("nbgrader", {}).get("grade")}
    assert graded == {f"test_{f}" for f in POINTS} | {"test_result_refuses_bad_moves"}


@pytest.mark.slow
@pytest.mark.parametrize("mutants, rewrites", [
    (0, 0), pytest.param(10, 4, marks=pytest.mark.exhaustive)])
def test_check_suite_finds_nothing_to_fix_in_the_tutorials_suite(connect3, mutants, rewrites):
    done = kit(connect3, "check-suite", "connect3", "--mutants", str(mutants), "--rewrites",
               str(rewrites))
    out = done.stdout
    assert "the reference scores 10/10" in out and "Nothing to fix" in out, out[-4000:]
    measured = re.findall(r"^  (test_\w+)\s+pass\s+CPU\s+\d+\.\d\d s \((.*) check, >=4x call\)",
                          out, re.M)
    assert len(measured) == 7, out
    if mutants:
        assert f"mutants: {mutants} of {mutants} killed" in out, out[-3000:]
        assert out.count(": full marks") + out.count(": not applicable") == rewrites, out


@pytest.mark.slow
@pytest.mark.exhaustive
def test_the_suite_kills_at_least_95_percent_of_the_mutants(connect3, tmp_path):
    count = 40
    kit(connect3, "mutate", "connect3", "--count", str(count), "--jobs", "2", "--out",
        str(tmp_path))
    with (tmp_path / "mutation.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    judged = [r for r in rows if r["status"] in ("killed", "survived")]
    killed = sum(r["status"] == "killed" for r in judged)
    assert len(judged) == count and killed >= 0.95 * count, \
        [(r["line"], r["original"], r["mutated"]) for r in judged if r["status"] != "killed"]


@pytest.mark.slow
@pytest.mark.exhaustive
def test_similarity_pairs_the_buggy_copies_with_the_reference(connect3, tmp_path):
    kit(connect3, "similarity", "connect3", str(connect3 / "examples/connect3"), "--out",
        str(tmp_path))
    with (tmp_path / "similarity.csv").open(newline="", encoding="utf-8") as handle:
        pairs = {frozenset((row["a"], row["b"])) for row in csv.DictReader(handle)}
    assert {frozenset(("ada", "bob")), frozenset(("ada", "cleo"))} <= pairs, pairs


# ------------------------------------------------------------ check-suite on a bad suite
FLAWED_REFERENCE = '''\
"""Two functions for a suite with flaws."""

import time


def spin(seconds):
    """Compute for `seconds` of CPU time, then return True."""
    ### BEGIN SOLUTION
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return True
    ### END SOLUTION


def even(number):
    """True if `number` is even."""
    ### BEGIN SOLUTION
    return number % 2 == 0
    ### END SOLUTION
'''

FLAWED_SUITE = '''\
import random

from autograder.checking import Case, compare

NUMBERS = random.sample(range(10**6), 40)       # not seeded: another run, other cases


def test_spin(student, blame):
    """spin computes for a while"""
    compare(student, blame, "spin", [Case("spin(0.4)", (0.4,), None, True)])


def test_even(student, blame):
    """even knows even numbers"""
    compare(student, blame, "even", [Case(f"even({n})", (n,), None, n % 3 == 0)
                                     for n in NUMBERS])
'''

FLAWED_RUBRIC = '''\
[points]
test_spin = 1
test_even = 1

[timeouts]
call = 1.0
check = 1.0
'''


@pytest.mark.slow
def test_check_suite_names_a_limit_too_close_and_a_check_that_is_not_deterministic(tmp_path):
    files = {"solutions/flawed/flawed.py": FLAWED_REFERENCE,
             "solutions/flawed/assignment.toml":
                 'name = "flawed"\ntitle = "Flawed"\nmodules = ["flawed.py"]\n',
             "suites/flawed/test_hidden.py": FLAWED_SUITE,
             "suites/flawed/rubric.toml": FLAWED_RUBRIC}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    done = kit(tmp_path, "check-suite", "flawed", check=False, SPIELBAUM_TIME_SCALE="1")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    fixes = out[out.index("What to fix"):]
    assert re.search(r"test_spin: the reference uses 0\.\d\d s of the check's 1\.00 s of CPU "
                     r"time \(\[timeouts\] check\), more than a 4th", fixes), fixes
    assert "test_even: fails on the reference" in fixes
    assert "test_even: is not deterministic: its feedback differs in another process" in fixes
    assert "test_spin: is not deterministic" not in fixes
    # the failure is shown whole, expected answer included
    assert re.search(r"test_even fails on the reference .*\n.*wrong on \d+ of 40 cases", out)
    assert "expected: " in out and "not graded: the reference does not score full marks" in out
