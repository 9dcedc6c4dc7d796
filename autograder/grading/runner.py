"""The hidden suite under pytest: the plugin that records every verdict, and the rows
it makes (TestResult, Graded). The suite runs in this (trusted) process; the
student's code only ever runs in the sandboxed child behind the `student` fixture.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import os
import sys
import types
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import pytest
import pytest_timeout

from ..assignment import Rubric
from ..checking.blame import Blame
from ..checking.failures import CheckFailed
from ..i18n import grader_text as _
from ..outputs import trees
from ..sandbox.client import backstop
from .student import Event, Student


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
    behaviour: dict = field(default_factory=dict)     # grading/behaviour_record.py
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
    read from the suite's source without running it."""
    titles = {}
    for path in sorted(suite_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                doc = ast.get_docstring(node)
                titles[node.name] = doc.strip().splitlines()[0] if doc else node.name
    return titles


def unrun_tests(suite_dir: Path, points: dict[str, float], output: str) -> list["TestResult"]:
    """A row per check of the rubric, not run, saying `output`. A check's title is
    shown in the course's language: a message of the grader domain
    (i18n.extract_hidden_checks); one not in the catalog stays as written."""
    titles = check_titles(suite_dir)
    return [TestResult(name, _(titles.get(name, name)), float(value), output=output)
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
        """The session fixtures a hidden suite asks for (`student`, `blame`, `reveal`,
        `shared`), as a module of plain functions, as a conftest.py would be: pytest
        deprecates session fixtures that are methods of an instance."""
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
        return backstop(self._student.timeouts.test)

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
            doc = _((item.function.__doc__ or item.name).strip().splitlines()[0])
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


#: pytest's plugins a hidden suite never needs, each a cost per submission
#: (docs/PERFORMANCE.md). The unittest plugin stays: without it a suite's TestCase
#: classes would silently not be collected.
UNNEEDED_PLUGINS = ("cacheprovider", "randomly", "unraisableexception", "threadexception",
                    "logging", "warnings", "junitxml", "pastebin", "doctest", "stepwise",
                    "faulthandler", "debugging", "setuponly", "setupplan", "python_path",
                    "legacypath")


def run_suite(suite_dir: Path, plugin: GradingPlugin, plugins: tuple = (),
              collect_only: bool = False) -> int:
    # --tb=no: the plugin words every failure from the exception itself (`_explain`),
    # and pytest's traceback (every frame's source parsed) is costly. --assert=plain:
    # verdicts are CheckFailed, never a bare assert, so nothing needs rewriting.
    args = [str(suite_dir), "-q", "--tb=no", "--assert=plain",
            *(f"-pno:{name}" for name in UNNEEDED_PLUGINS),
            "--rootdir", str(suite_dir), "-o", "timeout_method=signal",
            "-o", "python_files=test_*.py", "-W", "ignore"] + \
        (["--collect-only"] if collect_only else [])
    sink = io.StringIO()
    # No plugin installed beside pytest is loaded: a hidden suite needs pytest-timeout
    # only, passed here.
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            environment_set("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"):
        return pytest.main(args, plugins=[plugin, plugin.fixtures, pytest_timeout, *plugins])


@contextlib.contextmanager
def environment_set(name: str, value: str):
    """The environment variable `name` set to `value` for the block, then as it was."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
