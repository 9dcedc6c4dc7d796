"""Student text made safe for where the similarity report puts it.

Student ids are folder names and file paths are the student's: both reach the
CSV, the terminal line and the HTML page. The page's template escapes everything
it prints (Jinja2's autoescape; nothing is marked safe); the CSV and the terminal
go through here.

TODO: move these into the kit's shared sanitising module (being written on the
branch of issue 19) once it is merged, and use that here instead.
"""

from __future__ import annotations

import re

# C0 and C1 control characters (ANSI escape sequences start with one), and the
# characters that reorder text on screen (bidirectional overrides and isolates).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# OWASP's CSV-injection rule: a cell starting with one of these is a formula to a
# spreadsheet, so it gets a leading apostrophe.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def visible(text: str) -> str:
    """`text` with every control character shown as an escape (`\\x1b`), so it
    cannot move the cursor, recolour or retitle a terminal, or hide text."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"),
                        str(text))


def csv_cell(text: str) -> str:
    """A text cell for the CSV: controls made visible, and a formula neutralised."""
    text = visible(text)
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text
