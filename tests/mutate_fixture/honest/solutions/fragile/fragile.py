"""A tiny reference for the honest rewrites' own test (tests/kit/test_honest_command.py)."""


def halve(n):
    """Return n // 2. Raises ValueError if n is odd."""
    ### BEGIN SOLUTION
    if n % 2:
        raise ValueError(f"{n} is odd")
    return n // 2
    ### END SOLUTION


def evens(limit):
    """Return the even numbers below `limit`, smallest first."""
    ### BEGIN SOLUTION
    return [n for n in range(limit) if n % 2 == 0]
    ### END SOLUTION
