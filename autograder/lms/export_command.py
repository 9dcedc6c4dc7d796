"""`autograder export moodle|canvas|classroom GRADED --out DIR` (docs/TEACHING.md,
"Grades back to the LMS"): adds the LMS formats to the choices of the platforms'
`export` command (declared before it in cli.COMMANDS) and runs them itself.
"""

from __future__ import annotations

#: export.FORMATS, named here so `autograder --help` does not import the export.
FORMATS = ("moodle", "canvas", "classroom")


def add_command(commands) -> None:
    parser = commands.choices["export"]
    platform = next(a for a in parser._actions if a.dest == "platform")
    platform.choices = list(platform.choices) + list(FORMATS)
    platform.help = ("gradescope or prairielearn: package the grader (docs/PLATFORMS.md); "
                     "moodle, canvas or classroom: the grades of a grading's --out folder, "
                     "in the LMS's own import format (docs/TEACHING.md)")
    parser.add_argument("--out-of", type=float, metavar="N",
                        help="moodle/canvas/classroom: scale the points to the LMS's maximum "
                             "grade N (default: the kit's points)")
    parser.add_argument("--column", metavar="NAME",
                        help="canvas: the gradebook column, 'Name (assignment id)' to fill "
                             "an existing assignment (default: the assignment's title)")
    platforms = parser.get_default("run")

    def run(args) -> int:
        if args.platform not in FORMATS:
            return platforms(args)
        return export_cli(args)
    parser.set_defaults(run=run)


def export_cli(args) -> int:
    from pathlib import Path

    from .. import KitError
    from ..outputs.terminal import plain
    from .export import export
    if len(args.assignments) != 1:
        raise KitError(f"export {args.platform} takes one folder: the --out folder of "
                       "`autograder grade`")
    paths, lines = export(args.platform, Path(args.assignments[0]), Path(args.out),
                          args.out_of, args.column)
    for line in lines:
        print(f"  {plain(line)}")
    print(f"wrote {', '.join(plain(p) for p in paths)}")
    return 0
