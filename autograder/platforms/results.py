"""results.json in each platform's documented format (docs/PLATFORMS.md cites them).

Every piece of text the student controls is kept from changing the page around
it: Gradescope renders output as Markdown, so it sits in a code fence longer than
any backtick run in it (`outputs.markdown.fenced`); PrairieLearn shows it as
preformatted text, so each line is behind a bar (`quoted`) and the one-line
message quotes it. Every string is made writable JSON (`outputs.jsondata`).
"""

from __future__ import annotations

import math

from ..grading.report import number
from ..grading.runner import Graded
from ..outputs.jsondata import plain_data
from ..outputs.markdown import fenced
from ..outputs.text import visible

#: What a student sees of the printed output (as in feedback.md).
PRINTED_SHOWN = 2000
#: Per-test output cap: PrairieLearn refuses results above 1 MB in all.
OUTPUT_CAP = 20_000


def _capped(text: str, cap: int = OUTPUT_CAP) -> str:
    return text if len(text) <= cap else text[:cap] + f"\n... ({len(text) - cap} more characters)"


def score_line(graded: Graded) -> str:
    return (f"Score: {number(graded.score)} / {number(graded.max_score)} "
            f"({sum(t.passed for t in graded.tests)} of {len(graded.tests)} checks passed)")


def _sections(graded: Graded, notes: list[str], fence) -> list[tuple[str, str]]:
    """(heading, text) pairs describing the whole submission, the sandbox last;
    `fence` wraps text the student controls."""
    sections = []
    if graded.message:
        sections.append(("", fence(graded.message)))
    root = next((t.output for t in graded.tests if t.root_cause), None)
    if root and root != graded.message:
        sections.append(("Why nothing could be checked", fence(root)))
    said = {graded.message, root}
    events = [str(e) for e in graded.events if str(e) not in said]
    if events:
        more = graded.unlisted_refusals
        tail = f"\n\n... and {more} more refusals, not listed." if more > 0 else ""
        sections.append(("What the sandbox saw", fence(_capped("\n".join(events))) + tail))
    if notes:
        sections.append(("Your upload", fence("\n".join(notes))))
    if graded.printed:
        sections.append(("What your code printed (first part)",
                         fence(graded.printed[:PRINTED_SHOWN])))
    sections.append(("", f"Sandbox: {', '.join(graded.layers) or 'none'}."))
    return sections


# ------------------------------------------------------------ Gradescope
def gradescope(graded: Graded, notes: list[str], title: str,
               visibility: dict[str, str] | None = None) -> dict:
    """Gradescope's results.json: top-level score, output (Markdown), tests; each test
    `visibility[its name]`, else `visibility["*"]`, else visible (export --visibility)."""
    visibility = visibility or {}
    parts = [f"## {title}", f"**{score_line(graded)}**"]
    for heading, text in _sections(graded, notes, fenced):
        parts.append(f"### {heading}\n\n{text}" if heading else text)
    tests = []
    for test in graded.tests:
        entry = {"name": test.title, "score": number(test.score),
                 "max_score": number(test.max_score),
                 "status": "passed" if test.passed else "failed",
                 "visibility": visibility.get(test.name, visibility.get("*", "visible"))}
        if test.output:
            entry["output"] = fenced(_capped(test.output))
            entry["output_format"] = "md"
        tests.append(entry)
    return plain_data({
        "score": number(graded.score),
        "execution_time": math.ceil(graded.seconds),
        "output": "\n\n".join(parts),
        "output_format": "md",
        "test_output_format": "md",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {"status": graded.status, "max_score": number(graded.max_score),
                       "sandbox_layers": list(graded.layers), "refused": graded.refused},
        "tests": tests,
    })


# ------------------------------------------------------------ PrairieLearn
def quoted(text: str) -> str:
    """Student text in PrairieLearn's preformatted output: every line behind a bar."""
    return "\n".join(f"  | {line}" for line in visible(text).splitlines() or [""])


def prairielearn(graded: Graded, notes: list[str], title: str) -> dict:
    """PrairieLearn's results.json: gradable, score in [0, 1], message, output, tests."""
    share = graded.score / graded.max_score if graded.max_score else 0.0
    output = [f"{title}: {score_line(graded)}"]
    for heading, text in _sections(graded, notes, quoted):
        output.append(f"{heading}:\n{text}" if heading else text)
    about = f' About your submission: "{visible(graded.message, lines=False)}"' \
        if graded.message else ""
    return plain_data({
        "gradable": True,
        "score": min(1.0, max(0.0, share)),
        "message": score_line(graded) + "." + about,
        "output": "\n\n".join(output),
        "tests": [{"name": t.title, "points": number(t.score),
                   "max_points": number(t.max_score),
                   "message": "passed" if t.passed else "failed",
                   "output": _capped(t.output)} for t in graded.tests],
    })


def prairielearn_not_graded(message: str) -> dict:
    """No grade: the submission is marked "invalid, not gradable", no points are
    awarded or lost and the attempt is not counted (PrairieLearn's `gradable`)."""
    return plain_data({"gradable": False, "format_errors": [message], "message": message})
