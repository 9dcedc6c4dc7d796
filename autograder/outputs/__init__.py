"""Everything a student controls, made fit for where it is written: one module per kind.

A student controls file contents, names, notebook JSON and every string their code
produces. The kit never writes any of it without passing it through the module for
that kind of output, so a fix is made once, for every place that kind is written:

    text.py         the base of all of them: any string made writable, controls visible
    terminal.py     what the kit prints: controls escaped, Rich markup inert
    markdown.py     feedback.md, Gradescope's Markdown: inline text escaped, blocks fenced
    html.py         every page the kit renders with jinja2, JSON in a <script>,
                    and notebooks (student markup sanitised before nbconvert renders it)
    spreadsheet.py  every CSV the kit writes: no cell a spreadsheet would evaluate
    jsondata.py     results.json, games.jsonl: plain data, every string writable
    plot.py         matplotlib text (tick labels, titles): no mathtext, no newline
    paths.py        student ids and the names the grader writes into its output folder
"""
