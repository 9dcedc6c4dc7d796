"""How a check fails: `CheckFailed`, the typed verdict the feedback is made from, and
the words for what a call did (`describe`, `returned`, `short`).

A check raises `CheckFailed` (never a bare assert); the expected value is shown only
when the teacher allows it (`render(reveal)`). The kind of an answer is
`answer_of(outcome)`, never the engine's English; "raises X" is `raises(outcome,
"X")`, by the built-in classes of the exception (grading/kinds.py). Every sentence
here is the grader's (autograder/i18n.py, the `grader` domain), said in the course's
language, the labels ("hint:") too.
"""

from __future__ import annotations

import math
from enum import StrEnum

from ..grading import imports
from ..grading.kinds import is_a
from ..i18n import GRADER, LANGUAGES, places, translation
from ..i18n import grader_plural as ngettext, grader_text as _
from ..sandbox import child_words
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
            lines.append(_("hint: {hint}").format(hint=self.hint))
        return "\n".join(lines)


def is_hint_line(line: str) -> bool:
    """Whether `line` is a failure's hint (the kit's own prose, whose `backticked` names
    the feedback page shows as code), in any of the kit's languages (a page may be
    written in another language than the one being spoken now)."""
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


def fmt(value) -> str:
    """A number as the handout writes it: infinity as inf / -inf."""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


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
