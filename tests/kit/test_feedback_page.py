"""feedback.html as a student sees it, in headless chromium: long lines wrap inside
the page, the kit's `backticked` names are code, and student text stays text."""

from __future__ import annotations

from autograder.grading import report
from autograder.grading.runner import Graded
from autograder.grading.runner import TestResult as Result  # (not a pytest class)

HINT = ("hint: this may follow from an earlier failure: `result` changed the board it was "
        "given. `minimax` usually relies on `result`: fix it first; any of the equally good "
        "moves is accepted; a table kept between calls must hold only exact values (or "
        "bounds marked as such), and `copy.deepcopy` copies every row")
STUDENT = "got: raised Exception: `<img src=x onerror=alert(1)>` " + "x" * 300


def graded() -> Graded:
    test = Result("test_minimax", "minimax searches in the `order` function's order", 2.0)
    test.output = "\n".join(["minimax gave no answer (wrong on 3 of 3 cases; the smallest:)",
                             "call: minimax(board)", "", "X . .", ". . .", "O . .", "",
                             STUDENT, HINT])
    return Graded("alice", "graded", 0.0, 2.0, [test], "")


def test_feedback_page_wraps_long_lines_and_shows_the_kits_code_names(page, tmp_path):
    path = tmp_path / "feedback.html"
    path.write_text(report.feedback_html(graded(), "Tic-Tac-Toe"), encoding="utf-8")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(path.as_uri())
    seen = page.evaluate("""() => {
      const pre = document.querySelector('pre');
      return {overflow: pre.scrollWidth - pre.clientWidth,
              page: document.documentElement.scrollWidth - window.innerWidth,
              codes: [...document.querySelectorAll('pre code, h3 code')].map(c => c.textContent),
              images: document.querySelectorAll('img').length,
              text: pre.innerText, title: document.querySelector('h3').innerText};
    }""")
    assert seen["overflow"] <= 0 and seen["page"] <= 0, seen      # nothing cut off
    assert {"result", "minimax", "copy.deepcopy", "order"} <= set(seen["codes"])
    assert "`" not in seen["title"] and "`minimax`" not in seen["text"]
    assert seen["images"] == 0 and "`<img src=x onerror=alert(1)>`" in seen["text"]
    assert "X . .\n. . .\nO . ." in seen["text"]                   # the board as drawn


def test_feedback_markdown_keeps_code_names_and_escapes_the_rest():
    text = report.feedback_markdown(graded(), "Tic-Tac-Toe")
    assert "| FAIL | minimax searches in the `order` function's order | 0 / 2 |" in text
    assert "### minimax searches in the `order` function's order" in text
