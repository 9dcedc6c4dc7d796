"""The `autograder similarity` subcommand (docs/SIMILARITY.md), and `grade --similarity`."""

from __future__ import annotations

import os

from . import FLOOR

BOILERPLATE_HELP = ("starting code students shared (a .py file or a folder of them; "
                    "repeatable); it never counts")


def add_command(commands) -> None:
    similar = commands.add_parser("similarity", help="find copied submissions in a batch")
    similar.add_argument("assignment")
    similar.add_argument("submissions", help="one folder per student, named by student id")
    similar.add_argument("--out", required=True,
                         help="where similarity.csv and similarity.html go")
    similar.add_argument("--floor", type=float, default=FLOOR,
                         help=f"report pairs whose score reaches this (0 to 1, default {FLOOR})")
    similar.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                         help="processes comparing at once (default: number of cores)")
    similar.add_argument("--boilerplate", action="append", default=[], metavar="PATH",
                         help=BOILERPLATE_HELP)
    similar.set_defaults(run=run)
    # `grade --similarity`: the report after grading, into the same --out.
    grade = commands.choices.get("grade")
    if grade is not None:
        grade.add_argument("--similarity", action="append_const", const=run, dest="then",
                           help="also write the similarity report into --out")
        grade.add_argument("--boilerplate", action="append", default=[], metavar="PATH",
                           help=f"with --similarity: {BOILERPLATE_HELP}")


def run(args) -> int:
    """Compare the batch, write similarity.csv and similarity.html into --out."""
    from pathlib import Path

    from . import report
    from .run import analyse
    out_dir = Path(args.out)
    result = analyse(args.assignment, Path(args.submissions), getattr(args, "floor", FLOOR),
                     args.jobs, getattr(args, "boilerplate", None) or [], out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = report.write_csv(out_dir, result)
    html_path = report.write_html(out_dir, result)
    print(report.summary(result))
    print(f"report in {html_path} (open it in a browser); pairs in {csv_path}")
    return 0
