"""The `autograder new` and `autograder check-suite` subcommands (docs/AUTHORING.md)."""

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
    new.set_defaults(run=_run_new)
    doctor = commands.add_parser(
        "check-suite", help="grade the reference with its hidden suite and say what to fix: "
                            "failures in full, each check's headroom against its limits, "
                            "checks that are not deterministic, a sample of honest rewrites "
                            "and mutants (docs/AUTHORING.md)")
    doctor.add_argument("assignment")
    doctor.add_argument("--mutants", type=int, default=10, metavar="N",
                        help="mutants of the reference to grade (default 10; 0: none)")
    doctor.add_argument("--rewrites", type=int, default=4, metavar="N",
                        help="honest rewrites of the reference to grade (default 4; 0: none)")
    doctor.add_argument("--jobs", type=int, default=2,
                        help="rewrites and mutants graded at once (default 2)")
    doctor.set_defaults(run=_run_check_suite)


def _run_new(args) -> int:
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


def _run_check_suite(args) -> int:
    from .. import KitError
    from .doctor import REWRITES, examine
    if args.mutants < 0 or args.rewrites < 0 or args.jobs < 1:
        raise KitError("--mutants and --rewrites must be 0 or more, --jobs at least 1")
    report = examine(args.assignment, mutants=args.mutants,
                     rewrites=REWRITES[:args.rewrites], jobs=args.jobs)
    print("\n".join(lines(report)))
    return 1 if report.fixes else 0


def lines(report) -> list[str]:
    """The doctor's report as the terminal shows it (what the student's code did not
    write: the reference's feedback, escaped all the same)."""
    from ..outputs.terminal import plain
    from .doctor import ALLOWANCE, MB
    limits = report.limits
    passed = sum(c.points for c in report.checks if c.passed)
    total = sum(c.points for c in report.checks)
    out = ["", f"{report.name}: the reference scores {passed:g}/{total:g} on its hidden suite "
               f"({report.describe})",
           f"limits: {limits['call']:.2f} s of CPU a call, {limits['check']:.2f} s a check; "
           f"{limits['wall']:.0f} s of wall time a check; {limits['values']:,} values and "
           f"{limits['bytes'] // MB} MB of replies a check; {limits['memory'] // MB} MB of "
           "memory. Per check, what the reference used (its re-runs with the grader's "
           "helpers included) and the room left, as limit / used:"]
    width = max(len(c.name) for c in report.checks)
    for check in report.checks:
        usage = check.usage
        call = f">={ALLOWANCE}x" if check.tight_passed else f"<{ALLOWANCE}x"
        out.append(
            f"  {check.name:{width}}  {'pass' if check.passed else 'FAIL'}  "
            f"CPU {usage.child_cpu:6.2f} s ({room(limits['check'], usage.child_cpu)} "
            f"check, {call} call)  wall {usage.wall:5.1f} s "
            f"({room(limits['wall'], usage.wall)})  values {check.values:,} "
            f"({room(limits['values'], check.values)})  replies "
            f"{check.reply_bytes / 1024:,.0f} KB ({room(limits['bytes'], check.reply_bytes)})"
            f"  memory {usage.peak_memory // MB} MB "
            f"({room(limits['memory'], usage.peak_memory)})"
            + ("  NOT DETERMINISTIC" if check.elsewhere is not None else ""))
    for check in report.checks:
        if not check.passed:
            out += ["", f"{check.name} fails on the reference ({check.title}):",
                    plain(check.output, lines=True)]
        if check.elsewhere is not None:
            passed, output = check.elsewhere
            out += ["", f"{check.name} differs between two gradings of the reference:",
                    f"  here:          {'pass' if check.passed else first(check.output)}",
                    f"  in a new process: {'pass' if passed else first(output)}"]
    if report.samples_skipped:
        out += ["", f"honest rewrites and mutants: not graded: {report.samples_skipped}"]
    if report.honest is not None:
        out += ["", "honest rewrites (each must keep full marks):"]
        for row in report.honest:
            lost = f": lost {row['points_lost']} in {row['check']}" if row["check"] else ""
            out.append(f"  {row['rewrite']}: {row['status']}{lost}")
    if report.mutants is not None:
        killed = sum(row["status"] == "killed" for row in report.mutants)
        judged = sum(row["status"] in ("killed", "survived") for row in report.mutants)
        out += ["", f"mutants: {killed} of {judged} killed"
                    + (f" ({killed / judged:.0%})" if judged else "")]
        for row in report.mutants:
            if row["status"] != "killed":
                out.append(f"  {row['status']}: {row['module']}:{row['line']} "
                           f"{row['operator']}: {row['original'].lstrip(chr(39))}  ->  "
                           f"{row['mutated'].lstrip(chr(39))}")
    fixes = report.fixes
    out += ["", f"What to fix ({report.seconds:.0f} s):" if fixes else
            f"Nothing to fix ({report.seconds:.0f} s)."]
    out += [f"  {number}. {plain(fix)}" for number, fix in enumerate(fixes, 1)]
    return out


def room(limit: float, used: float) -> str:
    """The room left under a limit, as a factor: '120x'."""
    if used <= 0:
        return "-"
    factor = limit / used
    return f"{factor:,.0f}x" if factor >= 10 else f"{factor:.1f}x"


def first(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "(no feedback)")
