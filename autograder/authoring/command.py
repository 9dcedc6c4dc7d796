"""The `autograder new` subcommand (docs/AUTHORING.md)."""

from __future__ import annotations


def add_command(commands) -> None:
    new = commands.add_parser(
        "new", help="start a new assignment that releases, checks and grades at once "
                    "(docs/AUTHORING.md)")
    new.add_argument("name", help="the assignment's name, also the student's module: "
                                  "lower case, e.g. connect3")
    new.add_argument("--title", help="the title students read (default: the name)")
    new.add_argument("--in-kit", action="store_true",
                     help="write it into the kit itself instead of the course folder "
                          "SPIELBAUM_COURSE")
    new.set_defaults(run=_run)


def _run(args) -> int:
    import os
    from pathlib import Path

    from .. import ROOT
    from .scaffold import new
    written = new(args.name, args.title, args.in_kit)
    common = Path(os.path.commonpath(written))
    shown = common.relative_to(ROOT) if common.is_relative_to(ROOT) else common
    print(f"new assignment {args.name} in {shown}:")
    for path in written:
        print(f"  {path.relative_to(common)}")
    print(f"next: autograder release {args.name}; then autograder check-suite {args.name} "
          "(docs/AUTHORING.md walks through the rest)")
    return 0
