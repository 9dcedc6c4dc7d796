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
    mutate.add_argument("--full", action="store_true",
                        help="run every check of every mutant instead of stopping at its "
                             "first lost point (same verdicts, slower)")
    mutate.add_argument("--fail-under", type=float, metavar="PERCENT",
                        help="exit 1 when the mutation score is below PERCENT")
    mutate.set_defaults(run=_run)


def _run(args) -> int:
    from . import mutate_cli
    return mutate_cli(args.assignment, args.count, args.seed, args.out, args.jobs,
                      full=args.full, fail_under=args.fail_under)
