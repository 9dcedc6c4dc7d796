"""Judges: what a check accepts of an answer, as the specification names it.

A judge is `judge(case, outcome)` -> None (right), a reason, or a pair (what came
back, what is wrong).
"""

from __future__ import annotations

from ..i18n import grader_text as _
from .failures import returned, short


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


def best_and_value(got, not_a_pair: str):
    """(best, value) of a search's answer `got`, or (None, the reason): `not_a_pair`
    words an answer that is no pair (with `{value}`), in the words of each suite's
    handout; a value that is no number is told the same everywhere."""
    if type(got) not in (tuple, list) or len(got) != 2:
        return None, not_a_pair.format(value=short(got))
    best, value = got
    if type(value) not in (int, float):
        return None, _("returned the value {value}, not a number").format(value=short(value))
    return (best, value), None
