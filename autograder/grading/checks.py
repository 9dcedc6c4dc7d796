"""What hidden suites use to judge outcomes and to fail in readable words.

A hidden test is a pytest function whose docstring's first line is the line the
student reads ("winner finds every three in a row"). It compares the student's
outcomes with expected values computed in the trusted process and, on the
first mismatch (cases come smallest first), raises `CheckFailed`, a typed
failure that carries the call, the position drawing, what came back and what
was expected. The report decides whether the expected value is shown.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable, Iterable

from ..sandbox.client import Failure, Outcome

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
        return (Answer.NOT_IMPLEMENTED if outcome.raised["type"] == "NotImplementedError"
                else Answer.RAISED)
    return Answer.RETURNED


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
                 problem: str | None = None, answer: Answer | None = None):
        super().__init__(summary)
        self.answer = answer
        self.summary, self.call, self.position, self.problem = summary, call, position, problem
        self.expected, self.got, self.hint = expected, got, hint
        self.failures, self.total, self.root_cause = failures, total, root_cause

    def render(self, reveal: bool) -> str:
        lines = [self.summary]
        if self.failures is not None and self.total:
            lines[0] += f" (wrong on {self.failures} of {self.total} cases; the smallest:)"
        if self.call:
            lines.append(f"call: {self.call}")
        if self.position:
            lines += ["", *self.position.splitlines(), ""]
        if self.got is not None:
            lines.append(f"got: {self.got}")
        if self.problem:
            lines.append(f"problem: {self.problem}")
        if self.expected is not MISSING:
            shown = self.expected if isinstance(self.expected, str) else short(self.expected)
            lines.append(f"expected: {shown}" if reveal
                         else "expected: (hidden test: the expected answer is not shown)")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


def describe(outcome: Outcome) -> str:
    """What a call did, in the words a student understands."""
    if outcome.failure:
        return outcome.detail
    if outcome.raised:
        where = f" ({outcome.raised['where']})" if outcome.raised.get("where") else ""
        message = f": {outcome.raised['message']}" if outcome.raised.get("message") else ""
        if outcome.raised["type"] == "MemoryError":
            return (outcome.raised.get("message") or "ran out of memory") + where
        if outcome.raised["type"] == "NotImplementedError":
            return "is not implemented yet (raised NotImplementedError)"
        return f"raised {outcome.raised['type']}{message}{where}"
    return f"returned {short(outcome.value)}"


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
        raise CheckFailed(f"not run: {outcome.detail}",
                          hint="keep the names and signatures from the skeleton")


@dataclass
class Case:
    """One position a check runs on: the call shown to the student and its data."""
    call: str
    args: tuple
    position: str | None = None
    expected: object = None


Judge = Callable[[Case, Outcome], "str | None"]


def check_all(summary: str, cases: list[Case], outcomes: Iterable[Outcome], judge: Judge,
              hint: str | None = None) -> None:
    """Fail with the first (smallest) case the judge rejects, counting all.

    `judge(case, outcome)` returns None when the outcome is right, else a short
    reason; an outcome that is not a normal return is always wrong."""
    outcomes = list(outcomes)
    first, failures = None, 0
    for case, outcome in zip(cases, outcomes):
        require(outcome)
        if outcome.failure in (Failure.UNREACHED, Failure.BUDGET):
            failures += 1
            if first is None and outcome.failure == Failure.BUDGET:
                first = (case, outcome, outcome.detail)
            continue
        reason = describe(outcome) if not outcome.answered else judge(case, outcome)
        if reason is not None:
            failures += 1
            if first is None:
                first = (case, outcome, reason)
    if first is not None:
        case, outcome, reason = first
        got = describe(outcome)
        answer = reason.answer if isinstance(reason, Reason) and outcome.answered \
            else answer_of(outcome)
        raise CheckFailed(summary, call=case.call, position=case.position,
                          expected=case.expected, got=got, hint=hint,
                          problem=None if reason == got else reason,
                          failures=failures, total=len(cases), answer=answer)


# ------------------------------------------------------------------ blame
def played(module: str, grader, names: Iterable[str]) -> dict:
    """`Student.map(..., play=...)` for the student's functions `names` of `module`,
    each played by the grader's function of the same name (the reference)."""
    return {f"{module}.{name}": getattr(grader, name) for name in names}


class Blame:
    """Whom a failed check may blame: the assignment's [relies_on], declared once
    in assignment.toml and read by `make check` too, so the two feedbacks agree.

    One per submission (the grading plugin's `blame` fixture); checks run in
    file order, the functions others rely on first. A check judges a function
    with some of the functions it relies on played by the grader (`played`):
    its failure is then its own, and the feedback says so. A failure of a check
    that ran the student's own helpers names their earlier failures instead."""

    def __init__(self, relies_on: dict[str, tuple[str, ...]] | None = None):
        self.relies_on = dict(relies_on or {})
        self.failed: list[tuple[str, str]] = []     # (function, headline), in order
        self.passed: set[str] = set()               # functions with a check passed

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
        right answers are right answers. A failure is judged again, in a fresh
        child (a table the student's helpers filled answers nothing), with the
        grader playing the helpers, when one of those helpers failed a check of
        its own (or where `again` allows it), and that verdict counts: a wrong
        winner costs winner's points and minimax keeps its own. Where every
        helper passed its checks, their answers were the grader's, so the
        failure is the function's own and is not judged twice (a wrong
        submission costs what it costs to grade once).

        `again(failed)` replaces that rule where a suite knows more (connect4
        judges every failure again, since its helpers' checks do not cover every
        input its searches give them, except after a timeout or a refused
        question: a second chance would forgive it). `fresh=False` keeps the
        child (a suite whose checks share objects kept in it)."""
        if not play:
            with self.judging(function, scope):
                attempt(None)
            return
        try:
            attempt(None)
            return
        except CheckFailed as failed:
            allowed = again(failed) if again is not None else bool(self.suspects(function))
            if failed.root_cause or not allowed:
                with self.judging(function, scope):
                    raise
        if fresh:
            student.fresh(forget=(function,))
        with self.judging(function, scope, play):
            attempt(play)

    def plays(self, function: str, module: str, grader) -> dict:
        """The `play` argument that judges `function` on its own: every function it
        relies on, played by the grader's function of the same name."""
        return played(module, grader, self.relies_on.get(function, ()))

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
                names = sorted({name for name, _ in earlier})
                note = (f"this may follow from an earlier failure: "
                        f"{'; '.join(summary for _, summary in earlier)}. {function} usually "
                        f"calls {', '.join(names)}: fix {'it' if len(names) == 1 else 'them'} "
                        "first")
            elif played:
                note = (f"this check ran {function} with the grader's own "
                        f"{', '.join(played)}, so the mistake is in {function} itself")
            elif own and all(name in self.passed for name in own):
                note = (f"{function}'s helpers ({', '.join(own)}) pass their own checks, "
                        f"so the mistake is in {function} itself")
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
        failed.summary = f"{function} is not implemented yet"
    elif failed.answer not in (None, Answer.RETURNED):
        failed.summary = f"{function} gave no answer {scope}"
