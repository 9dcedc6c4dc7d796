"""connect4's pictures of a failing search (#45), in process: the player on real rules
(games.RealGame), iterative deepening's two checks (one search of the deepening cut
from its log) and shallow_order's searches, each drawn beside the rule's and kept
under outputs/trees.py's contract. The reference's own runs stand in for the
student's, changed where a student's would be wrong.
"""

from __future__ import annotations

from autograder.checking import search
from autograder.grading.student import Outcome
from autograder.outputs import trees
from autograder.suites.connect4 import games, test_hidden as suite

ref = suite.ref


def _kept_hidden(picture) -> dict:
    hidden = trees.kept(picture, reveal=False)
    assert hidden is not None and not hidden["rule"]["calls"] and not hidden["cut"]
    return hidden


def test_the_player_on_real_rules_is_drawn_beside_the_rules_move():
    state = tuple(suite.tactics()["win3"][0]["state"])
    want = games.reference_move(state, 3)
    game = games.RealGame([state])
    with games.reference_on(game, ("nextstates", "evaluation")):
        # a player that searches one ply less than the rule's: another search
        ref.computer_move(list(state), 2, order=ref.centre_first)
    assert game.log and game.log != want.log and game.log[:2] == want.log[:2]
    picture = trees.normalized(suite.move_picture(state, game))
    assert picture["nodes"][0]["label"] == "·" and picture["nodes"][0]["parent"] is None
    assert len(picture["rule"]["calls"]) == min(len(want.log), search.PICTURE_CALLS)
    assert picture["student"]["calls"][:2] == picture["rule"]["calls"][:2]
    assert picture["max_to_move"] == (len(state) % 2 == 0)
    assert trees.split_of(picture) == search.first_difference(game.log, want.log)
    assert _kept_hidden(suite.move_picture(state, game))["first_difference"] == \
        trees.split_of(picture)


def test_the_real_game_answers_as_the_reference_and_logs_its_calls():
    state = list(suite.tactics()["block"][0]["state"])
    game = games.RealGame([tuple(state)])
    assert game.nextstates(state) == ref.nextstates(state)
    assert game.evaluation(state) == ref.evaluation(state)
    assert game.log == [("n", tuple(state)), ("e", tuple(state))]
    assert [key for key in game.successors(tuple(state))] == \
        [tuple(child) for child in ref.centre_first(ref.nextstates(state))]


def test_a_deepening_is_cut_into_its_searches_one_per_depth():
    salt, state, depth, most, _calls = suite.deepening_cases()[0].args
    want = suite.reference_deepening(salt, state, most)
    found = search.iterations(want.log, tuple(state))
    assert len(found) == depth and sum(map(len, found)) == len(want.log)
    assert all(part[:2] == [("e", tuple(state)), ("n", tuple(state))] for part in found)


def test_a_deepening_that_does_not_put_the_best_first_is_drawn_at_the_deepest_depth():
    salt, state, depth, most, calls = suite.deepening_cases()[0].args
    game = games.SubsetGame(salt, [state], search.calls_allowed(calls))
    with games.reference_on(game):      # no order: the best child is not searched first
        found = ref.iterative_deepening(list(state), 10 ** 9, game.evaluation,
                                        clock=games.virtual_clock(game), order=None,
                                        max_bremse=most)
    outcome = Outcome(ok=True, value=list(found))
    picture = trees.normalized(suite.deepening_picture(salt, state, game, depth, outcome,
                                                       most=most))
    rule = search.iterations(suite.reference_deepening(salt, state, most).log, tuple(state))
    assert len(picture["rule"]["calls"]) == len(rule[-1][:search.PICTURE_CALLS])
    assert picture["rule"]["result"] == suite.reference_deepening(salt, state, most).value
    assert picture["student"]["result"] == found[1]
    assert trees.split_of(picture) is not None
    assert "first_difference" in _kept_hidden(
        suite.deepening_picture(salt, state, game, depth, outcome, most=most))


def test_a_deepening_that_ignores_the_budget_is_drawn_past_where_the_rule_stops():
    salt, state, budget, depth, _allowed, calls = suite.virtual_budget_cases()[0].args
    game = games.SubsetGame(salt, [state], search.calls_allowed(calls))
    with games.reference_on(game):      # all the time in the world: the next depth finished
        found = ref.iterative_deepening(list(state), 10 ** 9, game.evaluation,
                                        clock=games.virtual_clock(game), max_bremse=depth + 1)
    picture = trees.normalized(suite.deepening_picture(
        salt, state, game, depth + 1, Outcome(ok=True, value=list(found)), budget=budget))
    rule, student = picture["rule"]["calls"], picture["student"]["calls"]
    assert 0 < len(rule) < len(student) and student[:len(rule)] == rule
    assert trees.split_of(picture) == len(rule)


def test_shallow_order_is_drawn_with_the_searches_it_asked_for():
    salt, children, bremse, calls = suite.shallow_cases()[0].args
    game = games.SubsetGame(salt, children, search.calls_allowed(calls))
    with games.reference_on(game):      # one ply deeper than it was told
        ref.shallow_order(children, bremse + 1, game.evaluation)
    picture = trees.normalized(suite.shallow_picture(salt, children, bremse, game))
    root = picture["nodes"][0]
    kids = [node for node in picture["nodes"] if node["parent"] == root["id"]]
    assert [node["label"] for node in kids] == [str(c[-1] % 7) for c in children]
    assert len(picture["student"]["calls"]) > len(picture["rule"]["calls"]) > 0
    assert trees.split_of(picture) is not None
    _kept_hidden(suite.shallow_picture(salt, children, bremse, game))
