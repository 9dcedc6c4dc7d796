"""The `tournament` subcommand's arguments (kept light: the CLI imports this at start)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def add_command(commands) -> None:
    """The `tournament` subcommand (autograder/cli.py registers it)."""
    parser = commands.add_parser("tournament", help="play every student's player against "
                                                    "the others")
    parser.add_argument("assignment")
    parser.add_argument("submissions", help="one folder per student, named by student id")
    parser.add_argument("--out", required=True, type=Path,
                        help="where tournament.html, standings.csv and games.jsonl go; "
                             "holds the journal a killed run resumes from")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="games played at once on this machine (default: cores)")
    parser.add_argument("--move-time", type=float, default=None,
                        help="seconds a player may think per move (default: the "
                             "assignment's, see its assignment.toml)")
    parser.add_argument("--depth", type=int, default=None,
                        help="every player searches exactly this deep instead of "
                             "against the clock: reproducible games")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--swiss", type=int, metavar="ROUNDS",
                       help="Swiss system (no repeats); default above 16 players")
    shape.add_argument("--round-robin", action="store_true",
                       help="everyone against everyone; default up to 16 players")
    parser.add_argument("--seed", type=int, default=1, help="pairings and openings (default 1)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                        help="run the games on this Dask scheduler's workers")
    parser.add_argument("--bundled", default=None,
                        help="comma list of bundled players to enter (default: all; "
                             "'none' for none)")
    parser.add_argument("--unconfined-files", action="store_true",
                        help="play even where no sandbox layer keeps the players away from "
                             "this machine's files (see `autograder doctor`)")
    parser.set_defaults(run=_command)


def _command(args) -> int:
    if args.unconfined_files:
        from ..sandbox.layers import UNCONFINED_FILES
        os.environ[UNCONFINED_FILES] = "1"
    bundled = None
    if args.bundled is not None:
        bundled = [] if args.bundled.strip() == "none" else \
            [n.strip() for n in args.bundled.split(",") if n.strip()]
    from rich.console import Console

    from ..outputs import terminal
    from .run import Options, run
    options = Options(args.assignment, Path(args.submissions), args.out, args.jobs,
                      args.move_time, args.depth, args.swiss, args.round_robin, args.seed,
                      args.scheduler, bundled)
    started = time.perf_counter()
    result = run(options)
    console = Console(width=None if sys.stdout.isatty() else 130)
    console.print(_table(result["standings"], time.perf_counter() - started,
                         result["summary"]["played_now"]))
    console.print(f"standings.csv, games.jsonl and tournament.html in "
                  f"{terminal.markup(options.out)}")
    return 0


def _table(rows, seconds: float, played: int):
    """The standings as a table; every cell is Text (player names are the students'
    folder names: never markup, control characters shown as escapes)."""
    from rich.table import Table

    from ..outputs import terminal
    table = Table(title=f"{played} games played in {seconds:.1f} s")
    for column, justify in (("#", "right"), ("player", "left"), ("points", "right"),
                            ("W-D-L", "right"), ("rating (mu ± sigma)", "right"),
                            ("lost by failure", "left")):
        table.add_column(column, justify=justify, overflow="fold")
    for row in rows:
        failures = ", ".join(f"{kind} {count}" for kind, count in sorted(row.failures.items()))
        table.add_row(*(terminal.text(cell) for cell in (
            row.rank, row.name, f"{row.points:g}", f"{row.wins}-{row.draws}-{row.losses}",
            f"{row.mu:.1f} ± {row.sigma:.1f}", failures)))
    return table
