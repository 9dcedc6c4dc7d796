"""The honest rewrites (docs/MUTATION.md, "What is rewritten"): each registers itself in
REWRITES (base.py) in the order `autograder honest --list` shows.
"""

from . import calls, values, cache, habits, control, spelling  # noqa: F401 (registration)
from .base import REWRITES, Rewrite, Rewritten, apply

__all__ = ["REWRITES", "Rewrite", "Rewritten", "apply"]
