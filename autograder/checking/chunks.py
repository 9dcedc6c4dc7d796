"""Many cheap calls per item, in plans of a few dozen items: one Outcome per item.

A check of plain-data methods (a board's `winner`, `getMoves`, ... on every
reachable position) makes thousands of calls. One plan per item costs a
request each; one plan for all would let one endless loop fail every item. So
`run_chunked` runs plans of `size` items in one request and splits each plan's
answer back into one Outcome per item:

* a caught exception of one call (`{"raised": {...}}`) is that item's raise,
  the other items keep their answers;
* a step without `catch` that raised (building the object) is the raise of
  the item it belongs to; the chunk's other items are `unreached`;
* a plan that ran out of time (its limit: CALLS_EACH calls' time) fails
  each of its items, the detail saying how many were checked in one go.

Outcomes are never believed beyond what the student's code returned: the
split is by the grader's own table from step number to item.
"""

from __future__ import annotations

from ..sandbox.client import Failure, Outcome, _raised
from ..sandbox.plans import Plan

#: Items per plan, and the calls' time a plan may take per item's worth of calls.
SIZE = 50
CALLS_EACH = 5

_PLANS: dict = {}


def run_chunked(student, name: str, items, steps, *, cache: bool = True,
                size: int = SIZE) -> list[Outcome]:
    """One Outcome per item of `items`: `steps(plan, item)` adds an item's calls (those
    that may raise with `catch=True`) and returns the value to judge. With `cache`
    (items kept for the worker's life, such as a functools.cache'd tuple) the plans
    are built once; without, for this call."""
    plans = _cached_plans(name, items, steps, size) if cache else \
        build_plans(name, items, steps, size)
    outcomes = student.run([plan for plan, _ in plans],
                           timeout=student.timeouts.call * CALLS_EACH)
    found = []
    for (_, item_of_step), outcome, start in zip(plans, outcomes, range(0, len(items), size)):
        found += unpack(outcome, min(size, len(items) - start), item_of_step)
    return found


def _cached_plans(name, items, steps, size):
    key = (name, id(items), size)
    if key not in _PLANS:
        _PLANS[key] = (items, build_plans(name, items, steps, size))   # keeps `items` alive
    return _PLANS[key][1]


def build_plans(name: str, items, steps, size: int = SIZE) -> tuple:
    """((plan, item_of_step), ...): plans of `size` items each, with the table from a
    step's number to the item (its index in the chunk) it belongs to."""
    plans = []
    for start in range(0, len(items), size):
        plan, item_of_step, values = Plan(name), [], []
        for index, item in enumerate(items[start:start + size]):
            values.append(steps(plan, item))
            item_of_step += [index] * (len(plan.steps) - len(item_of_step))
        plans.append((plan.returns(values), tuple(item_of_step)))
    return tuple(plans)


def caught(value) -> bool:
    """A step's value that is an exception caught in the child (`catch=True`)."""
    return type(value) is dict and set(value) == {"raised"} and type(value["raised"]) is dict


def raised(record: dict) -> Outcome:
    """The Outcome of a call that raised, from the child's record of it: text fields,
    and its built-in kinds (checks.is_a), read as the client reads a call's own."""
    return Outcome(raised=_raised(record))


def answered(value) -> Outcome:
    """A step's value as an Outcome: the raise it caught, or a normal return."""
    return raised(value["raised"]) if caught(value) else Outcome(ok=True, value=value)


def unpack(outcome: Outcome, count: int, item_of_step) -> list[Outcome]:
    """One Outcome per item of a chunk's plan (see the module docstring)."""
    if outcome.raised is not None:
        step = outcome.raised.get("step")
        failing = item_of_step[step] if type(step) is int and step < len(item_of_step) else 0
        unreached = Outcome(failure=Failure.UNREACHED,
                            detail="not judged: an earlier call failed")
        return [raised(outcome.raised) if i == failing else unreached for i in range(count)]
    if not outcome.answered:
        detail = outcome.detail
        if outcome.failure == Failure.TIMEOUT:
            detail += f" (while checking {count} positions in one go; this is the first of them)"
        return [Outcome(failure=outcome.failure, detail=detail)] * count
    values = outcome.value
    if type(values) is not list or len(values) != count:
        return [Outcome(failure=Failure.BAD_VALUE,
                        detail="the answers came back malformed")] * count
    return [answered(value) for value in values]

