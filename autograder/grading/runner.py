"""Grade one submission: scratch copy -> sandbox -> hidden pytest suite -> scores.

The hidden suite runs in this (trusted) process under pytest, with a plugin
that hands it the `student` fixture and records every verdict itself; the
student's code only ever runs in the sandboxed child behind `Student`.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import os
import shutil
import sys
import time
import tomllib
import types
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import pytest
import pytest_timeout

from ..i18n import grader_text as _
from .. import KitError
from ..sandbox.client import Limits, SandboxError, backstop
from ..sandbox.layers import ALL_LAYERS, files_confined, unconfined_files_allowed
from ..outputs import trees
from .imports import allowed as allowed_packages
from ..checking.blame import Blame
from ..checking.failures import CheckFailed
from .intake import Prepared, prepare, scratch_for
from .intake import find_modules  # noqa: F401 (similarity imports it from here)
from .student import Event, Student, Timeouts
from .student import ceiling as submission_ceiling


@dataclass
class Rubric:
    points: dict[str, float]
    timeouts: Timeouts
    limits: Limits
    required: tuple[str, ...] = ("rlimits",)   # sandbox layers without which nobody is graded
    whole_program: tuple[str, ...] = ()   # checks that run the student's own helpers too

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
    points = dict(data.get("points", {}))
    check, imports = base.get("check", 60.0), base.get("imports", 5.0)
    wait, check_wait = base.get("wait", Timeouts.wait), base.get("check_wait", Timeouts.check_wait)
    # The ceiling ends only what no finite program needs (student.ceiling).
    ceiling = base.get("submission", submission_ceiling(len(points), check, imports, check_wait))
    timeouts = Timeouts(call=base.get("call", 2.0) * scale, imports=imports * scale,
                        check=check * scale, test=base.get("test", 120.0) * scale,
                        submission=ceiling * scale, wait=wait * scale,
                        check_wait=check_wait * scale)
    given = data.get("limits", {})
    memory = given.get("memory_mb", 512)
    # The per-check allowances are the grader's (Grader.warm_up: the reference must stay
    # under a quarter of them); a suite whose checks need more raises them here.
    defaults = Limits()
    check_bytes = int(given.get("check_megabytes", defaults.check_bytes >> 20)) << 20
    check_items = int(given.get("check_values", defaults.check_items))
    if "kit" in data:
        raise KitError(f"{path}: the [kit] table is gone: nothing of ours may run in the "
                       "sandbox; give the student's code the grader's objects through call "
                       "plans instead (docs/SLICES.md)")
    required = tuple(data.get("sandbox", {}).get("required", ("rlimits",)))
    unknown = set(required) - set(ALL_LAYERS)
    if unknown:
        raise KitError(f"{path}: [sandbox] required names unknown layers {sorted(unknown)} "
                       f"(known: {', '.join(ALL_LAYERS)})")
    # Every other check judges one function with the functions it relies on played
    # by the grader; these few judge the whole program (docs/SLICES.md, "Blame").
    whole = tuple(data.get("blame", {}).get("whole_program", ()))
    if set(whole) - set(points):
        raise KitError(f"{path}: [blame] whole_program names checks without points: "
                       f"{sorted(set(whole) - set(points))}")
    return Rubric(points=points, timeouts=timeouts, required=required,
                  limits=Limits(memory_bytes=memory << 20, check_bytes=check_bytes,
                                check_items=check_items), whole_program=whole)


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
    picture: dict | None = None     # a failure's drawing (outputs/trees.py), checked


class Status(StrEnum):
    """What became of one submission (grades.csv's `status`); equal to its string."""
    GRADED = "graded"
    MISSING = "missing"               # no module, or only a link to one
    AMBIGUOUS = "ambiguous"           # the module appears more than once
    IMPORT_ERROR = "import-error"     # it does not parse, crashes, loops or exits on import
    SANDBOX_ERROR = "sandbox-error"   # this machine could not confine it: not run
    BAD_NAME = "bad-name"             # its folder's name cannot be a student id
    ERROR = "error"                   # the grader failed on it


@dataclass
class Graded:
    student: str
    status: str                 # a Status
    score: float
    max_score: float
    tests: list[TestResult] = field(default_factory=list)
    message: str = ""           # one line for the whole submission
    events: list[Event] = field(default_factory=list)
    printed: str = ""
    seconds: float = 0.0
    layers: list[str] = field(default_factory=list)
    refused: int = 0            # refusals in all (events keep the first 100 distinct ones)
    peak_mb: int = 0            # the grading process's peak memory for this submission
    details: str = ""           # for the teacher: the kit's traceback of a grader error
    fingerprint: dict = field(default_factory=dict)   # grading/fingerprint.py
    # per check: (reply bytes, decoded values) its children sent, the most of its runs
    # (Grader.warm_up sizes the per-check allowance from the reference's)
    check_usage: dict = field(default_factory=dict)

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


def title(line: str) -> str:
    """A check's title in the course's language (a message of the grader domain,
    extracted from the docstrings by i18n.extract_hidden_checks); one not in the
    catalog, as a course folder's own suite, stays as written."""
    return _(line)


def unrun_tests(suite_dir: Path, points: dict[str, float], output: str) -> list["TestResult"]:
    titles = check_titles(suite_dir)
    return [TestResult(name, title(titles.get(name, name)), float(value), output=output)
            for name, value in points.items()]


# ------------------------------------------------------------ the pytest plugin
def shared_by(student: Student):
    """The `shared` fixture: verdict data several checks of one submission judge,
    made once. `shared(make, play)` is `make(student, play)` the first time it is
    asked for, per `make` and per set of helpers `play` names (the grader's, for
    a check judged again on its own; None: the student's own), and the same value
    afterwards. What `make` returns is kept for the whole submission: keep verdict
    data only (answers cut to verdict size, checking/verdicts.py)."""
    made = {}

    def shared(make, play=None):
        key = (make, frozenset(play or ()))
        if key not in made:
            made[key] = make(student, play)
        return made[key]
    return shared


class GradingPlugin:
    def __init__(self, student: Student, rubric: Rubric, reveal: bool,
                 blame: Blame | None = None):
        self._student, self.rubric, self._reveal = student, rubric, reveal
        self._blame = blame or Blame()
        self.results: dict[str, TestResult] = {}
        self.collected: list[str] = []
        self.usage: dict[str, tuple[int, int]] = {}

    @property
    def fixtures(self) -> types.ModuleType:
        """The session fixtures a hidden suite asks for (`student`; `blame`, the
        submission's Blame: its failures so far and the assignment's [relies_on];
        `reveal`; `shared`, see `shared_by`), as a module of plain functions
        registered beside the plugin, as a conftest.py would be: pytest deprecates
        session fixtures that are methods of an instance."""
        module = types.ModuleType("spielbaum_grading_fixtures")
        for name, value in (("student", self._student), ("blame", self._blame),
                            ("reveal", self._reveal), ("shared", shared_by(self._student))):
            setattr(module, name, pytest.fixture(scope="session", name=name)(
                lambda value=value: value))
        return module

    def pytest_runtest_setup(self, item):
        self._student.start_check()
        self._blame.used = (0, 0)

    @property
    def wall_limit(self) -> float:
        return backstop(self.rubric.timeouts.test)

    def pytest_runtest_teardown(self, item):
        # pytest keeps the last failure for post-mortem debugging: its frames hold
        # the check's outcomes, which are the student's data. Keep nothing.
        for name in ("last_type", "last_value", "last_traceback"):
            if hasattr(sys, name):
                delattr(sys, name)

    def pytest_collection_modifyitems(self, items):
        self.collected = [item.name for item in items]
        # A wall-clock backstop around each check, the grader's own work included
        # (the student's calls have CPU-time limits of their own).
        for item in items:
            item.add_marker(pytest.mark.timeout(self.wall_limit))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.when == "call":
            self._blame.measure(self._student)
            self.usage[item.name] = self._blame.used
        if report.when == "call" or (report.failed and report.when == "setup"):
            doc = title((item.function.__doc__ or item.name).strip().splitlines()[0])
            points = float(self.rubric.points.get(item.name, 0))
            result = TestResult(item.name, doc, points, seconds=report.duration)
            if report.passed:
                result.passed, result.score = True, points
            else:
                result.output, result.root_cause = self._explain(call.excinfo)
                # a hidden check's drawing keeps the rule's part only where its
                # expected answer may be shown (trees.kept)
                result.picture = trees.kept(getattr(call.excinfo.value, "picture", None)
                                            if call.excinfo else None, self._reveal)
            self.results[item.name] = result

    def _explain(self, excinfo) -> tuple[str, bool]:
        error = excinfo.value if excinfo else None
        if isinstance(error, CheckFailed):
            return error.render(self._reveal), error.root_cause
        text = str(error)
        if text.startswith("Timeout"):
            return _("the hidden test took longer than {seconds:.0f} s (wall clock) in total "
                     "and was stopped").format(seconds=self.wall_limit), False
        # A bug in the suite, never the student's fault: say so plainly.
        return _("internal grader error ({exception}): {message}").format(
            exception=type(error).__name__, message=text[:300]), False


#: pytest's plugins a hidden suite never needs, each a cost per submission: the
#: unraisable-exception plugin runs a full garbage collection at the end of every
#: session (pytest 8.4+: 0.3 s of a tic-tac-toe grading where the warm caches are not
#: frozen, as in bench_suites; little in a bulk grader's forked workers, which freeze
#: them), logging and warnings wrap every test; faulthandler, pdb's hooks, --setup-only
#: and --setup-plan, pythonpath and the legacy tmpdir/testdir fixtures took about 3 ms
#: of each session (34 against 37 ms of the grader's CPU for a submission that does not
#: import; a suite that wants a fixture of theirs is told it is missing). The unittest
#: plugin stays: without it a suite's TestCase classes would silently not be collected.
#: Verdicts come from the GradingPlugin.
UNNEEDED_PLUGINS = ("cacheprovider", "randomly", "unraisableexception", "threadexception",
                    "logging", "warnings", "junitxml", "pastebin", "doctest", "stepwise",
                    "faulthandler", "debugging", "setuponly", "setupplan", "python_path",
                    "legacypath")


def run_suite(suite_dir: Path, plugin: GradingPlugin, plugins: tuple = (),
              collect_only: bool = False) -> int:
    # --tb=no: the plugin words every failure from the exception itself (`_explain`);
    # pytest's own traceback of a failed check (the source of every frame, parsed to
    # find its statements) cost about 20 ms each, and nobody read it. --assert=plain:
    # verdicts are CheckFailed, never a bare assert, so the suite's modules are not
    # rewritten when first imported (a platform's fresh process paid that every time).
    args = [str(suite_dir), "-q", "--tb=no", "--assert=plain",
            *(f"-pno:{name}" for name in UNNEEDED_PLUGINS),
            "--rootdir", str(suite_dir), "-o", "timeout_method=signal",
            "-o", "python_files=test_*.py", "-W", "ignore"] + \
        (["--collect-only"] if collect_only else [])
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            _no_plugin_autoload():
        return pytest.main(args, plugins=[plugin, plugin.fixtures, pytest_timeout, *plugins])


@contextlib.contextmanager
def _no_plugin_autoload():
    """pytest loads every plugin installed beside it (xdist, anyio, platformdirs' ...)
    into each session unless told not to: a fresh platform process paid 0.09 s for
    them. A hidden suite needs pytest-timeout only, which run_suite passes itself."""
    before = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = before


# ------------------------------------------------------------ one submission
def grade_submission(piece, student_id: str, folder: Path, *, layers: list[str],
                     scale: float = 1.0, reveal: bool = False, rubric: Rubric | None = None,
                     plugins: tuple = (), recorded: bool = True,
                     rehearse: bool = False) -> Graded:
    """Grade one folder (use grading.grader.Grader, which holds the set-up and turns
    a grader error into the student's row)."""
    prepared, status, problem = prepare(folder, piece.modules)
    return grade_prepared(piece, student_id, prepared, layers=layers, scale=scale,
                          reveal=reveal, rubric=rubric, plugins=plugins,
                          refusal=(status, problem), recorded=recorded, rehearse=rehearse)


def require_points(piece, rubric: Rubric, collected: list[str]) -> None:
    """KitError when the hidden suite has a check the rubric gives no points."""
    unknown = set(collected) - set(rubric.points)
    if unknown:
        raise KitError(f"{piece.suite_dir}/rubric.toml has no points for: {sorted(unknown)}")


def check_reference_quickly(piece, folder: Path, *, layers: list[str], rubric: Rubric,
                            plugins: tuple = ()) -> None:
    """What a batch checks of a reference that scored full marks in full before, with
    this kit, suite and reference and these layers (Grader.warm_up; the course's
    cache remembers it): the hidden suite is collected (its modules imported before
    the workers fork, every check in the rubric) and one child starts on the
    reference and imports its modules (the sandbox works on this machine today).
    KitError, one line, when either fails."""
    prepared, _status, problem = prepare(folder, piece.modules)
    if prepared is None:
        raise KitError(f"the reference solution of {piece.name} cannot be read: {problem}")
    scratch = scratch_for(prepared)
    student = Student(scratch, list(piece.module_names), layers, rubric.timeouts,
                      rubric.limits, recorded=False, allowed=allowed_packages(piece))
    try:
        plugin = GradingPlugin(student, rubric, reveal=True, blame=Blame.of(piece))
        code = run_suite(piece.suite_dir, plugin, plugins, collect_only=True)
        if code != 0:
            raise KitError(f"the hidden suite of {piece.name} could not be collected "
                           f"(pytest exit {code})")
        require_points(piece, rubric, plugin.collected)
        try:
            failure = student.importable
        except SandboxError as error:
            failure = error
        if failure is not None:
            raise KitError(f"the reference solution of {piece.name} does not start in the "
                           f"sandbox here ({getattr(failure, 'detail', failure)}); see "
                           "`autograder doctor`")
    finally:
        student.close()
        shutil.rmtree(scratch, ignore_errors=True)


def grade_prepared(piece, student_id: str, prepared: Prepared | None, *, layers: list[str],
                   scale: float = 1.0, reveal: bool = False, rubric: Rubric | None = None,
                   plugins: tuple = (), refusal: tuple[str, str] = ("", ""),
                   recorded: bool = True, rehearse: bool = False) -> Graded:
    """Grade a prepared submission (its modules' bytes and notes); `prepared` None
    gives the row of a submission that cannot be graded, `refusal` saying why.
    `recorded`: keep the fingerprint of its answers (the similarity report's).
    `rehearse`: the reference's own grading (Blame.rehearse: every check judged
    again with the grader's helpers too)."""
    started = time.perf_counter()
    rubric = rubric or load_rubric(piece.suite_dir, scale)
    empty = unrun_tests(piece.suite_dir, rubric.points, "")

    def ungraded(status, message):
        for result in empty:
            result.output = _("not run: {detail}").format(detail=message)
        return Graded(student_id, status, 0.0, rubric.max_score, empty, message,
                      seconds=time.perf_counter() - started)

    lacking = [layer for layer in rubric.required if layer not in layers]
    if lacking:
        return ungraded(Status.SANDBOX_ERROR, _(
            "this machine does not offer the sandbox layers the rubric requires: {layers} "
            "(see `autograder doctor`); the code was not run").format(layers=", ".join(lacking)))
    if prepared is None:
        return ungraded(*refusal)
    if not files_confined(layers) and not unconfined_files_allowed():
        return ungraded(Status.SANDBOX_ERROR, _(
            "no sandbox layer on this machine keeps the code away from other files "
            "(tmpfs or landlock: see `autograder doctor`); the code was not run (a teacher "
            "may grade anyway with --unconfined-files)"))
    scratch = scratch_for(prepared)
    skipped = prepared.notes
    student = Student(scratch, list(piece.module_names), layers, rubric.timeouts,
                      rubric.limits, recorded=recorded, allowed=allowed_packages(piece))
    try:
        plugin = GradingPlugin(student, rubric, reveal, Blame.of(piece, rehearse=rehearse))
        try:
            code = run_suite(piece.suite_dir, plugin, plugins)
        except SandboxError as error:
            return ungraded(Status.SANDBOX_ERROR, str(error))
        if code not in (0, 1):
            raise KitError(f"the hidden suite of {piece.name} could not run (pytest exit {code})")
        printed = student.close()
    finally:
        student.close()
        shutil.rmtree(scratch, ignore_errors=True)
    titles = check_titles(piece.suite_dir)
    tests = [plugin.results.get(name) or TestResult(name, title(titles.get(name, name)),
                                                    float(points), output=_("not run"))
             for name, points in rubric.points.items()]
    require_points(piece, rubric, plugin.collected)
    status, message = Status.GRADED, ""
    if student.import_failure is not None:
        status, message = Status.IMPORT_ERROR, student.import_failure.detail
    graded = Graded(student_id, status, sum(t.score for t in tests), rubric.max_score, tests,
                    message, events=[Event("skipped", s) for s in skipped] + student.events,
                    printed=printed, seconds=time.perf_counter() - started,
                    layers=list(layers), refused=student.refused,
                    fingerprint=student.fingerprint.data(), check_usage=dict(plugin.usage))
    return graded


