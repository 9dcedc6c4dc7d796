"""feedback.md and every Markdown the kit writes (Gradescope's output, mutation.md).

Text goes in two ways and no other: `inline` inside a line, `fenced` as a block. Both
return `Markdown`, text that is already safe; `finalize` makes every `{{ }}` of a
Markdown template go through `inline` unless it is `Markdown` already.
"""

from __future__ import annotations

import re

from .text import visible


class Markdown(str):
    """Text that is already safe to place in Markdown as it is."""


#: Characters that can open Markdown or HTML inside a line. (`#`, `>`, `-`, `+`, `=`
#: and `1.` matter only at the start of a line, and inline text never contains one.)
_INLINE = re.compile(r"([\\`*_\[\]<>|~$&!#])")
_LINE_START = re.compile(r"^(\s*)([>+=-]|\d+[.)])")


def inline(value) -> Markdown:
    """Text inside a line (a heading, a table cell): controls and newlines shown as
    escapes, every character that could start Markdown or HTML escaped with a
    backslash (CommonMark: "any ASCII punctuation character may be backslash-escaped"),
    so a folder name cannot end its heading and start a bold score line, and
    `<img onerror>` stays text."""
    if isinstance(value, Markdown):
        return value
    text = _INLINE.sub(r"\\\1", visible(value, lines=False))
    text = _LINE_START.sub(lambda m: m.group(1) + _escape_last(m.group(2)), text)
    return Markdown(text)


#: A `backticked` part of the kit's own text: a code span here, <code> in html.py.
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def with_code(value) -> Markdown:
    """Inline text of the kit's own (a check's title) whose `backticked` parts are
    code spans: the rest is escaped as `inline` escapes it; a span's content
    cannot end it (it holds no backtick) and its `|` is escaped for GFM tables."""
    parts = CODE_SPAN.split(visible(value, lines=False))     # text, span, text, ..., text
    return Markdown("".join(inline(part) if index % 2 == 0 else
                            "`" + part.replace("|", "\\|") + "`"
                            for index, part in enumerate(parts)))


def _escape_last(opener: str) -> str:
    return opener[:-1] + "\\" + opener[-1]


def fenced(value) -> Markdown:
    """`value` as a Markdown code block that nothing inside it can end: the fence
    is longer than the longest run of backticks in the text (student output,
    exception messages and feedback lines may contain fences of their own)."""
    text = visible(value, lines=True)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markdown(f"{fence}text\n{text}\n{fence}")


def finalize(value):
    """jinja2's `finalize` for Markdown templates: every expression is inline text
    unless it is Markdown already (a fenced block) or a number."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return inline(value)
