"""Text the kit draws with matplotlib (tick labels, titles of tournament.html's plots).

matplotlib reads `$...$` as mathtext: a player named `$\\frac{1}{$` stops the
whole report after every game was played. `label` escapes every dollar sign
(an escaped dollar is drawn as a dollar, and a string without an unescaped one
is never parsed), shows control characters and newlines as escapes, and
shortens long names so one name cannot make a figure huge.
"""

from __future__ import annotations

from .text import shortened, visible

LABEL_LIMIT = 40


def label(value) -> str:
    return shortened(visible(value, lines=False), LABEL_LIMIT).replace("$", r"\$")
