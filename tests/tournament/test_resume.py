"""Killed with SIGKILL halfway, started again: the tournament finishes without
replaying a finished game, and ends exactly like a run that was never killed.

Real runs of `autograder tournament` in a PID namespace (killing the namespace's
first process kills everything in it, workers and sandboxes included). Players
search a fixed depth, so games are the same on every run; the test also shows
that: an uninterrupted run with the same seed has the same moves and standings.
"""

from __future__ import annotations

import collections
import signal
import subprocess
import time

import pytest

from autograder.grading.journal import Journal
from tests.conftest import ROOT

from . import helpers

ARGS = ("--depth", "2", "--move-time", "2", "--round-robin", "--seed", "7", "--jobs", "2",
        "--bundled", "random,greedy,reference-2")
TOTAL = 30                      # 6 players: 15 pairings, colours swapped


def entries(out) -> list[dict]:
    """The entries of the tournament's journal (its settings left out)."""
    return Journal(out / "tournament.jsonl", {}).read()[1:]


def stored(out) -> int:
    return sum("game" in entry for entry in entries(out))


def moves_and_results(out) -> list:
    return [(g["game"], g["players"], g["opening"], [m["move"] for m in g["moves"]],
             g["result"], g["reason"]) for g in helpers.games(out)]


@pytest.mark.slow
@pytest.mark.hostile
def test_killed_tournament_resumes_without_replaying_and_ends_the_same(tmp_path):
    subs = helpers.submissions(tmp_path / "subs", "connect4",
                               ["ada_reference", "bob_no_pruning", "dan_off_by_one"])
    out = tmp_path / "killed"
    first = subprocess.Popen(helpers.command("connect4", subs, out, *ARGS), cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while stored(out) < 8 and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert first.poll() is None, "the tournament ended before it could be killed"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    time.sleep(0.5)
    killed_at = stored(out)
    assert 8 <= killed_at < TOTAL
    assert not (out / "standings.csv").exists()

    resumed = helpers.run("connect4", subs, out, *ARGS)
    assert f"resuming: {killed_at} games already played" in " ".join(resumed.stderr.split())
    games = collections.Counter(e["session"] for e in entries(out) if "game" in e)
    assert sum("started" in entry for entry in entries(out)) == 2       # two sessions
    assert games == {1: killed_at, 2: TOTAL - killed_at}        # nothing played twice

    straight = tmp_path / "straight"
    helpers.run("connect4", subs, straight, *ARGS)
    assert helpers.standings(out) == helpers.standings(straight)
    assert moves_and_results(out) == moves_and_results(straight)
    assert len(helpers.games(out)) == TOTAL
