"""The teacher-facing command: clear one-line errors, and the report formats."""

import json
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, grade_folder


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, words", [
    (["grade", "nope", "examples/tictactoe", "--out", "/tmp/x"], "unknown assignment 'nope'"),
    (["grade", "tictactoe", "no/such/folder", "--out", "/tmp/x"], "is not a folder"),
    (["grade", "tictactoe", "docs", "--out", "/tmp/x"], "holds no student folders"),
    (["grade", "tictactoe", "examples/tictactoe", "--out", "/tmp/x", "--jobs", "0"],
     "--jobs must be at least 1"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    done = run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in done.stderr


def test_results_json_follows_gradescope_schema(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples/tictactoe/eve_no_antidiagonal", subs / "eve")
    shutil.copytree(ROOT / "examples/tictactoe/ken_missing", subs / "ken")
    rows = grade_folder("tictactoe", subs, tmp_path / "out")
    assert rows["ken"]["status"] == "missing" and rows["ken"]["score"] == "0"
    header = (tmp_path / "out" / "grades.csv").read_text().splitlines()[0]
    assert header.startswith("student,score,max_score,status")
    results = json.loads((tmp_path / "out" / "eve" / "results.json").read_text())
    assert {"score", "tests"} <= set(results)
    for test in results["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
        assert test["status"] in ("passed", "failed")
    assert results["score"] == sum(t["score"] for t in results["tests"]) == float(rows["eve"]["score"])
    failed = [t for t in results["tests"] if t["status"] == "failed"]
    assert any("winner" in t["name"] for t in failed)
    html = (tmp_path / "out" / "eve" / "feedback.html").read_text()
    assert "<table>" in html and "winner" in html


def test_reveal_expected_shows_the_answer(tmp_path):
    subs = tmp_path / "subs"
    shutil.copytree(ROOT / "examples/tictactoe/eve_no_antidiagonal", subs / "eve")
    grade_folder("tictactoe", subs, tmp_path / "out", extra=("--reveal-expected",))
    text = (tmp_path / "out" / "eve" / "feedback.md").read_text()
    assert "expected: X" in text and "got: returned None" in text
    assert "(hidden test" not in text


def test_make_demo_replaces_only_what_the_grader_writes():
    """`make demo` grades into out/ without deleting it first: a teacher's
    out/mutation (or anything else there) stays; the grader replaces its own files."""
    done = subprocess.run(["make", "-n", "--no-print-directory", "demo"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    recipe = [line for line in done.stdout.splitlines() if "autograder grade" in line]
    assert recipe and "--out out" in recipe[0], done.stdout
    assert not any(line.lstrip().startswith("rm ") and "out" in line
                   for line in done.stdout.splitlines()), done.stdout
