"""Rewrite the reference, check each rewrite's behaviour, grade it, say what it lost.

Grading is mutation analysis's (mutate/run.py), with every check run: a rewrite
must keep every point, and the report names each one it lost.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from ... import KitError
from ...grading.grader import Grader
from ...assignment import Assignment
from ..run import (as_submission, first_line, grader_error, reference, warmed_workers,
                   write_modules)
from . import behaviour
from .rewrites import REWRITES, Rewrite, apply
from .source import Reference

TO_GRADE = "to grade"           # before grading: behaves like the reference so far


@dataclass(frozen=True)
class Loss:
    check: str
    points: float
    feedback: str           # the first line of the check's feedback


@dataclass
class Outcome:
    rewrite: Rewrite
    status: str     # full marks, lost points, rewrite bug, not applicable, skipped, grader error
    sites: int = 0
    notes: tuple[str, ...] = ()
    sources: dict = field(default_factory=dict)     # module -> rewritten text
    reason: str = ""        # why not graded (rewrite bug, skipped, not applicable, error)
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0    # grading it
    losses: list[Loss] = field(default_factory=list)


@dataclass
class Honest:
    target: Assignment
    outcomes: list[Outcome]
    seconds: float = 0.0
    grading_seconds: float = 0.0
    jobs: int = 1

    def of(self, status: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def graded(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("full marks", "lost points")]


# ------------------------------------------------------------ rewriting and checking
def references(target: Assignment) -> dict[str, Reference]:
    found = {}
    for module in target.modules:
        try:
            found[module] = Reference(module, reference(target, module))
        except SyntaxError as error:
            raise KitError(f"{target.solution_dir / module}:{error.lineno}: the reference "
                           f"does not parse: {error.msg}") from None
    return found


def not_honest(target: Assignment) -> dict[str, str]:
    """The rewrites that do not keep this assignment's specification, with the reason:
    its assignment.toml's `[honest] not_honest = { rewrite = "why" }`. They are not
    graded; the report lists them. (A rewrite that merely finds no site says so by
    itself: it is "not applicable".)"""
    honest = target.extra.get("honest", {})
    table = honest.get("not_honest", {}) if isinstance(honest, dict) else {}
    where = f"{target.solution_dir / 'assignment.toml'}: [honest] not_honest"
    if not isinstance(table, dict) or not all(
            isinstance(why, str) and why.strip() for why in table.values()):
        raise KitError(f'{where}: give each rewrite its reason, as rewrite = "why"')
    unknown = sorted(set(table) - set(REWRITES))
    if unknown:
        raise KitError(f"{where}: there is no rewrite {unknown[0]!r}; the rewrites are: "
                       + ", ".join(REWRITES))
    return {kind: why.strip() for kind, why in table.items()}


def rewritten(target: Assignment, kind: str, modules: dict[str, Reference]) -> Outcome:
    """The reference rewritten by `kind`, with its status before grading ("to grade"
    unless there is nothing to grade)."""
    rewrite = REWRITES[kind]
    skipped = not_honest(target).get(kind)
    if skipped:
        return Outcome(rewrite, "skipped", reason=skipped)
    sources, sites, notes = {}, 0, []
    game = behaviour.manifest_text(target, "honest", "game")
    for module, parsed in modules.items():
        try:
            made = apply(parsed, kind, game)
        except Exception as error:          # a rewrite's own bug: reported, never graded
            return Outcome(rewrite, "rewrite bug",
                           reason=f"{module}: the rewrite failed: {type(error).__name__}: "
                                  f"{error}")
        sources[module], sites = made.source, sites + made.sites
        notes += [f"{module}: {n}" if len(modules) > 1 else n for n in made.notes]
    outcome = Outcome(rewrite, TO_GRADE, sites, tuple(notes), sources)
    if sites == 0:
        outcome.status = "not applicable"
        outcome.reason = "; ".join(notes) or "no site in the student's code"
        return outcome
    for module, source in sources.items():
        try:
            compile(source, module, "exec", dont_inherit=True)
        except SyntaxError as error:
            outcome.status, outcome.reason = "rewrite bug", \
                f"{module}:{error.lineno}: the rewrite does not compile: {error.msg}"
    return outcome


def behaves_alike(target: Assignment, outcomes: list[Outcome], console: Console) -> None:
    """Run the probe on the reference and on every rewrite still to be graded; one that
    differs becomes a "rewrite bug" (its grading would blame the suite for it)."""
    code = behaviour.probe_code(target)
    names = list(target.module_names)
    with tempfile.TemporaryDirectory(prefix="honest-") as scratch:
        base = Path(scratch) / "reference"
        write_modules(target, {}, base)
        expected = behaviour.run_probe(base, names, code)
        if expected.get("error"):
            raise KitError(f"the probe of {target.name}'s rewrites fails on the reference "
                           f"itself: {expected['error']}")
        for outcome in outcomes:
            if outcome.status != TO_GRADE:
                continue
            folder = Path(scratch) / outcome.rewrite.name
            write_modules(target, outcome.sources, folder)
            differs = behaviour.difference(expected, behaviour.run_probe(folder, names, code))
            if not differs and outcome.rewrite.name == "main_block":
                differs = behaviour.run_main(folder, names[0])
            if differs:
                outcome.status, outcome.reason = "rewrite bug", \
                    f"it does not behave like the reference: {differs}"
                console.print(f"  rewrite bug: {outcome.rewrite.name}: {outcome.reason}",
                              markup=False, highlight=False)


# ------------------------------------------------------------ grading
def verdict(graded) -> tuple[str, float, float, float, list, str]:
    """(status, score, max_score, seconds, losses, reason) of a graded rewrite."""
    error = grader_error(graded)
    if error:
        return "grader error", 0.0, graded.max_score, graded.seconds, [], error
    if graded.status == "import-error":
        return ("lost points", graded.score, graded.max_score, graded.seconds,
                [Loss("import", graded.max_score, graded.message)], "")
    losses = [Loss(t.name, t.max_score - t.score, first_line(t.output))
              for t in graded.tests if t.score < t.max_score]
    status = "full marks" if graded.score >= graded.max_score and not losses else "lost points"
    return status, graded.score, graded.max_score, graded.seconds, losses, ""


def check(target: Assignment, kinds: list[str] | None = None, *, jobs: int = 2,
          console: Console | None = None) -> Honest:
    """Rewrite the reference by each of `kinds` (default: every rewrite), check each
    rewrite's behaviour, and grade those that behave like the reference."""
    if jobs < 1:
        raise KitError("--jobs must be at least 1")
    kinds = list(kinds or REWRITES)
    unknown = [k for k in kinds if k not in REWRITES]
    if unknown:
        raise KitError(f"unknown rewrite {unknown[0]!r}; the rewrites are: "
                       + ", ".join(REWRITES))
    started = time.perf_counter()
    console = console or Console(stderr=True)
    grader = Grader(target)                      # fails on a bad rubric
    modules = references(target)
    outcomes = [rewritten(target, kind, modules) for kind in kinds]
    behaves_alike(target, outcomes, console)
    todo = [o for o in outcomes if o.status == TO_GRADE]
    console.print(f"Honest rewrites of [bold]{target.name}[/]: {len(todo)} of {len(kinds)} "
                  f"to grade, {jobs} workers; {grader.describe()}")
    submissions = {o.rewrite.name: as_submission(target, o.sources,
                                                 f"the {o.rewrite.name} rewrite") for o in todo}

    def grade(kind: str) -> tuple:
        return (kind, *verdict(grader.grade_prepared(f"honest-{kind}", submissions[kind])))
    pool = warmed_workers(grader, grade, todo, jobs, lost=lambda task, why: (
        task[0], "grader error", 0.0, 0.0, 0.0, [], why.splitlines()[0]))
    if not todo:
        return Honest(target, outcomes, time.perf_counter() - started, 0.0, 0)
    grading_started = time.perf_counter()
    by_kind = {o.rewrite.name: o for o in todo}
    for kind, status, score, max_score, seconds, losses, reason in pool.run(
            [(o.rewrite.name,) for o in todo]):
        outcome = by_kind[kind]
        outcome.status, outcome.score, outcome.max_score = status, score, max_score
        outcome.seconds, outcome.losses, outcome.reason = seconds, losses, reason
        if not console.is_terminal:
            console.print(f"  {kind}: {status} ({score:g}/{max_score:g}, {seconds:.1f} s)",
                          markup=False, highlight=False)
    ended = time.perf_counter()
    return Honest(target, outcomes, ended - started, ended - grading_started, pool.jobs)
