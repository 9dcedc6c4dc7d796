"""The `autograder mutate` subcommand's arguments (docs/MUTATION.md)."""

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
    mutate.set_defaults(run=_run)


def _run(args) -> int:
    import sys
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
    console = Console(width=None if sys.stdout.isatty() else 130)
    say = lambda text: console.print(text, markup=False, highlight=False)  # noqa: E731
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
