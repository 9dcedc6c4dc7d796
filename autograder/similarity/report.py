"""Write what the comparison found: similarity.csv and similarity.html."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .run import KIT, Result
from .compare import Match, Submission

CSV_FIELDS = ["a", "b", "score", "a_share", "b_share", "lines"]
#: Pairs shown side by side on the page (all of them are in the table and the CSV).
SHOWN = 60
#: Pairs whose side-by-side view is open when the page loads.
OPEN = 5

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


@dataclass
class Region:
    """A shared stretch of one file: from (line, column) to (line, column)."""
    file: int
    start: tuple[int, int]
    end: tuple[int, int]


def regions(submission: Submission, slices: list[tuple[int, int]]) -> list[Region]:
    """The token ranges copydetect matched, as places in the student's files."""
    found = []
    for first, stop in slices:
        start = submission.locate(first)
        end = submission.locate_end(stop - 1)
        if start[0] == end[0]:
            found.append(Region(start[0], start[1:], end[1:]))
            continue
        # A range across two modules is split at the module boundary.
        found.append(Region(start[0], start[1:], (10 ** 9, 0)))
        for middle in range(start[0] + 1, end[0]):
            found.append(Region(middle, (1, 0), (10 ** 9, 0)))
        found.append(Region(end[0], (1, 0), end[1:]))
    return sorted(found, key=lambda r: (r.file, r.start))


def line_ranges(submission: Submission, found: list[Region]) -> str:
    """'12-30,45-50' (with the file name first when the assignment has several)."""
    parts = []
    for index, (name, _) in enumerate(submission.files):
        spans = []
        for region in (r for r in found if r.file == index):
            first, last = region.start[0], region.end[0]
            if region.end[1] == 0 and last > first:
                last -= 1               # ends at the start of the next line
            if spans and first <= spans[-1][1] + 1:
                spans[-1][1] = max(spans[-1][1], last)
            else:
                spans.append([first, last])
        text = ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in spans)
        if text:
            parts.append(f"{name}:{text}" if len(submission.files) > 1 else text)
    return " ".join(parts)


def csv_rows(result: Result) -> list[dict]:
    rows = []
    for m in result.matches:
        a, b = result.submissions[m.a], result.submissions[m.b]
        lines = (f"a:{line_ranges(a, regions(a, m.a_slices))} "
                 f"b:{line_ranges(b, regions(b, m.b_slices))}")
        rows.append({"a": a.student, "b": b.student, "score": f"{m.score:.3f}",
                     "a_share": f"{m.a_share:.3f}", "b_share": f"{m.b_share:.3f}",
                     "lines": lines})
    return rows


def write_csv(out_dir: Path, result: Result) -> Path:
    path = out_dir / "similarity.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(csv_rows(result))
    return path


def highlighted_lines(source: str, found: list[Region]) -> list[list[tuple[str, bool]]]:
    """`source` line by line, each line as (text, shared?) pieces."""
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    spans: list[list[tuple[int, int]]] = [[] for _ in lines]
    for region in found:
        for row in range(region.start[0], min(region.end[0], len(lines)) + 1):
            first = region.start[1] if row == region.start[0] else 0
            last = region.end[1] if row == region.end[0] else len(lines[row - 1])
            if last > first:
                spans[row - 1].append((first, last))
    pieces = []
    for line, marked in zip(lines, spans):
        parts: list[tuple[str, bool]] = []
        at = 0
        for first, last in sorted(marked):
            first = max(first, at)
            if last <= first:
                continue
            if first > at:
                parts.append((line[at:first], False))
            if parts and parts[-1][1] and first == at:
                parts[-1] = (parts[-1][0] + line[first:last], True)
            else:
                parts.append((line[first:last], True))
            at = last
        if at < len(line):
            parts.append((line[at:], False))
        pieces.append(parts)
    return pieces


def _side(submission: Submission, slices: list[tuple[int, int]], share: float) -> dict:
    found = regions(submission, slices)
    return {"student": submission.student, "share": share,
            "files": [{"name": name,
                       "lines": highlighted_lines(tokens.source,
                                                  [r for r in found if r.file == index])}
                      for index, (name, tokens) in enumerate(submission.files)]}


def pair_view(result: Result, rank: int, m: Match) -> dict:
    return {"rank": rank, "score": m.score,
            "left": _side(result.submissions[m.a], m.a_slices, m.a_share),
            "right": _side(result.submissions[m.b], m.b_slices, m.b_share)}


def _group_view(result: Result, group: list[int]) -> dict:
    scores = {(m.a, m.b): m.score for m in result.matches}
    inside = [scores[(a, b)] for i, a in enumerate(group) for b in group[i + 1:]]
    return {"students": [result.submissions[i].student for i in group],
            "lowest": min(inside), "highest": max(inside)}


def render_html(result: Result) -> str:
    ranked = [{"rank": rank, "a": result.submissions[m.a].student,
               "b": result.submissions[m.b].student, "score": m.score,
               "a_share": m.a_share, "b_share": m.b_share}
              for rank, m in enumerate(result.matches, 1)]
    shown = [pair_view(result, rank, m) for rank, m in enumerate(result.matches[:SHOWN], 1)]
    return _TEMPLATES.get_template("similarity.html.j2").render(
        r=result, ranked=ranked, shown=shown, open_count=OPEN,
        groups=[_group_view(result, g) for g in result.groups],
        pct=lambda x: f"{100 * x:.0f}%")


def write_html(out_dir: Path, result: Result) -> Path:
    path = out_dir / "similarity.html"
    path.write_text(render_html(result), encoding="utf-8")
    return path


def summary(result: Result) -> str:
    line = (f"{sum(not s.student.startswith(KIT) for s in result.submissions)} submissions of {result.assignment} compared; "
            f"{len(result.matches)} pairs at or above {result.floor:.0%}")
    if result.matches:
        m = result.matches[0]
        line += (f"; most similar: {result.submissions[m.a].student} and "
                 f"{result.submissions[m.b].student} ({m.score:.0%})")
    if result.groups:
        count = len(result.groups)
        line += f"; {count} group{'s' if count > 1 else ''} of three or more"
    if result.skipped:
        line += f"; {len(result.skipped)} not compared (see the report)"
    return line
