"""What a submission may import: one rule, told and checked the same way everywhere.

The sandboxed child sees Python's standard library and the student's folder, nothing
else of the machine (sandbox/confine.readable): the grader runs the student's modules
where nothing else is installed. A teacher may allow packages per assignment,

    [sandbox]                    # solutions/<a>/assignment.toml
    packages = ["numpy"]

and the child then reads exactly each package's own folder (and its `<name>.libs`),
never the site-packages folder that holds them (the kit lives there too). The rule is
said in one sentence, `refusal`, by the grader and by `make check` alike.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
from dataclasses import dataclass

from .. import KitError
from ..i18n import translator
from .kinds import is_a

_MISSING = re.compile(r"No module named '([^']+)'")


def _(message: str) -> str:
    """The student kit's words (the `spielbaum` domain, released with every assignment),
    not the grader's own: `make check` says this rule in the same sentence."""
    return translator()(message)


@dataclass(frozen=True)
class Allowed:
    """The packages an assignment allows: name -> its own folder, and every folder
    the child may read for them (the package's folder and its `.libs`)."""
    packages: tuple[tuple[str, str], ...] = ()
    folders: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _folder in self.packages)


@functools.cache
def resolve(packages: tuple[str, ...]) -> Allowed:
    """The folders of `packages` as installed where the grader runs (KitError, one line,
    for one that is missing or is no package folder)."""
    found, folders = [], []
    for package in packages:
        spec = importlib.util.find_spec(package)
        locations = list(spec.submodule_search_locations or ()) if spec else []
        if spec is None:
            raise KitError(f"the assignment allows the package {package}, but it is not "
                           f"installed where the grader runs ({sys.executable}): install it "
                           "into the kit's environment (pip install ...)")
        if len(locations) != 1 or not os.path.isfile(os.path.join(locations[0],
                                                                  "__init__.py")):
            raise KitError(f"the assignment allows {package}, which is not a package folder "
                           f"with an __init__.py ({spec.origin}): only such packages can be "
                           "given to the sandbox")
        folder = os.path.realpath(locations[0])
        found.append((package, folder))
        folders.append(folder)
        libs = os.path.join(os.path.dirname(folder), f"{package}.libs")
        if os.path.isdir(libs):         # the shared libraries a manylinux wheel ships
            folders.append(os.path.realpath(libs))
    return Allowed(tuple(found), tuple(folders))


def allowed(assignment) -> Allowed:
    """The packages `assignment` allows, resolved (none: an empty Allowed)."""
    return resolve(assignment.packages) if assignment.packages else Allowed()


def refusal(file: str, module: str) -> str:
    """The rule, in the words the grader and `make check` both say."""
    return _("{file} imports {module}, which this assignment does not allow: only Python's "
             "standard library may be imported, and the packages the README names").format(
        file=file, module=module)


def refused(raised: dict | None, allowed_names=()) -> str | None:
    """The refusal sentence for an exception the child sent, when it is a module that
    could not be found because the sandbox offers only the standard library (and the
    allowed packages); None for anything else (a student's own ImportError, a name of
    the standard library that does not exist)."""
    if not is_a(raised, "ModuleNotFoundError"):
        return None
    found = _MISSING.search(str(raised.get("message") or ""))
    if not found:
        return None
    top = found.group(1).partition(".")[0]
    if top in sys.stdlib_module_names or top in allowed_names:
        return None
    where = str(raised.get("where") or "")
    file = where.partition(",")[0] or _("your code")
    text = refusal(file, top)
    return f"{text} ({where})" if where else text
