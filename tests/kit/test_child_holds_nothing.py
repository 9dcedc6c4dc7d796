"""Nothing inside the sandbox may know an answer.

For every assignment, the reference solution is graded as a student would be,
by the full hidden suite; just before its child is stopped, the child lists
every module its interpreter holds. Only three kinds may appear: the standard
library, the student's own folder, and the sandbox's generic plumbing
(child.py, confine.py, protocol.py). No rules, no searches, no kit modules.
"""

import sysconfig
from pathlib import Path

import pytest

from autograder import assignment as assignments
from autograder.grading.grader import Grader
from autograder.grading.student import Student
from autograder.sandbox import layers

pytestmark = pytest.mark.slow

SANDBOX = Path(layers.__file__).resolve().parent
PLUMBING = {SANDBOX / name for name in ("child.py", "confine.py", "protocol.py")}
STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()
SITE = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib")}


def allowed(file: str | None, scratch: Path) -> bool:
    if file is None:
        return True                      # built into the interpreter
    path = Path(file).resolve()
    if path in PLUMBING or path.is_relative_to(scratch):
        return True
    return path.is_relative_to(STDLIB) and not any(path.is_relative_to(s) for s in SITE)


@pytest.mark.parametrize("name", assignments.names())
def test_the_child_holds_only_the_standard_library_the_student_and_plumbing(
        name, monkeypatch):
    seen = {}
    close = Student.close

    def listing_close(self):
        if self._sandbox is not None and self._sandbox.alive and "modules" not in seen:
            # what the child says its interpreter holds: (module, its file) pairs
            listed = self._sandbox.request({"op": "loaded"}, 5.0)
            seen["modules"] = [tuple(pair) for pair in listed.value] if listed.ok else []
            seen["scratch"] = Path(self.scratch).resolve()
        return close(self)

    monkeypatch.setattr(Student, "close", listing_close)
    assignment = assignments.load(name)
    grader = Grader(assignment, layers=list(layers.available()))
    graded = grader.grade("reference", assignment.solution_dir)
    assert graded.score == graded.max_score, graded.message
    modules = seen["modules"]
    assert any(name in assignment.module_names for name, _ in modules)
    strangers = [(name, file) for name, file in modules if not allowed(file, seen["scratch"])]
    assert strangers == [], f"modules in the child that are not ours to allow: {strangers}"
    assert not [name for name, _ in modules if "kit" in name.lower()]
