"""Grade one submission: scratch copy -> sandbox -> hidden pytest suite -> scores.

The hidden suite runs in this (trusted) process under pytest, with a plugin
that hands it the `student` fixture and records every verdict itself; the
student's code only ever runs in the sandboxed child behind `Student`.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import functools
import io
import multiprocessing.util
import os
import shutil
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .. import KitError
from ..sandbox.client import Limits, SandboxError
from ..sandbox.layers import ALL_LAYERS
from .checks import CheckFailed
from .student import Event, Student, Timeouts

MAX_BYTES = 5 << 20
IGNORED_DIRS = {"__pycache__", "__MACOSX", ".git", ".venv", "venv", ".ipynb_checkpoints"}


@dataclass
class Rubric:
    points: dict[str, float]
    timeouts: Timeouts
    limits: Limits
    required: tuple[str, ...] = ("rlimits",)   # sandbox layers without which nobody is graded

    @property
    def max_score(self) -> float:
        return float(sum(self.points.values()))


def load_rubric(suite_dir: Path, scale: float = 1.0) -> Rubric:
    path = suite_dir / "rubric.toml"
    if not path.is_file():
        raise KitError(f"{path} is missing")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise KitError(f"{path}: {error}") from None
    base = data.get("timeouts", {})
    timeouts = Timeouts(call=base.get("call", 2.0) * scale,
                        imports=base.get("imports", 5.0) * scale,
                        check=base.get("check", 60.0) * scale,
                        test=base.get("test", 120.0) * scale)
    memory = data.get("limits", {}).get("memory_mb", 512)
    if "kit" in data:
        raise KitError(f"{path}: the [kit] table is gone: nothing of ours may run in the "
                       "sandbox; give the student's code the grader's objects through call "
                       "plans instead (docs/SLICES.md)")
    required = tuple(data.get("sandbox", {}).get("required", ("rlimits",)))
    unknown = set(required) - set(ALL_LAYERS)
    if unknown:
        raise KitError(f"{path}: [sandbox] required names unknown layers {sorted(unknown)} "
                       f"(known: {', '.join(ALL_LAYERS)})")
    return Rubric(points=dict(data.get("points", {})), timeouts=timeouts, required=required,
                  limits=Limits(memory_bytes=memory << 20))


@dataclass
class TestResult:
    name: str
    title: str
    max_score: float
    score: float = 0.0
    passed: bool = False
    output: str = ""
    root_cause: bool = False
    seconds: float = 0.0


@dataclass
class Graded:
    student: str
    status: str                 # graded, missing, ambiguous, import-error, sandbox-error
    score: float
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    message: str = ""           # one line for the whole submission
    events: list[Event] = field(default_factory=list)
    printed: str = ""
    seconds: float = 0.0
    layers: list[str] = field(default_factory=list)
    refused: int = 0            # refusals in all (events keep the first 100 distinct ones)
    fingerprint: dict = field(default_factory=dict)   # grading/fingerprint.py

    @property
    def timeouts(self) -> int:
        """Calls that ran out of time, and checks whose time budget ran out."""
        return sum(e.kind == "timeout" for e in self.events)

    @property
    def crashes(self) -> int:
        return sum(e.kind == "crash" for e in self.events)

    @property
    def unlisted_refusals(self) -> int:
        return self.refused - sum(e.kind == "refused" for e in self.events)


@functools.cache
def check_titles(suite_dir: Path) -> dict[str, str]:
    """The line a student reads for each hidden check (its docstring's first line),
    read from the suite's source without running it: for the rows of submissions
    that were never graded."""
    titles = {}
    for path in sorted(suite_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = ast.get_docstring(node)
                titles[node.name] = doc.strip().splitlines()[0] if doc else node.name
    return titles


def unrun_tests(suite_dir: Path, points: dict[str, float], output: str) -> list["TestResult"]:
    titles = check_titles(suite_dir)
    return [TestResult(name, titles.get(name, name), float(value), output=output)
            for name, value in points.items()]


# ------------------------------------------------------------ finding the files
def find_modules(folder: Path, modules: tuple[str, ...]) -> tuple[Path | None, str]:
    """The folder holding every module, or None and a sentence saying why not."""
    homes = []
    for module in modules:
        found = [p for p in folder.rglob(module)
                 if not (set(p.relative_to(folder).parts) & IGNORED_DIRS)]
        links = [p for p in found if p.is_symlink()]
        found = [p for p in found if p.is_file() and not p.is_symlink()]
        if not found:
            if links:
                return None, f"{module} is a symbolic link, which the grader does not follow"
            return None, f"no file named {module} in the submission"
        if len(found) > 1:
            places = ", ".join(str(p.relative_to(folder)) for p in found[:4])
            return None, f"{module} appears {len(found)} times ({places}): keep only one"
        homes.append(found[0].parent)
    if len(set(homes)) > 1:
        return None, "the modules must sit in the same folder"
    return homes[0], ""


# Scratch folders live under one folder per grading process, which holds a lock
# for as long as the process lives. A grader killed with SIGKILL cannot clean
# up; the next grading process finds its folder unlocked and removes it.
SCRATCH_ROOT = Path(tempfile.gettempdir()) / "spielbaum-scratch"
_owner: tuple[int, Path, object] | None = None


def _scratch_home() -> Path:
    global _owner
    if _owner is None or _owner[0] != os.getpid():
        SCRATCH_ROOT.mkdir(mode=0o711, exist_ok=True)
        sweep_scratch()
        # Made under a name the sweeper leaves alone, locked, then renamed: a
        # run-* folder is locked from the moment it exists.
        young = Path(tempfile.mkdtemp(prefix="new-", dir=SCRATCH_ROOT))
        young.chmod(0o711)      # sandbox users (uid layer) pass through to their own folder
        lock = open(young / ".lock", "w")
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = SCRATCH_ROOT / f"run-{os.getpid()}-{young.name.removeprefix('new-')}"
        young.rename(folder)
        _owner = (os.getpid(), folder, lock)
        # At a clean exit (also of a forked worker, which skips atexit), remove it.
        multiprocessing.util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=10)
    return _owner[1]


def sweep_scratch() -> int:
    """Remove the scratch folders of grading processes that are gone; how many."""
    removed = 0
    for folder in SCRATCH_ROOT.glob("new-*"):
        with contextlib.suppress(OSError):
            if time.time() - folder.stat().st_mtime > 60:   # a creation cut short
                shutil.rmtree(folder, ignore_errors=True)
    for folder in SCRATCH_ROOT.glob("run-*"):
        try:
            with open(folder / ".lock", "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(folder, ignore_errors=True)
                removed += 1
        except (BlockingIOError, FileNotFoundError, NotADirectoryError):
            continue        # alive (locked), or half made or removed by another sweeper
    return removed


def make_scratch(home: Path, modules: tuple[str, ...]) -> tuple[Path, list[str]]:
    """Copy the student's modules (and nothing else) into a fresh folder; say what
    was left out. Other files never reach the sandbox: a copy of a file the kit
    ships (a referee, the public tests) cannot be imported to stand in for work."""
    scratch = Path(tempfile.mkdtemp(prefix="s-", dir=_scratch_home()))
    size = 0
    for module in modules:
        source = home / module
        size += source.stat().st_size
        if size > MAX_BYTES:
            return scratch, [f"{module}: larger than {MAX_BYTES >> 20} MB, not copied"]
        shutil.copyfile(source, scratch / module)
    notes = []
    rest = [p for p in home.rglob("*") if not set(p.relative_to(home).parts) & IGNORED_DIRS
            and p.name not in modules]
    links = sorted(str(p.relative_to(home)) for p in rest if p.is_symlink())
    if links:
        notes.append(f"{_few(links)}: symbolic links are not copied")
    others = sorted(str(p.relative_to(home)) for p in rest
                    if p.suffix == ".py" and not p.is_symlink())
    if others:
        graded = ", ".join(modules) + (" is" if len(modules) == 1 else " are")
        notes.append(f"only {graded} graded; not copied: {_few(others)}")
    return scratch, notes


def _few(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


# ------------------------------------------------------------ the pytest plugin
class GradingPlugin:
    def __init__(self, student: Student, rubric: Rubric, reveal: bool):
        self._student, self.rubric, self._reveal = student, rubric, reveal
        self.results: dict[str, TestResult] = {}
        self.collected: list[str] = []

    @pytest.fixture(scope="session")
    def student(self):
        return self._student

    @pytest.fixture(scope="session")
    def reveal(self):
        return self._reveal

    def pytest_runtest_setup(self, item):
        self._student.start_check()

    def pytest_collection_modifyitems(self, items):
        self.collected = [item.name for item in items]
        for item in items:
            item.add_marker(pytest.mark.timeout(self.rubric.timeouts.test))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call" or (report.failed and report.when == "setup"):
            doc = (item.function.__doc__ or item.name).strip().splitlines()[0]
            points = float(self.rubric.points.get(item.name, 0))
            result = TestResult(item.name, doc, points, seconds=report.duration)
            if report.passed:
                result.passed, result.score = True, points
            else:
                result.output, result.root_cause = self._explain(call.excinfo)
            self.results[item.name] = result

    def _explain(self, excinfo) -> tuple[str, bool]:
        error = excinfo.value if excinfo else None
        if isinstance(error, CheckFailed):
            return error.render(self._reveal), error.root_cause
        text = str(error)
        if text.startswith("Timeout"):
            return (f"the hidden test took longer than {self.rubric.timeouts.test:.0f} s "
                    "in total and was stopped"), False
        # A bug in the suite, never the student's fault: say so plainly.
        return f"internal grader error ({type(error).__name__}): {text[:300]}", False


def run_suite(suite_dir: Path, plugin: GradingPlugin) -> int:
    args = [str(suite_dir), "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            "--rootdir", str(suite_dir), "-o", "timeout_method=signal",
            "-o", "python_files=test_*.py", "-W", "ignore"]
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        return pytest.main(args, plugins=[plugin])


# ------------------------------------------------------------ one submission
def grade_submission(piece, student_id: str, folder: Path, *, layers: list[str],
                     scale: float = 1.0, reveal: bool = False) -> Graded:
    started = time.perf_counter()
    rubric = load_rubric(piece.suite_dir, scale)
    empty = unrun_tests(piece.suite_dir, rubric.points, "")

    def ungraded(status, message):
        for result in empty:
            result.output = f"not run: {message}"
        return Graded(student_id, status, 0.0, rubric.max_score, empty, message,
                      seconds=time.perf_counter() - started)

    lacking = [layer for layer in rubric.required if layer not in layers]
    if lacking:
        return ungraded("sandbox-error", f"this machine does not offer the sandbox layers the "
                                         f"rubric requires: {', '.join(lacking)} (see "
                                         f"`autograder doctor`); the code was not run")
    if folder.is_symlink():
        return ungraded("missing", "the submission folder is a symbolic link, "
                                   "which the grader does not follow")
    home, problem = find_modules(folder, piece.modules)
    if home is None:
        return ungraded("missing" if "no file" in problem or "link" in problem
                        else "ambiguous", problem)
    scratch, skipped = make_scratch(home, piece.modules)
    student = Student(scratch, list(piece.module_names), layers, rubric.timeouts,
                      rubric.limits)
    try:
        plugin = GradingPlugin(student, rubric, reveal)
        try:
            code = run_suite(piece.suite_dir, plugin)
        except SandboxError as error:
            return ungraded("sandbox-error", str(error))
        if code not in (0, 1):
            raise KitError(f"the hidden suite of {piece.name} could not run (pytest exit {code})")
        printed = student.close()
    finally:
        student.close()
        shutil.rmtree(scratch, ignore_errors=True)
    titles = check_titles(piece.suite_dir)
    tests = [plugin.results.get(name) or TestResult(name, titles.get(name, name), float(points),
                                                    output="not run")
             for name, points in rubric.points.items()]
    unknown = set(plugin.collected) - set(rubric.points)
    if unknown:
        raise KitError(f"{piece.suite_dir}/rubric.toml has no points for: {sorted(unknown)}")
    status, message = "graded", ""
    if student.import_failure is not None:
        status, message = "import-error", student.import_failure.detail
    graded = Graded(student_id, status, sum(t.score for t in tests), rubric.max_score, tests,
                    message, events=[Event("skipped", s) for s in skipped] + student.events,
                    printed=printed, seconds=time.perf_counter() - started,
                    layers=list(layers), refused=student.refused,
                    fingerprint=student.fingerprint.data())
    return graded


