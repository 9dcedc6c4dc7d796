"""Every page the kit writes (jinja2 templates, JSON in a <script>), and the student
markup inside notebooks."""

from __future__ import annotations

import functools
import json

from .jsondata import plain_data
from .markdown import CODE_SPAN
from .text import visible

#: The <div> a cleaned student cell is wrapped in (cleaning again is harmless).
STUDENT_CLASS = "spielbaum-student-text"
_OPENING = f'<div class="{STUDENT_CLASS}">'
TAGS = frozenset({"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "code",
                  "pre", "blockquote", "ul", "ol", "li", "a", "div", "span"})
ATTRIBUTES = {"a": ["href", "title"], "div": ["class"], "ol": ["start"]}
PROTOCOLS = frozenset({"http", "https", "mailto"})


def finalize(value):
    """jinja2's `finalize` for the kit's HTML templates: every expression made writable
    and its control characters visible before jinja2 escapes it, so a lone surrogate
    cannot stop a page and nothing is hidden."""
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        return value
    if hasattr(value, "__html__"):              # markupsafe.Markup: the kit's own HTML
        return type(value)(visible(value))
    return visible(value)


def with_code(value):
    """Text of the kit's own (a check's title, a hint) as HTML whose `backticked`
    parts are <code>: everything is escaped first, so only the kit's <code> is markup."""
    from markupsafe import Markup, escape
    escaped = str(escape(visible(value)))
    return Markup(CODE_SPAN.sub(r"<code>\1</code>", escaped))


def script_json(value) -> str:
    """JSON for a <script type="application/json"> block: nothing in it can end it."""
    text = json.dumps(plain_data(value), ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@functools.cache
def _renderer():
    from markdown_it import MarkdownIt
    return MarkdownIt("commonmark", {"html": False, "linkify": False})


def clean(html: str) -> str:
    """HTML reduced to the allowlist: other tags escaped, other attributes and
    every link that is not http(s) or mailto dropped, comments removed."""
    import bleach
    return bleach.clean(html, tags=TAGS, attributes=ATTRIBUTES, protocols=PROTOCOLS,
                        strip=False, strip_comments=True)


def student_markdown(source) -> str:
    """A student's Markdown (a notebook cell) as HTML that can run nothing: rendered by
    markdown-it (CommonMark) with raw HTML off, so `<img onerror>` is text and
    `javascript:` links are refused, then cleaned to the allowlist (no images: a
    remote image would tell a third party when the teacher opens the page). The
    result is one line, so the Markdown renderer that later shows the cell
    (nbconvert's mistune, JupyterLab's marked) takes it as one HTML block and passes
    it on untouched. Text that is already the output of this function is only
    cleaned again."""
    text = visible(source)
    if text.startswith(_OPENING) and "\n" not in text:
        return clean(text)
    rendered = _renderer().render(text)
    body = clean(rendered).strip().replace("\n", "&#10;")
    return f"{_OPENING}{body}</div>"
