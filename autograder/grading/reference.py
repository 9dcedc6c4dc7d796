"""Load a reference solution from solutions/ into the trusted process, once."""

from __future__ import annotations

import functools
import importlib.util
import sys

from .. import KitError
from .. import assignment as assignments


@functools.cache
def load_reference(assignment: str, module: str):
    """The reference module solutions/<assignment>/<module>.py, under a private name
    so it can never be confused with a student's module of the same name."""
    path = assignments.load(assignment).solution_dir / f"{module}.py"
    if not path.is_file():
        raise KitError(f"reference {path} is missing")
    name = f"_reference_{assignment}_{module}"
    spec = importlib.util.spec_from_file_location(name, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    spec.loader.exec_module(loaded)
    return loaded
