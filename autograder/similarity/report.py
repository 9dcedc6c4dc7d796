"""Write what the comparison found: similarity.csv and similarity.html.

Every student string (ids are folder names, paths are the student's) is escaped for
where it goes: the page's template autoescapes everything (nothing is marked safe),
after the kit's `outputs.html.finalize` made it writable with its controls shown; the
CSV goes through the kit's `outputs.spreadsheet` (formulas neutralised, controls shown
as escapes) and the terminal line through `outputs.text.visible`.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import jinja2

from ..outputs import html, pages, spreadsheet
from ..outputs.text import visible as _visible
from .compare import Place, Shares
from .run import KIT, Match, Result, Submission, counts

CSV_FIELDS = ["a", "b", "b_kind", "score", "evidence", "text", "structure", "behaviour",
              "lines", "structure_lines"]
#: Pairs shown side by side on the page (all of them are in the table and the CSV).
SHOWN = 60
#: Pairs whose side-by-side view is open when the page loads.
OPEN = 5

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    finalize=html.finalize)     # the kit's pages: writable, controls shown, then escaped
_TEMPLATES.globals["page_style"] = pages.style()     # the look every page shares
#: One line of student text (an id, a path, a reason) with every control character
#: shown as an escape, line breaks too.
visible = functools.partial(_visible, lines=False)


def regions(submission: Submission, kind: str, slices: list[tuple[int, int]]) -> list[Place]:
    """The token ranges matched in one kind of stream, as places in the files
    (file, line, column, end line, end column), in order."""
    stream = getattr(submission, kind)
    return sorted(place for first, stop in slices for place in stream.span(first, stop))


def line_ranges(submission: Submission, found: list[Place]) -> str:
    """'12-30,45-50' (with the file name first when the assignment has several)."""
    parts = []
    for index, (name, _) in enumerate(submission.files):
        spans = []
        for _, first, _, last, end_col in (place for place in found if place[0] == index):
            if end_col == 0 and last > first:
                last -= 1               # ends at the start of the next line
            if spans and first <= spans[-1][1] + 1:
                spans[-1][1] = max(spans[-1][1], last)
            else:
                spans.append([first, last])
        text = ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)
        if text:
            parts.append(f"{name}:{text}" if len(submission.files) > 1 else text)
    return " ".join(parts)


def _both(result: Result, m: Match, kind: str) -> str:
    shares: Shares = getattr(m, kind)
    a, b = result.submissions[m.a], result.submissions[m.b]
    left = line_ranges(a, regions(a, kind, shares.a_slices))
    right = line_ranges(b, regions(b, kind, shares.b_slices))
    return f"a:{left} b:{right}" if left or right else ""


def csv_rows(result: Result) -> list[dict]:
    rows = []
    for m in result.matches:
        a, b = result.submissions[m.a], result.submissions[m.b]
        rows.append({
            "a": a.name, "b": b.name,
            "b_kind": "kit file" if b.kind == KIT else "student",
            "score": f"{m.score:.3f}", "evidence": m.strongest,
            "text": f"{m.text.score:.3f}", "structure": f"{m.structure.score:.3f}",
            "behaviour": "" if m.behaviour is None else f"{m.behaviour:.3f}",
            "lines": _both(result, m, "text"),
            "structure_lines": _both(result, m, "structure")})
    return rows


def write_csv(out_dir: Path, result: Result) -> Path:
    return spreadsheet.write(out_dir / "similarity.csv", CSV_FIELDS, csv_rows(result))


def highlighted_lines(source: str, found: list[Place]) -> list[list[tuple[str, bool]]]:
    """`source` line by line, each line as (text, shared?) pieces."""
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    marks = [[False] * len(line) for line in lines]
    for _, line, col, end_line, end_col in found:
        for row in range(max(line, 1), min(end_line, len(lines)) + 1):
            mark = marks[row - 1]
            first = max(col if row == line else 0, 0)
            last = min(end_col if row == end_line else len(mark), len(mark))
            if last > first:
                mark[first:last] = [True] * (last - first)
    return [[("".join(char for char, _ in run), shared)
             for shared, run in itertools.groupby(zip(line, mark), key=lambda pair: pair[1])]
            for line, mark in zip(lines, marks)]


def _structure_lines(found: list[Place], count: int) -> list[bool]:
    marked = [False] * count
    for _, line, _, end_line, _ in found:
        for row in range(max(line, 1), min(end_line, count) + 1):
            marked[row - 1] = True
    return marked


def _side(submission: Submission, m: Match, side: str) -> dict:
    text = regions(submission, "text", getattr(m.text, f"{side}_slices"))
    shape = regions(submission, "structure", getattr(m.structure, f"{side}_slices"))
    files = []
    for index, (name, source) in enumerate(submission.files):
        lines = highlighted_lines(source, [p for p in text if p[0] == index])
        files.append({"name": name, "lines": lines,
                      "structure": _structure_lines([p for p in shape if p[0] == index],
                                                    len(lines))})
    return {"label": visible(submission.label), "files": files,
            "text": getattr(m.text, f"{side}_share"),
            "structure": getattr(m.structure, f"{side}_share")}


def pair_view(result: Result, rank: int, m: Match) -> dict:
    return {"rank": rank, "score": m.score, "evidence": m.evidence, "strongest": m.strongest,
            "behaviour": m.behaviour, "alike": m.alike,
            "left": _side(result.submissions[m.a], m, "a"),
            "right": _side(result.submissions[m.b], m, "b")}


def _group_view(result: Result, group: list[int]) -> dict:
    scores = {(m.a, m.b): m.score for m in result.matches}
    inside = [scores[(a, b)] for i, a in enumerate(group) for b in group[i + 1:]]
    return {"students": [visible(result.submissions[i].label) for i in group],
            "lowest": min(inside), "highest": max(inside)}


def render_html(result: Result) -> str:
    ranked = [{"rank": rank, "a": visible(result.submissions[m.a].label),
               "b": visible(result.submissions[m.b].label), "score": m.score,
               "text": m.text.score, "structure": m.structure.score,
               "behaviour": m.behaviour, "strongest": m.strongest}
              for rank, m in enumerate(result.matches, 1)]
    shown = [pair_view(result, rank, m) for rank, m in enumerate(result.matches[:SHOWN], 1)]
    return _TEMPLATES.get_template("similarity.html.j2").render(
        r=result, counts=counts(result), ranked=ranked, shown=shown, open_count=OPEN,
        skipped=[(visible(n), visible(why)) for n, why in result.skipped],
        problems=[(visible(n), visible(what)) for n, what in result.problems],
        groups=[_group_view(result, g) for g in result.groups],
        pct=lambda x: "" if x is None else f"{100 * x:.0f}%")


def write_html(out_dir: Path, result: Result) -> Path:
    path = out_dir / "similarity.html"
    path.write_text(render_html(result), encoding="utf-8")
    return path


def summary(result: Result) -> str:
    """The line the command prints, readable without the report: how many were compared,
    what was found, who was not compared and why (student names made visible-safe)."""
    pairs = len(result.matches)
    line = f"{counts(result)} ({result.assignment}); "      # the page's first words too
    if not pairs:
        line += f"no two of them share {result.floor:.0%} or more of their own code"
    else:
        m = result.matches[0]
        line += (f"{pairs} pair{'s' if pairs != 1 else ''} share {result.floor:.0%} or more "
                 f"of their own code, most of all {visible(result.submissions[m.a].label)} "
                 f"and {visible(result.submissions[m.b].label)} ({m.score:.0%}, {m.strongest})")
    if result.groups:
        count = len(result.groups)
        line += f"; {count} group{'s' if count > 1 else ''} of three or more"
    if result.problems:
        line += f"; {len(result.problems)} files read with problems (see the report)"
    if result.skipped:
        line += "; not compared: " + _not_compared(result.skipped)
    return line


def _not_compared(skipped) -> str:
    """Who was not compared, grouped by why: at most three names a reason."""
    reasons: dict[str, list[str]] = {}
    for student, why in skipped:
        reasons.setdefault(STARTING_CODE if why.startswith("no code of its own") else why,
                           []).append(visible(student))
    said = []
    for why, names in reasons.items():
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        said.append(f"{shown} ({visible(why)})")
    return "; ".join(said)


#: run.py's reason for a file that is all starting code, said shortly in the one line.
STARTING_CODE = "nothing but the starting code"
