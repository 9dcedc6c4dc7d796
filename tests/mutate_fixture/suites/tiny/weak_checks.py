"""A deliberately weak hidden suite (copied as test_weak.py by tests/kit/test_mutate.py).

It never asks for is_positive(0) with points at stake, so `x >= 0` survives it;
its zero-point check, run first, does ask, so an early stop that wrongly ended
the run at a zero-point failure would kill that mutant.
"""

from autograder.checking import CheckFailed


def _expect(student, call, args, expected):
    outcome = student.call(call, *args)
    if not outcome.ok or outcome.value != expected:
        raise CheckFailed(f"{call} is wrong", call=f"{call}{args}",
                          got=repr(outcome.value if outcome.ok else outcome.detail))


def test_zero_is_not_positive_unscored(student):
    """is_positive(0) is False (practice check, no points)"""
    _expect(student, "tiny.is_positive", (0,), False)


def test_clamp(student):
    """clamp keeps a number inside its bounds"""
    for args, expected in [((-5, 0, 10), 0), ((15, 0, 10), 10), ((5, 0, 10), 5)]:
        _expect(student, "tiny.clamp", args, expected)


def test_is_positive(student):
    """is_positive tells positive from negative numbers"""
    for args, expected in [((7,), True), ((-7,), False)]:
        _expect(student, "tiny.is_positive", args, expected)
