"""The muehle hidden suite: its trusted kit matches the reference, and it grades the
example submissions for real (in a PID namespace), each for the right reason."""

from __future__ import annotations

import json

import pytest

from autograder import slices
from autograder.grading.runner import load_rubric

import autograder.suites.muehle.test_hidden as hidden

ref, kit = hidden.ref, hidden.kit
MAX = load_rubric(slices.load("muehle").suite_dir).max_score

# example -> (the hidden tests it must fail, the only other tests it may fail)
WRONG = {
    "bob_no_flying": ({"test_next_states_flying"}, {"test_strength"}),
    "carol_takes_from_mills": ({"test_next_states_removal"}, {"test_strength"}),
    "dave_key_without_depth": ({"test_memoize", "test_value_minimax_cache_key"},
                               {"test_value_minimax_uses_its_cache", "test_value_minimax",
                                "test_best_move_minimax", "test_best_move_minimax_is_random",
                                "test_strength"}),
    "erin_window_blind_cache": ({"test_value_ab_respects_the_window"},
                                {"test_alpha_beta_equals_minimax", "test_best_move_ab",
                                 "test_alpha_beta_window_contract", "test_strength"}),
    "frank_no_move_ordering": ({"test_alpha_beta_orders_moves"}, {"test_alpha_beta_prunes"}),
    "grace_no_deepening": ({"test_best_move_ab_deepens"}, set()),
    "heidi_no_cutoff": ({"test_alpha_beta_prunes"},
                        {"test_best_move_ab", "test_best_move_ab_deepens", "test_strength",
                         "test_alpha_beta_window_contract"}),
    "ivan_endless_minimax": ({"test_best_move_minimax", "test_best_move_minimax_is_random"},
                             set()),
}


# ------------------------------------------------------------------ the trusted side
def test_the_kit_rules_equal_the_reference():
    """The search probes install the kit's rules into the student's module: they must be
    the reference's rules exactly, on positions from every category."""
    pairs = [pair for group in hidden.pool().values() for pair in group[::4]]
    assert len(pairs) > 400
    for state, player in pairs:
        mine = {kit.game_to_tuple(s) for s in kit.game_next_states(state, player)}
        assert mine == hidden.successors(state, player), state
        assert all(type(s) is list for s in kit.game_next_states(state, player))
        assert kit.game_finished(state, player) == ref.finished(state, player), state
        assert kit.game_utility(state, player) == ref.utility(state, player), state
        assert kit.game_heuristic(state, player) == ref.heuristic(state, player), state


def test_the_position_pool_covers_every_phase():
    pool = hidden.pool()
    assert {name: len(found) >= 150 for name, found in pool.items()} == \
        dict.fromkeys(pool, True)
    assert all(hidden.phase(s, p) == "flying" for s, p in pool["flying"])
    assert all(not ref.next_states(s, p) for s, p in pool["over"])
    assert {ref.utility(s, p) for s, p in pool["over"]} == {-1, 0, 1}
    assert all(hidden.protection_matters(s, p) for s, p in pool["removal"])
    all_in_mills = [
        (s, p) for s, p in pool["removal"]
        if all(hidden.in_mill(s[0], q) for q in range(24) if s[0][q] == ref.opponent(p))]
    assert len(all_in_mills) >= 20
    blocked = [(s, p) for s, p in pool["over"]
               if s[2] < ref.DRAW_PLIES and min(hidden.kit._stones(s, W) for W in (1, 2)) >= 3]
    assert blocked, "the pool has no position where the player to move is blocked"
    assert len(hidden.everything()) >= 2000


def test_expected_orderings_are_discriminating():
    """The ordering cases plant distinct values, so sorting by any wrong key (another depth,
    the wrong player, the reverse order, no sort at all) gives another order."""
    for case in hidden.order_cases():
        planted, state, player, depth = case.args
        order = [kit.game_to_tuple(s) for s in kit.game_next_states(state, player)]
        assert case.expected != order and case.expected != order[::-1]
        assert sorted(map(repr, case.expected)) == sorted(map(repr, order))


def test_cache_key_cases_tell_depths_and_players_apart():
    for case in hidden.key_cases():
        assert len(set(case.expected)) > 1 or len(case.expected) < 2


# ------------------------------------------------------------------ grading the examples
def _results(out, student):
    data = json.loads((out / student / "results.json").read_text())
    return {t["number"]: t for t in data["tests"]}


@pytest.mark.slow
def test_correct_submission_gets_full_marks(graded_examples):
    rows, out = graded_examples("muehle")
    assert float(rows["ada_correct"]["score"]) == MAX == float(rows["ada_correct"]["max_score"])
    assert rows["ada_correct"]["status"] == "graded"


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(WRONG))
def test_wrong_submission_loses_points_for_the_right_reason(graded_examples, student):
    rows, out = graded_examples("muehle")
    must, may = WRONG[student]
    tests = _results(out, student)
    failed = {name for name, t in tests.items() if t["status"] == "failed"}
    assert must <= failed, f"{student} should fail {must - failed}"
    assert failed <= must | may, f"{student} failed unrelated checks: {failed - must - may}"
    assert float(rows[student]["score"]) < MAX


@pytest.mark.slow
def test_feedback_names_the_cause(graded_examples):
    rows, out = graded_examples("muehle")
    assert "misses" in _results(out, "bob_no_flying")["test_next_states_flying"]["output"]
    assert "no legal move leads to" in \
        _results(out, "carol_takes_from_mills")["test_next_states_removal"]["output"]
    assert "alpha_beta was not called" in \
        _results(out, "erin_window_blind_cache")["test_value_ab_respects_the_window"]["output"]
    assert "timed out" in \
        _results(out, "ivan_endless_minimax")["test_best_move_minimax"]["output"]
    assert int(rows["ivan_endless_minimax"]["timeouts"]) >= 1
    assert "expected: (hidden test" in \
        _results(out, "bob_no_flying")["test_next_states_flying"]["output"]
