"""The search module's shared pieces as the suites use them (autograder/checking/search.py):
the rule's run (`Expected`, `calls_allowed`) and the pictures of a failing search that
negamax (a make/undo board's log) and muehle (alpha_beta's value_ab calls) draw with
`search.picture`, each kept under outputs/trees.py's contract. In process, with the
suites' own cases and the reference standing in for the student.
"""

from __future__ import annotations

import pytest

from autograder.checking import search
from autograder.checking.boards import MAX_LOG, InstrumentedGame, MoveTree
from autograder.grading.student import Outcome
from autograder.outputs import trees


def test_the_rules_run_reads_its_result_and_visits_from_its_log():
    log = [("n", "r"), ("e", "a"), ("n", "b"), ("e", "b0"), ("e", "b")]
    want = search.Expected(("b", 3), log, {"nodes": 4})
    assert (want.best, want.value) == ("b", 3)
    assert want.view.visits == ("r", "a", "b", "b0") and want.view.expanded == ("r", "b")
    assert search.calls_allowed(10) == 280 and search.calls_allowed(10, 4, 100) == 140


def test_a_boards_log_holds_each_expansion_and_evaluation_by_its_path():
    board = InstrumentedGame(MoveTree([[3, 5], [2]]))
    for move in (0, 0):
        board.makeMove(move)
    board.evaluate()
    board.undoMove(0)
    board.makeMove(1)           # the same position again: no second expansion
    board.evaluate()
    assert board.log == [("n", ()), ("n", (0,)), ("e", (0, 0)), ("e", (0, 1))]
    assert board.expanded == 2 and MAX_LOG >= 1000


@pytest.fixture(scope="module")
def negamax():
    from autograder.suites.negamax import test_hidden
    return test_hidden


def test_negamax_draws_a_search_that_stopped_early_beside_alpha_beta(negamax):
    def run_of(search_, student_log):
        want, record = negamax.expected(search_)
        return negamax.Run(search_, None, None, None, {**record, "log": student_log(record)},
                           want, record)
    whole = (run_of(s, lambda record: record["log"]) for s in negamax.tree_searches())
    pruned = next(r for r in whole if len(r.record["log"]) > 6 and
                  negamax.search_picture(r)["cut"])     # alpha-beta skips a subtree here
    run = run_of(pruned.search, lambda record: record["log"][:4])
    picture = trees.normalized(negamax.search_picture(run))
    assert picture["nodes"][0]["label"] == "·" and picture["cut"]
    assert [kind for kind, _id in picture["rule"]["calls"]][:1] == ["expand"]
    assert len(picture["student"]["calls"]) == 4 < len(picture["rule"]["calls"])
    leaves = [n for n in picture["nodes"] if "value" in n]
    assert leaves and all(type(n["value"]) is int for n in leaves)
    hidden = trees.kept(negamax.search_picture(run), reveal=False)
    assert hidden["first_difference"] == 4 and not hidden["rule"]["calls"]


def test_muehle_draws_a_cut_scenario_with_the_windows_passed_down():
    from autograder.suites.muehle import test_hidden as muehle
    case = muehle.cut_cases()[1]            # a value equal to beta stops the search
    late = muehle.cut_search(*case.args)    # a search that cuts one child late
    late.record.calls[:] = case.expected["calls"] + [
        next(call for call in _every_call(late) if call[0] not in
             {c[0] for c in case.expected["calls"]})]
    picture = trees.normalized(muehle.cut_picture(case, Outcome(ok=True, value=0.25), late))
    rule, student = picture["rule"], picture["student"]
    assert len(student["calls"]) == len(rule["calls"]) + 1
    assert picture["cut"] and student["calls"][-1][1] in picture["cut"]
    alpha, beta = case.args[3].window
    first = rule["calls"][1][1]
    assert rule["windows"][first] == [alpha, beta]


def _every_call(search_):
    """value_ab's calls of a search that tries every successor (its own window kept)."""
    state, player = search_.args[0], search_.args[1]
    from autograder.suites.muehle.games import as_state
    game = search_.watch.game
    return [(s, 3 - player, -1, 1, 1) for s in game.successors(as_state(state), player)]
