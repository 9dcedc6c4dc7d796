"""The `autograder similarity` subcommand (docs/SIMILARITY.md)."""

from __future__ import annotations

import os

from . import FLOOR


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
    similar.set_defaults(run=run)
    # `grade --similarity`: the report after grading, into the same --out.
    grade = commands.choices.get("grade")
    if grade is not None:
        grade.add_argument("--similarity", action="append_const", const=run, dest="then",
                           help="also write the similarity report into --out")


def run(args) -> int:
    from .run import similarity_cli
    return similarity_cli(args.assignment, args.submissions, args.out,
                          getattr(args, "floor", FLOOR), args.jobs)
