"""Every CSV the kit writes (grades.csv, standings.csv, mutation.csv, the nbgrader export).

A cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is a
formula to a spreadsheet (OWASP's CSV injection): `=HYPERLINK(...)` from a folder
name would be a live link in the teacher's gradebook. Such a text cell is prefixed
with a single quote, as OWASP recommends (leading spaces do not hide it); numbers
stay numbers ("-1.250"), and control characters are shown as escapes.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from .text import visible

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?([eE][+-]?\d+)?")


def cell(value):
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = visible(value)
    if _NUMBER.fullmatch(text):
        return text
    if text.lstrip(" ").startswith(FORMULA_START):
        return "'" + text
    return text


def uncell(text: str) -> str:
    """A text cell as it was before `cell` quoted a formula-like start (the kit reading
    back a CSV it wrote: students.csv, grades.csv)."""
    if text.startswith("'") and text[1:].lstrip(" ").startswith(FORMULA_START):
        return text[1:]
    return text


def write(path: Path, fieldnames: list[str], rows, texts: set[str] | None = None) -> Path:
    """Write `rows` (dicts) under a header of `fieldnames`, every cell neutralised, or
    only those of the `texts` columns (an LMS's format, whose own columns hold "-")."""
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames)
        writer.writeheader()
        for values in rows:
            writer.writerow({key: cell(value) if texts is None or key in texts else value
                             for key, value in values.items()})
    return Path(path)
