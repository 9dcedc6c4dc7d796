"""Blame: each function judged on its own (docs/SUITES.md, "Blame").

The assignment's [relies_on] (assignment.toml) says which of the student's functions
each one calls. `blame.on_its_own(student, "minimax", scope, attempt)` runs a check
with the student's own helpers first and, after a failure while a helper failed its
own check, again in a fresh child with the reference playing the helpers; that
verdict counts, and `judging` words the headline and says whose mistake it is.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Iterable

from .. import KitError
from ..grading.loaded import load_file, reference_name
from ..i18n import grader_plural as ngettext, grader_text as _
from .calls import map_cases
from .cases import check_all
from .failures import Answer, CheckFailed
from .judges import exact
from .standins import stand_in


# ------------------------------------------------------------------ blame
def played(module: str, grader, names: Iterable[str], spec=None) -> dict:
    """`Student.map(..., play=...)` for the student's functions `names` of `module`,
    each played by the grader's function of the same name (the reference). A
    grader's function that is not `spec`'s own (the reference module's) takes its
    signature (standins.stand_in)."""
    found = {}
    for name in names:
        function = getattr(grader, name)
        specified = getattr(spec, name, None) if spec is not None else None
        if specified is not None and function is not specified:
            function = stand_in(specified, function, name=name)
        found[f"{module}.{name}"] = function
    return found


class Blame:
    """Whom a failed check may blame: the assignment's [relies_on], declared once
    in assignment.toml and read by `make check` too, so the two feedbacks agree.

    One per submission (the grading plugin's `blame` fixture); checks run in
    file order, the functions others rely on first. A check judges a function
    with some of the functions it relies on played by the grader (`played`):
    its failure is then its own, and the feedback says so. A failure of a check
    that ran the student's own helpers names their earlier failures instead."""

    def __init__(self, relies_on: dict[str, tuple[str, ...]] | None = None, *,
                 assignment: str | None = None, module: str | None = None,
                 solution_dir=None, rehearse: bool = False):
        self.relies_on = dict(relies_on or {})
        # The assignment's one student module and its reference (solution_dir/<module>.py),
        # which play the helpers by default (`plays`); several modules: name your own.
        self.assignment, self.module, self.solution_dir = assignment, module, solution_dir
        self.failed: list[tuple[str, str]] = []     # (function, headline), in order
        self.passed: set[str] = set()               # functions with a check passed
        # The reference's own grading (Grader.warm_up): every check that would judge
        # again with the grader's helpers does so after passing too, so the played
        # run is proved on the reference and its needs are measured (`used`).
        self.rehearse = rehearse
        # (reply bytes, decoded values) the running check's children needed so far,
        # the largest of its runs (the grading plugin reads and resets it per check)
        self.used = (0, 0)

    @classmethod
    def of(cls, assignment, rehearse: bool = False) -> "Blame":
        """The Blame of an `assignment.Assignment`: its [relies_on], and its module
        when it has one (the helpers' default players, `plays`)."""
        modules = assignment.module_names
        return cls(assignment.relies_on, assignment=assignment.name,
                   module=modules[0] if len(modules) == 1 else None,
                   solution_dir=assignment.solution_dir, rehearse=rehearse)

    def measure(self, student) -> None:
        """Keep what the running child needed of the check's allowance (`used`)."""
        used = getattr(student, "check_used", None)
        if used is not None:
            self.used = tuple(map(max, self.used, used()))

    def suspects(self, function: str) -> list[str]:
        """The functions `function` relies on that failed a check so far."""
        failed = {name for name, _ in self.failed}
        return [name for name in self.relies_on.get(function, ()) if name in failed]

    def check(self, student, function: str, scope: str, play: dict | None, attempt, *,
              again=None, fresh: bool = True) -> None:
        """Judge `function` on its own, paying for the grader's helpers only when
        needed: `attempt(play)` runs the check's calls (with `play`, or with the
        student's own helpers for None) and raises CheckFailed when they are wrong.

        The student's own helpers come first, at the cost of plain calls: right answers
        are right answers. A failure is judged again with the grader playing the helpers,
        in a new child apart from the student's own (`Student.played_child`: nothing the
        student's helpers kept answers there), when one of those helpers failed a check
        of its own, and that verdict counts: a wrong winner costs winner's points and
        minimax keeps its own. Where every helper passed, their answers were the
        grader's, so the failure is the function's own and is not judged twice.
        `again(failed)` replaces that rule where a suite knows more (connect4 judges
        every failure again but a timeout or a refused question: a second chance would
        forgive it); `fresh=False` keeps the played child of the previous played check."""
        if not play:
            with self.judging(function, scope):
                attempt(None)
            return
        try:
            attempt(None)
            if not self.rehearse:
                return
        except CheckFailed as failed:
            allowed = again(failed) if again is not None else bool(self.suspects(function))
            if failed.root_cause or not allowed:
                with self.judging(function, scope):
                    raise
        finally:
            self.measure(student)
        limits = len(getattr(student, "grader_limits", ()))
        with student.played_child(fresh, forget=(function,)), \
                self.judging(function, scope, play):
            try:
                attempt(play)
            except CheckFailed:
                self._grader_limit(student, function, limits)
                raise
            finally:
                self.measure(student)
            self._grader_limit(student, function, limits)

    @staticmethod
    def _grader_limit(student, function: str, before: int) -> None:
        """A check judged again with the grader's helpers passed the grader's own
        allowance of replies (the helpers' traffic is the grader's): the grader's
        problem, said so, never a crash of the student's code (Student._note)."""
        passed = getattr(student, "grader_limits", [])[before:]
        if passed:
            student.event("grader", _("grader's limit: {detail}").format(detail=passed[0]))
            raise CheckFailed(
                _("{function} could not be judged with the grader's own helpers").format(
                    function=function),
                got=_("the grader passed its own limit while its helpers answered: "
                      "{detail}").format(detail=passed[0]),
                hint=_("this is the grader's problem, not a fault of your code: tell your "
                       "teacher"))

    def on_its_own(self, student, function: str, scope: str, attempt, **options) -> None:
        """`check` with every helper of `function` played by the reference (`plays`)."""
        self.check(student, function, scope, self.plays(function), attempt, **options)

    def plays(self, function: str) -> dict:
        """The `play` argument that judges `function` on its own: every function it
        relies on, played by the reference's function of the same name."""
        return played(self.module, self.reference, self.relies_on.get(function, ()))

    def helpers(self, function: str) -> dict:
        """`function`'s helpers as targets, each mapped to None: what `judging` is
        told was played when a check plays them with stand-ins of its own."""
        if self.module is None:
            raise TypeError("this Blame knows no module: checks that play helpers need one")
        return {f"{self.module}.{name}": None for name in self.relies_on.get(function, ())}

    @functools.cached_property
    def reference(self):
        """The reference module of the assignment's one student module (the same module
        object `reference.load_reference` gives the suite)."""
        if self.assignment is None or self.module is None or self.solution_dir is None:
            raise TypeError("this Blame knows no assignment module: checks that play "
                            "helpers need one")
        path = self.solution_dir / f"{self.module}.py"
        if not path.is_file():
            raise KitError(f"reference {path} is missing")
        return load_file(reference_name(self.assignment, self.module), path)

    @contextlib.contextmanager
    def judging(self, function: str, scope: str, play: dict | None = None):
        """Word a failure of a check of `function` ("gave no answer on a finished
        game", "is not implemented yet") and say whose it is. `play` is what the
        check's calls were made with (`plays`): those functions are not suspects."""
        try:
            yield
        except CheckFailed as failed:
            if failed.root_cause:       # the module did not import: said once, not per check
                raise
            names = {target.rpartition(".")[2] for target in play or ()}
            played = [name for name in self.relies_on.get(function, ()) if name in names]
            own = [name for name in self.relies_on.get(function, ()) if name not in played]
            earlier = [(name, summary) for name, summary in self.failed if name in own]
            _headline(failed, function, scope, after_others=bool(earlier))
            if earlier:
                names = sorted({name for name, _summary in earlier})
                note = ngettext(
                    "this may follow from an earlier failure: {failures}. {function} usually "
                    "calls {helpers}: fix it first",
                    "this may follow from an earlier failure: {failures}. {function} usually "
                    "calls {helpers}: fix them first", len(names)).format(
                    failures="; ".join(summary for _name, summary in earlier),
                    function=function, helpers=", ".join(names))
            elif played:
                note = _("this check ran {function} with the grader's own {helpers}, so the "
                         "mistake is in {function} itself").format(
                    function=function, helpers=", ".join(played))
            elif own and all(name in self.passed for name in own):
                note = _("{function}'s helpers ({helpers}) pass their own checks, so the "
                         "mistake is in {function} itself").format(
                    function=function, helpers=", ".join(own))
            else:
                note = None
            if note:
                failed.hint = note + (f"; {failed.hint}" if failed.hint else "")
            self.failed.append((function, failed.summary))
            raise
        self.passed.add(function)


def _headline(failed: CheckFailed, function: str, scope: str, after_others: bool) -> None:
    """Keep a wrong answer's summary; say so when the call gave no answer at all. A
    NotImplementedError is the function's own stub unless a function it relies on
    failed earlier (then it may come from there)."""
    if failed.answer is Answer.NOT_IMPLEMENTED and not after_others:
        failed.summary = _("{function} is not implemented yet").format(function=function)
    elif failed.answer not in (None, Answer.RETURNED):
        failed.summary = _("{function} gave no answer {scope}").format(
            function=function, scope=scope)


def compare(student, blame: Blame, function: str, cases, judge=None, summary: str | None = None,
            *, hint: str | None = None, scope: str | None = None, play: dict | None = None,
            most: int | None = None, again: bool = False, rerun=None, fresh: bool = True,
            target: str | None = None) -> None:
    """The check "compare `function` with the reference on these cases", whole: every
    case in one request (`target`, by default the assignment's module's function),
    judged by `judge` (default `exact`), judged on its own (`Blame.check`, the helpers
    played by `play`, default `blame.plays(function)`, on at most `most` cases).
    `again` makes every call twice on the same arguments (`changed_input`); `rerun`
    and `fresh` are Blame.check's `again` and `fresh`."""
    target = target or f"{blame.module}.{function}"

    def attempt(played):
        check_all(summary or _("{function} returned a wrong value").format(function=function),
                  *map_cases(student, target, cases, played, most=most, again=again,
                             return_args=again), judge or exact, hint)
    blame.check(student, function, scope or _("on a position"),
                blame.plays(function) if play is None else play, attempt, again=rerun,
                fresh=fresh)
