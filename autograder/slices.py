"""Assignment slices: everything the kit knows about one assignment.

A slice is a set of files, never engine code:

    solutions/<name>/assignment.toml   the manifest (modules, shipped files, timeouts)
    solutions/<name>/<module>.py       the reference, solution regions marked
    solutions/<name>/test_*.py         public tests (shipped)
    autograder/suites/<name>/          the hidden suite and its rubric (never shipped)
    examples/<name>/<student>/         example submissions for the demo and tests

Adding an assignment adds these files; nothing here names a game.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT, KitError

SOLUTIONS = ROOT / "solutions"
ASSIGNMENTS = ROOT / "assignments"
SUITES = ROOT / "autograder" / "suites"
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Slice:
    name: str
    title: str
    modules: tuple[str, ...]
    files: tuple[str, ...]
    public_timeout: float
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def solution_dir(self) -> Path:
        return SOLUTIONS / self.name

    @property
    def assignment_dir(self) -> Path:
        return ASSIGNMENTS / self.name

    @property
    def suite_dir(self) -> Path:
        return SUITES / self.name

    @property
    def examples_dir(self) -> Path:
        return EXAMPLES / self.name

    @property
    def module_names(self) -> tuple[str, ...]:
        return tuple(Path(m).stem for m in self.modules)


def names() -> list[str]:
    """Every assignment with a manifest, in alphabetical order."""
    return sorted(p.parent.name for p in SOLUTIONS.glob("*/assignment.toml"))


def load(name: str) -> Slice:
    manifest = SOLUTIONS / name / "assignment.toml"
    if not manifest.is_file():
        known = ", ".join(names()) or "none"
        raise KitError(f"unknown assignment {name!r} (known: {known})")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise KitError(f"{manifest}: {error}") from None
    try:
        return Slice(
            name=data["name"],
            title=data["title"],
            modules=tuple(data["modules"]),
            files=tuple(data.get("files", ())),
            public_timeout=float(data.get("public_timeout", 10)),
            extra={k: v for k, v in data.items()
                   if k not in {"name", "title", "modules", "files", "public_timeout"}},
        )
    except KeyError as missing:
        raise KitError(f"{manifest}: missing key {missing}") from None
