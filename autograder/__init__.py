"""Spielbaum: release, check and grade game-tree search assignments."""

from pathlib import Path

#: The repository root: the folder holding solutions/, assignments/, autograder/.
ROOT = Path(__file__).resolve().parent.parent


class KitError(Exception):
    """A problem a teacher or student can fix: printed as one line, no traceback."""
