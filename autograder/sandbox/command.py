"""The `autograder doctor` subcommand: which sandbox layers this machine offers."""

from __future__ import annotations


def add_command(commands) -> None:
    doctor = commands.add_parser("doctor", help="show which sandbox layers this machine offers")
    doctor.set_defaults(run=run)


def run(args) -> int:
    from .layers import doctor
    return doctor()
