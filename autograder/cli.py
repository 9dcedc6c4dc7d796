"""The `autograder` command: thin, delegating to one module per job.

`autograder --help` lists the commands (COMMANDS below), `autograder COMMAND
--help` their options. Problems a teacher can fix print one line and exit 2;
nothing prints a traceback from the kit unless --debug is given.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import KitError

#: Every command, declared in one place: each module names its subcommand's
#: arguments in `add_command(commands)` and imports what the command needs only
#: when it runs, so `autograder --help` stays quick. A later feature may add an
#: option to an earlier command that runs it afterwards (`dest="then"`), as the
#: similarity report does with `grade --similarity`: the engine imports no feature.
COMMANDS = (
    "autograder.release",                 # release
    "autograder.grading.command",         # grade
    "autograder.similarity.command",      # similarity
    "autograder.sandbox.command",         # doctor
    "autograder.tournament.command",      # tournament
    "autograder.platforms.command",       # export
    "autograder.lms.command",             # import, grade --from, export moodle|canvas|classroom
    "autograder.mutate.command",          # mutate, honest (docs/MUTATION.md)
    "autograder.nbgrader.command",        # nbgrader
    "autograder.authoring.command",       # new, check-suite (docs/AUTHORING.md)
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help="show tracebacks from the kit")
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        importlib.import_module(module).add_command(commands)
    return parser


# Libraries a command needs that grading does not: installed as extras (make setup
# installs them all), so a platform package or a grading server stays small.
EXTRAS = {"copydetect": "similarity", "openskill": "tournament", "matplotlib": "tournament",
          "distributed": "cluster", "dask": "cluster"}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        status = args.run(args)
        for then in getattr(args, "then", None) or ():    # e.g. grade --similarity
            status |= then(args)
        return status
    except ModuleNotFoundError as error:
        extra = EXTRAS.get((error.name or "").partition(".")[0])
        if extra is None or args.debug:
            raise
        print(f"autograder: this command needs {error.name}, which is not installed: "
              f"pip install 'spielbaum[{extra}]' (or run make setup)", file=sys.stderr)
        return 2
    except KitError as error:
        if args.debug:
            raise
        from .outputs.terminal import plain     # a message may name a student's folder
        print(f"autograder: {plain(error, lines=True)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("autograder: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
