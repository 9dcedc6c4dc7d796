"""Batches of submissions built from the kit's corpus, with their ground truth.

tests/similarity/corpus/<assignment>/<student>/ holds implementations written
independently for this purpose (correct and buggy ones, in different styles).
A batch is all of them plus disguised copies of some: each disguise of
disguise.DISGUISES alone and all of them combined, each with its own seed.
"""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

from autograder import ROOT

from . import disguise

CORPUS = Path(__file__).resolve().parent / "corpus"
COPIED = {"tictactoe": ("anna", "ben", "gus", "emil"), "connect4": ("hana", "ivo", "jonas")}


def module_name(assignment: str) -> str:
    return f"{assignment}.py"


def originals(assignment: str) -> list[Path]:
    return sorted(p for p in (CORPUS / assignment).iterdir() if p.is_dir())


def kinds_of_copies() -> list[tuple[str, ...]]:
    return [(kind,) for kind in disguise.DISGUISES] + [tuple(disguise.DISGUISES)]


def interface(assignment: str) -> set[str]:
    skeleton = ROOT / "assignments" / assignment / module_name(assignment)
    return disguise.interface_names(skeleton.read_text(encoding="utf-8"))


def build(assignment: str, target: Path, seed: int = 0) -> dict[str, str]:
    """Write the batch into `target` (one folder per student); return each
    student's origin: itself for an original, the original for a copy."""
    module = module_name(assignment)
    keep = interface(assignment)
    origin = {}
    for folder in originals(assignment):
        shutil.copytree(folder, target / folder.name)
        origin[folder.name] = folder.name
    for number, (name, kinds) in enumerate(itertools.product(COPIED[assignment],
                                                             kinds_of_copies())):
        source = (CORPUS / assignment / name / module).read_text(encoding="utf-8")
        label = "all" if len(kinds) > 1 else kinds[0]
        student = f"{name}-copy-{label}"
        (target / student).mkdir(parents=True)
        (target / student / module).write_text(
            disguise.disguise(source, kinds, seed * 1000 + number, keep), encoding="utf-8")
        origin[student] = name
    return origin


def generated(assignment: str, target: Path, count: int, seed: int) -> dict[str, str]:
    """`count` submissions, each a seeded random disguise of a random original
    (for the benchmark: every submission has many similar ones)."""
    rng = random.Random(seed)
    module = module_name(assignment)
    keep = interface(assignment)
    sources = {p.name: (p / module).read_text(encoding="utf-8") for p in originals(assignment)}
    origin = {}
    for number in range(count):
        name = rng.choice(sorted(sources))
        kinds = tuple(k for k in disguise.DISGUISES if rng.random() < 0.6)
        student = f"s{number:04d}"
        (target / student).mkdir(parents=True)
        (target / student / module).write_text(
            disguise.disguise(sources[name], kinds, rng.randrange(1 << 30), keep),
            encoding="utf-8")
        origin[student] = name
    return origin
