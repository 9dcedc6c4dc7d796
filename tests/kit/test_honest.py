"""Honest code of every style gets every point (issue 41): each assignment's
tests/<a>/honest.py holds rewrites of its reference that the specification allows
(calls by keyword, exceptions that subclass the specified one, containers the
docstring allows), each graded for real next to the bugs and required to score
full marks. The dual of tests/<a>/bugs.py, whose bugs must each cost their points."""

import importlib
import shutil

import pytest

from tests.conftest import ROOT, grade_folder

pytestmark = pytest.mark.slow

ASSIGNMENTS = sorted(p.parent.name for p in (ROOT / "tests").glob("*/honest.py"))


def honest_corpus(assignment: str):
    return importlib.import_module(f"tests.{assignment}.honest")


def build(assignment: str, target):
    """One submission folder per honest rewrite: the reference's module with the
    rewrite's code appended."""
    corpus = honest_corpus(assignment)
    source = (corpus.CORRECT / corpus.MODULE).read_text(encoding="utf-8")
    for name, (_what, code) in corpus.HONEST.items():
        folder = target / name
        folder.mkdir(parents=True)
        (folder / corpus.MODULE).write_text(source + "\n\n" + code, encoding="utf-8")
    return target


def test_every_assignment_has_honest_rewrites():
    assert ASSIGNMENTS == ["connect4", "gametree", "muehle", "negamax", "tictactoe"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_honest_rewrites_score_full_marks(assignment, tmp_path):
    rows = grade_folder(assignment, build(assignment, tmp_path / "submissions"),
                        tmp_path / "out")
    corpus = honest_corpus(assignment)
    assert set(rows) == set(corpus.HONEST)
    lost = {name: (row["score"], row["max_score"], row["message"])
            for name, row in rows.items() if float(row["score"]) != float(row["max_score"])}
    if lost:
        feedback = {name: (tmp_path / "out" / name / "feedback.md").read_text()[:3000]
                    for name in lost}
        pytest.fail(f"honest rewrites lost points: {lost}\n{feedback}")
