"""The `autograder nbgrader` subcommand: the course cycle (docs/TEACHING.md).
The Makefile's targets (make collect A=..., ...) call these.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .. import KitError

#: The steps that work on one assignment.
ONE_ASSIGNMENT = ("release", "collect", "grade", "autograde", "feedback")


def add_command(commands) -> None:
    cycle = commands.add_parser("nbgrader", help="the nbgrader course cycle: release, collect, "
                                                 "grade, feedback, export (docs/TEACHING.md)")
    cycle.add_argument("step", choices=[*ONE_ASSIGNMENT, "export", "student-config",
                                        "notebooks"])
    cycle.add_argument("assignments", nargs="*", metavar="assignment",
                       help="notebooks: default every assignment")
    cycle.add_argument("--jobs", type=int, default=None)
    cycle.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                       help="grade: on the workers of this Dask scheduler (README, "
                            "'Grading past one machine')")
    cycle.add_argument("--to", default=None, help="export, student-config: the file to write")
    cycle.add_argument("--check", action="store_true",
                       help="notebooks: only report stale notebooks")
    cycle.set_defaults(run=run)


def run(args) -> int:
    if args.step == "notebooks":
        return notebooks(args.assignments, args.check)
    from .. import assignment
    from . import cycle
    if args.step in ONE_ASSIGNMENT:
        if len(args.assignments) != 1:
            raise KitError(f"{args.step} needs one assignment: A=<assignment>")
        name = args.assignments[0]
        assignment.load(name)                   # "unknown assignment ..." before anything
    elif args.assignments:
        raise KitError(f"{args.step} takes no assignment")
    if args.step == "release":
        print(f"released {name} from {cycle.release(name)}")
    elif args.step == "collect":
        found = cycle.collect(name)
        print(f"{cycle.count(len(found), 'submission')} of {name} collected")
    elif args.step == "grade":
        api = cycle.make_api()
        rows = cycle.grade_collected(name, api, jobs=args.jobs, scheduler=args.scheduler)
        print(f"{cycle.count(len(rows), 'submission')} graded into the gradebook and "
              "autograded/ (scores below: the checks, and written answers graded so far)")
        cycle.summary(name, api, {row["student"]: row["status"] for row in rows})
    elif args.step == "autograde":
        api = cycle.make_api()
        cycle.autograde(name, api)
        cycle.summary(name, api)
    elif args.step == "feedback":
        cycle.feedback(name)
        print(f"feedback for {name} generated and released")
    elif args.step == "export":
        print(f"grades exported to {cycle.export(args.to or 'grades.csv')}")
    else:
        if not args.to:
            raise KitError("student-config needs a file to write: "
                           "--to /etc/jupyter/nbgrader_config.py")
        target = Path(args.to)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(cycle.student_config(), encoding="utf-8")
        print(f"wrote {target}: students' nbgrader reads it as "
              "/etc/jupyter/nbgrader_config.py or ~/.jupyter/nbgrader_config.py")
    return 0


def notebooks(names: list[str], check: bool) -> int:
    """Write (or with `check` only compare) the handout notebooks of `names` (default:
    every assignment); one unfinished assignment does not stop the others."""
    from .. import assignment
    from . import notebooks as handouts
    status = 0
    for name in names or assignment.names():
        try:
            path = handouts.notebook_path(name)
            if check:
                problems = handouts.differences(name)
                print("\n".join(problems) or f"{path} is up to date")
                status |= bool(problems)
            else:
                print(f"wrote {path}" if handouts.write(name) else f"{path} is up to date")
        except KitError as error:
            print(f"notebooks: {name}: {error}", file=sys.stderr)
            status = 2
    return status
