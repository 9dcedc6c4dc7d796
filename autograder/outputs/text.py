"""The base every output kind builds on: a string that can be written, and seen.

`writable` makes any value a string that encodes as UTF-8: a lone surrogate
(what Python makes of an undecodable byte, "\\udcff") becomes its escape, text
`\\udcff`, so the teacher sees it and the report is written. `visible` shows
control characters as escapes (`\\x1b`, `\\u202e`): terminal escapes, carriage
returns that overwrite a line, bidirectional overrides that reorder it.
"""

from __future__ import annotations

import re

#: C0 and C1 controls and DEL; the bidirectional marks and overrides; the Unicode
#: line and paragraph separators. Tab and newline are kept where a kind allows them.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
#: Any control character, tabs and newlines included (a line of its own, a name).
CONTROL = re.compile(f"[\t\n{_CONTROLS}]")
_CONTROL_BUT_LINES = re.compile(f"[{_CONTROLS}]")


def writable(value) -> str:
    """`value` as a str that encodes as UTF-8 (lone surrogates shown as escapes)."""
    text = value if isinstance(value, str) else str(value)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(value, lines: bool = True) -> str:
    """`value` writable, with every control character shown as an escape; tabs and
    newlines are kept when `lines` (a block of text), escaped too when not (one line)."""
    pattern = _CONTROL_BUT_LINES if lines else CONTROL
    return pattern.sub(_escape, writable(value))


def shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
