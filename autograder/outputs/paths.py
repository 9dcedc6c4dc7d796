"""Student ids, and the names the grader writes into its output folder.

A student id names a folder the grader writes (`OUT/<id>/feedback.md`, nbgrader's
`submitted/<id>/`), so it must be a single, ordinary folder name (a newline in a
name would forge lines wherever it is printed): `student_id_problem` says what is
wrong with one.
"""

from __future__ import annotations

import re

from .text import visible, writable

#: What the grader writes into OUT beside the students' folders, and the list an
#: LMS import writes beside them (compared without case: some filesystems ignore it).
RESERVED = frozenset({"grades.csv", "similarity.csv", "similarity.html", "standings.csv",
                      "games.jsonl", "tournament.html", "mutation.csv", "mutation.md",
                      "ratings.png", "h2h.png", "run.json", "students.csv"})
#: The list of ids and names `autograder import` writes beside the student folders.
ROSTER = "students.csv"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
NAME_BYTES = 255


def student_id_problem(name: str) -> str | None:
    """None for a usable student id, else what is wrong with it."""
    if not name or name in (".", ".."):
        return "is not a name"
    if name.startswith("."):
        return "starts with a dot (a hidden folder, not a student id)"
    if "/" in name:             # (a backslash is an ordinary character on the grading machine)
        return "holds a path separator"
    if _CONTROL.search(name):
        return f"holds a control character ({visible(_CONTROL.search(name).group(), False)})"
    if len(writable(name).encode("utf-8")) > NAME_BYTES:
        return f"is longer than {NAME_BYTES} bytes"
    if name.casefold() in RESERVED:
        return "is the name of a file the grader writes beside the students' folders"
    return None
