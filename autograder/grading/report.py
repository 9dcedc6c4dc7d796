"""Write what grading found: results.json, feedback.md/.html, grades.csv."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import jinja2

from . import fingerprint
from .runner import Graded

CSV_FIELDS = ["student", "score", "max_score", "status", "passed", "failed", "timeouts",
              "crashes", "refused", "seconds", "message"]
_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=jinja2.select_autoescape(["html", "html.j2"]), trim_blocks=True, lstrip_blocks=True,
    keep_trailing_newline=True)


def fenced(text: str) -> str:
    """`text` as a Markdown code block that nothing inside it can end: the fence is
    longer than the longest run of backticks in the text (student output, exception
    messages and feedback lines may contain fences of their own)."""
    text = str(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


_TEMPLATES.filters["fenced"] = fenced


def _number(x: float):
    return int(x) if float(x).is_integer() else round(x, 2)


def results_json(graded: Graded) -> dict:
    """Gradescope's results.json schema."""
    return {
        "score": _number(graded.score),
        "max_score": _number(graded.max_score),
        "execution_time": round(graded.seconds, 2),
        "output": graded.message or f"{_number(graded.score)}/{_number(graded.max_score)} points",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [{
            "name": test.title,
            "number": test.name,
            "score": _number(test.score),
            "max_score": _number(test.max_score),
            "status": "passed" if test.passed else "failed",
            "output": test.output,
            "visibility": "visible",
        } for test in graded.tests],
        "extra_data": {"status": graded.status, "events": [str(e) for e in graded.events],
                       "sandbox_layers": graded.layers},
    }


def _context(graded: Graded, title: str) -> dict:
    # One root cause (the module did not import) is said once, not per test.
    root = next((t.output for t in graded.tests if t.root_cause), None)
    return {"g": graded, "title": title, "root": root, "n": _number,
            "passed": sum(t.passed for t in graded.tests)}


def write_student(out_dir: Path, graded: Graded, title: str) -> None:
    folder = out_dir / graded.student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(results_json(graded), indent=2) + "\n",
                                         encoding="utf-8")
    context = _context(graded, title)
    (folder / "feedback.md").write_text(_TEMPLATES.get_template("feedback.md.j2")
                                        .render(context), encoding="utf-8")
    (folder / "feedback.html").write_text(_TEMPLATES.get_template("feedback.html.j2")
                                          .render(context), encoding="utf-8")
    fingerprint.write(folder, graded.fingerprint)


def csv_row(graded: Graded) -> dict:
    return {
        "student": graded.student, "score": _number(graded.score),
        "max_score": _number(graded.max_score), "status": graded.status,
        "passed": sum(t.passed for t in graded.tests),
        "failed": sum(not t.passed for t in graded.tests),
        "timeouts": graded.timeouts, "crashes": graded.crashes, "refused": graded.refused,
        "seconds": round(graded.seconds, 2), "message": graded.message,
    }


def write_grades(out_dir: Path, rows: list[dict]) -> Path:
    path = out_dir / "grades.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r["student"]):
            writer.writerow(row)
    return path
