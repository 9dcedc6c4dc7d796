"""The `autograder honest` subcommand (docs/MUTATION.md, "Honest rewrites": why a
command of its own rather than `mutate --honest`)."""

from __future__ import annotations


def add_command(commands) -> None:
    honest = commands.add_parser(
        "honest", help="grade honest rewrites of the reference (calls by keyword, German "
                       "names, ...) with the hidden suite: does each keep full marks? "
                       "(docs/MUTATION.md)")
    honest.add_argument("assignment", nargs="?")
    honest.add_argument("--rewrite", action="append", metavar="NAME",
                        help="grade only this rewrite (repeatable; default: all, see --list)")
    honest.add_argument("--out", help="where honest.md, honest.csv and rewritten/ go "
                                      "(default out/honest/ASSIGNMENT)")
    honest.add_argument("--jobs", type=int, default=2, help="rewrites graded at once "
                                                            "(default 2)")
    honest.add_argument("--list", action="store_true",
                        help="list the rewrites and what each does, then stop")
    honest.set_defaults(run=_run)


def _run(args) -> int:
    import sys
    from pathlib import Path

    from rich.console import Console

    from ... import KitError
    from ...assignment import load
    from . import report
    from .run import check
    if args.list:
        return list_rewrites()
    if not args.assignment:
        raise KitError("name the assignment: autograder honest ASSIGNMENT (or --list)")
    name = args.assignment
    target = load(name)
    out_dir = Path(args.out) if args.out else Path("out") / "honest" / name
    honest = check(target, args.rewrite, jobs=args.jobs, console=Console(stderr=True))
    report.write(honest, out_dir)
    console = Console(width=None if sys.stdout.isatty() else 130)
    say = lambda text: console.print(text, markup=False, highlight=False)  # noqa: E731
    say(f"{name}: {report.summary(honest)} ({honest.seconds:.0f} s)")
    for outcome in honest.outcomes:
        score = f" {outcome.score:g}/{outcome.max_score:g}, {outcome.seconds:.1f} s" \
            if outcome.status in ("full marks", "lost points") else ""
        say(f"  {outcome.rewrite.name}: {outcome.status}{score}"
            + (f" ({outcome.sites} site{'s' if outcome.sites > 1 else ''})"
               if outcome.sites else ""))
        for loss in outcome.losses:
            say(f"      lost {loss.points:g} in {loss.check}: {loss.feedback}")
        if outcome.status in ("rewrite bug", "grader error", "skipped"):
            say(f"      {outcome.reason}")
    say(f"report in {out_dir / 'honest.md'} and {out_dir / 'honest.csv'}")
    failed = honest.of("lost points") + honest.of("rewrite bug") + honest.of("grader error")
    return 1 if failed else 0


def list_rewrites() -> int:
    from .rewrites import REWRITES
    width = max(map(len, REWRITES))
    for rewrite in REWRITES.values():
        print(f"{rewrite.name:{width}}  {rewrite.description}")
    return 0
