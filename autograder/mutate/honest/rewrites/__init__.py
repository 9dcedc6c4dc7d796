"""The honest rewrites: each an AST transformer with a name and a one-line description.

A rewrite changes the reference the way an honest student's code may differ from
it, everywhere it applies, and nothing the specification promises: it works on
the student's code only (../source.py), reads the docstrings before it changes a
type, and leaves a site alone where it cannot show the change keeps the meaning
(it says where and why in its notes). base.py holds what they share; each module
registers its rewrites in REWRITES (in the order `autograder honest --list` shows):

- calls.py: the unparsed baseline, calls by keyword, callbacks by keyword;
- values.py: exception subclasses, containers the docstring allows, generators;
- cache.py: functools.lru_cache on pure helpers with hashable arguments;
- habits.py: debug prints, German names, docstrings and comments, a __main__ block;
- control.py: loops and comprehensions, early returns and a result variable;
- spelling.py: infinity, None, private names, a decorator, the order of definitions,
  assignments and lookups.
"""

from . import calls, values, cache, habits, control, spelling  # noqa: F401 (registration)
from .base import REWRITES, Rewrite, Rewritten, apply

__all__ = ["REWRITES", "Rewrite", "Rewritten", "apply"]
