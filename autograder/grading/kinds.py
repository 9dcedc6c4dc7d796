"""What a raised exception is: the built-in exception classes in its class hierarchy.

The sandboxed child sends, with every exception the student's code raised, the names
of the built-in exception classes in its method resolution order, nearest first,
found by identity before any student code ran (`raised["kinds"]`, sandbox/child.py).
"Raises ValueError" is judged on these, so a student's `class IllegalMoveError(
ValueError)` is a ValueError, and a class merely named ValueError is not one; a class's
name chooses nothing. Claiming a kind falsely gains nothing, since raising that kind
itself is allowed.
"""

from __future__ import annotations

def kinds_of(raised: dict | None) -> tuple[str, ...]:
    """The built-in exception classes a raised exception is an instance of, nearest
    first: the child's `kinds` (a record without them, from a child that did not send
    them: its type's name alone)."""
    if not isinstance(raised, dict):
        return ()
    kinds = raised.get("kinds")
    if isinstance(kinds, (list, tuple)) and all(type(k) is str for k in kinds):
        return tuple(kinds)
    kind = raised.get("type")
    return (kind,) if type(kind) is str else ()


def is_a(raised: dict | None, kind: str) -> bool:
    """Whether an exception the student's code raised is a `kind` (the name of a
    built-in exception class: "ValueError"), a subclass included."""
    return kind in kinds_of(raised)
