"""A trusted module loaded from a file by path, once, under a private name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def load_file(name: str, path: Path):
    """The module at `path`, imported under `name` the first time and kept in
    sys.modules, so every part of the grader holds the same module object."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        try:
            spec.loader.exec_module(loaded)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]


def reference_name(assignment: str, module: str) -> str:
    """The private name of a reference module: never a student's module's name."""
    return f"_reference_{assignment}_{module}"
