"""What hidden suites use to judge outcomes and to fail in readable words.

A hidden test is a pytest function whose docstring's first line is the line the
student reads ("winner finds every three in a row"). It compares the student's
outcomes with expected values computed in the trusted process and, on the
first mismatch (cases come smallest first), raises `CheckFailed`, a typed
failure that carries the call, the position drawing, what came back and what
was expected. The report decides whether the expected value is shown.

Every sentence here is the grader's (autograder/i18n.py, the `grader` domain) and
is said in the course's language; a line's label ("hint:") is translated with it.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Callable, Iterable

from ..sandbox import child_words
from ..sandbox.client import Failure, Outcome
from ..sandbox.plans import Callback, Known, Plan
from .. import KitError
from ..i18n import GRADER, LANGUAGES, places, translation
from ..i18n import grader_plural as ngettext, grader_text as _
from . import imports
from .kinds import is_a, kinds_of  # noqa: F401 (suites judge raises with these)
from .loaded import load_file, reference_name
from .standins import stand_in

MISSING = object()


class Answer(StrEnum):
    """What kind of answer a failed case got: suites word their headlines from this,
    never from the engine's English."""
    RETURNED = "returned"                # a value came back (judged wrong)
    RAISED = "raised"                    # the student's code raised
    NOT_IMPLEMENTED = "not implemented"  # it raised NotImplementedError: still a stub
    NO_ANSWER = "no answer"              # it timed out, crashed, was refused, ...


def answer_of(outcome: Outcome) -> Answer:
    if outcome.failure:
        return Answer.NO_ANSWER
    if outcome.raised:
        return (Answer.NOT_IMPLEMENTED if is_a(outcome.raised, "NotImplementedError")
                else Answer.RAISED)
    return Answer.RETURNED


def raises(outcome: Outcome, kind: str) -> bool:
    """The call raised an exception that is a `kind` (see `is_a`)."""
    return outcome.failure is None and is_a(outcome.raised, kind)


class Reason(str):
    """A judge's reason that keeps the kind of answer it is about (a plan's step
    that raised, say), so the headline can say so without reading the words."""
    answer: Answer

    def __new__(cls, text: str, answer: Answer = Answer.RETURNED):
        made = super().__new__(cls, text)
        made.answer = answer
        return made


def said(outcome: Outcome, before: str = "") -> Reason:
    """`describe(outcome)` as a Reason, optionally after a few words of context."""
    return Reason(f"{before}{describe(outcome)}", answer_of(outcome))


class CheckFailed(AssertionError):
    """A verdict with everything the feedback needs; no traceback is shown."""

    def __init__(self, summary: str, *, call: str | None = None, position: str | None = None,
                 expected=MISSING, got: str | None = None, hint: str | None = None,
                 failures: int | None = None, total: int | None = None, root_cause=False,
                 problem: str | None = None, answer: Answer | None = None,
                 picture: dict | None = None):
        super().__init__(summary)
        self.answer = answer
        self.picture = picture      # a drawing for the pages (outputs/trees.py's contract)
        self.summary, self.call, self.position, self.problem = summary, call, position, problem
        self.expected, self.got, self.hint = expected, got, hint
        self.failures, self.total, self.root_cause = failures, total, root_cause

    def render(self, reveal: bool) -> str:
        lines = [self.summary]
        if self.failures is not None and self.total:
            lines[0] += " " + ngettext(
                "(wrong on {failures} of {total} case; the smallest:)",
                "(wrong on {failures} of {total} cases; the smallest:)",
                self.total).format(failures=self.failures, total=self.total)
        if self.call:
            lines.append(_("call: {call}").format(call=self.call))
        if self.position:
            lines += ["", *self.position.splitlines(), ""]
        if self.got is not None:
            lines.append(_("got: {got}").format(got=self.got))
        if self.problem:
            lines.append(_("problem: {problem}").format(problem=self.problem))
        if self.expected is not MISSING:
            shown = self.expected if isinstance(self.expected, str) else short(self.expected)
            lines.append(_("expected: {expected}").format(expected=shown) if reveal
                         else _("expected: (hidden test: the expected answer is not shown)"))
        if self.hint:
            lines.append(hint_line(self.hint))
        return "\n".join(lines)


def hint_line(hint: str) -> str:
    """The line of a failure that is the kit's own prose: the feedback page shows its
    `backticked` names as code (grading/report.py finds it by this label)."""
    return _("hint: {hint}").format(hint=hint)


def is_hint_line(line: str) -> bool:
    """Whether `line` is a hint, in any of the kit's languages (a page may be written
    in another language than the one being spoken now)."""
    return any(line.startswith(translation(code, GRADER).gettext("hint: {hint}").format(hint=""))
               for code in LANGUAGES)


def describe(outcome: Outcome) -> str:
    """What a call did, in the words a student understands."""
    if outcome.failure:
        return outcome.detail
    if outcome.raised:
        where = f" ({places(outcome.raised['where'])})" if outcome.raised.get("where") else ""
        said = child_words.said(outcome.raised.get("message"))    # the child's words, if so
        message = f": {said}" if said else ""
        if is_a(outcome.raised, "MemoryError"):
            return (said or _("ran out of memory")) + where
        if is_a(outcome.raised, "NotImplementedError"):
            return _("is not implemented yet (raised NotImplementedError)")
        refused = imports.refused(outcome.raised)
        if refused:         # a module the sandbox does not offer: the rule, in its words
            return refused
        return _("raised {exception}").format(exception=outcome.raised["type"]) + message + where
    return returned(outcome.value)


def returned(value) -> str:
    """"returned <value>", the value cut to a readable length."""
    return _("returned {value}").format(value=short(value))


def short(value, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


def require(outcome: Outcome) -> None:
    """Stop the test at once if the student's code could not run at all (the
    module did not import: one root cause for every test) or if this function
    already timed out or crashed in an earlier test."""
    if outcome.failure == Failure.IMPORT:
        raise CheckFailed(outcome.detail, root_cause=True)
    if outcome.failure == Failure.SKIPPED:
        raise CheckFailed(outcome.detail)
    if outcome.failure == Failure.MISSING:
        raise CheckFailed(_("not run: {detail}").format(detail=outcome.detail),
                          hint=_("keep the names and signatures from the skeleton"))


@dataclass
class Case:
    """One position a check runs on: the call shown to the student and its data.
    `call`, `position` and `expected` may be `Later`: worded only if shown."""
    call: "str | Later"
    args: tuple
    position: "str | Later | None" = None
    expected: object = None

    def __reduce_ex__(self, protocol):
        # Rebuilt by its constructor: half the unpickling time of a dataclass's
        # default (a platform package loads tens of thousands of cases per submission).
        # A subclass, or a case given more attributes, pickles the default way.
        if type(self) is Case and len(vars(self)) == 4:
            return Case, (self.call, self.args, self.position, self.expected)
        return super().__reduce_ex__(protocol)


class Later:
    """Feedback text made only for the case a failure shows (a drawing or a trace
    that costs more than judging every case does).

    Made of a module-level function and its arguments, never a lambda: cases are
    cached, and a platform package ships the cache pickled (grading/warm.py), so
    what a case holds must pickle (test_expected.py checks every suite's)."""

    def __init__(self, function: Callable[..., object], *args):
        self.function, self.args = function, args

    def make(self):
        return self.function(*self.args)

    @classmethod
    def words(cls, msgid: str, **fields) -> Later:
        """The grader's words for `msgid` (marked with N_ for the catalogs), in the
        course's language when made, with `fields` filled in."""
        return cls(_worded, msgid, fields)


def _worded(msgid: str, fields: dict) -> str:
    return _(msgid).format(**fields)


def now(value):
    """`value`, or what a `Later` makes."""
    return value.make() if isinstance(value, Later) else value


#: What a judge says of one case: None (right), a reason in words, or a pair
#: (what came back, what is wrong with it) where the judge words both lines.
Verdict = "str | tuple[str, str | None] | None"
Judge = Callable[[Case, Outcome], Verdict]


class Show(Enum):
    """What the feedback's "got:" line of a failed case shows.

    OUTCOME: what the call returned (`describe`), the judge's reason below it as
    the problem. REASON: the judge's reason itself (the outcome is the student's
    value, but the reason already quotes it, in better words). PLAN: the reason
    too, for call plans, whose raw result is a wrapper of the grader's: the kind
    of answer is then no single function's, so the headline is kept as written."""
    OUTCOME = "outcome"
    REASON = "reason"
    PLAN = "plan"


def exact(case: Case, outcome: Outcome) -> str | None:
    """Right value of the right type (True is not 1, a list is not a tuple): for an
    answer whose type the docstring names. A subclass of a built-in arrives as its
    base value, so a list subclass is a list here. Another container with the right
    items is told so ("a tuple; the docstring asks for a list")."""
    got, want = outcome.value, case.expected
    if type(got) is not type(want) or got != want:
        return other_container(got, want) or returned(got)
    return None


#: Containers a docstring names, in the words a student writes them.
CONTAINERS = (list, tuple, set, frozenset, dict)


def other_container(got, want) -> str | None:
    """"a tuple; the docstring asks for a list" when `got` is another container than
    `want` with the same items (in order, for sequences), else None."""
    if type(got) is type(want) or type(got) not in CONTAINERS or type(want) not in CONTAINERS:
        return None
    sequences = (list, tuple)
    if type(got) in sequences and type(want) in sequences:
        same = list(got) == list(want)
    else:
        try:
            same = len(got) == len(want) and set(got) == set(want)
        except TypeError:       # unhashable items: not the same answer anyway
            same = False
    if not same:
        return None
    return _("a {kind}; the docstring asks for a {wanted}").format(
        kind=type(got).__name__, wanted=type(want).__name__)


def container_reason(got, *kinds: type) -> str | None:
    """None when `got` is one of the container types `kinds` the docstring names (a
    subclass arrives as its base value), else what it is instead: "returned a tuple;
    the docstring asks for a list"."""
    if type(got) in kinds:
        return None
    if type(got) not in CONTAINERS:
        return returned(got)
    return _("returned a {kind}; the docstring asks for a {wanted}").format(
        kind=type(got).__name__, wanted=_(" or ").join(kind.__name__ for kind in kinds))


def same_items(case: Case, outcome: Outcome) -> str | None:
    """A judge for a docstring that names no container ("return the 25 lines"): any
    sequence (a list or a tuple) with the expected items in order passes, each item
    of the expected item's type."""
    got, want = outcome.value, case.expected
    if type(got) in (list, tuple) and len(got) == len(want) and \
            all(type(g) is type(w) and g == w for g, w in zip(got, want)):
        return None
    return returned(got)


def number(case: Case, outcome: Outcome) -> str | None:
    """A judge for a number the docstring names without a type: an int or a float
    equal to the expected one (never a bool)."""
    return wrong_number(outcome.value, case.expected)


def wrong_number(got, want) -> str | None:
    """None when `got` is the number `want` (an int or a float, never a bool; a list
    of numbers element by element), else "returned <got>"."""
    if type(want) is list:
        same = type(got) is list and len(got) == len(want) and \
            not any(wrong_number(g, w) for g, w in zip(got, want))
    else:
        same = type(got) in (int, float) and got == want
    return None if same else returned(got)


def check_all(summary: str, cases: list[Case], outcomes: Iterable[Outcome], judge: Judge,
              hint: str | None = None, *, show: Show = Show.OUTCOME, raised: bool = False,
              got: Callable[[Case, Outcome], str] | None = None) -> None:
    """Fail with the first (smallest) case the judge rejects, counting all.

    `judge(case, outcome)` returns None when the outcome is right, else a short
    reason (or a pair: what came back, what is wrong); an outcome that is not a
    normal return is always wrong, and so is a case a budget left unreached.
    With `raised`, the judge sees outcomes that raised too (a search may break a
    rule of the check before it fails); `got(case, outcome)` words the got line
    where the suite knows better words than `describe` (the reason is then the
    problem line, in every `show`)."""
    outcomes = list(outcomes)
    if judge is exact and _all_exact(cases, outcomes):
        return
    first, failures = None, 0
    for case, outcome in zip(cases, outcomes):
        if outcome.failure is None and outcome.raised is None:     # an answer: judge it
            reason = judge(case, outcome)
            if reason is not None:
                failures += 1
                if first is None:
                    first = (case, outcome, reason)
            continue
        require(outcome)
        if outcome.failure in (Failure.UNREACHED, Failure.BUDGET):
            failures += 1
            if first is None and outcome.failure == Failure.BUDGET:
                first = (case, outcome, outcome.detail)
            continue
        judged = outcome.answered or (raised and outcome.raised is not None)
        reason = judge(case, outcome) if judged else describe(outcome)
        if reason is not None:
            failures += 1
            if first is None:
                first = (case, outcome, reason)
    if first is not None:
        raise _failed(summary, *first, hint=hint, show=show, words=got,
                      failures=failures, total=len(cases))


def _all_exact(cases: list[Case], outcomes: list[Outcome]) -> bool:
    """True when every outcome is an answer that `exact` accepts, decided on whole
    lists: the values equal, and each of the same type (False: judge case by case)."""
    if len(cases) != len(outcomes) or any(o.failure is not None or o.raised is not None
                                          for o in outcomes):
        return False
    got = [o.value for o in outcomes]
    want = [c.expected for c in cases]
    return list(map(type, got)) == list(map(type, want)) and got == want


def _failed(summary, case, outcome, reason, *, hint, show, words, failures,
            total) -> CheckFailed:
    """The CheckFailed of the first rejected case, its lines as `show` says."""
    if isinstance(reason, tuple):
        got, problem = reason
    elif words or show is Show.OUTCOME or not outcome.answered:
        got = words(case, outcome) if words else describe(outcome)
        problem = None if reason == got else reason
    else:
        got, problem = reason, None
    if show is Show.PLAN:
        answer = None
    elif isinstance(reason, Reason) and outcome.answered:
        answer = reason.answer
    else:
        answer = answer_of(outcome)
    return CheckFailed(summary, call=now(case.call), position=now(case.position),
                       expected=now(case.expected), got=got, hint=hint, problem=problem,
                       failures=failures, total=total, answer=answer)


# ------------------------------------------------------------------ calls and plans
def map_cases(student, target: str, cases: list[Case], play: dict | None = None, *,
              most: int | None = None, again: bool = False,
              return_args: bool = False) -> tuple[list[Case], list[Outcome]]:
    """(cases, outcomes): `target` called on every case's arguments in one request.
    With `play` (the grader playing helpers: a round trip per helper call), on a
    spread sample of at most `most` of the cases, and with no arguments returned
    (a played run judges; the plain run already quoted them)."""
    if play and most and len(cases) > most:
        cases = cases[::-(-len(cases) // most)]
    outcomes = student.map(target, [case.args for case in cases], again=again,
                           return_args=return_args and not play, play=play)
    return cases, outcomes


def played_plan(name: str, play: dict | None = None, *, timeout: float | None = None,
                skip: Iterable[str] = ()) -> Plan:
    """A plan whose module functions `play` names are the grader's for its calls
    (each a `Callback`; a target mapped to None, or named in `skip`, is left to
    the student's module or to the caller)."""
    plan = Plan(name, timeout=timeout)
    skip = set(skip)
    for target, function in (play or {}).items():
        if function is not None and target not in skip:
            plan.patch(target, function if isinstance(function, Callback)
                       else Callback(function))
    return plan


def pure(play: dict, known: dict | None = None) -> dict:
    """`play` with every function marked pure (plans.Callback): its answers depend on
    the arguments alone and no check counts or records its calls, so the child
    answers a question asked again in the same request itself. For a suite whose
    played helpers are the reference's rule functions, never for a helper whose
    calls a check judges (a memoization check counts them).

    `known` {target: plans.Known} gives a target's answers ahead, with the request:
    the reference's answers on every position of a small game, so a search judged
    with the grader's helpers asks the grader only what is not among them."""
    known = known or {}
    return {target: function if function is None or isinstance(function, Callback)
            else Callback(function, pure=True, known=known.get(target))
            for target, function in play.items()}


def play_on_instance(plan: Plan, obj, method: str, function, spec=None) -> None:
    """Make `obj.method` the grader's `function` for this plan: an entry in the
    instance's __dict__ comes before the class's method, so the student's
    `self.method(...)` calls it. A student object without a __dict__ keeps its
    own (the step's exception is caught). `spec`: the specified method whose
    signature the stand-in takes (standins.method_spec; a bound method of the
    reference is its own)."""
    if spec is not None:
        function = stand_in(spec, function, name=method)
    inside = plan.get(obj.attr("__dict__"), default=None)
    plan.call(inside.attr("__setitem__"), method, Callback(function), catch=True)
    plan.plays = True


def constant(value, spec=None):
    """A function of the grader's that answers `value` (a helper played for one
    position: the object the plan built does not change meanwhile), to every call
    the specified function `spec` accepts (standins.stand_in); without `spec`, to any."""
    def played(*_, **__):
        return value
    return played if spec is None else stand_in(spec, played)


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

        With the student's own helpers first, which costs what plain calls cost:
        right answers are right answers. A failure is judged again, in a child
        apart from the student's own (`Student.played_child`: what the student's
        code keeps while the grader's helpers answer never reaches the own
        child), new (a table the student's helpers filled answers nothing), with
        the grader playing the helpers, when one of those helpers failed a check of
        its own (or where `again` allows it), and that verdict counts: a wrong
        winner costs winner's points and minimax keeps its own. Where every
        helper passed its checks, their answers were the grader's, so the
        failure is the function's own and is not judged twice (a wrong
        submission costs what it costs to grade once).

        `again(failed)` replaces that rule where a suite knows more (connect4
        judges every failure again, since its helpers' checks do not cover every
        input its searches give them, except after a timeout or a refused
        question: a second chance would forgive it). `fresh=False` keeps the
        played child of the previous played check (a new one per check cost
        connect4 a child start per judged-again failure)."""
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

    def plays(self, function: str, module: str | None = None, grader=None) -> dict:
        """The `play` argument that judges `function` on its own: every function it
        relies on, played by the grader's function of the same name (by default the
        reference's, in the assignment's module)."""
        module = module or self.module
        if module is None:
            raise TypeError("this Blame knows no module: pass module= and grader=")
        names = self.relies_on.get(function, ())
        if grader is False:                 # the targets only (`helpers`)
            return {f"{module}.{name}": None for name in names}
        if grader is None:
            return played(module, self.reference, names)
        spec = self.reference if module == self.module and self.solution_dir else None
        return played(module, grader, names, spec)

    def helpers(self, function: str, module: str | None = None) -> dict:
        """`function`'s helpers as targets, each mapped to None: what `judging` is
        told was played when a check plays them with stand-ins of its own."""
        return dict.fromkeys(self.plays(function, module, grader=False))

    @functools.cached_property
    def reference(self):
        """The reference module of the assignment's one student module (the same module
        object `reference.load_reference` gives the suite)."""
        if self.assignment is None or self.module is None or self.solution_dir is None:
            raise TypeError("this Blame knows no assignment module: pass module= and grader=")
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


# ------------------------------------------------------------------ one-call plans
def call_plan(name: str, target: str, *args, play: dict | None = None, skip: Iterable[str] = (),
              timeout: float | None = None, **kwargs) -> Plan:
    """A plan of one call, `target(*args, **kwargs)`, answering what it returned, with
    the module functions `play` names played by the grader (`played_plan`)."""
    plan = played_plan(name, play, timeout=timeout, skip=skip)
    return plan.returns(plan.call(target, *args, **kwargs))
