"""nbgrader: the handout notebooks, the whole course cycle, and plain autograde under attack.

The two course scenarios run in one subprocess each (nbgrader imports once), inside
a PID namespace because they execute the hostile examples; see scenario.py.
"""

import ast
import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import release, assignment as assignments
from autograder.nbgrader import notebooks
from autograder.nbgrader.preprocessors import defuse, keep_only_checks
from tests.conftest import ROOT, in_pid_namespace
from tests.nbgrader.scenario import A, CYCLE_ANSWER

pytest.importorskip("nbgrader", reason="install the kit's nbgrader extra")

WITH_NOTEBOOK = [n for n in assignments.names() if (ROOT / "autograder/suites" / n / "rubric.toml").is_file()]
HIDDEN_SOURCE = ["BEGIN HIDDEN TESTS", "from autograder.nbgrader.cells import verdict"]


def run_scenario(which: str, base, *extra: str) -> dict:
    done = subprocess.run(in_pid_namespace([sys.executable, "-m", "tests.nbgrader.scenario",
                                            which, str(base), *extra]),
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def secret_lines(name: str) -> set[str]:
    """Solution lines that never appear outside the markers (as test_release defines them)."""
    assignment = assignments.load(name)
    secret = set()
    for module in assignment.modules:
        stripped = release.strip_solutions((assignment.solution_dir / module).read_text())
        public = {line.strip() for line in stripped.text.splitlines()}
        secret |= {line.strip() for line in stripped.removed_lines} - public
    return {line for line in secret if len(line) > 12 and not line.startswith("#")}


def suite_lines(name: str) -> set[str]:
    text = "\n".join(p.read_text() for p in (ROOT / "autograder/suites" / name).glob("test_*.py"))
    return {line.strip() for line in text.splitlines()
            if len(line.strip()) > 25 and not line.strip().startswith(("#", '"', "def "))}


# ------------------------------------------------------------ the notebooks
@pytest.mark.parametrize("name", WITH_NOTEBOOK)
def test_nbgrader_notebook_is_what_the_generator_produces(name):
    assert not notebooks.differences(name), "run `make notebooks`"


@pytest.mark.parametrize("name", WITH_NOTEBOOK)
def test_nbgrader_notebook_points_come_from_the_rubric(name):
    """Graded code cells: the rubric's points; written answers: assignment.toml's."""
    import tomllib
    rubric = tomllib.loads((ROOT / "autograder/suites" / name / "rubric.toml").read_text())
    manifest = tomllib.loads((ROOT / "solutions" / name / "assignment.toml").read_text())
    nb = notebooks.build(name)
    graded = {c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"}
    assert graded == {k: float(v) for k, v in rubric["points"].items()}
    written = {c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points for c in nb.cells
               if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "markdown"}
    assert written == {a["id"]: float(a["points"]) for a in manifest.get("answers", [])}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and meta.get("grade"):
            assert meta["solution"] and not meta["locked"] and cell.source == notebooks.ANSWER_STUB
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code":
            visible = cell.source.split(notebooks.BEGIN_HIDDEN)[0]
            assert "verdict" not in visible and notebooks.END_HIDDEN in cell.source


@pytest.mark.parametrize("name", WITH_NOTEBOOK)
def test_nbgrader_try_cell_runs_as_it_is_and_lists_only_what_students_call(name, tmp_path):
    """The notebook's "try your functions" cell runs on the reference without a
    NameError; the list of functions names no helper nested inside another."""
    nb = notebooks.build(name)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "try_it")
    listing = next(c for c in nb.cells
                   if c.metadata.get("nbgrader", {}).get("grade_id") == "try_it_text").source
    assert "f_memoized" not in listing and "self" not in listing
    assignment = assignments.load(name)
    for module in assignment.modules:
        (tmp_path / module).write_bytes((assignment.solution_dir / module).read_bytes())
    done = subprocess.run([sys.executable, "-c", cell.source], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert ("duel.py" in assignment.files) == any(
        "%run duel.py" in c.source for c in nb.cells if c.cell_type == "code")


def test_nbgrader_graded_cells_show_a_verdict_and_no_bare_score():
    """A passed check returns nothing (all its points), a failed one writes one line
    to stderr (none), a partial score is returned: what nbgrader reads either way."""
    from autograder.nbgrader.cells import outputs
    assert outputs(2, 2) == (None, None)
    assert outputs(0, 2) == ("no points for this check", None)
    assert outputs(1, 2) == (None, 1)


def test_nbgrader_counts_read_in_the_singular_for_one():
    from autograder.nbgrader.cycle import count
    assert count(1, "submission") == "1 submission" and count(2, "student") == "2 students"
    assert count(0, "written answer") == "0 written answers"


def test_nbgrader_make_targets_name_an_unknown_assignment():
    for command in ("grade", "collect", "autograde", "feedback"):
        done = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", command,
                               "nosuch"], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2
        assert "unknown assignment 'nosuch'" in done.stderr and "collect first" not in \
            done.stderr, done.stderr


def test_nbgrader_only_graded_cells_stay_runnable():
    nb = notebooks.build("tictactoe")
    checks = {c.metadata.nbgrader.grade_id: (c.source, c.metadata.nbgrader.points)
              for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
    first = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
    nb.cells.remove(first)
    nb.cells.append(copy.deepcopy(nb.cells[-1]))              # a duplicated test cell
    nb.cells[-1].source = "get_ipython().input_transformers_post.append(lambda l: [])"
    keep_only_checks(nb, checks)
    runnable = [c for c in nb.cells if c.cell_type == "code"
                and any(line.strip() and not line.lstrip().startswith("#")
                        for line in c.source.splitlines())]
    assert sorted(c.metadata.nbgrader.grade_id for c in runnable) == sorted(checks)
    assert all(c.source == checks[c.metadata.nbgrader.grade_id][0] for c in runnable)
    assert "BEGIN HIDDEN TESTS" not in defuse("### BEGIN HIDDEN TESTS")


# ------------------------------------------------------------ the whole cycle
@pytest.mark.slow
def test_nbgrader_releases_the_course_in_its_language(tmp_path):
    """SPIELBAUM_COURSE_LANG=de: nbgrader's generate_assignment and release hand out
    the German notebook (the same cells and grade ids as the English one, locked and
    checksummed by nbgrader), the German skeleton, README and kit language."""
    from autograder import i18n
    from autograder.nbgrader import notebooks
    outcome = run_scenario("language", tmp_path, "de")
    german = notebooks.build(A, "de")
    assert [c["id"] for c in outcome["cells"]] == \
        [c.metadata["nbgrader"]["grade_id"] for c in german.cells]
    task = outcome["cells"][0]["source"]
    assert task.startswith("# Tic-Tac-Toe mit Minimax") and task == german.cells[0].source
    graded = [c for c in outcome["cells"] if c["id"].startswith("test_")]
    assert graded and all(c["checksum"] for c in graded)
    assert all(c["source"].startswith("# Bewertete Prüfung: ") for c in graded)
    assert all("verdict(" not in c["source"] for c in graded)      # hidden part stripped
    said = i18n.translation("de").gettext
    english = ast.get_docstring(ast.parse(
        (ROOT / "assignments" / A / f"{A}.py").read_text(encoding="utf-8")))
    first = ast.get_docstring(ast.parse(outcome["module"]))
    assert first == said(english) != english
    assert outcome["readme"].startswith("# Tic-Tac-Toe mit Minimax")
    assert 'COURSE_LANGUAGE = "de"' in outcome["language"]


@pytest.mark.slow
@pytest.mark.hostile
def test_nbgrader_full_cycle_matches_the_bulk_grader(tmp_path):
    outcome = run_scenario("cycle", tmp_path)
    students = ["alice", "bert", "cora", "dora"]
    assert outcome["collected"] == students
    # Before any answer is graded by hand, nbgrader's gradebook and the bulk grader
    # agree; the teacher's score for alice's written answer is added to hers, and
    # grading her again keeps it.
    assert outcome["exported_before"] == outcome["bulk"]
    assert outcome["exported"] == dict(outcome["bulk"], alice=outcome["bulk"]["alice"] + 1)
    assert set(outcome["exported"]) == set(students)
    assert outcome["bulk"]["alice"] == 25 and outcome["exported"]["dora"] == 0
    assert 0 < outcome["exported"]["bert"] < 25
    graded, regraded = outcome["said"]["graded"], outcome["said"]["regraded"]
    assert any(line.startswith("alice") and "25/26; 1 written answer to grade" in line
               for line in graded), graded
    assert not any("to grade" in line for line in graded if line.startswith("bert"))
    # bert, cora and dora left the question as handed out: their line says why their
    # score is a point short of the kit's
    assert any(line.startswith("bert") and "1 written answer left empty (0 of 1 point)" in line
               for line in graded), graded
    assert graded[-1] == ("4 submissions of tictactoe in the gradebook; 1 student with "
                          "written answers to grade by hand (formgrader: Manual Grading); "
                          "3 students left a written answer empty (it scores 0)")
    assert any(line.startswith("alice") and line.rstrip().endswith("26/26")
               for line in regraded), regraded
    assert regraded[-1] == ("4 submissions of tictactoe in the gradebook; 3 students left a "
                            "written answer empty (it scores 0)")
    resubmitted = outcome["said"]["resubmitted"]
    assert any(line.startswith("alice") and "26/26; 1 written answer to grade" in line
               for line in resubmitted), resubmitted
    assert CYCLE_ANSWER in outcome["autograded_answer"]
    for student, shown in outcome["autograded_outputs"].items():   # no bare `Out[n]: 2`
        assert ["execute_result", None] not in shown and ["stream", "stdout"] in shown
    assert ["stream", "stderr"] not in outcome["autograded_outputs"]["alice"]
    assert ["stream", "stderr"] in outcome["autograded_outputs"]["bert"]  # a failed check
    pages = {p: t for p, t in outcome["feedback"].items() if p.endswith(".html")}
    alice = next(t for p, t in pages.items() if "/alice/" in p)
    assert CYCLE_ANSWER in alice and re.search(r"Written answer</a>:\s*1 / 1</li>", alice)
    for text in pages.values():
        assert "Test cell" not in text and "Out[" not in text
        assert "winner finds" in text                       # a check named by its title
    assert not any(p.endswith("assignment.toml") for p in outcome["feedback"])
    # every student fetched their own feedback, and only theirs
    assert all(len(files) == 1 for files in outcome["fetched"].values()), outcome["fetched"]
    # no released file holds solution code
    secret = secret_lines("tictactoe")
    assert len(outcome["released"]) > 10
    for path, text in outcome["released"].items():
        assert release.BEGIN not in text, path
        lines = {line.strip() for line in text.splitlines()}
        if path.endswith(".ipynb"):
            lines |= {line.strip() for cell in json.loads(text)["cells"]
                      for line in "".join(cell["source"]).splitlines()}
            assert not any(marker in text for marker in HIDDEN_SOURCE), path
        assert not (secret & lines), (path, sorted(secret & lines)[:2])
    check_feedback(outcome["feedback"], expect_failures=True)


def check_feedback(files: dict, expect_failures: bool):
    html = {p: t for p, t in files.items() if p.endswith(".html")}
    assert html
    hidden = suite_lines("tictactoe")
    seen_fail = False
    for path, text in html.items():
        plain = re.sub(r"<[^>]+>", "", text)
        for marker in HIDDEN_SOURCE:
            assert marker not in plain, (path, marker)
        assert not any(line in plain for line in hidden), path
        for line in re.findall(r"expected: .*", plain):
            assert "hidden test" in line, (path, line)
        seen_fail |= "FAIL" in plain
    assert seen_fail == expect_failures


# ------------------------------------------------------------ plain autograde, attacked
@pytest.mark.slow
@pytest.mark.hostile
@pytest.mark.exhaustive     # make test-all (CI's budget): plain autograde, the path the kit replaces
def test_nbgrader_plain_autograde_resists_the_known_traps(tmp_path):
    """mallory: a wrong module (the source module must not overwrite it), an input
    transformer and a fake sys.modules entry in added and edited cells, a deleted and
    a forged test cell, a fake `autograder` package and `json.py` in her folder, the
    hidden-test marker and markup that would run script in her notes; wanda: a correct
    module that warns and writes to stderr, and a cell whose nbgrader metadata is
    "oops"; ivan: answers whose __eq__ lies. Plain autograde must agree with the bulk
    grader on all three, and their feedback must not show hidden tests or her markup."""
    outcome = run_scenario("traps", tmp_path)
    assert outcome["exported"] == outcome["bulk"]
    assert outcome["exported"]["wanda"] == 25
    assert outcome["exported"]["mallory"] < 25 and outcome["exported"]["ivan"] < 25
    rubric_tests = {c.metadata.nbgrader.grade_id for c in notebooks.build("tictactoe").cells
                    if c.metadata.get("nbgrader", {}).get("grade")}
    assert set(outcome["graded_cells"]["mallory"]) == rubric_tests   # deleted one restored
    check_feedback(outcome["feedback"], expect_failures=True)
    assert not any(p.endswith("assignment.toml") for p in outcome["feedback"]), \
        "plain autograde copied the assignment's manifest into the feedback"
    mallory = [t for p, t in outcome["feedback"].items()
               if "/mallory/" in p and p.endswith(".html")]
    assert mallory and "My notes &lt;img src=x onerror=" in mallory[0]
    assert not any("<img src=x" in t or 'href="javascript:' in t
                   for t in outcome["feedback"].values())


# ------------------------------------------------------------ the students' side of TEACHING.md
ENVIRONMENTS = {".venv", "venv"}


# The full cycle test runs the same student commands; this one runs them as TEACHING.md
# writes them, line by line, in two shells: after a change to the doc, `make test-all`.
@pytest.mark.slow
@pytest.mark.hostile
@pytest.mark.exhaustive
def test_nbgrader_student_commands_of_the_doc_work_as_written_with_the_exchange_elsewhere(
        tmp_path):
    """docs/TEACHING.md's student blocks, line by line, by two students whose shells know
    nothing of SPIELBAUM_EXCHANGE: one reads the student config from the system folder,
    one from ~/.jupyter. Both made a .venv and a venv by hand before submitting."""
    outcome = run_scenario("students", tmp_path)
    blocks = outcome["blocks"]
    student_lines = [line for who, lines in blocks if who == "student" for line in lines]
    for command in ("nbgrader fetch_assignment tictactoe --course gts-2027", "make check",
                    "nbgrader submit tictactoe --course gts-2027",
                    "nbgrader fetch_feedback tictactoe --course gts-2027"):
        assert command in student_lines, f"the doc no longer tells students: {command}"
    assert [who for who, _ in blocks][0] == "teacher", "the student config comes first"
    unconfigured = outcome["unconfigured"]
    if not unconfigured["default_exists"]:     # the trap the doc now explains
        assert unconfigured["rc"] != 0 and "Unwritable directory" in unconfigured["said"]
    assert "stopped" not in outcome, (outcome["stopped"], outcome["steps"][-1])
    ran = [(s["home"], s["line"]) for s in outcome["steps"]]
    for name in ("alice", "bob"):
        assert [line for home, line in ran if home == name] == \
            [line for line in student_lines if not line.startswith("cd ")]
    assert all(s["rc"] == 0 for s in outcome["steps"])
    check = next(s for s in outcome["steps"] if s["line"] == "make check")
    assert "minimax" in check["said"] and "needs work" not in check["said"]
    # no Python environment anywhere a submission travels
    for where in ("inbound", "submitted", "autograded"):
        travelled = [p for p in outcome[where] if ENVIRONMENTS & set(Path(p).parts)]
        assert not travelled, (where, travelled[:3])
    assert outcome["collected"] == [outcome["collected"][0]] and outcome["exported"] == \
        {outcome["collected"][0]: 25.0}
    # Both shells run as this machine's one user, so bob's later submission is the one
    # collected and graded, and only it has feedback (nbgrader matches it by its hash).
    assert len(outcome["feedback"]["bob"]) == 1 and not outcome["feedback"]["alice"], \
        outcome["feedback"]
    assert all(ENVIRONMENTS <= set(kept) for kept in outcome["kept"].values()), \
        "the students' own folders keep what they made"


@pytest.mark.slow
@pytest.mark.exhaustive     # make test-all (CI's budget)
def test_nbgrader_a_second_release_replaces_the_first_and_says_so(tmp_path):
    outcome = run_scenario("rerelease", tmp_path)
    first, second = outcome["runs"]
    assert first["rc"] == 0, first["err"]
    assert second["rc"] == 0, second["err"]
    assert "replacing" not in first["out"]
    assert "replacing the release of tictactoe from " in second["out"]
    assert f"{tmp_path}/exchange/testcourse/outbound/tictactoe" in second["out"]
    assert "Destination already exists" not in second["out"] + second["err"]
    assert {"tictactoe.py", "tictactoe.ipynb", "Makefile"} <= set(outcome["outbound"])


def test_nbgrader_student_config_names_the_exchange_and_leaves_environments_out(
        tmp_path, monkeypatch):
    from autograder.nbgrader import IGNORE, cycle
    monkeypatch.setenv("SPIELBAUM_EXCHANGE", str(tmp_path / "exchange"))
    monkeypatch.setenv("SPIELBAUM_COURSE_ID", "gts-2027")
    text = cycle.student_config(cycle.make_api())
    from traitlets.config import Config
    namespace = {"get_config": Config}
    exec(compile(text, "student_nbgrader_config.py", "exec"), namespace)
    config = namespace["c"]
    assert config.Exchange.root == str(tmp_path / "exchange")
    assert config.CourseDirectory.ignore == IGNORE
    assert {".venv", "venv", "check.html"} <= set(IGNORE)   # environments; make check's page


def test_nbgrader_course_config_leaves_environments_out():
    from autograder.nbgrader import IGNORE, cycle
    assert cycle.make_api().coursedir.ignore == IGNORE


def test_make_notebooks_says_wrote_only_for_a_changed_notebook(tmp_path, monkeypatch, capsys):
    import os

    from autograder.nbgrader.command import notebooks as make_notebooks
    copy = tmp_path / "tictactoe.ipynb"
    copy.write_text(notebooks.render("tictactoe"))
    os.utime(copy, ns=(10**18, 10**18))
    monkeypatch.setattr(notebooks, "notebook_path", lambda name: copy)
    assert make_notebooks(["tictactoe"], check=False) == 0
    assert capsys.readouterr().out.strip() == f"{copy} is up to date"
    assert copy.stat().st_mtime_ns == 10**18, "an unchanged notebook was rewritten"
    copy.write_text(copy.read_text().replace("Tic-Tac-Toe", "Tic-Tac-Tow"))
    assert make_notebooks(["tictactoe"], check=False) == 0
    assert capsys.readouterr().out.strip() == f"wrote {copy}"
    assert copy.read_text() == notebooks.render("tictactoe")


# ------------------------------------------------------------ the exchange, attacked
@pytest.fixture(scope="module")
def intake(tmp_path_factory):
    """scenario.py's intake: honest students through the real exchange, and beside them
    everything a student can put into the shared inbound folder (one nbgrader run)."""
    return run_scenario("intake", tmp_path_factory.mktemp("intake"))


REFUSED = {"cora": "in the future", "dora": "it was not made by nbgrader submit",
           "grades.csv": "is the name of a file the grader writes",
           "zeno": "not a folder (a symbolic link is never followed)",
           "yves": "cannot be read"}


@pytest.mark.slow
@pytest.mark.hostile
def test_nbgrader_collect_refuses_what_no_student_can_honestly_have_made(intake):
    """Forged folders are refused with a line each, the real submission is collected
    in their place, and every honest student keeps full marks."""
    said = "\n".join(intake["said"])
    for name, why in REFUSED.items():
        assert any(line.startswith(f"collect: refused {name}+tictactoe+") and why in line
                   for line in intake["said"]), (name, said)
    honest = {"alice", "cora", "erin", "fritz", "gina", "'=SUM(1;2)"}
    if intake["owned"]:        # a folder for nobody, made by another user of the machine
        honest.add("nobody")
        assert "claims to be submitted by nobody but is owned by root; cheating attempt?" in said
    for student in honest:
        assert intake["exported"][student] == 25.0, (student, intake["exported"])
    assert "dora" not in intake["exported"] and "grades.csv" not in intake["exported"]
    assert set(intake["collected"]) == {s.strip("'") for s in honest} | {"mallory"}


@pytest.mark.slow
@pytest.mark.hostile
def test_nbgrader_collect_never_follows_a_link_or_opens_a_fifo(intake):
    """mallory's newest folder links tictactoe.py to the teacher's reference: the link is
    left out and named, so she gets nothing for it (she had 25 from nbgrader's collect);
    erin's FIFO is left out, and her work is graded (it used to stop collect for all)."""
    assert intake["exported"]["mallory"] == 0.0 and intake["graded"]["mallory"] == "missing"
    assert "mallory/tictactoe/tictactoe.py" not in intake["submitted"]
    assert "collect: mallory: left out tictactoe.py (a symbolic link" in "\n".join(intake["said"])
    assert "collect: erin: left out pipe (a named pipe" in "\n".join(intake["said"])
    assert "erin/tictactoe/pipe" not in intake["submitted"]
    assert not any(path.startswith(("zeno", "grades.csv", "dora"))
                   for path in intake["submitted"])


@pytest.mark.slow
@pytest.mark.hostile
def test_nbgrader_one_broken_notebook_and_odd_ids_cost_nobody_else_anything(intake):
    """fritz's notebook has `"nbgrader": "oops"` in a cell: he is graded with a line for the
    teacher and so is everyone else; feedback is released to every collected student;
    the export neutralises an id that is a formula."""
    assert any(line.startswith("grade-collected: fritz: tictactoe.ipynb: cell 1: its nbgrader "
                               "metadata is malformed") for line in intake["said"])
    assert set(intake["feedback"]) == set(intake["collected"])
    assert "'=SUM(1;2)" in intake["export_text"]
    assert not any(line.startswith("=") for line in intake["export_text"].splitlines())


SCRIPT_CHECK = """() => {
  const handlers = [...document.querySelectorAll('*')].flatMap(
      e => [...e.attributes].filter(a => a.name.startsWith('on'))
                            .map(a => e.tagName + ' ' + a.name));
  const links = [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))
      .filter(h => /^\\s*(javascript|data|vbscript):/i.test(h));
  const images = [...document.querySelectorAll('img')].map(i => i.getAttribute('src'))
      .filter(s => s === 'x' || s === 'y');
  const scripts = [...document.querySelectorAll('script')].filter(s => s.text.includes('pwned'));
  return {title: document.title, handlers, links, images, scripts: scripts.length,
          text: document.body.innerText};
}"""


def open_page(page, path: str) -> dict:
    page.goto(Path(path).as_uri(), wait_until="domcontentloaded")
    page.wait_for_timeout(300)
    return page.evaluate(SCRIPT_CHECK)


@pytest.mark.slow
@pytest.mark.hostile
def test_nbgrader_student_markup_never_runs_in_a_browser(intake, page):
    """gina's notebook holds <img onerror>, a javascript: link, a <script> and a raw HTML
    cell. In her released feedback (the student's browser) and in the autograded notebook
    rendered as formgrader renders it (the teacher's, logged in to Jupyter), the DOM has
    no handler, link or element of hers, and her notes are there as text; alice's
    feedback, without any of it, shows the same checks."""
    pages = {}
    for kind in ("feedback", "formgrader", "formgrader_raw"):
        pages[kind] = seen = open_page(page, intake[kind]["gina"])
        assert seen["title"] != "pwned" and not seen["handlers"], (kind, seen["handlers"])
        assert not seen["links"] and not seen["images"] and not seen["scripts"], kind
        assert "My notes <img src=x onerror=" in seen["text"], kind
    honest = open_page(page, intake["feedback"]["alice"])
    assert not honest["handlers"] and honest["title"] != "pwned"
    assert honest["text"].count("PASS") == pages["feedback"]["text"].count("PASS") > 0
