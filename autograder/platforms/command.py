"""The `autograder export` subcommand (docs/PLATFORMS.md)."""

from __future__ import annotations

from .. import i18n
from . import PLATFORMS


def add_command(commands) -> None:
    export = commands.add_parser("export", help="package the grader for Gradescope or "
                                                "PrairieLearn (docs/PLATFORMS.md)")
    export.add_argument("platform", choices=list(PLATFORMS))
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
    export.add_argument("--visibility", action="append", metavar="[TEST=]WHEN",
                        help="Gradescope: when students see the checks (visible, "
                             "after_due_date, after_published, hidden); TEST=WHEN for one "
                             "hidden test; repeatable (default: visible)")
    export.add_argument("--lang", choices=i18n.LANGUAGES, default=None,
                        help="the language of the feedback the package writes (default: "
                             "SPIELBAUM_COURSE_LANG, else en)")
    export.add_argument("--unconfined-files", action="store_true",
                        help="let the package grade where no sandbox layer keeps the "
                             "student's code from the container's files (its hidden suites "
                             "included); without it such a container grades nobody")
    export.set_defaults(run=run)


def run(args) -> int:
    if args.unconfined_files:
        import os

        from ..sandbox.layers import UNCONFINED_FILES
        os.environ[UNCONFINED_FILES] = "1"
    from pathlib import Path

    from .export import export
    export(args.platform, args.assignments, Path(args.out), reveal=args.reveal_expected,
           require=[layer.strip() for layer in args.require.split(",") if layer.strip()],
           reuse_wheels=Path(args.wheels) if args.wheels else None,
           visibility=args.visibility or [], language=args.lang)
    print(f"next: docs/PLATFORMS.md says how to add "
          f"{'it' if len(args.assignments) == 1 else 'them'} to "
          f"{'Gradescope' if args.platform == 'gradescope' else 'PrairieLearn'}")
    return 0
