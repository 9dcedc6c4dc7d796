"""The honest rewrites: each an AST transformer with a name and a one-line description.

A rewrite changes the reference the way an honest student's code may differ from
it, everywhere it applies, and nothing the specification promises: it works on
the student's code only (../source.py), reads the docstrings before it changes a
type, and leaves a site alone where it cannot show the change keeps the meaning
(it says where and why in its notes). base.py holds what they share; each module
below registers its rewrites in REWRITES, in the order `autograder honest --list` shows.
"""

from . import calls, values, cache, habits, control, spelling  # noqa: F401 (registration)
from .base import REWRITES, Rewrite, Rewritten, apply

__all__ = ["REWRITES", "Rewrite", "Rewritten", "apply"]
