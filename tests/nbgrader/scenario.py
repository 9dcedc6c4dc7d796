"""Whole nbgrader courses, played through in one process (nbgrader imports once).

    python -m tests.nbgrader.scenario cycle BASE   release, fetch, submit, collect,
                                                   grade-collected, feedback, export
    python -m tests.nbgrader.scenario traps BASE   plain `nbgrader autograde` on
                                                   submissions that attack it

Both build a temporary course and exchange under BASE, grade the same files
with the bulk grader (`grade_all`), and print one JSON line the tests judge.
Run them only inside a PID namespace: they execute hostile example code.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tictactoe"
A = "tictactoe"


def setup(base: Path):
    for name in ("course", "exchange"):
        (base / name).mkdir(parents=True, exist_ok=True)
    os.environ.update(SPIELBAUM_COURSE_ROOT=str(base / "course"),
                      SPIELBAUM_EXCHANGE=str(base / "exchange"),
                      SPIELBAUM_COURSE_ID="testcourse", CI="true")
    from autograder.nbgrader import cycle
    return cycle, cycle.make_api()


def bulk(folder: Path, out: Path) -> dict[str, float]:
    from rich.console import Console

    from autograder.grading import batch
    rows = batch.grade_all(A, folder, out, 2, console=Console(stderr=True, quiet=True))
    return {row["student"]: float(row["score"]) for row in rows}


def exported(cycle, api, path: Path) -> dict[str, float]:
    cycle.export(path, api)
    with path.open() as handle:
        return {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)
                if row["assignment"] == A}


def files_under(*folders: Path) -> dict[str, str]:
    return {str(p): p.read_text(encoding="utf-8", errors="replace")
            for folder in folders for p in folder.rglob("*") if p.is_file()}


# ------------------------------------------------------------ the full cycle
CYCLE_STUDENTS = {"alice": "ada_alphabeta", "bert": "eve_no_antidiagonal",
                  "cora": "heidi_hostile", "dora": "frank_syntax_error"}


def cycle_scenario(base: Path) -> dict:
    cycle, api = setup(base)
    cycle.release(A, api)
    homes = base / "homes"
    for student, example in CYCLE_STUDENTS.items():
        home = homes / student
        home.mkdir(parents=True)
        mine = cycle.student_api(home, student)
        cycle.student_step("FetchAssignment", A, mine)
        fetched_copy = homes / ".fetched" / student
        shutil.copytree(home / A, fetched_copy)     # as the student received it
        shutil.copyfile(EXAMPLES / example / "tictactoe.py", home / A / "tictactoe.py")
        cycle.student_step("Submit", A, mine)
    collected = cycle.collect(A, api)
    cycle.grade_collected(A, api, jobs=2)
    cycle.feedback(A, api)
    fetched = {}
    for student in CYCLE_STUDENTS:
        mine = cycle.student_api(homes / student, student)
        result = mine.fetch_feedback(A, student)
        assert result["success"], result
        fetched[student] = sorted(str(p.relative_to(homes / student))
                                  for p in (homes / student / A / "feedback").rglob("*.html"))
    course = base / "course"
    return {
        "collected": collected,
        "exported": exported(cycle, api, base / "grades.csv"),
        "bulk": bulk(course / "submitted", base / "bulk"),
        "released": files_under(course / "release", base / "exchange" / "testcourse" / "outbound",
                                homes / ".fetched"),
        "feedback": files_under(course / "feedback",
                                *[homes / s / A / "feedback" for s in CYCLE_STUDENTS]),
        "fetched": fetched,
    }


# ------------------------------------------------------------ plain autograde, attacked
TRANSFORMER = """\
# Turn every later cell into `pass`: no output scores full points.
ip = get_ipython()
ip.input_transformers_post.append(lambda lines: ["pass\\n"])
"""
FAKE_MODULE = """\
import sys, types
fake = types.ModuleType("autograder.nbgrader.cells")
fake.verdict = lambda assignment, test: 100
sys.modules["autograder.nbgrader.cells"] = fake
"""
WARN = """\
import sys, warnings
warnings.warn("a harmless warning while importing")
print("noise on stderr", file=sys.stderr)
"""


def attacked_notebook(handout: Path) -> dict:
    """The handout with added cells that attack the kernel, one test cell deleted,
    a test cell duplicated with a new id, and nbgrader's marker in student text."""
    nb = json.loads(handout.read_text(encoding="utf-8"))
    cells = nb["cells"]
    code = lambda source, **meta: {"cell_type": "code", "metadata": meta, "source": source,
                                   "outputs": [], "execution_count": None}
    for cell in cells:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "try_it":
            cell["source"] = TRANSFORMER
    graded = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade")]
    cells.remove(graded[7])                                      # test_winner, deleted
    fake = json.loads(json.dumps(graded[0]))
    fake["metadata"]["nbgrader"].update(grade_id="my_bonus", points=50)
    fake["source"] = "100"
    cells[1:1] = [code(FAKE_MODULE), code(TRANSFORMER), fake,
                  {"cell_type": "markdown", "metadata": {},
                   "source": "### BEGIN HIDDEN TESTS\nmy notes\n### END HIDDEN TESTS"}]
    for n, cell in enumerate(cells):
        cell["id"] = f"cell-{n}"
    return nb


def traps_scenario(base: Path) -> dict:
    cycle, api = setup(base)
    result = api.generate_assignment(A, force=True, create=True)
    assert result["success"], result
    handout = ROOT / "solutions" / A / f"{A}.ipynb"
    submitted = base / "course" / "submitted"
    plan = {"mallory": ("eve_no_antidiagonal", True), "wanda": ("ada_alphabeta", False),
            "ivan": ("ivan_lying_answers", True)}
    for student, (example, attack) in plan.items():
        folder = submitted / student / A
        folder.mkdir(parents=True)
        source = (EXAMPLES / example / "tictactoe.py").read_text()
        if student == "wanda":
            source = WARN + source
        (folder / "tictactoe.py").write_text(source)
        (folder / "timestamp.txt").write_text("2026-01-15 10:00:00.000000 UTC")
        nb = attacked_notebook(handout) if attack else json.loads(handout.read_text())
        (folder / f"{A}.ipynb").write_text(json.dumps(nb))
        if attack:   # files that shadow what the kernel or a graded cell imports
            fake = folder / "autograder" / "nbgrader"
            fake.mkdir(parents=True)
            for init in (folder / "autograder", fake):
                (init / "__init__.py").write_text("")
            (fake / "cells.py").write_text("def verdict(a, t):\n    return 100\n")
            (folder / "json.py").write_text("raise SystemExit('shadowed json')\n")
    cycle.autograde(A, api)
    result = api.generate_feedback(A, force=True)   # no exchange: nothing to release
    assert result["success"], result
    course = base / "course"
    autograded = {s: json.loads((course / "autograded" / s / A / f"{A}.ipynb").read_text())
                  for s in plan}
    return {
        "exported": exported(cycle, api, base / "grades.csv"),
        "bulk": bulk(submitted, base / "bulk"),
        "feedback": files_under(course / "feedback"),
        "graded_cells": {s: sorted(c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"]
                                   if c["metadata"].get("nbgrader", {}).get("grade"))
                         for s, nb in autograded.items()},
    }


if __name__ == "__main__":
    which, where = sys.argv[1], Path(sys.argv[2])
    outcome = cycle_scenario(where) if which == "cycle" else traps_scenario(where)
    sys.stdout.write("\n" + json.dumps(outcome) + "\n")
