"""Grading on a real Dask cluster gives byte for byte the grades.csv of local grading.

Starts `dask scheduler` and two `dask worker` processes on localhost (each worker
one thread, in a PID namespace of its own, since it runs student code), grades the
same tic-tac-toe submissions with --scheduler and locally, and compares grades.csv
byte for byte and the feedback of each student. Then kills a cluster run's client
halfway and runs it again: it resumes from OUT and ends with the same grades.csv.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, in_pid_namespace

pytestmark = [pytest.mark.slow, pytest.mark.hostile]
DASK = Path(sys.executable).with_name("dask")
# Full marks, two kinds of wrong, one that does not parse and one without its file:
# few, so that the test stays cheap; four submissions on two workers are two tasks.
STUDENTS = ["ada_alphabeta", "carol_shallow_copy", "eve_no_antidiagonal",
            "frank_syntax_error", "ken_missing"]


def free_port() -> int:
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    """A scheduler and two single-thread workers on 127.0.0.1."""
    pytest.importorskip("distributed")
    # one pinned time scale for every process: no calibration per task (limits are CPU
    # time, so the verdicts do not depend on it)
    monkeypatch.setenv("SPIELBAUM_TIME_SCALE", "1")
    address = f"tcp://127.0.0.1:{free_port()}"
    started = []
    logs = tmp_path / "dask-logs"
    logs.mkdir()

    def launch(name, command):
        log = (logs / f"{name}.log").open("w")
        started.append(subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True))

    try:
        launch("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port",
                             address.rsplit(":", 1)[1], "--no-dashboard"])
        for number in (1, 2):
            launch(f"worker{number}", in_pid_namespace(
                [str(DASK), "worker", address, "--nthreads", "1", "--no-dashboard",
                 "--name", f"worker{number}"]))
        from distributed import Client
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for process in reversed(started):
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def grade_command(subs: Path, out: Path, *extra: str) -> list[str]:
    return in_pid_namespace([sys.executable, "-m", "autograder", "grade", "tictactoe",
                             str(subs), "--out", str(out), "--jobs", "2", *extra])


def grade(subs: Path, out: Path, *extra: str) -> None:
    done = subprocess.run(grade_command(subs, out, *extra), cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def feedback(out: Path, student: str) -> dict:
    results = json.loads((out / student / "results.json").read_text())
    return {"score": results["score"],
            "tests": [(t["number"], t["status"], t["output"]) for t in results["tests"]]}


def test_a_dask_cluster_grades_exactly_as_the_local_pool_and_resumes(tmp_path, cluster):
    subs = tmp_path / "subs"
    for student in STUDENTS:
        shutil.copytree(ROOT / "examples" / "tictactoe" / student, subs / student)
    grade(subs, tmp_path / "local")
    grade(subs, tmp_path / "cluster", "--scheduler", cluster)
    local = (tmp_path / "local" / "grades.csv").read_bytes()
    assert (tmp_path / "cluster" / "grades.csv").read_bytes() == local
    for student in STUDENTS:
        assert feedback(tmp_path / "cluster", student) == feedback(tmp_path / "local", student)
        # The behavioural fingerprint (for `similarity`) comes back from the worker
        # too, recorded from the same modules as locally.
        local_print = tmp_path / "local" / student / "fingerprint.json"
        cluster_print = tmp_path / "cluster" / student / "fingerprint.json"
        assert local_print.is_file() == cluster_print.is_file(), student
        if local_print.is_file():
            assert json.loads(cluster_print.read_text())["modules"] == \
                json.loads(local_print.read_text())["modules"]
    assert (tmp_path / "cluster" / "ada_alphabeta" / "fingerprint.json").is_file()

    # A client killed halfway resumes: the same grades.csv, and the students already
    # graded are not sent to the cluster again.
    out = tmp_path / "resumed"
    run = subprocess.Popen(grade_command(subs, out, "--scheduler", cluster), cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    journal = out / ".grading.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and run.poll() is None:
        if journal.exists() and len(journal.read_text().splitlines()) >= 4:
            break
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=30)
    before = len(journal.read_text().splitlines()) - 1
    assert before >= 3, "the killed run finished nothing: kill it later"
    done = subprocess.run(grade_command(subs, out, "--scheduler", cluster), cwd=ROOT,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"resuming: {before} already graded" in done.stderr, done.stderr[-2000:]
    assert (out / "grades.csv").read_bytes() == local
