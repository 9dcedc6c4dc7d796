"""Waiting is charged apart from load (issue 43).

A child that sleeps or blocks uses no CPU: it used to be waited for on the wall clock,
up to the backstop (8x each limit plus 2 s a call), and one sleeper held a grading
worker for half an hour. The time a child chose not to run is measured per thread
(client.Activity: /proc/<pid>/task/*/schedstat, run time and run-queue wait) and
charged against small allowances, a call's and a check's; waiting for a CPU (a busy
machine) and waiting for the grader (a call back, a full pipe) never count. Every
test here runs the real sandbox.
"""

import os
import subprocess
import sys
import time

import pytest

from autograder.grading import student as student_module
from autograder.grading.workers import Local
from autograder.sandbox import client, layers
from autograder.sandbox.client import Failure, Sandbox
from autograder.sandbox.plans import Callback, Plan

CODE = '''
import threading, time

def nap(seconds):
    time.sleep(seconds)
    return seconds

def locked():
    lock = threading.Lock()
    lock.acquire()
    lock.acquire()

def joins():
    sleeper = threading.Thread(target=time.sleep, args=(60,), daemon=True)
    sleeper.start()
    sleeper.join()

def low_duty(rounds):
    for _ in range(rounds):
        end = time.process_time() + 0.025
        while time.process_time() < end:
            pass
        time.sleep(0.175)
    return rounds

def busy(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds

def busy_in_a_thread(seconds):
    worker = threading.Thread(target=busy, args=(seconds,))
    worker.start()
    worker.join()
    return seconds

def asks(rule, times):
    return sum(rule(i) for i in range(times))

def reads():
    try:
        input()
    except EOFError:
        return "eof"
'''


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "w.py").write_text(CODE)
    return tmp_path


def sandbox_for(scratch, call=0.5, check=1.5) -> Sandbox:
    box = Sandbox(scratch, ["w"], list(layers.available()))
    box.wait_call, box.wait_check = call, check
    return box


def student_with(folder, code: str, wait: float, check_wait: float):
    """A Student of module `w` holding `code`, with these waiting allowances."""
    (folder / "w.py").write_text(code)
    return student_module.Student(folder, ["w"], list(layers.available()), recorded=False,
                                  timeouts=student_module.Timeouts(wait=wait,
                                                                   check_wait=check_wait))


def timed(function, *args, **kwargs):
    began = time.monotonic()
    result = function(*args, **kwargs)
    return result, time.monotonic() - began


@pytest.mark.parametrize("target, args", [
    ("w.nap", (30,)), ("w.locked", ()), ("w.joins", ()), ("w.low_duty", (100,))])
def test_a_call_that_waits_is_stopped_after_its_allowance_with_where_it_was(
        scratch, target, args):
    with sandbox_for(scratch, call=0.5, check=100) as box:
        box.import_modules(5)
        outcome, seconds = timed(box.call, target, args, timeout=5)
    assert outcome.failure == Failure.WAITED and outcome.idle, outcome
    assert outcome.detail.startswith("waited more than 0.5 s without computing: "
                                     "time.sleep, input() or a lock?"), outcome.detail
    assert "it was stopped in" in outcome.detail
    # a low duty cycle waits 7/8 of its time: 0.5 s of waiting in about 0.6 s
    assert seconds < 2.0, seconds
    assert not box.alive


def test_calls_that_each_wait_less_are_stopped_by_the_checks_allowance(scratch):
    with sandbox_for(scratch, call=0.5, check=1.0) as box:
        box.import_modules(5)
        box.new_check()
        outcomes, seconds = timed(box.map, "w.nap", [(0.3,)] * 10, 5)
    assert [o.failure for o in outcomes[:3]] == [None] * 3
    assert outcomes[3].failure == Failure.WAITED
    assert outcomes[3].detail.startswith("its calls in this check waited more than 1.0 s "
                                         "in all without computing")
    assert {o.failure for o in outcomes[4:]} == {Failure.UNREACHED}
    assert seconds < 2.5, seconds


def test_a_new_check_has_its_allowance_again(scratch):
    with sandbox_for(scratch, call=0.5, check=1.0) as box:
        box.import_modules(5)
        for _check in range(3):
            box.new_check()
            outcomes = box.map("w.nap", [(0.3,)] * 2, 5)
            assert [o.failure for o in outcomes] == [None, None]
            assert 0.5 < box.check_waited < 0.8, box.check_waited
        assert 1.7 < box.waited < 2.2, box.waited


def test_computing_is_never_charged_as_waiting_in_its_own_thread_or_another(scratch):
    """A thread that ended is read at its last sight (its CPU time since is in the
    process's): on a loaded machine its last moments' run-queue wait may count."""
    with sandbox_for(scratch, call=0.5, check=1.0) as box:
        box.import_modules(5)
        box.new_check()
        plain = box.call("w.busy", (0.6,), timeout=5)
        threaded = box.call("w.busy_in_a_thread", (0.6,), timeout=5)
        stdin = box.call("w.reads", (), timeout=5)
    assert (plain.value, threaded.value, stdin.value) == (0.6, 0.6, "eof")
    assert box.waited < 0.25, box.waited


def _slow_rule(number):
    """A grader's function that computes for 2 ms (CPU), as a game's rules do."""
    end = time.thread_time() + 0.002
    while time.thread_time() < end:
        pass
    return number % 3


def test_waiting_for_the_graders_answers_is_not_the_students(scratch):
    """600 calls back that each keep the grader computing 2 ms: the child waits 1.2 s
    for the grader's answers, under a call allowance of 0.2 s."""
    with sandbox_for(scratch, call=0.2, check=0.4) as box:
        box.import_modules(5)
        box.new_check()
        plan = Plan("asks")
        plan.returns(plan.call("w.asks", Callback(_slow_rule), 600))
        [outcome] = box.plans([plan], 10)
    assert outcome.value == sum(i % 3 for i in range(600)), outcome
    assert box.waited < 0.15, box.waited


@pytest.mark.slow
def test_a_busy_machine_is_not_waiting(scratch):
    """Three busy loops on this process's CPUs: the child waits for a CPU, which is
    never charged; computing calls and calls back pass with allowances of 0.2 s."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        with sandbox_for(scratch, call=0.2, check=0.4) as box:
            box.import_modules(5)
            box.new_check()
            computed = box.map("w.busy", [(0.3,)] * 4, 5)
            plan = Plan("asks")
            plan.returns(plan.call("w.asks", Callback(_slow_rule), 300))
            [asked] = box.plans([plan], 10)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    assert [o.value for o in computed] == [0.3] * 4
    assert asked.value == sum(i % 3 for i in range(300))
    assert box.waited < 0.15, box.waited


def test_a_plan_with_its_own_clock_is_judged_by_the_clock_alone(scratch):
    """A tournament's move clock is wall time by the rules of the game: its plans
    are not charged waiting, only their clock."""
    with sandbox_for(scratch, call=0.2, check=0.4) as box:
        box.import_modules(5)
        plan = Plan("nap", timeout=5, wall=3)
        plan.returns(plan.call("w.nap", 0.6))
        [outcome] = box.plans([plan], 5)
    assert outcome.value == 0.6, outcome


def test_a_sandbox_without_allowances_waits_for_the_backstop_as_before(scratch):
    with Sandbox(scratch, ["w"], list(layers.available())) as box:
        box.import_modules(5)
        outcome = box.call("w.nap", (0.8,), timeout=5)
    assert outcome.value == 0.8


def test_the_student_stops_a_waiting_function_and_skips_it_later(tmp_path):
    student = student_with(tmp_path, CODE, wait=0.3, check_wait=0.6)
    waited_before = client.waited_total     # what the batch summary reads
    try:
        student.start_check()
        first = [student.call("w.nap", 0.25) for _ in range(3)]
        student.start_check()
        later = student.call("w.nap", 0.01)
    finally:
        student.close()
    assert [o.failure for o in first[:2]] == [None, None]
    assert first[2].failure == Failure.WAITED
    assert later.failure == Failure.SKIPPED and "without computing" in later.detail
    assert client.waited_total - waited_before >= 0.6
    assert any("without computing" in event.text for event in student.events)


def test_an_import_that_waits_is_stopped_after_the_checks_allowance(tmp_path):
    student = student_with(tmp_path, "import time\ntime.sleep(60)\n", wait=0.3,
                           check_wait=0.8)
    try:
        failure, seconds = timed(lambda: student.importable)
    finally:
        student.close()
    assert failure.failure == Failure.IMPORT
    assert failure.detail == ("importing your module waited more than 0.8 s without "
                              "computing: time.sleep, input() or a lock?")
    assert seconds < 3, seconds


def test_the_ceiling_counts_each_checks_cpu_at_the_backstops_pace_and_its_waiting():
    assert student_module.ceiling(10, 10.0, 5.0, 3.0) == client.backstop(105.0) + 33.0


def _wait_in_a_child(folder: str, seconds: float) -> str:
    """A pool task: a sandboxed call that sleeps `seconds` within its allowance."""
    with Sandbox(folder, ["w"], list(layers.available())) as box:
        box.wait_call = box.wait_check = seconds + 5
        box.import_modules(5)
        return str(box.call("w.nap", (seconds,), timeout=5).value)


def _quick(folder: str, seconds: float) -> str:
    return "quick"


def _task(kind, folder, seconds):
    return (_wait_in_a_child if kind == "nap" else _quick)(folder, seconds)


def test_the_pool_lends_a_napping_workers_cpu_to_the_next_submission(scratch):
    """One worker, lending one: while the first task's child sleeps 2 s, the quick
    tasks run on a worker of their own, and finish before the sleeper."""
    pool = Local(1, _task, ceiling=60, lost=lambda task, reason: reason, lend=1)
    tasks = [("nap", str(scratch), 2.0)] + [("quick", str(scratch), 0.0)] * 3
    finished, seconds = timed(lambda: list(pool.run(tasks)))
    assert sorted(finished) == ["2.0", "quick", "quick", "quick"]
    assert finished[-1] == "2.0", finished
    assert pool.lent >= 1
    assert seconds < 4.5, seconds


def test_a_pool_that_does_not_lend_runs_its_jobs_only(scratch):
    pool = Local(1, _task, ceiling=60, lost=lambda task, reason: reason)
    tasks = [("nap", str(scratch), 1.0)] + [("quick", str(scratch), 0.0)] * 2
    finished = list(pool.run(tasks))
    assert finished == ["1.0", "quick", "quick"]
    assert pool.lent == 0


@pytest.mark.slow
def test_the_summary_names_a_slow_submission_and_where_its_time_went(tmp_path, monkeypatch):
    """Every submission counts as slow here (SLOW_SECONDS 0, inherited by the forked
    workers): its row says where the wall time went, grades.csv has no column of it,
    and the summary's caption names it."""
    import csv
    import shutil

    from rich.console import Console

    from autograder import ROOT
    from autograder.grading import batch
    for name in ("ada_alphabeta", "ken_missing"):
        shutil.copytree(ROOT / "examples" / "tictactoe" / name, tmp_path / "subs" / name)
    monkeypatch.setattr(batch, "SLOW_SECONDS", 0.0)
    rows = batch.grade_all("tictactoe", tmp_path / "subs", tmp_path / "out", 2,
                           console=Console(quiet=True))
    slow = {row["student"]: row[batch.SLOW] for row in rows}
    assert set(slow) == {"ada_alphabeta", "ken_missing"}
    assert all(" s: its code computed " in words and "waited 0 s without computing" in words
               for words in slow.values()), slow
    with (tmp_path / "out" / "grades.csv").open() as handle:
        assert batch.SLOW not in next(csv.DictReader(handle))
    console = Console(width=200, record=True)
    console.print(batch.summary_table(rows, 1.0))
    said = console.export_text()
    assert "took more than 0 s (wall clock): ada_alphabeta " in said.replace("\n", " ")


def test_slow_words_say_where_the_time_went():
    assert batch_words(95.0, 60.2, 12.4, 3.1, 2) == (
        "95 s: its code computed 60 s and waited 12 s without computing; 2 calls or checks "
        "out of time; the grader computed 3 s; 19 s waiting for a CPU (other work on the "
        "machine)")


def batch_words(*args):
    from autograder.grading.batch import slow_words
    return slow_words(*args)



def test_the_checks_spent_waiting_skips_its_later_calls_and_blames_none_of_them(tmp_path):
    """Once a check's calls have waited their allowance, a later call of the same check
    is not run, and the function it calls (which never waited) stays callable in the
    next check."""
    student = student_with(tmp_path, CODE, wait=0.3, check_wait=0.6)
    try:
        student.start_check()
        first = [student.call("w.nap", 0.25) for _ in range(3)]
        same_check = student.call("w.busy", 0.01)
        student.start_check()
        next_check = student.call("w.busy", 0.01)
    finally:
        student.close()
    assert first[2].failure == Failure.WAITED
    assert same_check.failure == Failure.SKIPPED
    assert same_check.detail == ("not run: this check's calls already waited more than "
                                 "0.6 s in all without computing")
    assert next_check.failure is None and next_check.value == 0.01, next_check
    assert "w.busy" not in student.broken


def test_a_child_restarted_in_a_check_that_waited_imports_on_its_own_allowance(tmp_path):
    """A check's calls waited 0.5 of its 0.6 s, then the child died; the new child's
    import waits 0.2 s (under the 0.6 s an import may). It imports: the check's earlier
    waiting is not the import's (it was, and a restart under load made the whole
    submission an import error). The import's waiting still counts for the check."""
    code = CODE + "\nimport os\ntime.sleep(0.2)\n\ndef dies():\n    os._exit(3)\n"
    student = student_with(tmp_path, code, wait=0.3, check_wait=0.6)
    try:
        assert student.importable is None
        student.start_check()
        naps = [student.call("w.nap", 0.25) for _ in range(2)]
        died = student.call("w.dies")
        after = student.call("w.busy", 0.01)
        student.start_check()
        next_check = student.call("w.busy", 0.01)
    finally:
        student.close()
    assert [o.failure for o in naps] == [None, None]
    assert died.failure == Failure.CRASH, died
    assert student.import_failure is None
    assert after.failure == Failure.SKIPPED and "not run" in after.detail, after
    assert next_check.failure is None and next_check.value == 0.01, next_check


@pytest.mark.slow
@pytest.mark.parametrize("busy_loops", [0, 8])
def test_a_sleep_is_measured_whole_however_often_the_grader_wakes_and_however_busy(
        scratch, busy_loops):
    """Four naps of 0.8 s under a CPU limit of 0.03 s a call: the grader wakes every
    15 ms to read the child's clocks. Those wake-ups are the grader's own: the CPU it
    waits for after each one is not the child waiting for the grader. They counted so
    (2.96 s of 3.2 s measured with the grader, the child and eight busy loops on one
    CPU, 3.16 s quiet), and a sleeper got more calls for its allowance under load than
    quiet. Counting only the ready time of each wake-up left 3.04 s under CI's load;
    with all the grader's polling its own, 3.18 s both ways."""
    cpu = min(os.sched_getaffinity(0))
    kept = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(busy_loops)]
        try:
            with sandbox_for(scratch, call=5.0, check=50.0) as box:
                box.import_modules(5)
                box.new_check()
                naps = [box.call("w.nap", (0.8,), timeout=0.03) for _ in range(4)]
        finally:
            for process in busy:
                process.kill()
                process.wait()
    finally:
        os.sched_setaffinity(0, kept)
    assert [o.value for o in naps] == [0.8] * 4, naps
    assert 3.2 * 0.95 <= box.waited <= 3.2 * 1.1, box.waited
