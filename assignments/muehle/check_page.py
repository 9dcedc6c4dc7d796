"""The public checks as a page (`make check HTML=1`, `python3 check.py --html`): the
terminal's summary, read in a browser. You do not need to edit this file.

conftest.py hands it what the checks found; it writes check.html in this folder, in
the look of the teacher's feedback pages: the score and every failure with its full
text first (on a phone's first screen too), then each function's row as the terminal
shows it, then the checks not written yet, then the checks that passed, folded. The page
needs no JavaScript and no internet, and fits a phone's screen.

Everything your code returned or raised is shown as text, never read as HTML
(html.escape), and control characters are shown as escapes (\\x1b): a string of
yours that holds <script> or a quote stays a string on the page.
"""

import html
import os
import re

import kit_language

_catalog = kit_language.catalog()
_ = _catalog.gettext

#: The file written, in the assignment's folder.
PAGE = "check.html"
#: The assignment's title, as its README names it.
TITLE = "Nine Men's Morris with memoised minimax and alpha-beta"
#: The most of one failure's text the page shows (the terminal shows it all).
TEXT_LIMIT = 20000

#: The look every page of the kit shares: the teacher's autograder/outputs/pages.py,
#: written here by the release step (never edit it here: a test compares the two).
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

#: C0 and C1 controls, the bidirectional marks and overrides, the Unicode line
#: separators (tab and newline stay in a block of text).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                       "\u2066-\u2069\u2028\u2029]")


def _shown(match):
    code = ord(match.group())
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def text(value, limit=None):
    """`value` as HTML text: cut at `limit`, controls and lone surrogates shown as
    escapes, then escaped (quotes too, so it is safe in an attribute)."""
    value = str(value)
    if limit is not None and len(value) > limit:
        value = value[:limit] + "\n" + _("... ({count} more characters, shown in the terminal)") \
            .format(count=len(value) - limit)
    value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return html.escape(_CONTROLS.sub(_shown, value), quote=True)


def page(rows, failures, unwritten, passed, problems=(), notes=()):
    """The page's HTML.

    rows: (function, passed, total, verdict, ok) per function, in the summary's order;
    failures: (function, test, its full text) per failed test;
    unwritten: (function, test) per test of a function not implemented yet;
    passed: (function, test) per passed test;
    problems: the lines of what stopped the checks before the first test;
    notes: lines said after the score (the run stopped early)."""
    total = len(failures) + len(unwritten) + len(passed)
    title = _("{title}: your public checks").format(title=TITLE)
    parts = ['<!DOCTYPE html>', '<html lang="%s">' % text(kit_language.language()),
             '<head>', '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<title>%s</title>' % text(title), '<style>', STYLESHEET + '</style>',
             '</head>', '<body class="kit-page">', '<h1>%s</h1>' % text(title)]
    if problems:
        parts += ['<p class="score"><strong>%s</strong></p>' % text(
            _("No test could run.")), '<section class="failure" id="stopped">',
            '<h3><span class="fail">%s</span></h3>' % text(_("What stopped the checks")),
            '<pre>%s</pre>' % text("\n".join(problems), TEXT_LIMIT), '</section>']
    else:
        parts.append('<p class="score"><strong>%s</strong></p>' % text(
            _("{passed} of {checks} public checks pass").format(passed=len(passed),
                                                                 checks=total)))
    parts += ['<p class="note">%s</p>' % text(note) for note in notes]
    if failures:
        parts.append('<h2>%s</h2>' % text(_("What went wrong")))
        for number, (function, test, said) in enumerate(failures, 1):
            parts += ['<section class="failure" id="failure-%d">' % number,
                      '<h3><span class="fail">%s</span> %s <code>%s</code></h3>' % (
                          text(_("FAIL")), text(function), text(test)),
                      '<pre>%s</pre>' % text(said, TEXT_LIMIT), '</section>']
    if rows:
        parts += _rows(rows)
    if unwritten:
        parts += ['<h2>%s</h2>' % text(_("Not implemented yet")), '<div class="scroll"><table>',
                  _header(), *[_row(function, test) for function, test in unwritten],
                  '</table></div>']
    if passed:
        parts += ['<details class="passed"%s>' % ("" if failures or unwritten else " open"),
                  '<summary>%s</summary>' % text(_("Checks that passed ({count})").format(
                      count=len(passed))), '<div class="scroll"><table>', _header(),
                  *[_row(function, test, True) for function, test in passed],
                  '</table></div>', '</details>']
    parts += ['</body>', '</html>', '']
    return "\n".join(parts)


def _rows(rows):
    lines = ['<h2>%s</h2>' % text(_("Each function")), '<div class="scroll"><table>', '<tr><th>%s</th><th class="num">%s</th><th>%s</th>'
             '</tr>' % (text(_("function")), text(_("passed")), text(_("verdict")))]
    for function, passed, total, verdict, ok in rows:
        lines.append('<tr><td><code>%s</code></td><td class="num">%d / %d</td>'
                     '<td class="%s">%s</td></tr>' % (text(function), passed, total,
                                                     "pass" if ok else "fail", text(verdict)))
    return lines + ['</table></div>']


def _header():
    return '<tr><th></th><th>%s</th><th>%s</th></tr>' % (text(_("function")),
                                                          text(_("check")))


def _row(function, test, ok=False):
    return '<tr><td class="%s">%s</td><td><code>%s</code></td><td><code>%s</code></td></tr>' % (
        "pass" if ok else "fail", text(_("pass") if ok else _("open")), text(function),
        text(test))


def write(folder, **found):
    """Write the page into `folder`; return its path."""
    path = os.path.join(folder, PAGE)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(page(**found))
    return path


def address(path):
    """The page's file:// address, which a browser opens (spaces and a Windows drive
    written the way it wants them)."""
    from pathlib import Path
    return Path(os.path.abspath(path)).as_uri()
