"""`make check HTML=1` and `python3 check.py --html` (issue 45): the terminal's summary,
unchanged, plus check.html in the assignment's folder, named in the summary's last line.

Run for real in copies of assignments/<a>/ (the kit's Python has pytest). The page
is only written when asked; what a student's code returns is text on it, never
markup (a string with <script>, quotes, an <img onerror>, control characters, a
lone surrogate); it is written on the paths of Windows and macOS too (no SIGALRM,
no setitimer, no make, another drive). Its look is outputs/pages.py's stylesheet,
written into check_page.py by the release step; the drift test below fails if they
part. tests/kit/test_pages.py opens the page in chromium at 1280 and 390 px.
"""

import html
import html.parser
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from autograder import KitError, release, assignment as assignments
from autograder.outputs import pages
from tests.conftest import ROOT
from tests.student.test_any_folder_any_computer import (
    WINDOWS, check_py, normal, on_drives, one_problem, path_without_make, sleeping_player,
    student, without)
from tests.student.test_student_kit import make

PAGE_LINE = re.compile(r"^The same checks as a page: (file://\S+)$", re.M)

#: A winner whose answers are the kind of string a page must not run (markup, quotes
#: that would end an attribute; a terminal escape, a bidi override and a lone
#: surrogate, which the test's repr() shows as escapes), and a player that raises an
#: error whose message holds the markup and the controls themselves.
HOSTILE = ("\n\ndef winner(board):\n"
           "    return ('<script>alert(1)</script>\"\\'><img src=x onerror=alert(2)>'\n"
           "            '\\x1b[31m\\u202e\\udcff')\n"
           "\n\ndef player(board):\n"
           "    raise ValueError('<b onmouseover=\"alert(3)\">\\x1b[2J\\u202e')\n")


def page_of(output: str) -> Path:
    """The page the summary's page line names (a file:// address)."""
    found = PAGE_LINE.findall(output)
    assert len(found) == 1, output
    return Path(unquote(urlparse(found[0]).path))


def without_page_line(output: str) -> str:
    return PAGE_LINE.sub("", output).replace("\n\n\n", "\n\n")


class Tags(html.parser.HTMLParser):
    """Every element of a page, with its attributes."""

    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(text: str) -> list:
    parser = Tags()
    parser.feed(text)
    return parser.tags


#: The elements the page is made of: no script, no image, no link, no handler.
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "strong",
             "section", "span", "code", "pre", "div", "table", "tr", "th", "td", "details",
             "summary"}


def assert_inert(text: str) -> None:
    tags = tags_of(text)
    assert {tag for tag, _ in tags} <= PAGE_TAGS, {tag for tag, _ in tags} - PAGE_TAGS
    assert not [attrs for _, attrs in tags if any(name.startswith("on") for name in attrs)]


# ------------------------------------------------------------ only when asked
def test_the_page_is_written_only_when_asked_and_the_summary_stays_the_same(student_copy):
    folder = student(student_copy)        # winner misses a diagonal: every kind of row
    plain = check_py(folder)
    assert not (folder / "check.html").exists()
    assert "check.html" not in plain.stdout and "file://" not in plain.stdout
    unasked = make("check", folder, env={"HTML": "0"})
    assert normal(unasked.stdout) == normal(plain.stdout.replace("python3 check.py",
                                                                 "make check"))
    assert not (folder / "check.html").exists()

    asked = check_py(folder, "--html")
    assert asked.returncode == plain.returncode == 1 and not asked.stderr
    assert page_of(asked.stdout) == folder / "check.html"
    assert normal(without_page_line(asked.stdout)) == normal(plain.stdout)
    # the page's line is the summary's last, before pytest's count
    said = asked.stdout.rstrip("\n").splitlines()
    assert PAGE_LINE.match(said[-2]) and re.match(r"\d+ failed, \d+ passed in ", said[-1]), said

    text = (folder / "check.html").read_text(encoding="utf-8")
    failed, passed = map(int, re.search(r"(\d+) failed, (\d+) passed", asked.stdout).groups())
    assert text.count('<section class="failure"') == failed > 0      # each failure in full
    assert f"<strong>{passed} of {failed + passed} public checks pass</strong>" in text
    assert text.index('class="failure"') < text.index("<details class=\"passed\">")
    assert "<script" not in text and "http://" not in text and "https://" not in text
    assert_inert(text)

    by_make = make("check", folder, env={"HTML": "1", "F": "winner"})
    assert page_of(by_make.stdout) == folder / "check.html"
    one = (folder / "check.html").read_text(encoding="utf-8")
    assert "<code>winner</code>" in one and "<code>minimax</code>" not in one


def test_the_page_shows_every_failure_in_full_and_the_passes_folded(student_copy):
    folder = student(student_copy)
    done = check_py(folder, "--html")
    text = page_of(done.stdout).read_text(encoding="utf-8")
    # the terminal's first problem of winner, word for word, and its callers' notes
    first = done.stdout.split("winner (test_winner[")[1].split("\n\n")[0]
    said = "\n".join(line[4:] for line in first.splitlines()[1:])
    assert html.escape(said) in text, said
    assert "(minimax calls winner, which fails too: fix winner first, then run " \
           "`python3 check.py` again)" in text
    folded = text[text.index('<details class="passed">'):]
    assert folded.count("<td class=\"pass\">pass</td>") == len(re.findall(
        "<td class=\"pass\">pass</td>", text))
    assert "<details class=\"passed\" open>" not in text       # folded while any fails


def test_a_page_of_all_passes_shows_them_open(student_copy):
    folder = student_copy("tictactoe")
    (folder / "tictactoe.py").write_bytes((ROOT / "solutions/tictactoe/tictactoe.py").read_bytes())
    done = check_py(folder, "--html")
    assert done.returncode == 0
    text = page_of(done.stdout).read_text(encoding="utf-8")
    assert "<strong>38 of 38 public checks pass</strong>" in text
    assert 'class="failure"' not in text and '<details class="passed" open>' in text


def test_a_skeleton_lists_what_is_not_written_yet(student_copy):
    folder = student_copy("negamax")
    text = page_of(check_py(folder, "--html").stdout).read_text(encoding="utf-8")
    assert "<h2>Not implemented yet</h2>" in text and 'class="failure"' not in text


# ------------------------------------------------------------ a student's strings are data
def test_a_students_markup_quotes_and_controls_are_text_on_the_page(student_copy):
    folder = student_copy("tictactoe")
    module = folder / "tictactoe.py"
    module.write_text((ROOT / "solutions/tictactoe/tictactoe.py").read_text() + HOSTILE)
    done = check_py(folder, "--html")
    assert done.returncode == 1 and not done.stderr
    text = page_of(done.stdout).read_bytes().decode("utf-8")
    assert_inert(text)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;\\&#x27;&gt;&lt;img src=x " \
           "onerror=alert(2)&gt;\\x1b[31m\\u202e\\udcff" in text
    # raised with the controls themselves: shown as escapes
    assert "ValueError: &lt;b onmouseover=&quot;alert(3)&quot;&gt;\\x1b[2J\\u202e" in text
    assert "\x1b" not in text and "\u202e" not in text
    # the honest twin: the same folder with the reference's winner has no failure at all
    module.write_text((ROOT / "solutions/tictactoe/tictactoe.py").read_text())
    honest = page_of(check_py(folder, "--html").stdout).read_text(encoding="utf-8")
    assert 'class="failure"' not in honest and "38 of 38 public checks pass" in honest


def test_every_field_of_the_page_is_escaped_title_and_attributes_too(tmp_path):
    """The generated module itself, given hostile text in every field it shows."""
    module = load_check_page("tictactoe")
    evil = '"><script>alert(1)</script><x onclick="\x1b\u202e\udcff'
    module.TITLE = evil
    text = module.page(rows=[(evil, 0, 1, evil, False)], failures=[(evil, evil, evil)],
                       unwritten=[(evil, evil)], passed=[(evil, evil)], problems=[evil],
                       notes=[evil])
    assert_inert(text)
    title = re.search(r"<title>(.*)</title>", text).group(1)
    assert "<" not in title and "&lt;script&gt;" in title
    assert "<script" not in text and 'onclick="' not in text
    assert "\\x1b\\u202e\\udcff" in text and text.encode("utf-8")     # a lone surrogate too
    long = module.page(rows=[], failures=[("f", "t", "x" * 50000)], unwritten=[], passed=[])
    assert long.count("x" * 20000) == 1 and "x" * 20001 not in long
    assert "30000 more characters, shown in the terminal" in long


# ------------------------------------------------------------ whichever computer
def test_the_page_without_make_sigalrm_or_setitimer(student_copy, tmp_path):
    """Windows: no make, no SIGALRM, no setitimer: the same summary, the same page."""
    folder = student(student_copy)
    expected = check_py(folder, "--html")
    page = (folder / "check.html").read_text(encoding="utf-8")
    (folder / "check.html").unlink()
    env = {**path_without_make(tmp_path), **without(tmp_path, WINDOWS)}
    done = subprocess.run(["python3", "check.py", "--html"], cwd=folder, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})
    assert normal(done.stdout) == normal(expected.stdout), done.stdout + done.stderr
    assert (folder / "check.html").read_text(encoding="utf-8") == page


def test_a_run_that_cannot_be_interrupted_still_writes_the_page(student_copy, tmp_path):
    """No SIGALRM and a call that blocks: the run ends early (os._exit), and the page
    of what ran is written, saying so, before it ends."""
    folder = student_copy("tictactoe")
    sleeping_player(folder, "time.sleep(60)")
    done = check_py(folder, "--html", env=without(tmp_path, WINDOWS), timeout=30)
    assert done.returncode == 1
    lines = done.stdout.rstrip().splitlines()
    assert lines[-2].startswith("The checks stopped there: player waited"), lines
    text = page_of(lines[-1]).read_text(encoding="utf-8")
    assert "The checks stopped there: player waited in a call" in text
    assert re.search(r"waited 1 s without finishing, stopped in player", text)


def test_the_page_of_a_folder_on_another_drive(student_copy, tmp_path):
    """The assignment on D:, the shell on E: (`py D:\\...\\check.py --html`)."""
    folder = student(student_copy)
    shell = tmp_path / "shell"
    shell.mkdir()
    done = check_py(folder, "--html", cwd=shell, env=on_drives(tmp_path, D=folder, E=shell))
    assert page_of(done.stdout) == folder / "check.html" and not done.stderr


def test_a_problem_before_the_first_test_is_on_the_page_too(student_copy):
    folder = student(student_copy)
    (folder / "tictactoe.py").unlink()
    done = check_py(folder, "--html")
    assert done.returncode == 2
    said = done.stdout.rstrip().splitlines()
    headline, _, todo = one_problem("\n".join(said[:-1]))
    text = page_of(said[-1]).read_text(encoding="utf-8")
    assert "No test could run." in text and headline in text
    assert html.escape(todo) in text


def test_the_page_speaks_the_chosen_language(student_copy):
    folder = student(student_copy)
    done = check_py(folder, "--html", env={"SPIELBAUM_LANG": "de"})
    line = [row for row in done.stdout.splitlines() if "file://" in row]
    assert line and line[0].startswith("Dieselben Prüfungen als Seite: file://"), done.stdout
    text = (folder / "check.html").read_text(encoding="utf-8")
    assert '<html lang="de">' in text and "öffentlichen Prüfungen bestanden" in text
    assert "<h2>Was nicht gestimmt hat</h2>" in text and ">FEHLER</span>" in text


# ------------------------------------------------------------ one look, from one place
def load_check_page(name: str):
    folder = ROOT / "assignments" / name
    sys.path.insert(0, str(folder))         # its kit_language
    try:
        spec = importlib.util.spec_from_file_location(f"check_page_{name}",
                                                      folder / "check_page.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(folder))


@pytest.mark.parametrize("name", assignments.names())
def test_the_pages_look_is_the_teachers_stylesheet(name):
    assert load_check_page(name).STYLESHEET == pages.STYLESHEET


def test_the_release_refuses_a_stylesheet_its_string_cannot_hold(monkeypatch):
    monkeypatch.setattr(pages, "STYLESHEET", pages.STYLESHEET + '.x::after { content: "\\"" }')
    with pytest.raises(KitError, match="stylesheet holds a backslash"):
        release._stylesheet_literal()
