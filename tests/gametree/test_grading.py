"""A bug costs its own function's points, once (issue 22), graded for real.

The single-function bugs of tests/gametree/bugs.py are examples (bug_<function>,
or an older example that is that bug), graded with examples/gametree in one
batch (conftest.graded_examples; outside bugs.QUICK only in make test-all).
Each loses points in its own function's checks and at most in the rubric's
whole-program check: evaluation, terminal_test and solve are judged again with
the grader's winning_lines (and evaluation) played in for the student's Game,
computer_move with the grader's alpha-beta, and every search on games of the
grader's.
"""

import json

import pytest

from tests.conftest import assert_blamed_only, bug_params, require_graded
from tests.gametree import bugs


def _results(out, name):
    data = json.loads((out / name / "results.json").read_text())
    return {t["number"]: t for t in data["tests"]}


@pytest.mark.slow
@pytest.mark.parametrize("function", bug_params(bugs))
def test_a_bug_costs_only_its_own_functions_points(graded_examples, function):
    require_graded(bugs, function)
    _, out = graded_examples("gametree")
    tests = _results(out, bugs.folder_name(function))
    lost = {name for name, test in tests.items() if test["status"] != "passed"}
    assert_blamed_only("gametree", function, bugs.BUGS, lost)


@pytest.mark.slow
def test_the_feedback_says_whose_mistake_it_is(graded_examples):
    _, out = graded_examples("gametree")
    lines = _results(out, "bug_winning_lines")
    # evaluation, terminal_test and solve kept their points with the grader's lines
    assert all(lines[name]["status"] == "passed"
               for name in ("test_evaluation", "test_terminal_test", "test_solve"))
    whole = lines["test_computer_move_with_your_own_helpers"]["output"]
    assert "this check runs your whole program on your own Game" in whole
    search = _results(out, bugs.folder_name("alphabeta"))["test_alphabeta_depth_limit"]
    assert "this check ran maximize_ab/minimize_ab with the grader's own nextstates, " \
           "terminal_test, evaluation, so the mistake is in maximize_ab/minimize_ab " \
           "itself" in search["output"]


@pytest.mark.slow
@pytest.mark.exhaustive
def test_a_wrong_evaluation_is_evaluations_own(graded_examples):
    """terminal_test is judged again with the grader's evaluation and keeps its points."""
    require_graded(bugs, "evaluation")
    _, out = graded_examples("gametree")
    evaluation = _results(out, "bug_evaluation")
    assert evaluation["test_terminal_test"]["status"] == "passed"
    assert "evaluation's helpers (winning_lines) pass their own checks, so the mistake is " \
           "in evaluation itself" in evaluation["test_evaluation"]["output"]
