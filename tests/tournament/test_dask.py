"""Games on a real Dask cluster give the same tournament as the local pool.

Starts `dask scheduler` and two `dask worker` processes on localhost (each worker
one thread, so one game at a time, in its own sandbox), runs the same tournament
with --scheduler and with the local pool, and compares moves, results and
standings. The players search a fixed depth, so equal means equal.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

from . import helpers
from .test_resume import moves_and_results

ARGS = ("--depth", "2", "--move-time", "2", "--round-robin", "--seed", "3",
        "--bundled", "random,reference-2")
DASK = Path(sys.executable).with_name("dask")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_workers(address: str, count: int, timeout: float = 60) -> None:
    from distributed import Client
    with Client(address, timeout=timeout) as client:
        client.wait_for_workers(count, timeout=timeout)


@pytest.fixture
def cluster(tmp_path):
    """A scheduler and two workers on 127.0.0.1; stopped (by their own process
    groups) when the test ends."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    started = []
    logs = tmp_path / "dask-logs"
    logs.mkdir()

    def launch(name, *args):
        log = (logs / f"{name}.log").open("w")
        started.append(subprocess.Popen([str(DASK), *args], cwd=ROOT, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True))

    try:
        launch("scheduler", "scheduler", "--host", "127.0.0.1", "--port", str(port),
               "--no-dashboard")
        for number in (1, 2):
            launch(f"worker{number}", "worker", address, "--nthreads", "1", "--no-dashboard",
                   "--name", f"worker{number}")
        wait_for_workers(address, 2)
        yield address, [p.pid for p in started[1:]]
    finally:
        for process in reversed(started):
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.mark.slow
def test_a_dask_cluster_plays_the_same_tournament_as_the_local_pool(tmp_path, cluster):
    address, _ = cluster
    subs = helpers.submissions(tmp_path / "subs", "connect4", ["ada_reference", "dan_off_by_one"])
    started = time.monotonic()
    on_dask = helpers.run("connect4", subs, tmp_path / "dask", *ARGS, "--scheduler", address)
    assert "Dask cluster at " + address in " ".join(on_dask.stderr.split())
    helpers.run("connect4", subs, tmp_path / "local", *ARGS, "--jobs", "2")
    assert moves_and_results(tmp_path / "dask") == moves_and_results(tmp_path / "local")
    assert helpers.standings(tmp_path / "dask") == helpers.standings(tmp_path / "local")
    # The games really ran on the workers, both of them, each with the full sandbox.
    dask_games = helpers.games(tmp_path / "dask")
    local_games = helpers.games(tmp_path / "local")
    workers = {g["worker"] for g in dask_games}
    assert len(workers) == 2 and not workers & {g["worker"] for g in local_games}
    assert {tuple(g["sandbox"]) for g in dask_games} == {tuple(g["sandbox"])
                                                         for g in local_games}
    assert time.monotonic() - started < 300
