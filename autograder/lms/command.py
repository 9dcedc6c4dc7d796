"""The LMS's commands (docs/TEACHING.md): `import`, `grade --from FORMAT`, and
`export moodle|canvas|classroom GRADED --out DIR` (choices added to the platforms'
`export`). `--from` imports SRC into a temporary folder and grades that.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

#: The layouts `import` reads: formats.PARSERS' keys (a kit test compares), named
#: here so `autograder --help` does not import the parsers.
LAYOUTS = ("moodle", "canvas", "classroom", "gradescope", "folders", "flat")
#: export.FORMATS, named here for the same reason.
FORMATS = ("moodle", "canvas", "classroom")


def report(imported, out_label: str, roster: str) -> None:
    from ..outputs.terminal import plain
    print(f"imported {len(imported.students)} student"
          f"{'' if len(imported.students) == 1 else 's'} into {plain(out_label)} "
          f"({plain(roster)} lists each id with its name)")
    if imported.skipped:
        print(f"not imported ({len(imported.skipped)}):")
        for line in imported.skipped:
            print(f"  {plain(line)}")
    noted = [row for row in imported.students if row["notes"]]
    for row in noted:
        print(f"  {plain(row['student'])}: {plain(row['notes'])}")


def import_cli(args) -> int:
    from . import ROSTER, import_submissions
    imported = import_submissions(args.format, Path(args.source), Path(args.out),
                                  args.assignment)
    report(imported, args.out, str(Path(args.out) / ROSTER))
    return 0 if imported.students else 2


def _add_roster(submissions: Path, out: Path) -> bool:
    """Put the names of the import's students.csv into OUT/grades.csv and copy the
    list beside it (the export reads it there; `grade --from` imports into a folder
    deleted afterwards); False when SUBMISSIONS holds no such list."""
    from ..grading.intake import read_module
    from . import ROSTER, add_names, read_roster
    if not add_names(out, read_roster(submissions)):
        return False
    (out / ROSTER).write_bytes(read_module(submissions / ROSTER, 64 << 20))
    return True


def _graded_from(run):
    """grade's command, importing first when --from is given."""
    def grade(args) -> int:
        from ..outputs.terminal import plain
        from . import ROSTER, import_submissions
        out = Path(args.out)
        if not args.from_format:
            status = run(args)
            if _add_roster(Path(args.submissions), out):
                print(f"names from {plain(Path(args.submissions) / ROSTER)} added to "
                      f"{plain(out / 'grades.csv')}; the list kept as {plain(out / ROSTER)}")
            return status
        with tempfile.TemporaryDirectory(prefix="spielbaum-import-") as temp:
            folder = Path(temp) / "submissions"
            imported = import_submissions(args.from_format, Path(args.submissions), folder,
                                          args.assignment)
            # The import's folder goes when grading ends: its list is kept in OUT.
            report(imported, f"a temporary folder (from {args.submissions})", str(out / ROSTER))
            if not imported.students:
                return 2
            args.submissions = str(folder)
            status = run(args)
            _add_roster(folder, out)
            # What runs after grading (grade --similarity) reads the submissions too:
            # here, while the imported folder still exists.
            for then in getattr(args, "then", None) or ():
                status |= then(args)
            args.then = None
            return status
    return grade


def export_cli(args) -> int:
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


def add_command(commands) -> None:
    """`autograder import`, `--from` on the grade command and the LMS formats of the
    export command (both declared before this one in cli.COMMANDS)."""
    command = commands.add_parser(
        "import", help="turn an LMS's download of submissions into one folder per student")
    command.add_argument("format", choices=LAYOUTS,
                         help="the layout: moodle, canvas, classroom (GitHub Classroom), "
                              "gradescope (an export), folders (one per student, zips "
                              "unpacked), flat (alice_tictactoe.py)")
    command.add_argument("source", help="the folder or zip the LMS made")
    command.add_argument("--out", required=True, help="where the student folders go")
    command.add_argument("--assignment", help="look only for this assignment's modules "
                                              "(default: every assignment's)")
    command.set_defaults(run=import_cli)
    grade = commands.choices["grade"]
    grade.add_argument("--from", dest="from_format", choices=LAYOUTS, metavar="FORMAT",
                       help="SUBMISSIONS_DIR is an LMS's download in this layout "
                            f"({', '.join(LAYOUTS)}): import it first")
    grade.set_defaults(run=_graded_from(grade.get_default("run")))
    _add_export_formats(commands.choices["export"])


def _add_export_formats(parser) -> None:
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
    parser.set_defaults(run=lambda args: export_cli(args) if args.platform in FORMATS
                        else platforms(args))
