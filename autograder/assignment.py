"""An assignment: everything the kit knows about one exercise, as one typed object.

An assignment is a set of files, never engine code (docs/SUITES.md lists them):

    solutions/<name>/assignment.toml   the manifest (modules, shipped files, timeouts)
    solutions/<name>/<module>.py       the reference, solution regions marked
    solutions/<name>/test_*.py         public tests (shipped)
    solutions/<name>/<name>.ipynb      the handout notebook (generated)
    autograder/suites/<name>/          the hidden suite and its rubric (never shipped)
    examples/<name>/<student>/         example submissions for the demo and tests

`load(name)` is the one way to get one; every feature takes an Assignment. An
assignment may also live in a course folder outside the kit, laid out the same way
(`solutions/`, `suites/`, `assignments/`, `examples/`): set SPIELBAUM_COURSE to it.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT, KitError

SOLUTIONS = ROOT / "solutions"
ASSIGNMENTS = ROOT / "assignments"
SUITES = ROOT / "autograder" / "suites"
_KNOWN_KEYS = {"name", "title", "modules", "files", "public_timeout"}


@dataclass(frozen=True)
class Assignment:
    name: str
    title: str
    modules: tuple[str, ...]                 # the student's files ("tictactoe.py")
    files: tuple[str, ...]                   # shipped as they are
    public_timeout: float                    # CPU seconds of one public test
    extra: dict = field(default_factory=dict, compare=False)   # other manifest tables
    course: Path | None = field(default=None, compare=False)   # None: the kit's own

    # ------------------------------------------------------------ its folders
    def _folder(self, kit: Path, course_part: str) -> Path:
        return (kit if self.course is None else self.course / course_part) / self.name

    @property
    def solution_dir(self) -> Path:
        return self._folder(SOLUTIONS, "solutions")

    @property
    def assignment_dir(self) -> Path:
        return self._folder(ASSIGNMENTS, "assignments")

    @property
    def suite_dir(self) -> Path:
        return self._folder(SUITES, "suites")

    @property
    def notebook(self) -> Path:
        return self.solution_dir / f"{self.name}.ipynb"

    @property
    def module_names(self) -> tuple[str, ...]:
        return tuple(Path(m).stem for m in self.modules)

    @property
    def packages(self) -> tuple[str, ...]:
        """The packages beyond the standard library a submission may import (the
        manifest's `[sandbox] packages`, none by default; grading/imports.py)."""
        return declared_packages(self.name, self.extra.get("sandbox", {}))

    @property
    def relies_on(self) -> dict[str, tuple[str, ...]]:
        """The manifest's [relies_on]: for each function the student writes, the
        student's functions it calls (`minimax = ["player", "actions", ...]`), which
        the hidden suite plays with the grader's own when it judges the function."""
        return _relies_on(self.name, self.extra.get("relies_on", {}))

    # ------------------------------------------------------------ its rubric
    def rubric(self) -> "Rubric":
        """The hidden suite's rubric.toml, read and checked (KitError, one line)."""
        return read_rubric(self.suite_dir)


@dataclass(frozen=True)
class Rubric:
    """A hidden suite's rubric.toml: the points of each check, its time limits as
    written (the Grader scales them), its [limits], the sandbox layers without which
    nobody is graded, and the checks that judge the whole program (docs/SUITES.md)."""
    points: dict[str, float]
    timeouts: dict[str, float] = field(default_factory=dict)
    limits: dict[str, int] = field(default_factory=dict)
    required: tuple[str, ...] = ("rlimits",)
    whole_program: tuple[str, ...] = ()

    @property
    def max_score(self) -> float:
        return float(sum(self.points.values()))


#: What a rubric's [timeouts] and [limits] may set (grading/student.py, Timeouts, and
#: grading/grader.py, limits_of, say what each is).
TIMEOUTS = ("call", "imports", "check", "test", "submission", "wait", "check_wait")
LIMITS = ("memory_mb", "check_megabytes", "check_values")


def read_rubric(suite_dir: Path) -> Rubric:
    path = suite_dir / "rubric.toml"
    if not path.is_file():
        raise KitError(f"{path} is missing")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise KitError(f"{path}: {error}") from None
    if "kit" in data:
        raise KitError(f"{path}: the [kit] table is gone: nothing of ours may run in the "
                       "sandbox; give the student's code the grader's objects through call "
                       "plans instead (docs/SUITES.md)")
    points = dict(data.get("points", {}))
    for table, known in (("timeouts", TIMEOUTS), ("limits", LIMITS)):
        unknown = set(data.get(table, {})) - set(known)
        if unknown:     # a misspelt limit would silently be the default
            raise KitError(f"{path}: [{table}] names unknown limits {sorted(unknown)} "
                           f"(known: {', '.join(known)})")
    whole = tuple(data.get("blame", {}).get("whole_program", ()))
    if set(whole) - set(points):
        raise KitError(f"{path}: [blame] whole_program names checks without points: "
                       f"{sorted(set(whole) - set(points))}")
    return Rubric(points, dict(data.get("timeouts", {})), dict(data.get("limits", {})),
                  tuple(data.get("sandbox", {}).get("required", ("rlimits",))), whole)


_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def declared_packages(name: str, table) -> tuple[str, ...]:
    """The `[sandbox] packages` of an assignment.toml, checked (KitError, one line)."""
    where = f"solutions/{name}/assignment.toml [sandbox] packages"
    packages = table.get("packages", []) if isinstance(table, dict) else table
    if not isinstance(packages, list) or not all(isinstance(p, str) for p in packages):
        raise KitError(f"{where}: must be a list of package names, e.g. packages = [\"numpy\"]")
    for package in packages:
        if not _PACKAGE.match(package):
            raise KitError(f"{where}: {package!r} is not a package name (a top-level name "
                           "such as numpy, never a dotted one)")
        if package in sys.stdlib_module_names:
            raise KitError(f"{where}: {package} is part of Python's standard library, "
                           "which every submission may import anyway")
    return tuple(packages)


def _relies_on(name: str, table) -> dict[str, tuple[str, ...]]:
    where = f"solutions/{name}/assignment.toml [relies_on]"
    if not isinstance(table, dict):
        raise KitError(f"{where}: must be a table of function = [functions it calls]")
    found = {}
    for function, callees in table.items():
        if not isinstance(callees, list) or not all(isinstance(c, str) for c in callees):
            raise KitError(f"{where}: {function} must list names, e.g. {function} = [\"winner\"]")
        if function in callees:
            raise KitError(f"{where}: {function} cannot rely on itself")
        found[function] = tuple(callees)
    return found


def course() -> Path | None:
    """The course folder outside the kit (SPIELBAUM_COURSE), if one is set."""
    folder = os.environ.get("SPIELBAUM_COURSE")
    return Path(folder).resolve() if folder else None


def names(kit: bool = False) -> list[str]:
    """Every assignment with a manifest (the kit's own when `kit`), in alphabetical order."""
    where = None if kit else course()
    solutions = SOLUTIONS if where is None else where / "solutions"
    return sorted(p.parent.name for p in solutions.glob("*/assignment.toml"))


def load(name: str) -> Assignment:
    """The assignment `name`; a KitError naming the known ones if there is none."""
    return _load(name, course())


@functools.cache
def _load(name: str, where: Path | None) -> Assignment:
    solutions = SOLUTIONS if where is None else where / "solutions"
    manifest = solutions / name / "assignment.toml"
    if not name or "/" in name or name.startswith(".") or not manifest.is_file():
        known = ", ".join(names()) or "none"
        raise KitError(f"unknown assignment {name!r} (known: {known})")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise KitError(f"{manifest}: {error}") from None
    try:
        return Assignment(
            name=data["name"], title=data["title"], modules=tuple(data["modules"]),
            files=tuple(data.get("files", ())),
            public_timeout=float(data.get("public_timeout", 10)),
            extra={k: v for k, v in data.items() if k not in _KNOWN_KEYS}, course=where)
    except KeyError as missing:
        raise KitError(f"{manifest}: missing key {missing}") from None
