"""`autograder new NAME`: a new assignment that releases, checks and grades at once.

It writes the files docs/SUITES.md lists, from templates/ (a small game standing
in for the teacher's, with a hidden suite comparing each function with the
reference), into the course folder (SPIELBAUM_COURSE) or the kit (`--in-kit`;
docs/AUTHORING.md says when). It never overwrites anything.
"""

from __future__ import annotations

import keyword
import re
import string
import sys
from pathlib import Path

from .. import KitError
from .. import assignment as assignments

TEMPLATES = Path(__file__).with_name("templates")

#: What an assignment's name may be: it is also the student's module (NAME.py), a
#: folder name, a Python package name in the kit and part of every command.
NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
#: Names the student's folder already uses (the student kit's files) or pytest would
#: read as something else.
TAKEN = {"check", "conftest", "duel", "kit_language", "play", "pytest", "setup"}


def _folders(in_kit: bool) -> tuple[Path, Path]:
    """Where an assignment's solution and suite folders go: a course folder, or the kit."""
    course = assignments.course()
    if in_kit and course is not None:
        raise KitError("--in-kit writes into the kit, but SPIELBAUM_COURSE names a course "
                       f"folder ({course}): unset it, or leave out --in-kit")
    if in_kit:
        return assignments.SOLUTIONS, assignments.SUITES
    if course is None:
        raise KitError("say where the assignment goes: set SPIELBAUM_COURSE to your "
                       "course folder (export SPIELBAUM_COURSE=~/my-course), or pass "
                       "--in-kit to add it to the kit itself (docs/AUTHORING.md)")
    return course / "solutions", course / "suites"


def problem_with(name: str) -> str | None:
    """Why `name` cannot name a new assignment, in one sentence; None if it can."""
    if not NAME.fullmatch(name):
        return (f"{name!r} cannot name an assignment: use a lower-case letter, then lower-case "
                "letters, digits or _ (at most 32), e.g. connect3")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"{name!r} is a Python keyword: the student's module {name}.py could not be imported"
    if name in sys.stdlib_module_names or name in TAKEN or name.startswith("test"):
        return (f"{name!r} is taken (by Python's standard library, the student kit or pytest): "
                f"the student's module {name}.py would hide it; choose another name")
    return None


def new(name: str, title: str | None = None, in_kit: bool = False) -> list[Path]:
    """Write the new assignment `name`; return the files written. KitError, one line,
    for a name that cannot be one, or a name or folder already taken."""
    problem = problem_with(name)
    if problem:
        raise KitError(problem)
    # a course's assignment may not take a name of the kit's: the suites would share a module
    if name in assignments.names() or name in assignments.names(kit=True):
        raise KitError(f"there is already an assignment {name!r}: choose another name")
    solutions, suites = _folders(in_kit)
    folders = [solutions / name, suites / name]
    for folder in folders:
        if folder.exists():
            raise KitError(f"{folder} already exists: new never overwrites; choose another "
                           "name or move that folder away")
    fields = {"name": name, "module": name, "title": title or name.capitalize()}
    files = {
        solutions / name / f"{name}.py": "reference.py.tmpl",
        solutions / name / f"test_{name}.py": "public_tests.py.tmpl",
        solutions / name / "README.md": "README.md.tmpl",
        solutions / name / "assignment.toml": "assignment.toml.tmpl",
        suites / name / "test_hidden.py": "test_hidden.py.tmpl",
        suites / name / "rubric.toml": "rubric.toml.tmpl",
    }
    if in_kit:      # the kit's suites are the package autograder.suites.<name>
        files[suites / name / "__init__.py"] = None
    for folder in folders:
        folder.mkdir(parents=True)
    for path, template in files.items():
        text = "" if template is None else string.Template(
            (TEMPLATES / template).read_text(encoding="utf-8")).substitute(fields)
        path.write_text(text, encoding="utf-8")
    assignments._load.cache_clear()
    return list(files)

