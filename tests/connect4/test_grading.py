"""Grade examples/connect4/ for real (PID namespace, full sandbox) and check every verdict.

Each wrong example is the reference with one deliberate bug (see
examples_build.py); it must lose points in the hidden test that catches that
bug, and keep the points of a check it should not affect. The single-function
bugs of bugs.py (issue 22) are examples too: each costs only its own function's
checks and the rubric's whole-program check (test_strength).

Issue 22 moved points: a check judges its function with the functions it relies
on played by the grader, so frank (lines) 33 -> 45, ivan (freeIn) 31 -> 45,
dan (search) 29 -> 35, eve (search) 26 -> 28, lena (own rules) 31 -> 33: their
bugs no longer cost pattern_score, evaluation, terminal_test, free, nextstates,
shallow_order, play_game or tournament.
"""

import json

import pytest

from tests.conftest import (ROOT, assert_blamed_only, bug_params, graded_example_names,
                            require_graded)
from tests.connect4 import bugs
from tests.connect4.bugs import BUGS, EXAMPLES

FULL = 50

# student -> (tests that must fail, tests that must pass)
EXPECTED = {
    "bob_no_pruning": ({"test_alphabeta_counts", "test_alphabeta_applies_the_order"},
                       {"test_alphabeta_values", "test_alphabeta_stops_at_finished_games"}),
    "carol_wrong_cut": ({"test_alphabeta_counts", "test_alphabeta_applies_the_order"},
                        {"test_alphabeta_values", "test_alphabeta_stops_at_finished_games"}),
    # a wrong search costs the search's checks; shallow_order, play_game and tournament
    # are judged with the grader's search
    "dan_off_by_one": ({"test_alphabeta_values", "test_alphabeta_counts"},
                       {"test_getBoard", "test_evaluation", "test_shallow_order",
                        "test_play_game", "test_tournament"}),
    "eve_past_won_games": ({"test_alphabeta_stops_at_finished_games", "test_alphabeta_counts"},
                           {"test_terminal_test", "test_book_move", "test_shallow_order",
                            "test_play_game"}),
    # wrong lines cost lines (and the whole program): pattern_score, evaluation and
    # terminal_test are judged with the grader's lines, pattern_score, evaluation
    "frank_no_antidiagonals": ({"test_lines"},
                               {"test_getBoard", "test_alphabeta_counts", "test_pattern_score",
                                "test_evaluation", "test_terminal_test", "test_play_game"}),
    "grace_endless_deepening": ({"test_iterative_deepening_respects_the_budget"},
                                {"test_iterative_deepening_matches_fixed_depth"}),
    "heidi_losing_book": ({"test_opening_book_is_sound"}, {"test_book_move", "test_strength"}),
    # issue 41: the README's "bremse == 0 (checked first: then terminal_test is not
    # called)", book_move's "a new list, never the book's own", iterative deepening's
    # "the best child of the previous depth is searched first at the root"
    "olga_terminal_first": ({"test_alphabeta_counts"},
                            {"test_alphabeta_values", "test_alphabeta_applies_the_order",
                             "test_alphabeta_stops_at_finished_games", "test_terminal_test"}),
    "pia_shares_the_book": ({"test_book_move"},
                            {"test_opening_book_is_sound", "test_tactics_win_in_1"}),
    "quinn_forgets_the_best": ({"test_iterative_deepening_matches_fixed_depth"},
                               {"test_alphabeta_values", "test_alphabeta_counts",
                                "test_iterative_deepening_respects_the_budget"}),
    # free and nextstates are judged with the grader's freeIn, the search and the player
    # with the grader's nextstates: a wrong freeIn costs freeIn (and the whole program)
    "ivan_top_down": ({"test_freeIn", "test_strength"},
                      {"test_getBoard", "test_free", "test_nextstates", "test_alphabeta_values",
                       "test_alphabeta_counts", "test_tactics_win_in_1", "test_play_game",
                       "test_tournament"}),
    "judy_hostile": ({"test_shallow_order", "test_tournament"},
                     {"test_alphabeta_values", "test_play_game", "test_strength"}),
    # a right search on its own copy of nextstates searches the wrong game in every
    # technique check (and asks the grader's evaluation about positions that game never
    # offered: refused, which costs the case, finished games included), and plays well
    # wherever the real rules are the game; shallow_order gets the grader's search
    "lena_own_rules": ({"test_alphabeta_values", "test_alphabeta_counts",
                        "test_alphabeta_applies_the_order",
                        "test_iterative_deepening_matches_fixed_depth",
                        "test_alphabeta_stops_at_finished_games"},
                       {"test_tactics_win_in_1", "test_tactics_forced_block",
                        "test_tactics_win_in_3", "test_strength", "test_play_game",
                        "test_tournament", "test_shallow_order"}),
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
    assert set(rows) == graded_example_names("connect4")


#: The reference, and correct code in other words: namedtuples for the pairs and triples
#: the handout asks for (issue 18), and a slow evaluation that remembers nothing (issue 20).
CORRECT = ("ada_reference", "mia_named_results", "nora_slow_but_correct")


@pytest.mark.slow
@pytest.mark.parametrize("student", CORRECT)
def test_correct_submission_gets_full_marks(graded, student):
    rows, out = graded
    row = rows[student]
    assert (float(row["score"]), float(row["max_score"])) == (FULL, FULL), \
        [t["output"] for t in verdicts(out, student).values() if t["status"] != "passed"]
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


def output(out, student, test):
    return verdicts(out, student)[test]["output"]


@pytest.mark.slow
def test_failures_say_what_went_wrong(graded):
    _, out = graded
    assert "s of CPU time" in output(out, "judy_hostile", "test_shallow_order")
    assert "tried to start processes" in output(out, "judy_hostile", "test_tournament")
    budget = output(out, "grace_endless_deepening",
                    "test_iterative_deepening_respects_the_budget")
    assert "of CPU time" in budget or "called evaluation" in budget \
        or "answers at most" in budget
    book = output(out, "heidi_losing_book", "test_opening_book_is_sound")
    assert "throws away the game value" in book
    counts = output(out, "bob_no_pruning", "test_alphabeta_counts")
    assert "which alpha-beta never visits (a cut-off missed before it?)" in counts
    # hidden tests do not reveal expected answers by default
    assert "expected: (hidden test" in counts
    lines = output(out, "frank_no_antidiagonals", "test_lines")
    assert "19 of the 25 lines are there (19 returned); missing: all 6 diagonals running " \
           "down to the left (starting at cells 3, 4, 5, 6, 13, 20)" in lines
    stops = output(out, "eve_past_won_games", "test_alphabeta_stops_at_finished_games")
    assert "where the game is already over" in stops
    bypass = output(out, "lena_own_rules", "test_alphabeta_counts")
    assert "which this check's nextstates never offered" in bypass


@pytest.mark.slow
def test_untouched_skeleton_scores_nothing(graded):
    rows, _ = graded
    assert float(rows["kim_untouched"]["score"]) == 0


@pytest.mark.slow
@pytest.mark.parametrize("function", bug_params(bugs))
def test_a_bug_costs_only_its_own_functions_points(graded, function):
    """Issue 22: one wrong function loses points in its own checks and in the
    whole-program check only; every other function is judged with the grader's
    helpers and keeps its points."""
    require_graded(bugs, function)
    _, out = graded
    student = EXAMPLES.get(function, f"bug_{function}")
    lost = {name for name, test in verdicts(out, student).items() if test["status"] != "passed"}
    assert_blamed_only("connect4", function, BUGS, lost)


@pytest.mark.slow
def test_the_feedback_says_whose_mistake_it_is(graded):
    _, out = graded
    free = output(out, "bug_free", "test_free")
    assert "this check ran free with the grader's own freeIn, so the mistake is in free " \
           "itself" in free
    assert "got: returned [35, 36, 37, 38, 39, 40]" in free and "state = []" in free
    counts = output(out, "carol_wrong_cut", "test_alphabeta_counts")
    assert "this check ran maximize/minimize with the grader's own nextstates, " \
           "terminal_test, evaluation, so the mistake is in maximize/minimize itself" in counts
    # the whole program runs the student's own helpers: its failure names theirs
    strength = output(out, "bug_evaluation", "test_strength")
    assert "this may follow from an earlier failure: evaluation returned a wrong value" \
           in strength
    # the student's own answer, never the grader's wrapper of it
    game = output(out, "bug_play_game", "test_play_game")
    assert "got: returned ([38, " in game and "'found'" not in game
    assert "'found'" not in output(out, "carol_wrong_cut", "test_alphabeta_counts")
