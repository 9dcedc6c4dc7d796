"""What the kit prints on the teacher's terminal.

A student's text printed raw can clear the screen and the scroll-back, retitle
the window or draw a forged row (ANSI escapes), and Rich markup in it renders
(`[link=...]`) or stops the command (`[/nope]` is a MarkupError). Every piece
of student text the kit prints goes through one of these:

- `text(value)`: a rich `Text` for a table cell or a line of its own (never
  parsed as markup);
- `markup(value)`: for a string interpolated into a line that has markup of
  the kit's own (`f"[bold]{markup(name)}[/]"`);
- `plain(value)`: for `print()`, where nothing is parsed.

All of them show control characters as escapes; `lines=True` keeps newlines
(a message that wraps in a cell), the default does not (a name, a one-line note).
"""

from __future__ import annotations

import os

from rich.markup import escape as _escape_markup
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.text import Text

from .text import visible


def plain(value, lines: bool = False) -> str:
    return visible(value, lines=lines)


def markup(value, lines: bool = False) -> str:
    return _escape_markup(visible(value, lines=lines))


def text(value, lines: bool = False) -> Text:
    return Text(visible(value, lines=lines))


def progress(console) -> Progress:
    """The kit's progress bar (done of all, time elapsed), silent in a CI log."""
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                    disable=not console.is_terminal and os.environ.get("CI") == "true")
