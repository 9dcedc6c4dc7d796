"""A tiny reference for the mutation command's own test (tests/kit/test_mutate.py)."""


def clamp(x, low, high):
    """Return x limited to the range low..high."""
    ### BEGIN SOLUTION
    return max(low, min(x, high))
    ### END SOLUTION


def is_positive(x):
    """Return True when x is greater than zero."""
    ### BEGIN SOLUTION
    return x > 0
    ### END SOLUTION
