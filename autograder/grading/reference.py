"""Load a reference solution from solutions/ into the trusted process, once."""

from __future__ import annotations

import functools

from .. import KitError
from .. import assignment as assignments
from .loaded import load_file, reference_name


@functools.cache
def load_reference(assignment: str, module: str):
    """The reference module solutions/<assignment>/<module>.py, under a private name
    so it can never be confused with a student's module of the same name."""
    path = assignments.load(assignment).solution_dir / f"{module}.py"
    if not path.is_file():
        raise KitError(f"reference {path} is missing")
    return load_file(reference_name(assignment, module), path)
