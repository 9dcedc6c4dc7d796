"""Grade examples/negamax/ for real (the bulk grader, sandboxed, in a PID namespace).

The correct example gets full marks; every generated wrong example (see
wrong_variants.EXAMPLES) loses the points of the hidden tests its bug must
fail, and the ones whose bug is only about technique keep every value test.
"""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wrong_variants as wv  # noqa: E402

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
    ("no_pruning", {"test_work_on_hand_built_trees", "test_work_on_positions",
                    "test_fail_hard_windows"}),
    ("wrong_cut_comparison", {"test_work_on_hand_built_trees", "test_work_on_positions"}),
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
