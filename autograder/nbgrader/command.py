"""The `autograder nbgrader` subcommand: the course cycle (docs/TEACHING.md).

    autograder nbgrader release|collect|grade|autograde|feedback ASSIGNMENT
    autograder nbgrader export [--to FILE]
    autograder nbgrader student-config --to FILE
    autograder nbgrader notebooks [ASSIGNMENT ...]

The Makefile's targets (make collect A=..., ...) call these.
"""

from __future__ import annotations

import argparse


def add_command(commands) -> None:
    cycle = commands.add_parser("nbgrader", help="the nbgrader course cycle: release, collect, "
                                                 "grade, feedback, export (docs/TEACHING.md)")
    cycle.add_argument("step", help="release, collect, grade, autograde, feedback, export, "
                                    "student-config or notebooks")
    cycle.add_argument("rest", nargs=argparse.REMAINDER, help="the step's arguments")
    cycle.set_defaults(run=run)


def run(args) -> int:
    if args.step == "notebooks":
        from .notebooks import main as notebooks
        return notebooks(args.rest) or 0
    from .cycle import main as cycle
    return cycle([args.step, *args.rest])
