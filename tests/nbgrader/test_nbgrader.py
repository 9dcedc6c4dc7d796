"""nbgrader: the handout notebooks, the whole course cycle, and plain autograde under attack.

The two course scenarios run in one subprocess each (nbgrader imports once), inside
a PID namespace because they execute the hostile examples; see scenario.py.
"""

import copy
import json
import re
import subprocess
import sys

import pytest

from autograder import release, slices
from autograder.nbgrader import notebooks
from autograder.nbgrader.preprocessors import defuse, keep_only_checks
from tests.conftest import ROOT, in_pid_namespace

pytest.importorskip("nbgrader", reason="install the kit's nbgrader extra")

WITH_NOTEBOOK = [n for n in slices.names() if (ROOT / "autograder/suites" / n / "rubric.toml").is_file()]
HIDDEN_SOURCE = ["BEGIN HIDDEN TESTS", "from autograder.nbgrader.cells import verdict"]


def run_scenario(which: str, base) -> dict:
    done = subprocess.run(in_pid_namespace([sys.executable, "-m", "tests.nbgrader.scenario",
                                            which, str(base)]),
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def secret_lines(name: str) -> set[str]:
    """Solution lines that never appear outside the markers (as test_release defines them)."""
    piece = slices.load(name)
    secret = set()
    for module in piece.modules:
        stripped = release.strip_solutions((piece.solution_dir / module).read_text())
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
    import tomllib
    rubric = tomllib.loads((ROOT / "autograder/suites" / name / "rubric.toml").read_text())
    nb = notebooks.build(name)
    graded = {c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points for c in nb.cells
              if c.metadata.get("nbgrader", {}).get("grade")}
    assert graded == {k: float(v) for k, v in rubric["points"].items()}
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            visible = cell.source.split(notebooks.BEGIN_HIDDEN)[0]
            assert "verdict" not in visible and notebooks.END_HIDDEN in cell.source


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
@pytest.mark.hostile
def test_nbgrader_full_cycle_matches_the_bulk_grader(tmp_path):
    outcome = run_scenario("cycle", tmp_path)
    students = ["alice", "bert", "cora", "dora"]
    assert outcome["collected"] == students
    assert outcome["exported"] == outcome["bulk"]
    assert set(outcome["exported"]) == set(students)
    assert outcome["exported"]["alice"] == 25 and outcome["exported"]["dora"] == 0
    assert 0 < outcome["exported"]["bert"] < 25
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
def test_nbgrader_plain_autograde_resists_the_known_traps(tmp_path):
    """mallory: a wrong module (the source module must not overwrite it), an input
    transformer and a fake sys.modules entry in added and edited cells, a deleted and
    a forged test cell, a fake `autograder` package and `json.py` in her folder, the
    hidden-test marker in her notes; wanda: a correct module that warns and writes to
    stderr; ivan: answers whose __eq__ lies. Plain autograde must agree with the bulk
    grader on all three, and their feedback must not show hidden tests."""
    outcome = run_scenario("traps", tmp_path)
    assert outcome["exported"] == outcome["bulk"]
    assert outcome["exported"]["wanda"] == 25
    assert outcome["exported"]["mallory"] < 25 and outcome["exported"]["ivan"] < 25
    rubric_tests = {c.metadata.nbgrader.grade_id for c in notebooks.build("tictactoe").cells
                    if c.metadata.get("nbgrader", {}).get("grade")}
    assert set(outcome["graded_cells"]["mallory"]) == rubric_tests   # deleted one restored
    check_feedback(outcome["feedback"], expect_failures=True)
