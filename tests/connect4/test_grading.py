"""Grade examples/connect4/ for real (PID namespace, full sandbox) and check every verdict.

Each wrong example is the reference with one deliberate bug (see
examples_build.py); it must lose points in the hidden test that catches that
bug, and keep the points of a check it should not affect.
"""

import json

import pytest

from tests.conftest import ROOT

FULL = 50

# student -> (tests that must fail, tests that must pass)
EXPECTED = {
    "bob_no_pruning": ({"test_alphabeta_counts"}, {"test_alphabeta_values"}),
    "carol_wrong_cut": ({"test_alphabeta_counts"}, {"test_alphabeta_values"}),
    "dan_off_by_one": ({"test_alphabeta_values", "test_alphabeta_counts"},
                       {"test_getBoard", "test_evaluation"}),
    "eve_past_won_games": ({"test_search_stops_at_finished_games", "test_alphabeta_counts"},
                           {"test_terminal_test", "test_book_move"}),
    "frank_no_antidiagonals": ({"test_lines", "test_evaluation", "test_terminal_test"},
                               {"test_getBoard", "test_alphabeta_counts"}),
    "grace_endless_deepening": ({"test_iterative_deepening_respects_the_budget"},
                                {"test_iterative_deepening_matches_fixed_depth"}),
    "heidi_losing_book": ({"test_opening_book_is_sound"}, {"test_book_move", "test_strength"}),
    "ivan_top_down": ({"test_freeIn", "test_free", "test_nextstates"}, {"test_getBoard"}),
    "judy_hostile": ({"test_shallow_order", "test_tournament"},
                     {"test_alphabeta_values", "test_play_game", "test_strength"}),
}


@pytest.fixture(scope="module")
def graded(graded_examples):
    return graded_examples("connect4")


def verdicts(out, student):
    data = json.loads((out / student / "results.json").read_text())
    return {t["number"]: t for t in data["tests"]}


@pytest.mark.slow
def test_every_example_is_graded(graded):
    rows, _ = graded
    folders = {p.name for p in (ROOT / "examples" / "connect4").iterdir() if p.is_dir()}
    assert set(rows) == folders


@pytest.mark.slow
def test_correct_submission_gets_full_marks(graded):
    rows, out = graded
    row = rows["ada_reference"]
    assert (float(row["score"]), float(row["max_score"])) == (FULL, FULL), \
        [t["output"] for t in verdicts(out, "ada_reference").values() if t["status"] != "passed"]
    assert row["status"] == "graded"


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(EXPECTED))
def test_wrong_submission_loses_points_for_the_right_reason(graded, student):
    rows, out = graded
    must_fail, must_pass = EXPECTED[student]
    tests = verdicts(out, student)
    assert float(rows[student]["score"]) < FULL
    assert rows[student]["status"] == "graded"
    for name in must_fail:
        assert tests[name]["status"] == "failed", (student, name)
        assert tests[name]["score"] == 0
    for name in must_pass:
        assert tests[name]["status"] == "passed", (student, name, tests[name]["output"][:400])


@pytest.mark.slow
def test_failures_say_what_went_wrong(graded):
    _, out = graded
    assert "timed out" in verdicts(out, "judy_hostile")["test_shallow_order"]["output"]
    assert "tried to start processes" in verdicts(out, "judy_hostile")["test_tournament"]["output"]
    budget = verdicts(out, "grace_endless_deepening")["test_iterative_deepening_respects_the_budget"]
    assert "timed out" in budget["output"] or "took" in budget["output"]
    book = verdicts(out, "heidi_losing_book")["test_opening_book_is_sound"]["output"]
    assert "throws away the game value" in book
    counts = verdicts(out, "bob_no_pruning")["test_alphabeta_counts"]["output"]
    assert "'prunings': 0" in counts
    # hidden tests do not reveal expected answers by default
    assert "expected: (hidden test" in counts


@pytest.mark.slow
def test_untouched_skeleton_scores_nothing(graded):
    rows, _ = graded
    assert float(rows["kim_untouched"]["score"]) == 0
