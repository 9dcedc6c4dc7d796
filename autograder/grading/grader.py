"""The one place that knows how to grade submissions of one assignment on this machine.

    grader = Grader(assignment.load("tictactoe"))
    grader.require_layers()      # KitError if the rubric's floor of sandbox layers is missing
    grader.warm_up()             # the reference must score full marks (and fills caches)
    graded = grader.grade("alice", Path("submissions/alice"))     # never raises

A Grader holds the sandbox layers, the time scale, and the rubric with its limits
scaled by it; a grader error is the student's row (status `error`), never the end of
a batch. Every feature that grades grades through one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import time
import traceback
from pathlib import Path

from .. import KitError
from ..assignment import Rubric
from ..checking.blame import Blame
from ..i18n import grader_text as _
from ..sandbox import layers as sandbox_layers
from ..sandbox.client import Limits, SandboxError, encoded_args
from ..sandbox.plans import Known
from . import calibrate, imports, warm
from .intake import Prepared, prepare, scratch_for
from .runner import Graded, GradingPlugin, Status, run_suite, unrun_tests
from .student import Event, Student, Timeouts, ceiling
from .workers import one_cpu


def scaled_timeouts(rubric: Rubric, scale: float) -> Timeouts:
    """The rubric's [timeouts] on this machine: each (or its default, Timeouts) times
    `scale`; the submission's ceiling by default ends only what no finite program
    needs (student.ceiling)."""
    given = {f.name: f.default for f in dataclasses.fields(Timeouts)} | rubric.timeouts
    if "submission" not in rubric.timeouts:
        given["submission"] = ceiling(len(rubric.points), given["check"], given["imports"],
                                      given["check_wait"])
    return Timeouts(**{name: value * scale for name, value in given.items()})


def limits_of(rubric: Rubric) -> Limits:
    """The rubric's [limits] (the per-check allowances are the grader's: Grader.warm_up
    checks the reference stays under a quarter of them; a suite whose checks need more
    raises them there)."""
    given, defaults = rubric.limits, Limits()
    return Limits(memory_bytes=int(given.get("memory_mb", defaults.memory_bytes >> 20)) << 20,
                  check_bytes=int(given.get("check_megabytes", defaults.check_bytes >> 20)) << 20,
                  check_items=int(given.get("check_values", defaults.check_items)))


class Grader:
    def __init__(self, assignment, *, layers: list[str] | None = None,
                 timing: calibrate.Timing | None = None, reveal: bool = False,
                 plugins: tuple = (), behaviour: bool = True):
        if not assignment.suite_dir.is_dir():
            raise KitError(f"assignment {assignment.name!r} has no hidden suite in "
                           f"{assignment.suite_dir}")
        self.assignment = assignment
        # the packages it allows, found where the grader runs (KitError, one line, if not)
        self.allowed = imports.allowed(assignment)
        self.layers = list(sandbox_layers.available() if layers is None else layers)
        self.timing = timing or calibrate.measure_scale()
        self.reveal = reveal
        self.plugins = tuple(plugins)      # extra pytest plugins (mutation: stop early)
        # each submission's behaviour record for the similarity report (bulk grading
        # writes fingerprint.json; a platform's run writes none)
        self.behaviour = behaviour
        self.rubric: Rubric = assignment.rubric()
        unknown = set(self.rubric.required) - set(sandbox_layers.ALL_LAYERS)
        if unknown:
            raise KitError(f"{assignment.suite_dir / 'rubric.toml'}: [sandbox] required names "
                           f"unknown layers {sorted(unknown)} (known: "
                           f"{', '.join(sandbox_layers.ALL_LAYERS)})")
        self.timeouts = scaled_timeouts(self.rubric, self.scale)
        self.limits = limits_of(self.rubric)
        self.cached = False     # whether warm_up took the expected values from the cache
        self.reference_check = ""   # "full", "quick", "on each worker" (a cluster's client)

    @property
    def scale(self) -> float:
        return self.timing.scale

    # ------------------------------------------------------------ the machine
    @property
    def lacking(self) -> list[str]:
        """The sandbox layers the rubric requires that this machine does not offer."""
        return [layer for layer in self.rubric.required if layer not in self.layers]

    def lacking_reasons(self) -> str:
        """Each lacking layer with the reason its probe gave."""
        return "; ".join(f"{layer}: {sandbox_layers.probe(layer) or 'narrowed away'}"
                         for layer in self.lacking)

    def require_layers(self) -> None:
        if self.lacking:
            raise KitError(f"this machine does not offer the sandbox layers the rubric of "
                           f"{self.assignment.name} requires: {self.lacking_reasons()} (see "
                           "`autograder doctor`); nobody can be graded here")
        unconfined = sandbox_layers.unconfined_reason(self.layers)
        if unconfined:
            raise KitError(unconfined)

    @property
    def unconfined_files(self) -> bool:
        """Graded with no layer confining files, by the teacher's explicit leave."""
        return not sandbox_layers.files_confined(self.layers)

    def describe(self) -> str:
        """One line for the teacher: layers and time scale."""
        files = "; FILES NOT CONFINED (--unconfined-files)" if self.unconfined_files else ""
        return (f"sandbox: {', '.join(self.layers) or 'none'}{files}; time limits "
                f"x{self.scale:.2f} ({self.timing.source})")

    # ------------------------------------------------------------ grading
    def warm_up(self) -> Graded | None:
        """Grade the reference solution before any student: it must score full marks,
        and it fills every cache of expected values, so workers forked afterwards start
        warm (from and into the course's cache, grading/warm.py). When the cache says
        it scored full marks in full with this kit, suite and these layers, it is
        checked quickly instead and None is returned; otherwise the reference's Graded."""
        folder = self._cache_folder()
        loaded = warm.from_cache(self.assignment, folder) if folder else None
        recording = warm.WarmCaches(self.assignment) if folder and not loaded else None
        self.cached = loaded is not None
        if warm.passed_before(loaded, self.layers):
            with one_cpu():
                self.check_reference_quickly(self.plugins + (loaded,))
            Known.prepare_all(encoded_args)
            self.reference_check = "quick"
            return None
        with one_cpu():     # the grader and its child on one CPU (grading/workers.py)
            graded = self.grade("reference", self.assignment.solution_dir, reveal=True,
                                _plugins=tuple(p for p in (loaded, recording) if p),
                                _rehearse=True)
        # Answers a suite gives ahead, encoded once for every worker; the argument
        # tuples of its cases were encoded by the requests above.
        Known.prepare_all(encoded_args)
        if graded.score != graded.max_score:
            failing = [t for t in graded.tests if not t.passed]
            first = (f"its first failing check, {failing[0].name}:\n{failing[0].output}"
                     if failing and failing[0].output else graded.message)
            raise KitError(f"the reference solution of {self.assignment.name} scores "
                           f"{graded.score:g}/{graded.max_score:g} on its own hidden suite; "
                           f"{first}\nfix the suite or the reference before grading students: "
                           f"`autograder check-suite {self.assignment.name}` shows every "
                           "failing check in full and what else to fix"
                           + (f"\n{graded.details}" if graded.details else ""))
        self.check_allowance(graded)
        self.reference_check = "full"
        if recording is not None:
            warm.to_cache(self.assignment, recording, folder, self.layers)
        elif loaded is not None:
            warm.remember_pass(self.assignment, loaded, folder, self.layers)
        return graded

    #: A check's reference may use at most this share of a per-check allowance, so an
    #: honest student's other ways have room.
    ALLOWANCE_SHARE = 4

    def check_allowance(self, graded: Graded) -> None:
        """KitError when a check's reference (its own run, or the run with the grader's
        helpers: Blame.rehearse) comes within a factor of ALLOWANCE_SHARE of a
        per-check limit (client.Limits.check_bytes, check_items), naming the check."""
        limits = self.limits
        for check, (used_bytes, used_values) in graded.check_usage.items():
            for used, limit, what in ((used_bytes, limits.check_bytes, "bytes of replies"),
                                      (used_values, limits.check_items, "decoded values")):
                if used * self.ALLOWANCE_SHARE > limit:
                    raise KitError(
                        f"the hidden check {check} of {self.assignment.name} needs "
                        f"{used:,} {what} on the reference, more than a "
                        f"{self.ALLOWANCE_SHARE}th of the grader's limit of {limit:,} per "
                        "check (client.Limits): an honest student's run could pass it; "
                        "make the check's cases fewer or smaller, split the check, or raise "
                        "[limits] check_values / check_megabytes in its rubric.toml (`autograder "
                        f"check-suite {self.assignment.name}` measures every check)")

    def _cache_folder(self):
        """The course's cache, used only while the children cannot write to the
        teacher's files (the uid or landlock layer), and not when a caller's plugin
        keeps the values itself (an export)."""
        if not {"uid", "landlock"} & set(self.layers):
            return None
        if any(isinstance(plugin, warm.WarmCaches) for plugin in self.plugins):
            return None
        return warm.cache_folder()

    def grade(self, student_id: str, folder: Path, *, reveal: bool | None = None,
              _plugins: tuple = (), _rehearse: bool = False) -> Graded:
        """Grade one submission folder. Never raises: a failure of the grader is the
        student's row, with the traceback in `Graded.details`."""
        try:
            prepared, status, problem = prepare(Path(folder), self.assignment.modules)
            return self._grade(student_id, prepared, status, problem,
                               self.reveal if reveal is None else reveal,
                               self.plugins + _plugins, _rehearse)
        except Exception:  # a grader bug must not end the batch, nor score the student
            return self.error(student_id, "grader error while grading",
                              traceback.format_exc(limit=30))

    def grade_prepared(self, student_id: str, prepared: Prepared) -> Graded:
        """Grade modules prepared elsewhere (intake.prepare, e.g. on the machine that
        holds the submissions while this one is a cluster's worker). Never raises."""
        try:
            return self._grade(student_id, prepared, "", "", self.reveal, self.plugins)
        except Exception:
            return self.error(student_id, "grader error while grading",
                              traceback.format_exc(limit=30))

    @contextlib.contextmanager
    def _sandboxed(self, prepared: Prepared, recorded: bool):
        """A Student for `prepared`'s modules in a scratch folder; both gone after the block."""
        scratch = scratch_for(prepared)
        student = Student(scratch, list(self.assignment.module_names), self.layers,
                          self.timeouts, self.limits, recorded=recorded, allowed=self.allowed)
        try:
            yield student
        finally:
            student.close()
            shutil.rmtree(scratch, ignore_errors=True)

    def _grade(self, student_id: str, prepared: Prepared | None, status: str, problem: str,
               reveal: bool, plugins: tuple, rehearse: bool = False) -> Graded:
        """Grade a prepared submission (its modules' bytes and notes); `prepared` None
        gives the row of a submission that cannot be graded (`status`, `problem`: why).
        `rehearse`: the reference's own grading (Blame.rehearse: every check judged
        again with the grader's helpers too)."""
        started = time.perf_counter()
        assignment, rubric = self.assignment, self.rubric

        def ungraded(status, message):
            tests = unrun_tests(assignment.suite_dir, rubric.points,
                                _("not run: {detail}").format(detail=message))
            return Graded(student_id, status, 0.0, rubric.max_score, tests, message,
                          seconds=time.perf_counter() - started)

        if self.lacking:
            return ungraded(Status.SANDBOX_ERROR, _(
                "this machine does not offer the sandbox layers the rubric requires: {layers} "
                "(see `autograder doctor`); the code was not run").format(
                    layers=", ".join(self.lacking)))
        if prepared is None:
            return ungraded(status, problem)
        if self.unconfined_files and not sandbox_layers.unconfined_files_allowed():
            return ungraded(Status.SANDBOX_ERROR, _(
                "no sandbox layer on this machine keeps the code away from other files "
                "(tmpfs or landlock: see `autograder doctor`); the code was not run (a teacher "
                "may grade anyway with --unconfined-files)"))
        with self._sandboxed(prepared, self.behaviour) as student:
            plugin = GradingPlugin(student, rubric, reveal, Blame.of(assignment, rehearse=rehearse))
            try:
                code = run_suite(assignment.suite_dir, plugin, plugins)
            except SandboxError as error:
                return ungraded(Status.SANDBOX_ERROR, str(error))
            if code not in (0, 1):
                raise KitError(f"the hidden suite of {assignment.name} could not run "
                               f"(pytest exit {code})")
            printed = student.close()
        tests = [plugin.results.get(unrun.name, unrun)
                 for unrun in unrun_tests(assignment.suite_dir, rubric.points, _("not run"))]
        self.require_points(plugin.collected)
        status, message = Status.GRADED, ""
        if student.import_failure is not None:
            status, message = Status.IMPORT_ERROR, student.import_failure.detail
        return Graded(student_id, status, sum(t.score for t in tests), rubric.max_score, tests,
                      message, events=[Event("skipped", s) for s in prepared.notes]
                      + student.events, printed=printed,
                      seconds=time.perf_counter() - started, layers=list(self.layers),
                      refused=student.refused, behaviour=student.behaviour.data(),
                      check_usage=dict(plugin.usage))

    def require_points(self, collected: list[str]) -> None:
        """KitError when the hidden suite has a check the rubric gives no points."""
        unknown = set(collected) - set(self.rubric.points)
        if unknown:
            raise KitError(f"{self.assignment.suite_dir}/rubric.toml has no points for: "
                           f"{sorted(unknown)}")

    def check_reference_quickly(self, plugins: tuple = ()) -> None:
        """A reference that scored full marks in full before (warm_up): the hidden suite
        is collected (every check in the rubric) and one child imports the reference's
        modules (the sandbox works here today). KitError, one line, when either fails."""
        assignment = self.assignment
        prepared, _status, problem = prepare(assignment.solution_dir, assignment.modules)
        if prepared is None:
            raise KitError(f"the reference solution of {assignment.name} cannot be read: {problem}")
        with self._sandboxed(prepared, recorded=False) as student:
            plugin = GradingPlugin(student, self.rubric, reveal=True, blame=Blame.of(assignment))
            code = run_suite(assignment.suite_dir, plugin, plugins, collect_only=True)
            if code != 0:
                raise KitError(f"the hidden suite of {assignment.name} could not be collected "
                               f"(pytest exit {code})")
            self.require_points(plugin.collected)
            try:
                failure = student.importable
            except SandboxError as error:
                failure = error
            if failure is not None:
                raise KitError(f"the reference solution of {assignment.name} does not start in "
                               f"the sandbox here ({getattr(failure, 'detail', failure)}); "
                               "see `autograder doctor`")

    def error(self, student_id: str, what: str, details: str) -> Graded:
        """The row of a submission the grader failed on (never raises)."""
        message = f"{what}; please report it (details in {student_id}/grader-error.txt)"
        try:
            tests = unrun_tests(self.assignment.suite_dir, self.rubric.points,
                                "not graded: grader error")
        except Exception:
            tests = []
        return Graded(student_id, "error", 0.0, self.rubric.max_score, tests, message,
                      details=details, layers=list(self.layers))
