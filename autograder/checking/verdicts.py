"""What the hidden suites keep and believe (shared by every suite; no game here).

A check believes only what the student's code returned and what the grader's own objects
saw (docs/SUITES.md, "What a check may believe"). These helpers keep both to their
verdict-sized part: `kept` (a value larger than any right answer becomes `Shown`, its
feedback text, so session fixtures stay small whatever a submission returns), `refused` (a
question a grader's game refused costs the case, also when the student's code caught it),
`changed_input` and `probe_plans` / `probe_reason` / `check_probes` ("leaves its input
unchanged", judged from the student's own later answers on the same object), and `slow`
(the call ran out of CPU time, so a suite that knows the work needed can say so).
"""

from __future__ import annotations

import itertools

from ..i18n import N_, grader_text as _
from ..sandbox.client import Failure, Outcome
from ..sandbox.plans import Plan
from .cases import Later, check_all
from .chunks import caught
from .failures import CheckFailed, describe, returned, short

#: What a kept value may hold: values (a string counts one per 32 characters).
LIMIT = 200
SLOW = (Failure.TIMEOUT, Failure.WAITED)


class Shown(str):
    """A value too large to keep: its text as the feedback shows it. It equals
    nothing but itself, so no judge can take it for a right answer."""

    __slots__ = ()

    def __repr__(self):
        return str.__str__(self)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__


_SCALARS = frozenset({int, float, bool, type(None)})
_ATOMS = _SCALARS | {str}
_SEQUENCES = frozenset({list, tuple})


def fits(value, limit: int = LIMIT) -> bool:
    """True if `value` holds at most `limit` values (counted without recursion)."""
    kind = type(value)
    if kind in _SCALARS:                    # most answers: said at once
        return limit >= 1
    if kind is str:
        return 1 + len(value) // 32 <= limit
    if (kind is list or kind is tuple) and len(value) < limit:
        flat = _flat_items(value, limit)    # a move, a row, a board: counted at C speed
        if flat is not None:
            strings = [item for item in flat if type(item) is str]
            longer = sum(len(item) // 32 for item in strings) \
                if strings and max(map(len, strings)) >= 32 else 0
            return 1 + (len(value) if flat is value else len(value) + len(flat)) \
                + longer <= limit
    count, todo = 0, [value]
    while todo:
        item = todo.pop()
        kind = type(item)
        count += 1 + (len(item) // 32 if kind is str else 0)
        if count > limit:
            return False
        if kind in (list, tuple, set, frozenset):
            todo.extend(item)
        elif kind is dict:
            todo.extend(item.keys())
            todo.extend(item.values())
    return True


def _flat_items(value, limit: int) -> list | None:
    """The atoms of a list or tuple of atoms (`value` itself), or of a list or tuple
    of fewer than `limit` such (all of them, in one list); None for any other shape."""
    if _ATOMS.issuperset(map(type, value)):
        return value
    if _SEQUENCES.issuperset(map(type, value)) and sum(map(len, value)) < limit:
        inner = list(itertools.chain.from_iterable(value))
        if _ATOMS.issuperset(map(type, inner)):
            return inner
    return None


def small(value, limit: int = LIMIT):
    """`value` itself if it fits in `limit` values, else its `Shown` text."""
    return value if fits(value, limit) else Shown(short(value))


def kept(outcome: Outcome, limit: int = LIMIT) -> Outcome:
    """The verdict data of `outcome` (see the module docstring): `outcome` itself when
    it holds nothing more (a value that fits, and a second answer, if any, that fits
    too and holds nothing more either; no arguments after the call), else a new
    Outcome."""
    if type(outcome.value) in _SCALARS and outcome.again is None \
            and outcome.args_after is None and limit >= 1:
        return outcome                      # most answers: a number, a bool, None
    value, again = small(outcome.value, limit), outcome.again
    same = again is not None and type(again.value) is type(outcome.value) \
        and again.value == outcome.value
    if value is outcome.value and outcome.args_after is None and (
            again is None or (again.args_after is None and again.again is None
                              and (same or fits(again.value, limit)))):
        return outcome
    if again is not None:
        again = _copy(again, value=value if same else small(again.value, limit),
                      args_after=None, again=None)
    return _copy(outcome, value=value, again=again,
                 args_after=None if outcome.args_after is None else small(outcome.args_after,
                                                                           limit))


def _copy(outcome: Outcome, **changes) -> Outcome:
    """dataclasses.replace(outcome, **changes) without its __init__ (an Outcome has no
    checks in it): kept runs on every answer of the checks that keep them."""
    copied = object.__new__(Outcome)
    copied.__dict__.update(outcome.__dict__)
    copied.__dict__.update(changes)
    return copied


def refused(outcome: Outcome, *handouts) -> Outcome:
    """`outcome`, or a failure naming the first question the grader's game refused
    in this call (also when the student's code caught it and answered)."""
    text = next((h.first_refusal for h in handouts if h is not None and h.refused), None)
    if text is None or outcome.failure is not None:
        return outcome
    return Outcome(failure=Failure.BAD_VALUE,
                   detail=_("asked the grader's game what it does not answer: {question}").format(
                       question=text),
                   seconds=outcome.seconds)


_NOTHING = object()


def changed_input(outcome: Outcome, asked: str, what: str, given=_NOTHING,
                  same=None) -> str | None:
    """"f leaves its input unchanged", judged from the student's own second answer on
    the same argument objects (`map(..., again=True)`): None when it equals the first
    (`same(second, first)`, default ==), else the reason. `asked`: what the second
    call was given again ("state", "board and move"); `what`: what the first call
    changed ("its input state"). The arguments the child reports after the call are
    quoted where they differ from `given`, never judged."""
    second = outcome.again
    if second is not None and second.answered and \
            (same(second.value, outcome.value) if same else second.value == outcome.value):
        return None
    said = describe(second) if second is not None else _("gave no answer")
    after = outcome.args_after[0] if type(outcome.args_after) is list and \
        outcome.args_after else None
    reported = (_("; your code reports the state after the first call as {state}").format(
        state=short(after)) if given is not _NOTHING and after is not None and after != given
        else "")
    return _("called again with the same {asked}, it {answer}: the first call changed "
             "{changed}").format(asked=asked, answer=said, changed=what) + reported


def slow(outcome: Outcome) -> bool:
    """The call used up its CPU time (or its wall-clock backstop)."""
    return outcome.failure in SLOW


def probe_plans(name: str, target: str, cases, probes) -> list[Plan]:
    """For each case (obj, rest): a plan that makes two copies of `obj` in the child,
    calls `target(copy, *rest)` on the first, then asks every probe (target, extra
    args) of the first copy and of the untouched second one. `probes(obj, rest)`
    gives [(label, target, extra), ...]; `extra` is the probe's further arguments,
    or a function of the plan giving them (a value made in the plan: an object of
    the student's). The plan answers {"same": [...], "fresh":
    [...]}, each answer or {"raised": ...} (caught)."""
    plans = []
    for obj, rest in cases:
        plan = Plan(name)
        given, fresh = plan.value(obj), plan.value(obj)
        plan.call(target, given, *rest, catch=True)
        asked = [(where, extra(plan) if callable(extra) else extra)
                 for _, where, extra in probes(obj, rest)]
        same = [plan.call(where, given, *extra, catch=True) for where, extra in asked]
        other = [plan.call(where, fresh, *extra, catch=True) for where, extra in asked]
        plans.append(plan.returns({"same": same, "fresh": other}))
    return plans


def _plain(answer):
    """An answer as compared: an exception by its type only (its message and place
    may name the object)."""
    return ("raised", answer["raised"].get("type")) if caught(answer) else answer


def _probe_answer(answer) -> str:
    if type(answer) is tuple and answer[:1] == ("raised",):
        return _("raised {exception}").format(exception=answer[1])
    return returned(answer)


def probe_reason(outcome: Outcome, labels, thing: str) -> str | None:
    """Why a probe plan shows that the call changed its input (None if it does not):
    the first question answered differently on the object the call had and on an
    untouched copy of it. `labels` name the probes; `thing` the argument."""
    if not outcome.answered:
        return describe(outcome)
    value = outcome.value
    same = value.get("same") if type(value) is dict else None
    fresh = value.get("fresh") if type(value) is dict else None
    if type(same) is not list or type(fresh) is not list or len(same) != len(fresh):
        return _("the answers came back malformed: {answers}").format(answers=short(value))
    for label, mine, theirs in zip(labels, same, fresh):
        if _plain(mine) != _plain(theirs):
            return _("afterwards {probe} on the same {thing} {answer}, on an untouched copy it "
                     "{other}: the call changed the {thing} it was given").format(
                probe=label, thing=thing, answer=_probe_answer(_plain(mine)),
                other=_probe_answer(_plain(theirs)))
    return None


#: The expected answer of a `check_probes` case.
UNTOUCHED = Later.words(N_("the same answers as on an untouched copy"))


def check_probes(student, summary: str, name: str, target: str, cases, probes, thing: str,
                 hint: str | None = None) -> None:
    """Run `probe_plans` for `cases` (Case.args = (obj, *rest)) and fail with the
    first case whose probes show a changed input, in words (not the raw answers)."""
    outcomes = student.run(probe_plans(name, target, [(c.args[0], c.args[1:]) for c in cases],
                                       probes))
    try:
        check_all(summary, cases, outcomes,
                  lambda case, outcome: probe_reason(
                      outcome, [label for label, _, _ in probes(case.args[0], case.args[1:])],
                      thing), hint=hint)
    except CheckFailed as failed:
        if failed.problem:
            failed.got, failed.problem = failed.problem, None
        raise
