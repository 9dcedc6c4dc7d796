"""Attacks through the channel between the child and the grader, in every assignment.

Each attack is the assignment's reference solution with one block of hostile
code wrapped around functions the hidden suite calls; its honest twin is the
reference itself. All of one assignment's attacks are graded in ONE batch for
real (`autograder grade`, in a PID namespace): the batch must finish with a row
for every submission, each attack may score no more than its twin, every
student's feedback files must be written, and the grader's peak memory for any
submission stays under 1 GB.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from autograder import ROOT
from tests.conftest import in_pid_namespace

pytestmark = [pytest.mark.slow, pytest.mark.hostile]

# Functions (or methods) of each reference that its hidden suite calls early.
TARGETS = {
    "tictactoe": ["player", "actions", "result", "winner", "terminal", "utility", "minimax"],
    "negamax": ["TicTacToe.getMoves", "TicTacToe.evaluate", "TicTacToe.winner"],
    "gametree": ["nextstates", "evaluation", "terminal_test", "maximize"],
    "connect4": ["getBoard", "free", "nextstates", "evaluation"],
    "muehle": ["next_states", "finished", "utility", "heuristic"],
}

# What the wrapper does before (or instead of) calling the real function.
BODIES = {
    # A lone surrogate in every kind of student text that reaches the report.
    "print_surrogate": 'print("printed \\udcff")',
    "raise_surrogate": 'raise ValueError("message \\udcff")',
    "note_surrogate": 'try:\n    open("/nowhere-\\udcff")\nexcept OSError:\n    pass',
    "filename_surrogate": 'compile("(", "/scratch-\\udcff.py", "exec")',
    "unprintable_exception": (
        'class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError("no")\n'
        'raise Odd()'),
    # Flood the grader with calls that wait for an answer, then stop reading.
    "flood_and_stop_reading": (
        'import json, os, time\n'
        'wfd = json.loads(sys.argv[1])["wfd"]\n'
        'frame, base = sys._getframe(), None\n'
        'while frame is not None and base is None:\n'
        '    base = frame.f_locals.get("base")\n'
        '    frame = frame.f_back\n'
        'running = getattr(sys.modules["__main__"], "_running", None)\n'
        'base, index = running if running else (base, 0)\n'
        'row = (json.dumps([base, index, 5, [1, "x", []]]) + "\\n").encode()\n'
        'os.write(wfd, row * 20000)\n'
        'time.sleep(10 ** 6)'),
    # Answers that decode to as much as possible: nested one-element lists.
    "huge_nested_answers": (
        'value = 0\nfor _ in range(60):\n    value = [value]\nreturn [value] * 2000'),
}
IMPORT_ATTACK = 'raise ImportError("cannot import \\udcff")'

WRAPPER = '''
# >>> attack
def _spielbaum_attack(path):
    import functools, sys
    owner = sys.modules[__name__]
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part)
    real = getattr(owner, name)

    @functools.wraps(real)
    def attacked(*args, **kwargs):
{body}
        return real(*args, **kwargs)
    setattr(owner, name, attacked)


for _path in {paths!r}:
    _spielbaum_attack(_path)
# <<< attack
'''


def attack_source(reference: str, body: str, paths: list[str]) -> str:
    return reference + WRAPPER.format(body=textwrap.indent(body, " " * 8), paths=paths)


def build(assignment: str, names: list[str], folder):
    """One folder per attack, plus `honest` (the reference as it is)."""
    module = f"{assignment}.py"
    reference = (ROOT / "solutions" / assignment / module).read_text()
    (folder / "honest").mkdir(parents=True)
    (folder / "honest" / module).write_text(reference)
    for name in names:
        (folder / name).mkdir()
        if name == "import_surrogate":
            source = reference + f"\n# >>> attack\n{IMPORT_ATTACK}\n# <<< attack\n"
        else:
            # Huge answers from three functions of tictactoe, whose suite keeps answers
            # between checks (1.5 GB before the caps), else from one.
            many = name == "huge_nested_answers" and assignment == "tictactoe"
            paths = TARGETS[assignment][:3] if many else TARGETS[assignment][:1]
            source = attack_source(reference, BODIES[name], paths)
        (folder / name / module).write_text(source)


def grade(assignment, subs, out):
    command = in_pid_namespace([sys.executable, "-m", "autograder", "grade", assignment,
                                str(subs), "--out", str(out), "--jobs", "2"])
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with (out / "grades.csv").open(encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


EVERY = ["print_surrogate", "raise_surrogate", "note_surrogate", "filename_surrogate",
         "import_surrogate", "unprintable_exception", "flood_and_stop_reading",
         "huge_nested_answers"]
# One route of each class (and the exception's text) in tictactoe (checks by `map`)
# and in negamax (checks by plans and objects kept in the child); every route, and the
# three other assignments, which use the same two mechanisms, run with
# SPIELBAUM_CHANNEL_ALL=1 (make test-all; CI's budget has no room for them).
CLASSES = ["print_surrogate", "unprintable_exception", "flood_and_stop_reading",
           "huge_nested_answers"]
# negamax's huge answers cost its child a check's whole CPU budget in several checks
# (ten minutes on a loaded machine): with the rest, under SPIELBAUM_CHANNEL_ALL.
CASES = {"tictactoe": CLASSES + ["raise_surrogate"], "negamax": CLASSES[:3]}
if os.environ.get("SPIELBAUM_CHANNEL_ALL"):
    CASES.update({"tictactoe": EVERY}, **{a: CLASSES for a in ("negamax", "gametree",
                                                                 "connect4", "muehle")})


@pytest.mark.parametrize("assignment", sorted(CASES))
def test_no_attack_through_the_channel_stops_the_batch_or_buys_points(assignment, tmp_path):
    names = CASES[assignment]
    build(assignment, names, tmp_path / "subs")
    rows = grade(assignment, tmp_path / "subs", tmp_path / "out")
    assert set(rows) == {"honest", *names}
    honest = float(rows["honest"]["score"])
    assert honest == float(rows["honest"]["max_score"]), rows["honest"]
    for name in names:
        row = rows[name]
        assert row["status"] in ("graded", "import-error"), (name, row)
        assert float(row["score"]) <= honest, (name, row)
        folder = tmp_path / "out" / name
        for kind in ("feedback.md", "feedback.html", "results.json"):
            (folder / kind).read_text(encoding="utf-8")        # written, and valid UTF-8
        peak = json.loads((folder / "results.json").read_text())["extra_data"]["grader_peak_mb"]
        assert 0 < peak < 1024, (name, peak)
    # Printing changes no answer: that attack scores exactly what its twin does.
    assert rows["print_surrogate"]["score"] == rows["honest"]["score"]
    assert "\\udcff" in (tmp_path / "out" / "print_surrogate" / "feedback.md").read_text()
    flooded = rows["flood_and_stop_reading"]
    assert int(flooded["crashes"]) + int(flooded["timeouts"]) >= 1, flooded
    # The flood is stopped at once (a map takes no calls back) or after the few seconds
    # a waiting child has to read an answer, not at the end of every limit.
    took = {name: json.loads((tmp_path / "out" / name / "results.json").read_text())
            ["execution_time"] for name in ("flood_and_stop_reading", "honest")}
    assert took["flood_and_stop_reading"] < took["honest"] + 60, took


def test_a_grading_process_that_dies_is_one_row_and_the_batch_goes_on(tmp_path):
    """The pool replaces a worker that dies mid-submission (here: killed by the
    kernel's OOM killer, simulated by a suite-independent SIGKILL of the worker)."""
    from autograder.grading.workers import Local

    results = list(Local(2, _die_on_three, ceiling=30,
                        lost=lambda task, reason: (task[0], "lost", reason)).run(
        [(n,) for n in range(6)]))
    assert sorted(r[0] for r in results) == list(range(6))
    lost = [r for r in results if r[1] == "lost"]
    assert [r[0] for r in lost] == [3] and "killed by signal SIGKILL" in lost[0][2]


def test_a_worker_past_the_ceiling_is_stopped_and_replaced(tmp_path):
    from autograder.grading.workers import Local

    started = time.monotonic()
    results = list(Local(2, _hang_on_one, ceiling=2,
                        lost=lambda task, reason: (task[0], "lost", reason)).run(
        [(n,) for n in range(4)]))
    assert time.monotonic() - started < 15
    assert sorted(r[0] for r in results) == [0, 1, 2, 3]
    [lost] = [r for r in results if r[1] == "lost"]
    assert lost[0] == 1 and "did not finish within 2 s" in lost[2]


def _die_on_three(n):
    import os
    import signal
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return (n, "done", "")


def _hang_on_one(n):
    if n == 1:
        time.sleep(3600)
    return (n, "done", "")


def test_the_attack_files_are_what_this_module_builds(tmp_path):
    """The attack blocks are removable: without them each attack is the reference."""
    from tests.conftest import without_attack
    build("tictactoe", EVERY, tmp_path)
    reference = (ROOT / "solutions" / "tictactoe" / "tictactoe.py").read_text()
    for name in EVERY:
        built = (tmp_path / name / "tictactoe.py").read_text()
        assert without_attack(built).rstrip("\n") == reference.rstrip("\n")
    shutil.rmtree(tmp_path)


def _where(n):
    import os
    import subprocess
    if n == 2:
        os.kill(os.getpid(), 9)       # its replacement is pinned too
    child = subprocess.run(["python3", "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return (n, sorted(os.sched_getaffinity(0)), child)


def test_pinned_workers_keep_one_cpu_each_and_their_children_with_them():
    """Local(pin=True): worker slot i on CPU i (round robin), a replacement for a worker
    that died pinned too, and a process it starts (the sandboxed child) on the same
    CPU; without pin, and after one_cpu(), every CPU."""
    from autograder.grading.workers import Local, allowed_cpus, one_cpu

    cpus = allowed_cpus()
    if len(cpus) < 2:
        pytest.skip("one CPU: nothing to pin")
    results = list(Local(2, _where, ceiling=30, pin=True,
                        lost=lambda task, reason: (task[0], "lost", reason)).run(
        [(n,) for n in range(6)]))
    ran = [r for r in results if r[1] != "lost"]
    assert len(ran) == 5
    for n, mine, child in ran:
        assert len(mine) == 1 and mine[0] in cpus[:2], (n, mine)
        assert child == str(mine), (n, mine, child)
    assert {r[1][0] for r in ran} == set(cpus[:2])     # both slots were used
    unpinned = list(Local(2, _where, ceiling=30,
                         lost=lambda task, reason: (task[0], "lost", reason)).run([(0,)]))
    assert unpinned[0][1] == cpus
    with one_cpu():
        assert len(os.sched_getaffinity(0)) == 1
    assert sorted(os.sched_getaffinity(0)) == cpus
