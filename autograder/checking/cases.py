"""Cases and the one loop that judges them: `Case`, `Later`, `check_all`.

A check is three steps: cases (`Case(call, args, position, expected)`, smallest
first, built once per worker with functools.cache), the calls (checking.calls),
and `check_all(summary, cases, outcomes, judge, hint)`, which fails with the first
case the judge rejects and the count of all. Text that is dear to make (a drawing,
a trace) is a `Later`: made only for the case a failure shows. `picture(case,
outcome)`, where given, draws the failing case's search for the pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable, Iterable

from ..i18n import grader_text as _
from ..sandbox.client import Failure, Outcome
from .failures import CheckFailed, Reason, answer_of, describe, require
from .judges import exact


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


def check_all(summary: str, cases: list[Case], outcomes: Iterable[Outcome], judge: Judge,
              hint: str | None = None, *, show: Show = Show.OUTCOME, raised: bool = False,
              got: Callable[[Case, Outcome], str] | None = None,
              picture: Callable[[Case, Outcome], dict | None] | None = None) -> None:
    """Fail with the first (smallest) case the judge rejects, counting all.

    `judge(case, outcome)` returns None when the outcome is right, else a short
    reason (or a pair: what came back, what is wrong); an outcome that is not a
    normal return is always wrong, and so is a case a budget left unreached.
    With `raised`, the judge sees outcomes that raised too (a search may break a
    rule of the check before it fails); `got(case, outcome)` words the got line
    where the suite knows better words than `describe` (the reason is then the
    problem line, in every `show`). `picture(case, outcome)` draws the failing case
    for the pages (outputs/trees.py; a picture that cannot be made costs only itself)."""
    outcomes = list(outcomes)
    if judge is exact and _all_exact(cases, outcomes):
        return
    first, failures = None, 0
    for case, outcome in zip(cases, outcomes):
        if outcome.failure is None and outcome.raised is None:     # an answer: judge it
            reason = judge(case, outcome)
        else:
            require(outcome)
            if outcome.failure == Failure.UNREACHED:    # counted, never the case shown
                failures += 1
                continue
            judged = raised and outcome.raised is not None
            reason = judge(case, outcome) if judged else describe(outcome)
        if reason is not None:
            failures += 1
            if first is None:
                first = (case, outcome, reason)
    if first is not None:
        failed = _failed(summary, *first, hint=hint, show=show, words=got,
                         failures=failures, total=len(cases))
        if picture is not None:
            failed.picture = drawn(picture, *first[:2])
        raise failed


def drawn(picture, case, outcome) -> dict | None:
    """`picture(case, outcome)`, or None when it cannot be made: a drawing is feedback,
    and a fault in making it must cost the drawing only, never the verdict."""
    try:
        return picture(case, outcome)
    except Exception:       # noqa: BLE001 (any fault of the drawing: the verdict stands)
        return None


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


