"""Submissions that wait cost their own seconds, never the class's hour (issue 43).

Each sleeper (built afresh by sleepers_build.py, which says what each kind does) is
the reference whose main search waits before it searches: it
sleeps, dozes under the per-call allowance, blocks on a lock, joins a sleeping thread,
naps at a duty cycle of 1/8, reads stdin, or sleeps at import; or a rule the search
relies on dozes at every call. Each is graded for
real, in a PID namespace, next to its honest twin (the reference without the waiting):
the twin scores full marks, no sleeper scores more than its twin, a read of stdin
costs nothing, and every one is graded within two minutes of wall time (it took more
than half an hour before). The default run grades tic-tac-toe's; make test-all every
assignment's, and all of them again under three busy loops: the same grades.
"""

import json
import time

import pytest

from tests.conftest import grade_folder, grade_under_load
from tests.kit import sleepers_build

ASSIGNMENTS = tuple(sleepers_build.SEARCHES)
QUICK = ("tictactoe",)
MINUTES = 2.0           # at most, per submission that waits (the bound)


def test_every_sleeper_is_its_twin_with_the_waiting_appended():
    for assignment in ASSIGNMENTS:
        twin = sleepers_build.twin(assignment)
        for kind in sleepers_build.KINDS:
            text = sleepers_build.build(assignment, kind)
            assert text.startswith(twin.rstrip("\n")) and "# >>> waits" in text, kind
            assert sleepers_build.without_waits(text) == twin, (assignment, kind)
            compile(text, f"{assignment}_{kind}.py", "exec")


def test_the_build_script_writes_them_as_submission_folders(tmp_path):
    assert sleepers_build.main([str(tmp_path)]) == 0
    folders = sorted(p.name for p in tmp_path.iterdir())
    assert folders == sorted(f"{a}_{k}" for a in ASSIGNMENTS for k in sleepers_build.KINDS)
    module = sleepers_build.SEARCHES["negamax"][0]
    assert (tmp_path / "negamax_dozes" / f"{module}.py").read_text(encoding="utf-8") == \
        sleepers_build.build("negamax", "dozes")


def batch(assignment, folder):
    """The assignment's sleepers and their twin, one folder per student."""
    module = sleepers_build.SEARCHES[assignment][0]
    for kind in sleepers_build.KINDS:
        (folder / kind).mkdir(parents=True)
        (folder / kind / f"{module}.py").write_text(sleepers_build.build(assignment, kind))
    (folder / "twin").mkdir()
    (folder / "twin" / f"{module}.py").write_text(sleepers_build.twin(assignment))


def results(out, name):
    return json.loads((out / name / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade an assignment's sleepers and twin once per module: (rows, out folder)."""
    cache = {}

    def grade(assignment):
        if assignment not in cache:
            base = tmp_path_factory.mktemp(f"sleepers-{assignment}")
            batch(assignment, base / "subs")
            cache[assignment] = grade_folder(assignment, base / "subs", base / "out"), \
                base / "out"
        return cache[assignment]
    return grade


@pytest.mark.slow
@pytest.mark.parametrize("assignment", [
    pytest.param(a, marks=() if a in QUICK else pytest.mark.exhaustive) for a in ASSIGNMENTS])
def test_a_sleeper_loses_what_waits_and_is_graded_in_seconds(graded, assignment):
    rows, out = graded(assignment)
    twin = rows["twin"]
    assert twin["status"] == "graded" and twin["score"] == twin["max_score"], twin
    for kind in sleepers_build.KINDS:
        row, result = rows[kind], results(out, kind)
        assert float(row["score"]) <= float(twin["score"]), (kind, row)
        assert result["execution_time"] <= MINUTES * 60, (kind, result["execution_time"])
        if kind == "reads":         # stdin is /dev/null in the sandbox: nothing waits
            assert row["score"] == twin["score"] and row["timeouts"] == "0", row
            continue
        assert float(row["score"]) < float(twin["score"]), (kind, row)
        said = (out / kind / "feedback.md").read_text(encoding="utf-8")
        assert "without computing: time.sleep, input() or a lock?" in said, kind
        if kind == "imports":
            assert row["status"] == "import-error", row
            assert "importing your module waited more than" in row["message"], row


@pytest.mark.exhaustive
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_same_grades_under_three_busy_loops(graded, tmp_path, assignment):
    quiet, _out = graded(assignment)
    batch(assignment, tmp_path / "subs")
    started = time.monotonic()
    loaded = grade_under_load(assignment, tmp_path / "subs", tmp_path / "out")
    assert time.monotonic() - started < MINUTES * 60 * len(loaded)
    for student, row in quiet.items():
        assert (loaded[student]["score"], loaded[student]["status"]) == \
            (row["score"], row["status"]), (student, row, loaded[student])
        assert results(tmp_path / "out", student)["execution_time"] <= MINUTES * 60
