"""The one place that knows how to grade submissions of one assignment on this machine.

    grader = Grader(assignment.load("tictactoe"))
    grader.require_layers()      # KitError if the rubric's floor of sandbox layers is missing
    grader.warm_up()             # the reference must score full marks (and fills caches)
    graded = grader.grade("alice", Path("submissions/alice"))     # never raises

A Grader holds what every feature used to rebuild for itself: the sandbox layers
(every layer the machine offers, demanded of every child), the time scale and
where it came from, the rubric scaled by it, and the rule that a grader error is
the student's row (status `error`, the kit's traceback kept for the teacher),
never the end of a batch. Bulk grading, nbgrader, the platform packages,
mutation analysis and tournaments all grade through one.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from .. import KitError
from ..sandbox import layers as sandbox_layers
from ..sandbox.client import encoded_args
from ..sandbox.plans import Known
from . import calibrate, imports, warm
from .intake import Prepared
from .pool import one_cpu
from .runner import (Graded, Rubric, check_reference_quickly, grade_prepared,
                     grade_submission, load_rubric, unrun_tests)


class Grader:
    def __init__(self, assignment, *, layers: list[str] | None = None,
                 timing: calibrate.Timing | None = None, reveal: bool = False,
                 plugins: tuple = (), fingerprints: bool = True):
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
        # each submission's answers fingerprinted for the similarity report (bulk
        # grading writes fingerprint.json; a platform's run writes none)
        self.fingerprints = fingerprints
        self.rubric: Rubric = load_rubric(assignment.suite_dir, self.scale)
        self.cached = False     # whether warm_up took the expected values from the cache
        # how warm_up checked the reference: "full" (graded), "quick" (it scored full
        # marks in full before: the course's cache says so), "on each worker" (a
        # cluster's client, which grades nobody itself), "" (not yet)
        self.reference_check = ""

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
        """Grade the reference solution itself before any student. It must score full
        marks (otherwise the suite or the reference is broken, and nobody should be
        graded against it); it also fills every cache of expected values, so workers
        forked afterwards start warm. The expected values come from the course's
        cache when it holds this suite's (grading/warm.py), and go there otherwise.

        When the cache also says the reference scored full marks in full with this
        kit, suite, reference and these sandbox layers, it is checked quickly
        instead (runner.check_reference_quickly) and None is returned; otherwise the
        reference's Graded. `reference_check` says which, for run.json."""
        folder = self._cache_folder()
        loaded = warm.from_cache(self.assignment, folder) if folder else None
        recording = warm.WarmCaches(self.assignment) if folder and not loaded else None
        self.cached = loaded is not None
        if warm.passed_before(loaded, self.layers):
            with one_cpu():
                check_reference_quickly(self.assignment, self.assignment.solution_dir,
                                        layers=self.layers, rubric=self.rubric,
                                        plugins=self.plugins + (loaded,))
            Known.prepare_all(encoded_args)
            self.reference_check = "quick"
            return None
        with one_cpu():     # the grader and its child on one CPU (grading/pool.py)
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

    #: A check's reference may use at most this share of a per-check allowance: the
    #: limits are the grader's, sized from what the reference needs (with room for
    #: an honest student's other ways), never a cost to the student.
    ALLOWANCE_SHARE = 4

    def check_allowance(self, graded: Graded) -> None:
        """KitError when a check's reference (its own run, or the run with the grader's
        helpers: Blame.rehearse) comes within a factor of ALLOWANCE_SHARE of a
        per-check limit (client.Limits.check_bytes, check_items), naming the check."""
        limits = self.rubric.limits
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
        """The course's cache, where this grader may use it: only while the children
        cannot write to the teacher's files (the uid or the landlock layer; the
        cache is the kit's pickle), and not when a plugin of the caller's keeps the
        values itself (an export)."""
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
            return grade_submission(self.assignment, student_id, Path(folder),
                                    rubric=self.rubric, layers=self.layers,
                                    reveal=self.reveal if reveal is None else reveal,
                                    plugins=self.plugins + _plugins,
                                    recorded=self.fingerprints, rehearse=_rehearse)
        except Exception:  # a grader bug must not end the batch, nor score the student
            return self.error(student_id, "grader error while grading",
                              traceback.format_exc(limit=30))

    def grade_prepared(self, student_id: str, prepared: Prepared) -> Graded:
        """Grade modules prepared elsewhere (intake.prepare, e.g. on the machine that
        holds the submissions while this one is a cluster's worker). Never raises."""
        try:
            return grade_prepared(self.assignment, student_id, prepared, rubric=self.rubric,
                                  layers=self.layers, reveal=self.reveal, plugins=self.plugins,
                                  recorded=self.fingerprints)
        except Exception:
            return self.error(student_id, "grader error while grading",
                              traceback.format_exc(limit=30))

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
