"""mutation.md (for the teacher to read) and mutation.csv (one row per mutant,
written like every CSV of the kit: outputs/spreadsheet.py)."""

from __future__ import annotations

import re
from pathlib import Path

from ..outputs import spreadsheet
from ..outputs.markdown import inline
from ..outputs.text import visible
from .allowlist import FILE_NAME, toml_entry
from .run import Analysis, Verdict

COLUMNS = ["mutant", "module", "line", "function", "operator", "occurrence", "status",
           "original", "mutated", "killed_by", "score", "max_score", "seconds", "reason"]


def score_line(analysis: Analysis) -> str:
    killed, survived = len(analysis.of("killed")), len(analysis.of("survived"))
    if analysis.score is None:
        return "mutation score: none (no mutant was judged)"
    return (f"mutation score {analysis.score:.1%}: {killed} of {killed + survived} "
            f"non-equivalent mutants killed")


def write(analysis: Analysis, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    spreadsheet.write(out_dir / "mutation.csv", COLUMNS, map(_row, analysis.verdicts))
    (out_dir / "mutation.md").write_text(markdown(analysis), encoding="utf-8")


def _row(verdict: Verdict) -> dict:
    m = verdict.mutant
    return {"mutant": m.ident, "module": m.module, "line": m.line, "function": m.function,
            "operator": m.operator, "occurrence": m.occurrence, "status": verdict.status,
            "original": m.original, "mutated": m.mutated, "killed_by": verdict.killed_by,
            "score": f"{verdict.score:g}", "max_score": f"{verdict.max_score:g}",
            "seconds": f"{verdict.seconds:.2f}", "reason": verdict.reason}


def _code(text: str) -> str:
    """Inline code in a table cell: controls and newlines shown as escapes, no pipe may
    end the cell, and the span's fence is longer than any run of backticks inside."""
    text = visible(text, lines=False).replace("|", "\\|")
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(map(len, re.findall("`+", text))) + 1)
    return f"{fence} {text} {fence}"


_cell = inline      # a test's name or a reason, never read as Markdown or HTML


def markdown(analysis: Analysis) -> str:
    t = analysis.target
    survivors, killed = analysis.of("survived"), analysis.of("killed")
    equivalent, errors = analysis.of("equivalent"), analysis.of("error")
    modules = ", ".join(f"`{m}`" for m in t.modules)
    lines = [f"# Mutation analysis: {t.title} (`{t.name}`)", "",
             f"**{score_line(analysis)}.**", "",
             f"- Sample: the first {analysis.count} gradable mutants of seed {analysis.seed}'s "
             f"permutation of all {analysis.population} single-change mutants inside the "
             f"solution regions of {modules}"
             f" ({analysis.not_compiling} passed over because they do not compile).",
             f"- Reviewed equivalent mutants met on the way (not graded, not counted): "
             f"{len(equivalent)}; allowlist `{_relative(t.suite_dir / FILE_NAME)}`.",
             f"- Graded with the hidden suite in the sandbox, {analysis.jobs} at a time, in "
             f"{analysis.seconds:.0f} s; " + ("each mutant's run stopped at its first lost "
                                            "point." if analysis.stop_early else
                                            "every check of every mutant was run."),
             "- A mutant is killed when it loses any point. A survivor is a change to the "
             "reference that the hidden suite does not notice: either a gap in the suite "
             "(add a check that tells it apart) or an equivalent mutant (no correct check "
             "can; allowlist it with the reason).", ""]
    if errors:
        lines += ["## Grader errors (not counted: please report them)", "",
                  "| mutant | line | operator | error |", "|---|---|---|---|"]
        lines += [f"| {v.mutant.ident} | {v.mutant.line} | {v.mutant.operator} | "
                  f"{_cell(v.killed_by)} |" for v in errors]
        lines.append("")
    lines += [f"## Survivors ({len(survivors)})", ""]
    if survivors:
        lines += ["| mutant | line | function | operator | original | mutated |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {v.mutant.ident} | {v.mutant.line} | `{v.mutant.function}` | "
                  f"{v.mutant.operator} | {_code(v.mutant.original)} | "
                  f"{_code(v.mutant.mutated)} |" for v in survivors]
        lines += ["", "If, after review, a survivor behaves like the reference on every input "
                      "the assignment allows, paste its entry into the allowlist and replace "
                      "the TODO with the reason:", "", "```toml"]
        lines += ["\n\n".join(toml_entry(v.mutant) for v in survivors), "```", ""]
    else:
        lines += ["None: the hidden suite noticed every non-equivalent mutant of the sample.",
                  ""]
    if equivalent:
        lines += [f"## Equivalent mutants in the sample ({len(equivalent)})", "",
                  "| line | operator | original | mutated | why it is equivalent |",
                  "|---|---|---|---|---|"]
        lines += [f"| {v.mutant.line} | {v.mutant.operator} | {_code(v.mutant.original)} | "
                  f"{_code(v.mutant.mutated)} | {_cell(v.reason)} |" for v in equivalent]
        lines.append("")
    if analysis.stale:
        lines += [f"## Stale allowlist entries ({len(analysis.stale)})", "",
                  "These entries match no mutant of the current reference (its line changed "
                  "or went): remove or update them.", ""]
        lines += [f"- `{e.module}`: {_code(e.line)} with {e.operator} (occurrence "
                  f"{e.occurrence})" for e in analysis.stale]
        lines.append("")
    lines += [f"## Killed ({len(killed)})", "",
              "| line | operator | original | mutated | first check it failed | seconds |",
              "|---|---|---|---|---|---|"]
    lines += [f"| {v.mutant.line} | {v.mutant.operator} | {_code(v.mutant.original)} | "
              f"{_code(v.mutant.mutated)} | {_cell(v.killed_by)} | {v.seconds:.1f} |"
              for v in killed]
    return "\n".join(lines) + "\n"


def _relative(path: Path) -> str:
    from .. import ROOT
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
