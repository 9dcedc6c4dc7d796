"""Grade examples/negamax/ for real (the bulk grader, sandboxed, in a PID namespace).

The correct example gets full marks; every generated wrong example (see
wrong_variants.EXAMPLES) loses the points of the hidden tests its bug must
fail, and the ones whose bug is only about technique keep every value test.
Each single-method bug (bugs.py, issue 22) loses points only in the checks of
its own method and in the whole-program check: every other method is judged
with the grader's helpers.
"""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wrong_variants as wv  # noqa: E402

from tests.conftest import ROOT, assert_blamed_only, bug_params, require_graded  # noqa: E402
from tests.negamax import bugs  # noqa: E402

pytestmark = pytest.mark.slow

VALUE_TESTS = {"test_explore_values", "test_evaluated_moves", "test_best_move"}


def failed(out, student):
    results = json.loads((out / student / "results.json").read_text())
    return {t["number"] for t in results["tests"] if t["score"] < t["max_score"]}


def test_correct_example_gets_full_marks(graded_examples):
    rows, out = graded_examples("negamax")
    row = rows["ada_correct"]
    assert float(row["score"]) == float(row["max_score"]) > 0, row
    assert failed(out, "ada_correct") == set()


@pytest.mark.parametrize("bug", sorted(wv.VARIANTS))
def test_wrong_example_fails_for_its_reason(graded_examples, bug):
    rows, out = graded_examples("negamax")
    variant = wv.VARIANTS[bug]
    row = rows[variant.student]
    assert row["status"] == "graded"
    assert float(row["score"]) < float(row["max_score"])
    lost = failed(out, variant.student)
    assert set(variant.hidden) <= lost, (bug, sorted(lost))


@pytest.mark.parametrize("bug, only", [
    ("fixed_choice", {"test_best_move_random_choice"}),
    ("fail_soft", {"test_fail_hard_windows"}),
    ("no_game_over_check", {"test_get_moves"}),
    # Issue 22: these also fail the whole-program check (getEvaluatedMoves with the
    # student's own explore counts alpha-beta's nodes); 2 of 39 points.
    ("no_pruning", {"test_work_on_hand_built_trees", "test_work_on_positions",
                    "test_fail_hard_windows", "test_evaluated_moves_with_your_own_explore"}),
    ("wrong_cut_comparison", {"test_work_on_hand_built_trees", "test_work_on_positions",
                              "test_evaluated_moves_with_your_own_explore"}),
])
def test_narrow_bugs_lose_only_their_points(graded_examples, bug, only):
    rows, out = graded_examples("negamax")
    lost = failed(out, wv.VARIANTS[bug].student)
    assert lost == only, (bug, sorted(lost))
    assert not lost & VALUE_TESTS


def test_feedback_names_the_work_for_plain_negamax(graded_examples):
    _, out = graded_examples("negamax")
    text = (out / wv.VARIANTS["no_pruning"].student / "feedback.md").read_text()
    assert "did not do the work of alpha-beta" in text
    assert "expected:" in text and "hidden test" in text


def as_judged(function: str, lost: set) -> set:
    """The lost checks named as conftest's assert_blamed_only reads them
    (test_<function>): this suite's test names are older than that convention,
    so bugs.JUDGES says which method each one judges. A check of several methods
    that include `function` is one of its own; one that does not keeps a name
    that says whose it is."""
    whole = set(__import__("autograder.assignment", fromlist=["load"]).load("negamax")
                .rubric().whole_program)
    return {check if check in whole else
            f"test_{function}" if function in bugs.JUDGES[check] else
            f"{check} (judges {', '.join(sorted(bugs.JUDGES[check]))})" for check in lost}


def test_every_check_judges_named_methods():
    from autograder import assignment
    rubric = assignment.load("negamax").rubric()
    assert set(bugs.JUDGES) == set(rubric.points)
    assert set().union(*bugs.JUDGES.values()) == set(bugs.BUGS)
    assert set(bugs.BUGS) == set(assignment.load("negamax").relies_on) | {
        "winner", "getSide", "undoMove", "explore"}


def test_the_single_bug_examples_are_what_bugs_py_writes():
    for function in bugs.BUGS:
        if function not in bugs.EXAMPLE_OF:
            assert (bugs.folder(function) / bugs.MODULE).read_text() == bugs.source(function), \
                "run `.venv/bin/python tests/negamax/bugs.py`"
    assert {p.name for p in (ROOT / "examples" / "negamax").iterdir()} == \
        {"ada_correct"} | {v.student for v in wv.VARIANTS.values()} | \
        {bugs.folder(f).name for f in bugs.BUGS}


@pytest.mark.parametrize("function", bug_params(bugs))
def test_a_bug_costs_only_its_own_methods_points(graded_examples, function):
    """Issue 22: one wrong method loses points in its own checks and in the
    whole-program check only."""
    require_graded(bugs, function)
    _, out = graded_examples("negamax")
    lost = failed(out, bugs.folder(function).name)
    assert_blamed_only("negamax", function, bugs.BUGS, as_judged(function, lost))


@pytest.mark.parametrize("bug", sorted(b for b in wv.VARIANTS
                                       if b not in ("fixed_choice", "no_game_over_check")))
def test_every_wrong_explore_costs_only_explores_points(graded_examples, bug):
    """The generated wrong examples are explore bugs (but two): getEvaluatedMoves,
    getBestMove and play keep their points, judged with the grader's explore."""
    _, out = graded_examples("negamax")
    lost = failed(out, wv.VARIANTS[bug].student)
    assert_blamed_only("negamax", "explore", bugs.BUGS, as_judged("explore", lost))


def test_a_check_judged_with_the_graders_helpers_says_so(graded_examples):
    _, out = graded_examples("negamax")
    text = (out / "bug_getEvaluatedMoves" / "feedback.md").read_text()
    assert "this check ran getEvaluatedMoves with the grader's own explore, so the mistake " \
           "is in getEvaluatedMoves itself" in text
    # The board's methods run with the student's own helpers first (Blame.check):
    # where those pass their checks, the feedback says so instead.
    evaluate = (out / "bug_evaluate" / "feedback.md").read_text()
    assert "evaluate's helpers (winner) pass their own checks, so the mistake is in " \
           "evaluate itself" in evaluate


def test_feedback_shows_the_students_own_answer_not_the_plans(graded_examples):
    """Issue 22: the value the student's method returned, never the grader's
    wrapper around it ({'value': ..., 'nodes': ...}, {'moves': ...})."""
    _, out = graded_examples("negamax")
    for student in ("eve_no_sign_flip", "bug_getEvaluatedMoves", "bug_play"):
        text = (out / student / "feedback.md").read_text()
        assert "{'value'" not in text and "{'moves'" not in text and "{'move'" not in text, \
            student
    eve = (out / "eve_no_sign_flip" / "feedback.md").read_text()
    assert "got: returned -10\n" in eve
