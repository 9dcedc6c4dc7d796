"""A deliberately fragile hidden suite (copied as test_fragile.py by
tests/kit/test_honest_command.py): two of its checks judge the reference's habits
instead of the specification, as the issue 41 findings did.

- test_odd_raises compares the exception's class *name* with "ValueError", so an
  exception that subclasses ValueError (which the docstring allows) loses it.
- test_evens wants a list, where the docstring names no container, so the same
  numbers as a tuple lose it.
test_halve is honest: every rewrite keeps it.
"""

from autograder.checking import CheckFailed


def test_halve(student):
    """halve halves even numbers"""
    for n in (0, 4, 10):
        outcome = student.call("fragile.halve", n)
        if not outcome.ok or outcome.value != n // 2:
            raise CheckFailed("halve is wrong", call=f"halve({n})", got=repr(outcome.value))


def test_odd_raises(student):
    """halve refuses odd numbers"""
    outcome = student.call("fragile.halve", 3)
    if (outcome.raised or {}).get("type") != "ValueError":
        raise CheckFailed("halve(3) did not raise ValueError", call="halve(3)",
                          got=repr(outcome.raised))


def test_evens(student):
    """evens lists the even numbers"""
    outcome = student.call("fragile.evens", 7)
    if not outcome.ok or type(outcome.value) is not list or outcome.value != [0, 2, 4, 6]:
        raise CheckFailed("evens is wrong", call="evens(7)", got=repr(outcome.value))
