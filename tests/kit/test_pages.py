"""Every page the kit writes, as people see it: in headless chromium at 1280 and 390 px.

Each page is made for real (a grading, the nbgrader course cycle, a similarity
report, a tournament) and opened in the shared browser (tests/browser.py). At both
widths: nothing is wider than the screen (a wide table or a code listing scrolls
inside its own box, never the page), and what went wrong is on the first screen,
before anything that passed: a feedback page's first failure, the similarity
report's most similar pair, the tournament's standings. A screenshot of each is
taken and must not be blank; with SPIELBAUM_SCREENSHOTS=<folder> they are kept
there (docs/feedback-*.png were made so).

The student's own page (`make check HTML=1`, `python3 check.py --html`) is made
for real too: check.py run in a copy of a released assignment with one function
wrong (connect4's freeIn, which most of its other checks call), and with every
function right.

feedback.html here comes from a grading of a small assignment of the test's own
(a course folder, as tests/kit/test_sixth_assignment.py makes one), whose hidden
check judges a search on the kit's tree fixtures and attaches a drawing to its
failure with `CheckFailed(..., picture=...)`: the whole way from a check to the
page. The nbgrader page's drawing is put into the kit's results as a check leaves
it (tests/kit/pages_course.py).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import ROOT
from tests.conftest import in_pid_namespace
from tests.tournament import helpers as tournament

pytestmark = pytest.mark.slow

WIDTHS = {"wide": (1280, 800), "phone": (390, 844)}

# ------------------------------------------------------------ an assignment that draws
REFERENCE = '''\
"""Alpha-beta on a game tree given as data, reporting its game calls."""

import math


def visits(tree):
    """The game calls alpha-beta makes on `tree` (the kit's tree format): ["n", node]
    where it expands a node, ["e", node] where it evaluates one; fail-soft, a max
    node stops once its best value reaches beta, a min node once it reaches alpha."""
    ### BEGIN SOLUTION
    calls = []

    def search(node, alpha, beta, is_max):
        kids = tree["children"].get(node, [])
        if not kids:
            calls.append(["e", node])
            return tree["values"][node]
        calls.append(["n", node])
        best = -math.inf if is_max else math.inf
        for kid in kids:
            value = search(kid, alpha, beta, not is_max)
            best = max(best, value) if is_max else min(best, value)
            if (best >= beta) if is_max else (best <= alpha):
                break
            if is_max:
                alpha = max(alpha, best)
            else:
                beta = min(beta, best)
        return best
    search(tree["root"], -math.inf, math.inf, tree.get("max_to_move", True))
    return calls
    ### END SOLUTION
'''
NO_PRUNING = REFERENCE.replace("""            if (best >= beta) if is_max else (best <= alpha):
                break
""", "").replace("    ### BEGIN SOLUTION\n", "").replace("    ### END SOLUTION\n", "")

HIDDEN = '''\
"""The tree walk's hidden check: the calls of the handout's rule, drawn when they differ."""

from autograder.checking import CheckFailed, describe, short
from autograder.grading.reference import load_reference
from autograder.checking import gametrees, search

ref = load_reference("treewalk", "treewalk")
TREES = ("aima-5-2", "deep-cutoff")


def test_visits(student, reveal):
    """alpha-beta makes the game calls of the handout's rule, in its order"""
    loaded = [gametrees.load_tree(name) for name in TREES]
    outcomes = student.map("treewalk.visits", [(tree,) for tree in loaded])
    for name, tree, outcome in zip(TREES, loaded, outcomes):
        want = ref.visits(tree)
        if outcome.answered and outcome.value == want:
            continue
        got = outcome.value if outcome.answered else None
        nodes = set(tree["children"]) | set(tree["values"])
        drawn = None
        if isinstance(got, list) and all(isinstance(c, list) and len(c) == 2
                                         and c[0] in ("n", "e") and c[1] in nodes for c in got):
            drawn = search.picture(tree["root"], want, got,
                                   children=lambda node: tree["children"].get(node, []),
                                   label=str, worth=lambda node: tree["values"][node],
                                   max_to_move=tree.get("max_to_move", True), every_node=True,
                                   caption=f"alpha-beta on the tree {name!r}")
        raise CheckFailed("alpha-beta did not make the rule's game calls",
                          call=f"visits(<the tree {name!r}>)",
                          got=short(got) if outcome.answered else describe(outcome),
                          expected=short(want), picture=drawn)


def test_a_list(student):
    """visits returns a list of game calls"""
    (outcome,) = student.map("treewalk.visits", [(gametrees.load_tree("aima-5-2"),)])
    if not (outcome.answered and isinstance(outcome.value, list)):
        raise CheckFailed("visits did not return a list", got=describe(outcome))
'''
MANIFEST = '''\
name = "treewalk"
title = "A walk through a game tree"
modules = ["treewalk.py"]
files = ["test_treewalk.py", "README.md"]
public_timeout = 5
'''
PUBLIC = "from treewalk import visits\n\n\ndef test_visits():\n    assert visits\n"
RUBRIC = """\
[points]
test_visits = 2
test_a_list = 1

[timeouts]
call = 2.0
imports = 5.0
check = 10.0
test = 60.0
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def feedback_pages(tmp_path_factory) -> dict[str, Path]:
    """feedback.html of a search that never prunes, graded with and without the
    expected answers shown."""
    root = tmp_path_factory.mktemp("treewalk-course")
    write(root / "solutions/treewalk/assignment.toml", MANIFEST)
    write(root / "solutions/treewalk/treewalk.py", REFERENCE)
    write(root / "solutions/treewalk/test_treewalk.py", PUBLIC)
    write(root / "solutions/treewalk/README.md", "# Tree walk\n")
    write(root / "suites/treewalk/test_hidden.py", HIDDEN)
    write(root / "suites/treewalk/rubric.toml", RUBRIC)
    write(root / "examples/bob/treewalk.py", NO_PRUNING)
    pages = {}
    for kind, extra in (("hidden", ()), ("revealed", ("--reveal-expected",))):
        out = root / f"out-{kind}"
        done = subprocess.run(
            in_pid_namespace([sys.executable, "-m", "autograder", "grade", "treewalk",
                              str(root / "examples"), "--out", str(out), *extra]),
            cwd=ROOT, capture_output=True, text=True, timeout=600,
            env={**os.environ, "SPIELBAUM_COURSE": str(root), "SPIELBAUM_CACHE": "off"})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
            assert [row["score"] for row in csv.DictReader(handle)] == ["1"]
        pages[kind] = out / "bob" / "feedback.html"
    return pages


@pytest.fixture(scope="module")
def nbgrader_course(tmp_path_factory) -> dict:
    pytest.importorskip("nbgrader", reason="install the kit's nbgrader extra")
    base = tmp_path_factory.mktemp("pages-course")
    done = subprocess.run(in_pid_namespace([sys.executable, "-m", "tests.kit.pages_course",
                                            str(base)]),
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def similarity_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("similarity-page")
    done = subprocess.run([sys.executable, "-m", "autograder", "similarity", "tictactoe",
                           str(ROOT / "examples" / "tictactoe"), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out / "similarity.html"


@pytest.fixture(scope="module")
def tournament_page(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("tournament-page")
    subs = tournament.submissions(base / "subs", "connect4", ["ada_reference",
                                                              "frank_no_antidiagonals"])
    (subs / "mallory").mkdir()                     # no module: not entered, and said so
    (subs / "mallory" / "notes.txt").write_text("my connect4.py is on my other laptop\n")
    tournament.run("connect4", subs, base / "out", "--depth", "1", "--bundled", "random",
                   "--jobs", "2")
    return base / "out" / "tournament.html"


@pytest.fixture(scope="module")
def check_pages(tmp_path_factory) -> dict[str, Path]:
    """check.html of connect4 with freeIn wrong (as tests/connect4/bugs.py has it),
    and of tictactoe with every function right."""
    from tests.connect4 import bugs
    pages = {}
    for kind, name, module in (
            ("wrong", "connect4", (bugs.CORRECT / bugs.MODULE).read_text(encoding="utf-8")
             + "\n\n" + bugs.BUGS["freeIn"][1]),
            ("right", "tictactoe", (ROOT / "solutions/tictactoe/tictactoe.py").read_text(
                encoding="utf-8"))):
        folder = tmp_path_factory.mktemp(f"check-page-{kind}") / name
        shutil.copytree(ROOT / "assignments" / name, folder)
        write(folder / f"{name}.py", module)
        done = subprocess.run([sys.executable, str(folder / "check.py"), "--html"], cwd=folder,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == (1 if kind == "wrong" else 0), done.stdout + done.stderr
        assert done.stdout.splitlines()[-2] == \
            f"The same checks as a page: {(folder / 'check.html').as_uri()}", done.stdout
        pages[kind] = folder / "check.html"
    return pages


# ------------------------------------------------------------ what is checked
#: Elements wider than the screen, leaving out what scrolls inside a box of its own
#: (overflow auto/scroll/hidden) or sits in a closed <details>; and the page's own
#: horizontal overflow.
MEASURE = """(first) => {
  const width = window.innerWidth;
  const boxed = (e) => {
    for (let a = e.parentElement; a; a = a.parentElement) {
      if (a.tagName === 'DETAILS' && !a.open) return true;
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  };
  const wide = [...document.body.querySelectorAll('*')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 1 || r.left < -1) && !boxed(e);
  }).map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
  const target = document.querySelector(first);
  const passed = document.querySelector('details.passed');
  return {
    overflow: document.documentElement.scrollWidth - width, wide: wide.slice(0, 8),
    first: target ? target.getBoundingClientRect().top + window.scrollY : null,
    height: window.innerHeight,
    before_passes: !passed || !target ? true :
      Boolean(target.compareDocumentPosition(passed) & Node.DOCUMENT_POSITION_FOLLOWING),
    svgs: document.querySelectorAll('figure.search-tree svg').length,
  };
}"""


def look(page, path: Path, first: str, name: str, tmp_path) -> dict:
    """Open `path` at both widths; return what MEASURE saw at each."""
    from PIL import Image
    seen = {}
    for label, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(Path(path).as_uri(), wait_until="load")
        seen[label] = measured = page.evaluate(MEASURE, first)
        assert measured["overflow"] <= 0 and not measured["wide"], (label, measured)
        assert measured["first"] is not None and measured["first"] < height, (label, measured)
        assert measured["before_passes"], (label, measured)
        png = page.screenshot()
        colours = Image.open(io.BytesIO(png)).convert("L").getextrema()
        assert colours[1] - colours[0] > 100, "a blank screenshot"
        keep = os.environ.get("SPIELBAUM_SCREENSHOTS")
        target = Path(keep) if keep else tmp_path
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{name}-{width}.png").write_bytes(png)
    return seen


# ------------------------------------------------------------ the pages
def test_feedback_page_shows_the_failure_first_with_both_searches_drawn(feedback_pages, page,
                                                                        tmp_path):
    seen = look(page, feedback_pages["revealed"], ".failure", "feedback-tree", tmp_path)
    assert seen["wide"]["svgs"] == 2                    # the rule's and the student's
    page.goto(feedback_pages["revealed"].as_uri())
    drawn = page.evaluate("""() => {
      const svg = [...document.querySelectorAll('figure.search-tree svg')];
      return {titles: svg.map(s => s.querySelector('title').textContent),
              desc: svg.map(s => s.querySelector('desc').textContent),
              text: document.querySelector('.failure pre').innerText};
    }""")
    assert drawn["titles"] == ["The handout's rule", "Your search"]
    assert "A+ B+ b1 b2 b3 C+ c1 D+" in drawn["desc"][0]
    assert "got:" in drawn["text"] and "expected:" in drawn["text"]   # the text stays


def test_a_hidden_checks_drawing_shows_only_the_students_search(feedback_pages, page, tmp_path):
    seen = look(page, feedback_pages["hidden"], ".failure", "feedback-tree-hidden", tmp_path)
    assert seen["phone"]["svgs"] == 1
    text = feedback_pages["hidden"].read_text(encoding="utf-8")
    assert "Your search" in text and "The handout&#39;s rule:" not in text
    results = json.loads((feedback_pages["hidden"].parent / "results.json").read_text())
    picture = results["tests"][0]["extra_data"]["picture"]
    assert picture["rule"]["calls"] == [] and picture["first_difference"] == 7


def test_nbgrader_feedback_shows_the_score_and_failures_before_the_notebook(nbgrader_course,
                                                                           page, tmp_path):
    bert = Path(nbgrader_course["pages"]["bert"])
    seen = look(page, bert, ".failure", "nbgrader-feedback", tmp_path)
    assert seen["wide"]["svgs"] == 2                    # the drawing from the kit's results
    page.goto(bert.as_uri())
    top = page.evaluate("""() => ({
      summary: document.querySelector('.kit-summary').innerText,
      folded: [...document.querySelectorAll('details.passed-cell')].length,
      scripts: [...document.querySelectorAll('script[src]')].map(s => s.src)})""")
    assert "Score: 20 / 26" in top["summary"] and "left empty: 0 / 1" in top["summary"]
    assert "winner finds the winner" in top["summary"] and top["folded"] == 12
    alice = Path(nbgrader_course["pages"]["alice"]).read_text(encoding="utf-8")
    assert 'class="failure"' not in alice and "Checks that passed (14)" in alice
    look(page, Path(nbgrader_course["pages"]["alice"]), ".score", "nbgrader-feedback-all-passed",
         tmp_path)
    plain = look(page, Path(nbgrader_course["pages"]["bert_plain"]), ".failure",
                 "nbgrader-feedback-text", tmp_path)
    assert plain["wide"]["svgs"] == 0


def test_grade_collected_says_why_a_score_is_short_of_the_kits(nbgrader_course):
    said = nbgrader_course["said"]
    assert any(line.startswith("alice") and line.split()[1].startswith("25/26")
               and "1 written answer left empty (0 of 1 point)" in line for line in said), said
    assert said[-1] == ("2 submissions of tictactoe in the gradebook; 2 students left a "
                        "written answer empty (it scores 0)")


def test_similarity_report_shows_the_most_similar_pair_first(similarity_page, page, tmp_path):
    look(page, similarity_page, "#rank-1", "similarity", tmp_path)


def test_tournament_page_shows_who_was_left_out_and_the_standings_first(tournament_page, page,
                                                                       tmp_path):
    look(page, tournament_page, "#standings-table", "tournament", tmp_path)
    page.goto(tournament_page.as_uri())
    first = page.evaluate("() => document.querySelector('p.fail').innerText")
    assert first.startswith("Not entered:") and "mallory" in first


def test_the_students_check_page_shows_the_failures_first(check_pages, page, tmp_path):
    seen = look(page, check_pages["wrong"], ".failure", "check-page", tmp_path)
    assert seen["wide"]["svgs"] == 0
    page.goto(check_pages["wrong"].as_uri())
    shown = page.evaluate("""() => ({
      score: document.querySelector('.score').innerText,
      first: document.querySelector('.failure').innerText,
      failures: document.querySelectorAll('section.failure').length,
      folded: !document.querySelector('details.passed').open,
      scripts: document.querySelectorAll('script, link, img, iframe').length})""")
    assert shown["first"].startswith("FAIL freeIn") and "expected" in shown["first"], shown
    assert shown["failures"] > 1 and shown["folded"] and shown["scripts"] == 0, shown
    assert "public checks pass" in shown["score"]


def test_the_students_check_page_of_all_passes(check_pages, page, tmp_path):
    look(page, check_pages["right"], ".score", "check-page-all-passed", tmp_path)
    page.goto(check_pages["right"].as_uri())
    assert page.evaluate("() => document.querySelector('details.passed').open")
    note = page.evaluate("() => document.querySelector('p.note').innerText")
    assert note.startswith("All public checks pass. The hidden tests check every function on "
                           "many more positions"), note
