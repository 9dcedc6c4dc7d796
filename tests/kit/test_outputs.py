"""autograder/outputs/: each output kind, fed what a student can put into it, next to plain text.

Fast tests of the modules themselves and of the reports written through them;
tests/kit/test_intake.py grades the same attacks for real.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from rich.console import Console
from rich.errors import MarkupError

from autograder.grading import report
from autograder.grading.batch import summary_table
from autograder.grading.runner import Graded
from autograder.grading.runner import TestResult as Result
from autograder.outputs import html, jsondata, markdown, paths, plot, spreadsheet, terminal
from autograder.outputs.text import visible, writable

HOSTILE = ["\x1b[2J\x1b]0;pwned\x07", "[/nope]", "a[", "b]", "[bold green]25/25[/]",
           "line\n**Score: 25 of 25**", "<img src=x onerror=alert(1)>", "caf\udce9",
           "=HYPERLINK(\"http://x\",\"y\")", "$\\frac{1}{$", "\u202eevil", "a\rb"]


def graded(student: str = "ada", message: str = "", output: str = "") -> Graded:
    tests = [Result("test_a", "a works", 3.0, 3.0, True),
             Result("test_b", "b works", 2.0, 0.0, False, output=output)]
    return Graded(student, "graded", 3.0, 5.0, tests, message, printed=output)


def test_writable_escapes_lone_surrogates_and_leaves_text_alone():
    assert writable("caf\udce9") == "caf\\udce9"
    assert writable("Mühle ½") == "Mühle ½"
    for text in HOSTILE:
        writable(text).encode("utf-8")          # never raises
        assert "\x1b" not in visible(text) and "\r" not in visible(text)
    assert visible("two\nlines") == "two\nlines" and visible("two\nlines", lines=False) == \
        "two\\x0alines"


def test_terminal_text_is_never_markup_and_never_an_escape():
    console = Console(file=io.StringIO(), force_terminal=True, width=200)
    for text in HOSTILE:
        console.print(terminal.text(text))
        console.print(f"[bold]{terminal.markup(text)}[/]")
    shown = console.file.getvalue()
    assert "\x1b]0;pwned" not in shown and "\x1b[2J" not in shown and "\x07" not in shown
    assert "\r" not in shown and "\u202e" not in shown
    plain = Console(file=io.StringIO(), width=200)
    for text in HOSTILE:
        plain.print(f"name: {terminal.markup(text)}")
    out = plain.file.getvalue()
    assert "[/nope]" in out and "[bold green]25/25[/]" in out
    with pytest.raises(MarkupError):           # the twin: raw text, as the kit printed it
        Console(file=io.StringIO()).print("name: [/nope]")


def test_summary_table_takes_any_name_and_message():
    rows = [{"student": text, "score": 0, "max_score": 25, "status": "import-error",
             "timeouts": 0, "crashes": 1, "refused": 0, "message": text} for text in HOSTILE]
    rows.append({"student": "ada", "score": 25, "max_score": 25, "status": "graded",
                 "timeouts": 0, "crashes": 0, "refused": 0, "message": ""})
    console = Console(file=io.StringIO(), force_terminal=True, width=160)
    console.print(summary_table(rows, 1.0))
    out = console.file.getvalue()
    assert "\x1b]0;pwned" not in out and "\x07" not in out
    body = [line for line in out.splitlines() if "│" in line]
    assert len([line for line in body if "25/25" in line and "graded" in line]) == 1
    assert "1 submission in" in summary_table(rows[-1:], 1.0).title


def test_markdown_inline_text_renders_as_itself():
    from markdown_it import MarkdownIt
    renderer = MarkdownIt("commonmark").enable("table")
    for text in HOSTILE:
        rendered = renderer.render(f"# feedback for {markdown.inline(text)}\n")
        assert rendered.count("<h1>") == 1 and "<img" not in rendered and "<strong>" \
            not in rendered, (text, rendered)
    assert markdown.inline("plain name") == "plain name"        # the honest twin


def test_feedback_markdown_has_one_score_line_whatever_the_name():
    from markdown_it import MarkdownIt
    for name in ("ada", "line\n**Score: 25 of 25**", "<img src=x onerror=alert(1)>"):
        text = report.feedback_markdown(graded(name, message="``` ## Score: 5 / 5"), "Title")
        rendered = MarkdownIt("commonmark").enable("table").render(text)
        assert rendered.count("<strong>") == 1 and "Score: 3 / 5" in rendered, name
        assert rendered.count("<h1>") == 1 and "<img" not in rendered


def test_fenced_blocks_cannot_be_ended_from_inside():
    block = markdown.fenced("````\n# heading\n````")
    assert block.startswith("`````text\n") and block.endswith("\n`````")


def test_csv_cells_a_spreadsheet_would_evaluate_are_text(tmp_path):
    rows = [{"student": text, "score": 0, "message": text} for text in HOSTILE] + \
        [{"student": name, "score": 1, "message": "-1.5"} for name in ("-2", "+", "@", "ada")]
    path = spreadsheet.write(tmp_path / "t.csv", ["student", "score", "message"], rows)
    with path.open(encoding="utf-8", newline="") as handle:
        read = list(csv.DictReader(handle))
    for got in read:
        for cell in got.values():
            assert not cell.lstrip(" ").startswith(("=", "+", "@", "\t", "\r")), cell
    assert read[8]["student"] == "'=HYPERLINK(\"http://x\",\"y\")"
    assert [r["student"] for r in read[-4:]] == ["-2", "'+", "'@", "ada"]
    assert read[-1]["message"] == "-1.5" and read[-1]["score"] == "1"


def test_grades_csv_and_results_json_take_any_text(tmp_path):
    rows = [report.csv_row(graded(text, message=text)) for text in HOSTILE]
    report.write_grades(tmp_path, rows)
    with (tmp_path / "grades.csv").open(encoding="utf-8", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == len(HOSTILE)
    for text in HOSTILE:
        data = json.loads(jsondata.dumps(report.results_json(graded("x", text, text))))
        assert data["output"] == writable(text)


def test_json_for_a_script_block_cannot_end_it():
    text = html.script_json({"name": "</script><script>alert(1)</script>\u2028",
                             "caf\udce9": 1})
    assert "</script" not in text and "<" not in text and "\u2028" not in text
    assert json.loads(text)["name"].startswith("</script>")


def test_student_markdown_keeps_the_text_and_drops_the_markup():
    out = html.student_markdown("**bold** <img src=x onerror=alert(1)> [a](javascript:x) "
                                "[b](https://example.org) ![c](https://tracker.example/p.png)")
    assert "<strong>bold</strong>" in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert "javascript:" not in out.split("[a](")[0] and 'href="javascript' not in out
    assert '<a href="https://example.org">b</a>' in out and "<img" not in out
    assert "\n" not in out and html.student_markdown(out) == html.clean(out)
    forged = '<div class="spielbaum-student-text"><img src=x onerror=alert(1)></div>'
    assert "<img" not in html.student_markdown(forged)


def test_plot_labels_are_never_mathtext():
    """A player named $\\frac{1}{$ stopped tournament.html after every game was played."""
    from autograder.tournament.ratings import Row
    from autograder.tournament.report import heat_map, ratings_plot
    for text in HOSTILE:
        label = plot.label(text)
        assert "\n" not in label and "$" not in label.replace("\\$", "")
    rows = [Row(name=text, bundled=False) for text in HOSTILE] + [Row("ada", False)]
    game = {"players": [HOSTILE[9], "ada"], "score": 1.0}
    assert ratings_plot(rows).startswith(b"\x89PNG")
    assert heat_map(rows, [game]).startswith(b"\x89PNG")


SCRIPT_CHECK = """() => ({
  title: document.title,
  handlers: [...document.querySelectorAll('*')].flatMap(
      e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => e.tagName)),
  images: document.querySelectorAll('img').length,
  scripts: document.querySelectorAll('script').length,
  strong: [...document.querySelectorAll('strong')].map(e => e.textContent),
  text: document.body.innerText})"""


def test_feedback_html_shows_student_text_as_text(tmp_path, page):
    """feedback.html of a student named <img onerror>, whose message and printed output
    hold script: in chromium's DOM there is no handler, image or script, one bold score
    line, and the student's text is there to read; the honest twin looks the same."""
    attack = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
    for name, text in (("ada", "plain words"), (attack, attack + " caf\udce9 \x1b[2J")):
        path = tmp_path / "feedback.html"
        path.write_text(report.feedback_html(graded(name, text, text), "Title"),
                        encoding="utf-8")
        page.goto(path.as_uri())
        seen = page.evaluate(SCRIPT_CHECK)
        assert seen["title"] != "pwned" and not seen["handlers"], seen["handlers"]
        assert seen["images"] == 0 and seen["scripts"] == 0
        assert seen["strong"] == ["Score: 3 / 5"]
        assert writable(visible(text)) in seen["text"].replace("\n", " ") or \
            visible(text) in seen["text"]


def test_student_ids():
    for name in ("ada", "Müller", "a[", "b]", "=SUM(1;2)", "$\\frac{1}{$", "caf\udce9",
                 "<img src=x>"):
        assert paths.student_id_problem(name) is None, name
    for name in ("", ".", "..", ".carol", "a/b", "line\nbreak", "grades.csv", "GRADES.CSV",
                 "x" * 256, "tab\tname", "\u202eevil"):
        assert paths.student_id_problem(name), name
