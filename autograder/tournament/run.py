"""`autograder tournament`: pair, play (resumably), rate, report.

Games (`game.play`) run in workers, local or on a Dask cluster (grading/workers.py),
and come back as plain records, each stored the moment it arrives (store.py). The
schedule is fixed by the seed and ratings are computed in schedule order, so players
that search to a fixed depth get the same standings however the games ran.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from .. import KitError, assignment as assignments
from ..grading.grader import Grader
from ..grading.workers import Dask, Local
from ..outputs import terminal
from . import entrants as entrants_module
from . import game, manifest, pairing, ratings, report
from .game import referee_digest
from .store import Store

#: Seconds on top of the move time before a player is stopped (the last search
#: step, the pipe, a busy machine); scaled by the machine's measured speed.
GRACE = 0.5
CPU_SECONDS = 3600          # a player's CPU time over one whole game: a backstop only
GAME_SECONDS = 2 * CPU_SECONDS + 600    # a game's wall time, for a local worker: the same


@dataclass
class Options:
    assignment: str
    submissions: Path
    out: Path
    jobs: int = 1
    move_time: float | None = None
    depth: int | None = None
    swiss: int | None = None         # rounds; None with round_robin False: chosen by size
    round_robin: bool = False
    seed: int = 1
    scheduler: str | None = None
    bundled: list[str] | None = None  # None: every bundled player; []: none


def run(options: Options, console: Console | None = None) -> dict:
    console = console or Console(stderr=True)
    assignment = assignments.load(options.assignment)
    config = manifest.load(assignment)
    referee = config.load_referee()
    grader = Grader(assignment)               # the sandbox layers and time scale, checked once
    players = entrants_module.bundled(assignment, config, options.bundled)
    students, left_out = entrants_module.students(assignment, config, options.submissions,
                                                  options.depth)
    players += students
    if len(players) < 2:
        raise KitError(_too_few(players, left_out))
    by_name = {p.name: p for p in players}
    names = [p.name for p in players]
    grader.require_layers()
    move_time = options.move_time if options.move_time is not None else config.move_time
    if move_time <= 0:
        raise KitError("--move-time must be positive")
    scale = grader.scale
    timing = {"move_time": move_time, "hard": round(move_time + max(GRACE, move_time) * scale, 3),
              "imports": round(5.0 * scale, 3), "memory_mb": grader.limits.memory_bytes >> 20,
              "cpu_seconds": CPU_SECONDS}
    swiss = _format(options, len(players))
    settings = {"assignment": assignment.name, "seed": options.seed,
                "format": "round robin" if swiss is None else f"swiss {swiss}",
                "move_time": move_time, "depth": options.depth,
                "players": {p.name: p.digest for p in players},
                "referee": referee_digest(config.referee)}
    store = Store(options.out)
    try:
        already = store.begin(settings)
        pool = _workers(options.jobs, options.scheduler)
        shape = "round robin" if swiss is None else f"Swiss, {swiss} rounds"
        console.print(f"Tournament of {assignment.name}: {len(players)} players ({shape}, "
                      f"colours swapped), {_clock(move_time, options.depth, players)}, seed "
                      f"{options.seed}; games run on {pool.where}; sandbox: "
                      f"{', '.join(grader.layers) or 'none'}"
                      + (f"; resuming: {already} games already played" if already else ""))
        for name, why in left_out.items():
            console.print(f"  not entered: {terminal.markup(name)}: {terminal.markup(why)}")
        base = {"referee": config.referee, "referee_digest": settings["referee"],
                "required_layers": list(grader.rubric.required), "timing": timing,
                "session": store.session}
        try:
            if swiss is None:
                _play_round_robin(store, pool, referee, names, by_name, base, options, console)
            else:
                _play_swiss(store, pool, referee, names, by_name, base, options, swiss,
                            console)
        finally:
            pool.close()
        games = store.games()
        pairings = store.pairings()
        bye_points = 0.0 if swiss is None else 2.0
        byes = [(p.a, bye_points) for p in pairings if p.b is None]
        table = ratings.standings(names, {p.name for p in players if p.bundled}, games, byes)
        summary = {"assignment": assignment.name, "title": assignment.title, "settings": settings,
                   "shape": shape, "clock": _clock(move_time, options.depth, players),
                   "left_out": left_out, "played_now": store.count() - already,
                   "sessions": store.session}
        report.write(options.out, referee, summary, table, games, pairings)
        return {"standings": table, "games": games, "summary": summary}
    finally:
        store.close()


def _workers(jobs: int, scheduler: str | None):
    """Where the games run: the Dask cluster at `scheduler`, or `jobs` local workers
    forked after the sandbox probe."""
    if scheduler:
        return Dask(scheduler, game.play, key=lambda task: "game-" + "-".join(
            map(str, task[0]["key"])) + f"-{task[0]['session']}")
    if jobs < 1:
        raise KitError("--jobs must be at least 1")
    return Local(jobs, game.play, ceiling=GAME_SECONDS, lost=_lost)


def _lost(task, reason: str):
    """A game whose local worker died, hung or failed stops the tournament; the games
    stored so far stay (run the same command again to play the rest)."""
    raise KitError(f"game {task[0]['key']} could not be played: "
                   f"{reason.strip().splitlines()[-1]}")


def _too_few(players: list, left_out: dict[str, str]) -> str:
    """The one line for fewer than two players: who plays, and why the others do
    not (the reasons the tournament would otherwise print before its games)."""
    entered = ", ".join(terminal.plain(p.name) for p in players) or "nobody"
    why = "; ".join(f"{terminal.plain(name)}: {terminal.plain(reason)}"
                    for name, reason in list(left_out.items())[:5])
    more = f"; and {len(left_out) - 5} more" if len(left_out) > 5 else ""
    return (f"a tournament needs at least two players; entered: {entered}"
            + (f"; not entered: {why}{more}" if why else ""))


def _format(options: Options, count: int) -> int | None:
    """Swiss rounds, or None for a round robin (the default up to 16 players)."""
    if options.round_robin and options.swiss:
        raise KitError("choose --swiss ROUNDS or --round-robin, not both")
    if options.round_robin:
        return None
    if options.swiss is not None:
        if not 1 <= options.swiss <= count - 1:
            raise KitError(f"--swiss needs 1 to {count - 1} rounds for {count} players")
        return options.swiss
    return None if count <= 16 else pairing.default_rounds(count)


def _clock(move_time: float, depth: int | None, players=()) -> str:
    """How the players search, as the page's header and the first line say it: the
    students' depth (or the clock), and each bundled player's own depth or rule."""
    fixed = [f"{p.name} {p.depth} deep" for p in players if p.bundled and p.depth is not None]
    ruled = [p.name for p in players if p.bundled and p.depth is None]
    bundled = "; ".join(filter(None, [
        ", ".join(fixed),
        f"{', '.join(ruled)} by {'its' if len(ruled) == 1 else 'their'} own rule"
        if ruled else ""]))
    bundled = f" (bundled: {bundled})" if bundled else ""
    if depth is not None:
        return (f"the students' players search {depth} deep{bundled}, each move within "
                f"{move_time:g} s")
    return f"{move_time:g} s per move{bundled}"


def _specs(pairings, played, by_name, base) -> list[dict]:
    specs = []
    for p in pairings:
        for leg, (first, second) in enumerate(p.legs):
            if (p.round, p.slot, leg) in played:
                continue
            specs.append(dict(base, key=[p.round, p.slot, leg], opening=list(p.opening),
                              players=[by_name[first].as_spec(), by_name[second].as_spec()]))
    return specs


def _play(store, pool, specs, total, console) -> None:
    """Run `specs`, storing each record the moment it arrives."""
    progress = terminal.progress(console)
    with progress:
        task = progress.add_task("games", total=total, completed=total - len(specs))
        try:
            for record in pool.run([(spec,) for spec in specs]):
                store.save_game(record)
                progress.advance(task)
        except KeyboardInterrupt:
            console.print(f"interrupted: {store.count()} games are saved; run the same "
                          "command again to play the rest")
            raise


def _play_round_robin(store, pool, referee, names, by_name, base, options, console):
    pairings = store.pairings()
    if not pairings:
        order = list(names)
        random.Random(f"{options.seed}/order").shuffle(order)
        pairings = [made for round_, pairs in enumerate(pairing.round_robin(order), 1)
                    for made in pairing.paired(referee, options.seed, round_, pairs)]
        store.save_pairings(pairings)
    total = sum(len(p.legs) for p in pairings)
    _play(store, pool, _specs(pairings, store.played(), by_name, base), total, console)


def _play_swiss(store, pool, referee, names, by_name, base, options, rounds, console):
    total = rounds * (len(names) // 2) * 2
    for round_ in range(1, rounds + 1):
        pairings = store.pairings(round_)
        if not pairings:
            points, met, had_bye = _so_far(store)
            pairs = pairing.swiss_round(names, points, met, had_bye,
                                        random.Random(f"{options.seed}/swiss/{round_}"))
            pairings = pairing.paired(referee, options.seed, round_, pairs)
            store.save_pairings(pairings)
        specs = _specs(pairings, store.played(), by_name, base)
        console.print(f"round {round_} of {rounds}: {len(specs)} games to play")
        if specs:
            _play(store, pool, specs, total, console)


def _so_far(store):
    """Points, pairs that met, and players who had a bye, from the games stored."""
    points: dict[str, float] = {}
    met, had_bye = set(), set()
    for p in store.pairings():
        if p.b is None:
            had_bye.add(p.a)
            points[p.a] = points.get(p.a, 0.0) + 2.0
        else:
            met.add(frozenset((p.a, p.b)))
    for record in store.games():
        if record["score"] is None:
            continue
        first, second = record["players"]
        points[first] = points.get(first, 0.0) + record["score"]
        points[second] = points.get(second, 0.0) + 1.0 - record["score"]
    return points, met, had_bye
