"""The look every page of the kit shares, and the parts of a feedback page that are
the same wherever it is written.

Every HTML page the kit writes puts `style()` in its <head> and wears
`<body class="kit-page">`: one stylesheet for the order (what went wrong first, what
passed folded), the width (nothing wider than the screen) and the tables; change the
look there, once (a Python string: every install of the kit has it). The release step
writes it into each assignment's check_page.py inside a triple-quoted string, so it
holds no backslash and no three quotes (tests/student/test_check_page.py: no drift).
"""

from __future__ import annotations

STYLESHEET = """\
:root { --ink: #1b1b1b; --muted: #5f5f5f; --line: #d9d9d9; --pass: #176f2c;
        --fail: #a4161a; --code: #f4f4f4; }
body.kit-page { font-family: system-ui, sans-serif; color: var(--ink); line-height: 1.45;
                margin: 1.5rem auto; padding: 0 1rem; max-width: 64rem; }
.kit-page h1 { font-size: 1.5rem; margin: 0 0 .6rem; overflow-wrap: anywhere; }
.kit-page h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; }
.kit-page h3 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; overflow-wrap: anywhere; }
.kit-page table { border-collapse: collapse; }
.kit-page th, .kit-page td { padding: .3rem .7rem; border-bottom: 1px solid var(--line);
                             text-align: left; vertical-align: top; }
.kit-page td.num, .kit-page th.num { text-align: right; font-variant-numeric: tabular-nums; }
.kit-page pre { background: var(--code); padding: .75rem; white-space: pre-wrap;
                overflow-wrap: anywhere; max-width: 100%; box-sizing: border-box; }
.kit-page code { background: #e9e9e9; padding: 0 .2em; border-radius: 3px;
                 overflow-wrap: anywhere; }
.kit-page pre code { background: #dedede; }
.kit-page img, .kit-page svg { max-width: 100%; height: auto; }
.kit-page .scroll { overflow-x: auto; max-width: 100%; }
.kit-page .muted, .kit-page .note { color: var(--muted); }
.kit-page .score { font-size: 1.15rem; margin: .3rem 0 1rem; }
.kit-page .pass { color: var(--pass); }
.kit-page .fail { color: var(--fail); font-weight: 600; }
.kit-page .points { color: var(--muted); font-weight: normal; font-size: .95rem; }
/* One failure: its heading, its drawing, its text. */
.kit-page .failure { border-left: 4px solid var(--fail); padding: 0 0 0 .9rem; margin: 1.2rem 0; }
.kit-page .failure h3 { margin-top: .4rem; }
/* What passed, folded: a click opens it. */
.kit-page details.passed { margin: 1.5rem 0; border: 1px solid var(--line); border-radius: 4px; }
.kit-page details.passed > summary { cursor: pointer; padding: .5rem .8rem; background: #f3f3f3;
                                     font-weight: 600; }
.kit-page details.passed > :not(summary) { margin: .6rem .8rem; }
/* A search drawn (outputs/trees.py): one drawing per search, side by side when they fit. */
.search-tree { margin: .8rem 0; }
.search-tree > figcaption { font-weight: 600; margin-bottom: .3rem; }
.search-tree .tree-panels { display: flex; flex-wrap: wrap; gap: .6rem 1.5rem; }
.search-tree .tree-panel { margin: 0; flex: 0 1 auto; min-width: 0; max-width: 100%;
                           overflow-x: auto; }
.search-tree .tree-panel > figcaption { font-size: .95rem; }
.search-tree svg { max-width: 100%; height: auto; }
.search-tree .tree-legend { color: var(--muted); font-size: .9rem; margin: .3rem 0 0; }
@media print { .search-tree svg { min-width: 0 !important; } }
@media (max-width: 40rem) {
  body.kit-page { margin: .8rem auto; padding: 0 .6rem; }
  .kit-page th, .kit-page td { padding: .25rem .4rem; }
}
/* nbgrader's feedback page (nbconvert's classic notebook inside Bootstrap 3): its
   outputs and code wrap, its tables get room, its fixed widths give way to the screen. */
.kit-page .container, .kit-page #notebook-container { width: auto; max-width: 100%; }
.kit-page div.output_area pre, .kit-page div.input_area pre, .kit-page .highlight pre {
  white-space: pre-wrap; overflow-wrap: anywhere; }
.kit-page div.output_subarea, .kit-page div.inner_cell { min-width: 0; max-width: 100%; }
.kit-page .rendered_html table { margin: .6rem 0; display: block; overflow-x: auto;
                                 max-width: 100%; }
.kit-page .rendered_html th, .kit-page .rendered_html td { padding: .3rem .7rem; }
@media (max-width: 40rem) {
  .kit-page div.prompt { display: none; }
  .kit-page div.cell, .kit-page div.output_area { flex-direction: column; }
}
"""


def style():
    """The shared stylesheet as a <style> element (markup of the kit's own)."""
    from markupsafe import Markup
    return Markup(f"<style>\n{STYLESHEET}</style>")


def picture(value, say=None, key: str = "tree"):
    """A failure's picture (outputs/trees.py's contract) as markup for a page; the
    empty string when there is none or it breaks the contract."""
    from markupsafe import Markup

    from . import trees
    return Markup(trees.render(value, say, key)) if value else Markup("")
