"""The `autograder` command: thin, delegating to one module per job.

    autograder release [ASSIGNMENT ...] [--check]
    autograder grade ASSIGNMENT SUBMISSIONS_DIR --out OUT_DIR [--jobs N] [--similarity]
                     [--from moodle|canvas|classroom|gradescope|folders|flat]
    autograder import FORMAT SRC --out DIR [--assignment A]
    autograder similarity ASSIGNMENT SUBMISSIONS_DIR --out OUT_DIR [--floor F]
    autograder doctor
    autograder tournament ASSIGNMENT SUBMISSIONS_DIR --out OUT [--jobs N] [--swiss R] ...
    autograder export gradescope|prairielearn ASSIGNMENT ... --out DIR
    autograder mutate ASSIGNMENT [--count N] [--seed K] [--out DIR] [--jobs J]

Problems a teacher can fix print one line and exit 2; nothing prints a traceback
from the kit unless --debug is given.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import KitError
from .similarity import FLOOR


def _release(args) -> int:
    from . import release, slices
    targets = args.assignments or slices.names()
    status = 0
    for name in targets:
        if args.check:
            problems = release.differences(name)
            for problem in problems:
                print(problem)
            status |= bool(problems)
            if not problems:
                print(f"assignments/{name} is up to date")
        else:
            path = release.release(name)
            print(f"released {name} -> {path}")
    return status


def _grade(args) -> int:
    from .grading import batch
    status = batch.grade_cli(args.assignment, args.submissions, args.out, args.jobs,
                             reveal=args.reveal_expected)
    if args.similarity:
        status |= _similarity(args)
    return status


def _similarity(args) -> int:
    from .similarity import FLOOR, run
    return run.similarity_cli(args.assignment, args.submissions, args.out,
                              getattr(args, "floor", FLOOR), args.jobs)


def _doctor(args) -> int:
    from .sandbox import layers
    return layers.doctor()


def _export(args) -> int:
    from .platforms import export
    return export.export_cli(args.platform, args.assignments, args.out, args.reveal_expected,
                             args.require, args.wheels)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help="show tracebacks from the kit")
    commands = parser.add_subparsers(dest="command", required=True)

    release = commands.add_parser("release", help="generate assignments/ from solutions/")
    release.add_argument("assignments", nargs="*", help="default: every assignment")
    release.add_argument("--check", action="store_true",
                         help="only report whether assignments/ is up to date")
    release.set_defaults(run=_release)

    grade = commands.add_parser("grade", help="grade a folder of submissions")
    grade.add_argument("assignment")
    grade.add_argument("submissions", help="one folder per student, named by student id")
    grade.add_argument("--out", required=True, help="where grades.csv and feedback go")
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                       help="submissions graded at once (default: number of cores)")
    grade.add_argument("--reveal-expected", action="store_true",
                       help="show expected values of hidden tests in the feedback")
    grade.add_argument("--similarity", action="store_true",
                       help="also write the similarity report into --out")
    grade.set_defaults(run=_grade)
    from .lms.command import add_command as add_import   # LMS downloads (docs/TEACHING.md)
    add_import(commands, grade)

    similar = commands.add_parser("similarity", help="find copied submissions in a batch")
    similar.add_argument("assignment")
    similar.add_argument("submissions", help="one folder per student, named by student id")
    similar.add_argument("--out", required=True,
                         help="where similarity.csv and similarity.html go")
    similar.add_argument("--floor", type=float, default=FLOOR,
                         help=f"report pairs whose score reaches this (0 to 1, default {FLOOR})")
    similar.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                         help="processes comparing at once (default: number of cores)")
    similar.set_defaults(run=_similarity)

    doctor = commands.add_parser("doctor", help="show which sandbox layers this machine offers")
    doctor.set_defaults(run=_doctor)

    from .tournament.command import add_command as add_tournament   # docs/TOURNAMENT.md
    add_tournament(commands)

    export = commands.add_parser("export", help="package the grader for Gradescope or "
                                                "PrairieLearn (docs/PLATFORMS.md)")
    export.add_argument("platform", choices=["gradescope", "prairielearn"])
    export.add_argument("assignments", nargs="+")
    export.add_argument("--out", required=True, help="where the packages go")
    export.add_argument("--reveal-expected", action="store_true",
                        help="show expected values of hidden tests in the feedback")
    export.add_argument("--require", default="", metavar="LAYER,...",
                        help="sandbox layers without which the platform grades nobody, "
                             "on top of the rubric's (see autograder doctor)")
    export.add_argument("--wheels", metavar="DIR",
                        help="take the dependency wheels from an earlier export's wheels "
                             "folder instead of downloading them")
    export.set_defaults(run=_export)

    from .mutate.command import add_command as add_mutate   # docs/MUTATION.md
    add_mutate(commands)
    return parser


# Libraries a command needs that grading does not: installed as extras (make setup
# installs them all), so a platform package or a grading server stays small.
EXTRAS = {"copydetect": "similarity", "openskill": "tournament", "matplotlib": "tournament",
          "distributed": "cluster", "dask": "cluster"}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except ModuleNotFoundError as error:
        extra = EXTRAS.get((error.name or "").partition(".")[0])
        if extra is None or args.debug:
            raise
        print(f"autograder: this command needs {error.name}, which is not installed: "
              f"pip install 'spielbaum[{extra}]' (or run make setup)", file=sys.stderr)
        return 2
    except KitError as error:
        if args.debug:
            raise
        from .outputs.terminal import plain     # a message may name a student's folder
        print(f"autograder: {plain(error, lines=True)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograder: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
