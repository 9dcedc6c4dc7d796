"""The calls of a check: plain calls on cases (`map_cases`), and plans with the grader
playing helpers (`played_plan`, `call_plan`, `play_on_instance`, `constant`, `pure`).
Many cheap calls per item are `chunks.run_chunked`.
"""

from __future__ import annotations

from typing import Iterable

from ..sandbox.plans import Callback, Plan
from .cases import Case
from .standins import stand_in


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


def play_on_instance(plan: Plan, obj, method: str, function) -> None:
    """Make `obj.method` the grader's `function` for this plan (one with the specified
    method's signature: `constant`, or the reference's own bound method): an entry in
    the instance's __dict__ comes before the class's method, so the student's
    `self.method(...)` calls it. A student object without a __dict__ keeps its own
    (the step's exception is caught)."""
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


# ------------------------------------------------------------------ one-call plans
def call_plan(name: str, target: str, *args, play: dict | None = None, skip: Iterable[str] = (),
              timeout: float | None = None, **kwargs) -> Plan:
    """A plan of one call, `target(*args, **kwargs)`, answering what it returned, with
    the module functions `play` names played by the grader (`played_plan`)."""
    plan = played_plan(name, play, timeout=timeout, skip=skip)
    return plan.returns(plan.call(target, *args, **kwargs))
