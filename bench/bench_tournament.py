"""Benchmark class tournaments (autograder tournament, docs/TOURNAMENT.md).

Reports, all measured in this one run:
- games per minute: 8 players, round robin Connect 4 (56 games), 0.2 s per move,
  with --jobs 2 against the baseline --jobs 1 (ratio);
- the referee's own cost per move (checking the answer, applying it, asking whether
  the game is over) on the moves of those games, against the players' mean thinking
  time per move (target: at most 2 ms on top of it); the same for Nine Men's Morris
  on games of the bundled players (the referee does more there: every legal
  successor is generated to judge an answer);
- the engine's overhead per move inside a game (the game's wall time minus the
  players' thinking and the start of its two sandboxes, per move), and the start.

The 8 players: four example students playing against the clock (their own
iterative deepening receives the budget) and the four bundled players.

Usage: python bench/bench_tournament.py [--move-time S]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from autograder import ROOT

STUDENTS = ["ada_reference", "bob_no_pruning", "dan_off_by_one", "heidi_losing_book"]


def tournament(subs: Path, out: Path, jobs: int, move_time: float) -> tuple[float, list]:
    """(wall seconds, game records) of one run of the command, as a teacher runs it."""
    command = [sys.executable, "-m", "autograder", "tournament", "connect4", str(subs),
               "--out", str(out), "--round-robin", "--move-time", str(move_time),
               "--jobs", str(jobs), "--seed", "1"]
    if shutil.which("unshare"):
        command = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", *command]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the tournament failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    return seconds, games


def referee_cost(referee, games_moves) -> float:
    """Mean seconds per move of check + play + result, replaying recorded answers."""
    spent = moves = 0
    for opening, answers in games_moves:
        game = referee.Game(opening)
        for answer in answers:
            started = time.perf_counter()
            assert game.check(answer) is None
            game.play(answer)
            game.result()
            spent += time.perf_counter() - started
            moves += 1
    return spent / moves


def connect4_answers(games: list) -> list:
    """(opening, the successor states the players answered) of every finished game."""
    found = []
    for game in games:
        state = list(game["opening"])
        answers = []
        for move in game["moves"]:
            state = state + [move["move"]]
            answers.append(list(state))
        found.append((game["opening"], answers))
    return found


def muehle_answers(count: int = 20) -> list:
    """Games of the bundled random and greedy players (their answers, list form)."""
    from autograder.suites.muehle import referee
    from tests.conftest import load_module
    duel = load_module("_bench_duel", ROOT / "solutions" / "muehle" / "duel.py")
    found = []
    for number in range(count):
        opening = referee.opening(random.Random(number))
        game = referee.Game(opening)
        answers = []
        while game.result() is None:
            state, player = game.question()["position"], game.question()["player"]
            mover = duel.greedy_move if len(answers) % 2 else duel.random_move
            answer = mover(state, player)
            answers.append(answer)
            game.play(answer)
        found.append((opening, answers))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--move-time", type=float, default=0.2)
    options = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as scratch:
        scratch = Path(scratch)
        subs = scratch / "subs"
        for name in STUDENTS:
            shutil.copytree(ROOT / "examples" / "connect4" / name, subs / name)
        one, games = tournament(subs, scratch / "jobs1", 1, options.move_time)
        two, games_two = tournament(subs, scratch / "jobs2", 2, options.move_time)
    per_minute = {1: 60 * len(games) / one, 2: 60 * len(games_two) / two}
    moves = [m for g in games for m in g["moves"]]
    thinking = statistics.mean(m["seconds"] for m in moves)
    starts = statistics.mean(g["start_seconds"] for g in games)
    overhead = statistics.mean((g["seconds"] - g["start_seconds"]
                                - sum(m["seconds"] for m in g["moves"]))
                               / max(1, len(g["moves"])) for g in games)

    from autograder.suites.connect4 import referee as connect4
    from autograder.suites.muehle import referee as muehle
    c4_cost = referee_cost(connect4, connect4_answers(games))
    mm_cost = referee_cost(muehle, muehle_answers())

    table = Table(title=f"Tournament: 8 players, round robin Connect 4, "
                        f"{options.move_time:g} s per move")
    for column in ("what", "measured", "baseline, same run", "target"):
        table.add_column(column)
    table.add_row("games per minute, --jobs 2", f"{per_minute[2]:.1f} ({len(games_two)} games "
                  f"in {two:.0f} s)", f"--jobs 1: {per_minute[1]:.1f} ({one:.0f} s); "
                  f"{per_minute[2] / per_minute[1]:.2f}x", "")
    table.add_row("referee per move, Connect 4", f"{c4_cost * 1e3:.3f} ms",
                  f"players think {thinking * 1e3:.0f} ms per move "
                  f"({c4_cost / thinking:.2%})", "<= 2 ms")
    table.add_row("referee per move, Nine Men's Morris", f"{mm_cost * 1e3:.3f} ms",
                  "", "<= 2 ms")
    table.add_row("engine overhead per move (freeze/thaw, plan, record)",
                  f"{overhead * 1e3:.2f} ms", f"{overhead / thinking:.1%} of the thinking", "")
    table.add_row("starting a game's two sandboxes (at once)", f"{starts * 1e3:.0f} ms",
                  f"{starts / (60 / per_minute[1]):.0%} of a game's time at --jobs 1", "")
    console.print(table)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
