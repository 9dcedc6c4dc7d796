"""Grading on a real Dask cluster gives byte for byte the grades.csv of local grading.

Starts `dask scheduler` and two `dask worker` processes on localhost (each worker
one thread, in a PID namespace of its own, since it runs student code), grades the
same tic-tac-toe submissions with --scheduler and locally, and compares grades.csv
byte for byte and the feedback of each student. Then kills a cluster run's client
halfway and runs it again: it resumes from OUT, grading again only the student who
resubmitted meanwhile.
The same cluster (one per module: starting it is the expensive part) grades an
nbgrader course's collected notebooks (`grade-collected --scheduler`) and a few
mutants (`mutate --scheduler`), each compared with the same work done locally.
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
# Full marks, one kind of wrong, one that does not parse and one without its file:
# few, so that the test stays cheap; four submissions on two workers are two tasks.
STUDENTS = ["ada_alphabeta", "eve_no_antidiagonal",
            "frank_syntax_error", "ken_missing"]


def free_port() -> int:
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two single-thread workers on 127.0.0.1, shared by the module."""
    pytest.importorskip("distributed")
    with pytest.MonkeyPatch.context() as monkeypatch:
        # one pinned time scale for every process: no calibration per task (limits are
        # CPU time, so the verdicts do not depend on it)
        monkeypatch.setenv("SPIELBAUM_TIME_SCALE", "1")
        yield from _cluster(tmp_path_factory.mktemp("dask-logs"))


def _cluster(logs: Path):
    address = f"tcp://127.0.0.1:{free_port()}"
    started = []

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


@pytest.fixture(scope="module")
def local(tmp_path_factory, cluster):
    """STUDENTS graded locally (with the cluster's pinned time scale): the baseline."""
    base = tmp_path_factory.mktemp("local")
    subs = base / "subs"
    for student in STUDENTS:
        shutil.copytree(ROOT / "examples" / "tictactoe" / student, subs / student)
    grade(subs, base / "out")
    return subs, base / "out"


def grades_by_student(path: Path) -> dict[str, str]:
    """Each student's line of a grades.csv, as written."""
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    return {line.split(",", 1)[0]: line for line in lines}


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


def test_a_dask_cluster_grades_exactly_as_the_local_pool_and_resumes(tmp_path, cluster, local):
    subs, local_out = local
    grade(subs, tmp_path / "cluster", "--scheduler", cluster)
    local = (local_out / "grades.csv").read_bytes()
    assert (tmp_path / "cluster" / "grades.csv").read_bytes() == local
    ran = json.loads((tmp_path / "cluster" / "run.json").read_text())
    assert ran["reference_check"] == "on each worker"
    for student in STUDENTS:
        assert feedback(tmp_path / "cluster", student) == feedback(local_out, student)
        # The behavioural fingerprint (for `similarity`) comes back from the worker
        # too, recorded from the same modules as locally.
        local_print = local_out / student / "fingerprint.json"
        cluster_print = tmp_path / "cluster" / student / "fingerprint.json"
        assert local_print.is_file() == cluster_print.is_file(), student
        if local_print.is_file():
            assert json.loads(cluster_print.read_text())["modules"] == \
                json.loads(local_print.read_text())["modules"]
    assert (tmp_path / "cluster" / "ada_alphabeta" / "fingerprint.json").is_file()

    # A client killed halfway resumes: the students already graded are not sent to
    # the cluster again, unless they handed in other code meanwhile (the journal
    # keeps a digest of each submission): one of them resubmits ada's module and
    # gets ada's grade; everyone else's line is local grading's.
    out = tmp_path / "resumed"
    run = subprocess.Popen(grade_command(subs, out, "--scheduler", cluster), cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    # The journal is a header, then one line per row: ken (no file) is graded by the
    # client at once, the cluster's rows come a chunk at a time ([ada, eve] and
    # [frank]). Kill as soon as one chunk is in: waiting for more would wait for the
    # last chunk, and the client could end by itself before the kill.
    journal = out / ".grading.jsonl"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and run.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass    # every chunk came in before the kill: the resume below still holds
    run.wait(timeout=30)
    # whole lines only: the kill may have torn the last one
    finished = [json.loads(line)["key"]
                for line in journal.read_text().split("\n")[1:-1]]
    assert len(finished) >= 2, "the killed run finished nothing: kill it later"
    resubmitter = next(s for s in finished if s != "ada_alphabeta")
    again = shutil.copytree(subs, tmp_path / "resubmitted")
    (again / resubmitter).mkdir(exist_ok=True)
    shutil.copyfile(subs / "ada_alphabeta" / "tictactoe.py",
                    again / resubmitter / "tictactoe.py")
    done = subprocess.run(grade_command(again, out, "--scheduler", cluster), cwd=ROOT,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"resuming: {len(finished) - 1} already graded" in done.stderr, done.stderr[-2000:]
    expected = grades_by_student(local_out / "grades.csv")
    expected[resubmitter] = expected["ada_alphabeta"].replace("ada_alphabeta", resubmitter, 1)
    assert grades_by_student(out / "grades.csv") == expected
    assert expected[resubmitter] != grades_by_student(local_out / "grades.csv")[resubmitter]


@pytest.mark.exhaustive     # make test-all: two more gradings (CI's budget)
def test_the_workers_speak_the_clients_language(tmp_path, cluster):
    """`--lang de` reaches the workers with the chunks: their own environment (English
    here) does not choose the words of the rows and the feedback."""
    subs = tmp_path / "subs"
    for student in ("eve_no_antidiagonal", "ken_missing"):
        shutil.copytree(ROOT / "examples" / "tictactoe" / student, subs / student)
    grade(subs, tmp_path / "local", "--lang", "de")
    grade(subs, tmp_path / "cluster", "--lang", "de", "--scheduler", cluster)
    assert (tmp_path / "cluster" / "grades.csv").read_bytes() == \
        (tmp_path / "local" / "grades.csv").read_bytes()
    german = feedback(tmp_path / "cluster", "eve_no_antidiagonal")
    assert german == feedback(tmp_path / "local", "eve_no_antidiagonal")
    assert any("Aufruf: winner(board)" in output for _, _, output in german["tests"]), german


# Two kinds of grade, handed in through nbgrader (one per worker).
NBGRADER_STUDENTS = ["ada_alphabeta", "eve_no_antidiagonal"]


@pytest.mark.exhaustive     # make test-all: CI's budget has no room (the grade test above covers the cluster)
def test_grade_collected_on_the_cluster_records_what_local_grading_gives(tmp_path, cluster,
                                                                         local):
    """`grade-collected --scheduler`: a real nbgrader course (release, fetch, submit,
    collect) graded on the cluster; the kit's grades.csv has each student's line of
    local grading, and the gradebook holds the same scores."""
    pytest.importorskip("nbgrader")
    done = subprocess.run(in_pid_namespace(
        [sys.executable, "-m", "tests.nbgrader.scenario", "cluster", str(tmp_path), cluster,
         *NBGRADER_STUDENTS]), cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert "Dask" in outcome["said"], outcome["said"][-2000:]
    expected = grades_by_student(local[1] / "grades.csv")
    on_cluster = grades_by_student(Path(outcome["grades"]))
    assert on_cluster == {student: expected[student] for student in NBGRADER_STUDENTS}
    scores = {line.split(",")[0]: float(line.split(",")[1]) for line in on_cluster.values()}
    assert outcome["exported"] == scores
    assert scores["ada_alphabeta"] > scores["eve_no_antidiagonal"] > 0


def mutation_rows(out: Path) -> list[dict]:
    """mutation.csv without the seconds each mutant took."""
    import csv
    with (out / "mutation.csv").open(encoding="utf-8") as handle:
        return [{k: v for k, v in row.items() if k != "seconds"}
                for row in csv.DictReader(handle)]


@pytest.mark.exhaustive     # make test-all: CI's budget has no room (the grade test above covers the cluster)
def test_mutate_on_the_cluster_gives_the_local_verdicts(tmp_path, cluster):
    """`mutate --scheduler`: the same sample of mutants, the same verdicts and the
    same first failed check as local mutation analysis."""
    def mutate(out: Path, *extra: str) -> str:
        done = subprocess.run(in_pid_namespace(
            [sys.executable, "-m", "autograder", "mutate", "tictactoe", "--count", "3",
             "--jobs", "2", "--out", str(out), *extra]),
            cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done.stderr
    mutate(tmp_path / "local")
    said = mutate(tmp_path / "cluster", "--scheduler", cluster)
    assert "Dask" in said, said[-2000:]
    rows = mutation_rows(tmp_path / "local")
    assert len(rows) == 3 and any(row["status"] == "killed" for row in rows), rows
    assert mutation_rows(tmp_path / "cluster") == rows

    # What a client killed after its first verdict leaves: the settings, one verdict
    # and half of the next line. The next run grades only the other two.
    journal = tmp_path / "cluster" / ".mutation.jsonl"
    settings, first, second, *_ = journal.read_text().splitlines()
    journal.write_text(f"{settings}\n{first}\n{second[:len(second) // 2]}")
    (tmp_path / "cluster" / "mutation.csv").unlink()
    said = mutate(tmp_path / "cluster", "--scheduler", cluster)
    assert "resuming: 1 of 3 mutants already graded" in said, said[-2000:]
    assert mutation_rows(tmp_path / "cluster") == rows
    assert len(journal.read_text().splitlines()) == 4


def test_a_journal_keeps_what_a_killed_run_finished_and_nothing_torn(tmp_path):
    """The file a killed client resumes from (grade and mutate --scheduler)."""
    from autograder.grading.journal import Journal
    path = tmp_path / "out" / ".run.jsonl"
    settings = {"assignment": "tictactoe", "digest": "abc"}
    journal = Journal(path, settings).start(keep=False)
    journal.add({"row": 1})
    journal.add({"row": 2})
    journal.close()
    path.write_text(path.read_text() + '{"row": 3, "cut')          # the kill, mid-line
    assert Journal(path, settings).entries() == [{"row": 1}, {"row": 2}]
    assert Journal(path, {**settings, "digest": "other"}).entries() == []
    resumed = Journal(path, settings).start(keep=True)
    resumed.add({"row": 4})
    resumed.close()
    assert Journal(path, settings).entries() == [{"row": 1}, {"row": 2}, {"row": 4}]
    Journal(path, settings).start(keep=False).close()
    assert Journal(path, settings).entries() == []
    path.write_text("not json\n")
    assert Journal(path, settings).entries() == []
