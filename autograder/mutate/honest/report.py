"""honest.md (for the teacher), honest.csv (one row per lost check, or per rewrite that
lost none; outputs/spreadsheet.py) and rewritten/<rewrite>/<module> with a diff
against the unparsed reference, for every rewrite graded or found to be a rewrite bug.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from ...outputs import spreadsheet
from ..report import _cell, _code
from .rewrites import apply
from .run import Honest, Outcome, references

COLUMNS = ["rewrite", "status", "sites", "score", "max_score", "seconds", "check",
           "points_lost", "feedback", "reason", "description"]
FOLDER = "rewritten"


def summary(honest: Honest) -> str:
    graded, lost = honest.graded, honest.of("lost points")
    bugs = honest.of("rewrite bug")
    text = (f"{len(graded) - len(lost)} of {len(graded)} graded rewrites kept full marks"
            if graded else "no rewrite was graded")
    if bugs:
        text += f"; {len(bugs)} rewrite bug{'s' if len(bugs) > 1 else ''} (not graded)"
    return text


def write(honest: Honest, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    spreadsheet.write(out_dir / "honest.csv", COLUMNS,
                      [row for outcome in honest.outcomes for row in _rows(outcome)])
    folder = out_dir / FOLDER
    if folder.is_dir():
        shutil.rmtree(folder)
    baseline = {module: apply(reference, "unparsed").source
                for module, reference in references(honest.target).items()}
    for outcome in honest.outcomes:
        if not outcome.sources or outcome.status in ("not applicable", "skipped"):
            continue
        for module, source in outcome.sources.items():
            where = folder / outcome.rewrite.name
            where.mkdir(parents=True, exist_ok=True)
            (where / module).write_text(source, encoding="utf-8")
            diff = difflib.unified_diff(baseline[module].splitlines(keepends=True),
                                        source.splitlines(keepends=True),
                                        f"unparsed/{module}", f"{outcome.rewrite.name}/{module}")
            (where / f"{Path(module).stem}.diff").write_text("".join(diff), encoding="utf-8")
    (out_dir / "honest.md").write_text(markdown(honest), encoding="utf-8")


def _rows(outcome: Outcome) -> list[dict]:
    base = {"rewrite": outcome.rewrite.name, "status": outcome.status, "sites": outcome.sites,
            "score": f"{outcome.score:g}", "max_score": f"{outcome.max_score:g}",
            "seconds": f"{outcome.seconds:.2f}", "check": "", "points_lost": "",
            "feedback": "", "reason": outcome.reason,
            "description": outcome.rewrite.description}
    if not outcome.losses:
        return [base]
    return [{**base, "check": loss.check, "points_lost": f"{loss.points:g}",
             "feedback": loss.feedback} for loss in outcome.losses]


def markdown(honest: Honest) -> str:
    t = honest.target
    lines = [f"# Honest rewrites: {t.title} (`{t.name}`)", "",
             f"**{summary(honest)}.**", "",
             "Each rewrite changes the reference only in ways the specification allows "
             "(docs/MUTATION.md, \"Honest rewrites\"), was first run next to the reference "
             "on the probe's calls, and was then graded by the hidden suite in the sandbox "
             f"with every check run ({honest.jobs} at a time; {honest.seconds:.0f} s in all, "
             f"{honest.grading_seconds:.0f} s grading). A rewrite that loses a point is a "
             "check that judges the reference's habits instead of the specification (or a "
             "rewrite that is not honest for this assignment: then name it in the "
             "`[honest] not_honest` table of its assignment.toml with the reason).", "",
             "| rewrite | status | sites | score | seconds | what it does |",
             "|---|---|---|---|---|---|"]
    for o in honest.outcomes:
        score = f"{o.score:g}/{o.max_score:g}" if o.status in ("full marks", "lost points") \
            else ""
        seconds = f"{o.seconds:.1f}" if score else ""
        lines.append(f"| `{o.rewrite.name}` | {o.status} | {o.sites} | {score} | {seconds} | "
                     f"{_cell(o.rewrite.description)} |")
    lines.append("")
    lost = honest.of("lost points")
    lines += [f"## Points lost ({len(lost)} rewrite{'s' if len(lost) != 1 else ''})", ""]
    if lost:
        lines += ["| rewrite | check | points | first line of its feedback |",
                  "|---|---|---|---|"]
        lines += [f"| `{o.rewrite.name}` | {_code(loss.check)} | {loss.points:g} | "
                  f"{_cell(loss.feedback)} |" for o in lost for loss in o.losses]
        lines += ["", f"The rewritten modules and their diffs against the unparsed reference "
                      f"are in `{FOLDER}/<rewrite>/`.", ""]
    else:
        lines += ["None: every graded rewrite kept every point.", ""]
    for status, heading, words in (
            ("rewrite bug", "Rewrite bugs (not graded)",
             "These rewrites did not behave like the reference on the probe, so grading them "
             "would blame the suite for the rewrite's mistake. Please report them."),
            ("grader error", "Grader errors (please report them)", ""),
            ("skipped", "Not honest for this assignment (not graded)", ""),
            ("not applicable", "Nothing to rewrite", "")):
        chosen = honest.of(status)
        if not chosen:
            continue
        lines += [f"## {heading}", ""] + ([words, ""] if words else [])
        lines += [f"- `{o.rewrite.name}`: {_cell(o.reason)}" for o in chosen]
        lines.append("")
    noted = [o for o in honest.outcomes if o.notes and o.status not in ("not applicable",)]
    if noted:
        lines += ["## Notes", "",
                  "What each rewrite left alone, and why (where it could not show that a "
                  "change keeps the meaning), or did in place of the usual:", ""]
        lines += [f"- `{o.rewrite.name}`: {_cell(note)}" for o in noted for note in o.notes]
        lines.append("")
    return "\n".join(lines)
