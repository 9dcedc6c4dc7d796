"""The `autograder grade` subcommand (the README's "For teachers: bulk grading")."""

from __future__ import annotations

import os

from .. import i18n
from ..sandbox.layers import (UNCONFINED_FILES, available, files_confined,
                              unconfined_files_allowed)


def add_command(commands) -> None:
    grade = commands.add_parser("grade", help="grade a folder of submissions")
    grade.add_argument("assignment")
    grade.add_argument("submissions", help="one folder per student, named by student id")
    grade.add_argument("--out", required=True, help="where grades.csv and feedback go")
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                       help="submissions graded at once (default: number of cores)")
    grade.add_argument("--reveal-expected", action="store_true",
                       help="show expected values of hidden tests in the feedback")
    grade.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="grade on the workers of this Dask scheduler (a killed run "
                            "resumes where it stopped; README, 'Grading past one machine')")
    grade.add_argument("--lang", choices=i18n.LANGUAGES, default=None,
                       help="the language of feedback.md and .html (default: "
                            "SPIELBAUM_COURSE_LANG, else en)")
    grade.add_argument("--unconfined-files", action="store_true",
                       help="grade even where no sandbox layer keeps submissions away from "
                            "this machine's files (tmpfs or landlock; `autograder doctor`): "
                            "a submission could then read the hidden suites; recorded in "
                            "run.json and the summary")
    grade.set_defaults(run=run)


def run(args) -> int:
    import sys
    import time
    from pathlib import Path

    from rich.console import Console

    from ..outputs import terminal
    from .batch import distribution, grade_all, summary_table
    # The feedback is written in the grading workers, which inherit the environment.
    os.environ["SPIELBAUM_COURSE_LANG"] = i18n.course_language(args.lang)
    if args.unconfined_files:       # the workers and the cluster's spec inherit it
        os.environ[UNCONFINED_FILES] = "1"
    # Piped into a file or CI log, rich would squeeze the table into 80 columns.
    console = Console(width=None if sys.stdout.isatty() else 130)
    started = time.perf_counter()
    rows = grade_all(args.assignment, Path(args.submissions), Path(args.out), args.jobs,
                     reveal=args.reveal_expected, console=Console(stderr=True),
                     scheduler=args.scheduler)
    from .intake import roster_names
    console.print(summary_table(rows, time.perf_counter() - started,
                                roster_names(Path(args.submissions))))
    console.print(distribution(rows))
    if unconfined_files_allowed() and not files_confined(available()):
        console.print("[bold]files were not confined[/]: no sandbox layer kept the "
                      "submissions away from this machine's files (--unconfined-files)")
    console.print(f"timeouts: {sum(r['timeouts'] for r in rows)}, "
                  f"crashes: {sum(r['crashes'] for r in rows)}; "
                  f"grades in {terminal.markup(Path(args.out) / 'grades.csv')}")
    return 0
