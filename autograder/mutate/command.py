"""The `autograder mutate` and `autograder honest` subcommands (docs/MUTATION.md; "Honest
rewrites" says why honest rewrites are a command of their own, not `mutate --honest`)."""

from __future__ import annotations


def add_command(commands) -> None:
    mutate = commands.add_parser(
        "mutate", help="grade mutants of the reference with the hidden suite: what would "
                       "it miss? (docs/MUTATION.md)")
    mutate.add_argument("assignment")
    mutate.add_argument("--count", type=int, default=40,
                        help="mutants to grade, a seeded sample (default 40)")
    mutate.add_argument("--seed", type=int, default=0,
                        help="which sample: the same seed gives the same mutants (default 0)")
    mutate.add_argument("--out", help="where mutation.md and mutation.csv go "
                                      "(default out/mutation/ASSIGNMENT)")
    mutate.add_argument("--jobs", type=int, default=2,
                        help="mutants graded at once (default 2)")
    mutate.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                        help="grade the mutants on the workers of this Dask scheduler; a "
                             "killed run resumes from OUT "
                             "(README, 'Grading past one machine')")
    mutate.add_argument("--full", action="store_true",
                        help="run every check of every mutant instead of stopping at its "
                             "first lost point (same verdicts, slower)")
    mutate.add_argument("--fail-under", type=float, metavar="PERCENT",
                        help="exit 1 when the mutation score is below PERCENT")
    mutate.set_defaults(run=_mutate)
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
    honest.set_defaults(run=_honest)


def _say():
    """Print plain text to stdout (as wide as a log needs when it is no terminal)."""
    import sys

    from rich.console import Console
    console = Console(width=None if sys.stdout.isatty() else 130)
    return lambda text: console.print(text, markup=False, highlight=False)


def _mutate(args) -> int:
    from pathlib import Path

    from rich.console import Console

    from . import report
    from ..assignment import load
    from .run import analyse
    name, seed = args.assignment, args.seed
    target = load(name)
    out_dir = Path(args.out) if args.out else Path("out") / "mutation" / name
    analysis = analyse(target, count=args.count, seed=seed, jobs=args.jobs,
                       stop_early=not args.full, console=Console(stderr=True),
                       scheduler=args.scheduler, out_dir=out_dir)
    report.write(analysis, out_dir)
    say = _say()
    say(f"{name}: {report.score_line(analysis)} (seed {seed}, {analysis.seconds:.0f} s)")
    for verdict in analysis.of("survived"):
        m = verdict.mutant
        say(f"  survived: {m.module}:{m.line} {m.operator}: {m.original}  ->  {m.mutated}")
    for verdict in analysis.of("error"):
        say(f"  grader error: {verdict.mutant.ident}: {verdict.killed_by}")
    for entry in analysis.stale:
        say(f"  stale allowlist entry: {entry.line!r} {entry.operator}")
    say(f"report in {out_dir / 'mutation.md'} and {out_dir / 'mutation.csv'}")
    if analysis.of("error"):
        return 1
    if args.fail_under is not None and (analysis.score or 0.0) * 100 < args.fail_under:
        return 1
    return 0


def _honest(args) -> int:
    from pathlib import Path

    from rich.console import Console

    from .. import KitError
    from ..assignment import load
    from .honest import report
    from .honest.rewrites import REWRITES
    from .honest.run import check
    if args.list:
        width = max(map(len, REWRITES))
        for rewrite in REWRITES.values():
            print(f"{rewrite.name:{width}}  {rewrite.description}")
        return 0
    if not args.assignment:
        raise KitError("name the assignment: autograder honest ASSIGNMENT (or --list)")
    name = args.assignment
    out_dir = Path(args.out) if args.out else Path("out") / "honest" / name
    honest = check(load(name), args.rewrite, jobs=args.jobs, console=Console(stderr=True))
    report.write(honest, out_dir)
    say = _say()
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
