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
    assert board.expanded == 2 and MAX_LOG >= 1000 and board.broken_at is None


def test_a_board_remembers_how_many_calls_came_before_its_first_broken_rule():
    board = InstrumentedGame(MoveTree([[3, 5], [2]]))
    board.makeMove(0)
    board.evaluate()
    board.makeMove(1)           # a move made from there: (0,) is expanded
    board.evaluate()
    with pytest.raises(ValueError):
        board.undoMove(0)       # not the last move made: the first broken rule
    board.evaluate()
    assert board.broken_at == 4 and len(board.log) == 5
    assert board.violation_count == 2      # the undo out of order, and the tree refusing it


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
    assert picture["rule"]["result"] == run.want["value"] and "result" not in picture["student"]
    assert [kind for kind, _id in picture["rule"]["calls"]][:1] == ["expand"]
    assert len(picture["student"]["calls"]) == 4 < len(picture["rule"]["calls"])
    leaves = [n for n in picture["nodes"] if "value" in n]
    assert leaves and all(type(n["value"]) is int for n in leaves)
    hidden = trees.kept(negamax.search_picture(run), reveal=False)
    assert hidden["first_difference"] == 4 and not hidden["rule"]["calls"]


def _no_undo_on_cut(board, depth, alpha, beta):
    """explore with a broken make/undo discipline: a cut returns with its move still made."""
    moves = board.getMoves()
    if depth <= 0 or not moves:
        value = board.evaluate()
        return value if board.getSide() == 1 else -value
    for move in moves:
        board.makeMove(move)
        value = -_no_undo_on_cut(board, depth - 1, -beta, -alpha)
        if value >= beta:
            return beta
        board.undoMove(move)
        alpha = max(alpha, value)
    return alpha


def _run(negamax, search_, searcher):
    """A Run of `search_` as `searcher(board, rng)` does it, in process, on the grader's board."""
    board, chooser = search_.game.board(), search_.chooser()
    try:
        answer = searcher(board, chooser)
    except ValueError:          # the board refused a broken rule: its records say which
        answer = None
    want, want_record = negamax.expected(search_)
    mine = Outcome(ok=True, value=answer)
    return negamax.Run(search_, mine, mine, None, negamax.records(board), want, want_record,
                       chose=chooser.last if chooser else None)


@pytest.mark.parametrize("kind", ["tree", "board"])
def test_negamax_draws_explore_up_to_where_it_left_the_board_changed(negamax, kind):
    searches = negamax.tree_searches() if kind == "tree" else negamax.explore_searches()
    runs = (_run(negamax, s, lambda board, _rng, s=s: _no_undo_on_cut(board, *s.args))
            for s in searches)
    broken = next(r for r in runs if negamax.discipline(r) and r.record["broken_at"])
    picture = trees.normalized(negamax.discipline_picture(broken))
    rule, student = picture["rule"]["calls"], picture["student"]["calls"]
    assert len(student) == broken.record["broken_at"] == len(rule) + 1
    assert student[:-1] == rule and trees.split_of(picture) == len(student) - 1
    hidden = trees.kept(negamax.discipline_picture(broken), reveal=False)
    assert not hidden["rule"]["calls"] and not hidden["cut"]
    assert hidden["first_difference"] == len(student) - 1
    assert hidden["student"]["calls"] == student


def test_negamax_draws_the_searches_of_its_played_edge_and_choice_checks(negamax):
    """getEvaluatedMoves on edge cases and getBestMove over seeds search with the grader's
    explore on the grader's board: the failure draws that search (a wrong answer here)."""
    ref = negamax.ref
    edge = [negamax.dataclasses.replace(s, played=True) for s, _ in negamax.edge_searches()]
    choice = [negamax.Search("best", game, (depth, 3), played=True)
              for game, depth in negamax.choice_games()[:2]]
    for search_ in edge[2:] + choice:      # (edge[:2]: a decided game, depth 0: no search)
        depth = search_.args[0]
        if search_.kind == "best":
            run = _run(negamax, search_, lambda board, rng: ref.NegaMax(board).getBestMove(
                depth, rng))
        else:
            run = _run(negamax, search_, lambda board, _rng: ref.NegaMax(
                board, depth).getEvaluatedMoves())
        picture = trees.normalized(negamax.pictured(run))
        assert picture["nodes"][0]["label"] == "·" and len(picture["nodes"]) > 1
        assert picture["student"]["calls"] == picture["rule"]["calls"] != []
        # the root shows both answers (the reference answered for the student here)
        assert picture["student"]["result"] == picture["rule"]["result"] is not None
        hidden = trees.kept(negamax.pictured(run), reveal=False)
        assert not hidden["rule"]["calls"] and hidden["student"]["calls"]


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


# ------------------------------------------------------------------ muehle: every search check
# Each picture is made as its check makes it for a failing run: the reference does the
# student's part on the check's own grader objects (watch, recorder, played functions),
# and its record is then cut or reordered the way a wrong search would leave it.
@pytest.fixture(scope="module")
def muehle():
    from autograder.suites.muehle import test_hidden
    return test_hidden


def _shown(picture, split):
    """The picture kept (it meets the contract), and kept without the rule's part: only
    the student's calls and where they first depart from the rule's (`split`)."""
    made = trees.normalized(picture)
    assert made["rule"]["calls"] and made["nodes"][0]["label"] == "·"
    assert trees.split_of(made) == split
    hidden = trees.kept(picture, reveal=False)
    assert not hidden["rule"]["calls"] and hidden["first_difference"] == split
    assert not hidden["rule"]["windows"] and "result" not in hidden["rule"]
    return made


def _ran(search_):
    """A search of the suite with the reference doing the student's part."""
    search_.expected()
    return search_


def test_muehle_draws_memoised_minimax_on_the_grader_game(muehle):
    case = next(c for c in muehle.minimax_cases() if c.args[1][0][2] == 2)
    student = _ran(muehle.minimax_search(*case.args))
    del student.watch.log[3:]                           # a search that stopped early
    made = _shown(muehle.minimax_picture(case, Outcome(ok=True, value=[0.5]), student), 3)
    assert len(made["rule"]["calls"]) > 3 and made["student"]["result"] == 0.5
    assert made["rule"]["result"] == case.expected[0]
    assert any(kind == "expand" for kind, _id in made["rule"]["calls"][1:])
    leaves = [n for n in made["nodes"] if "value" in n]
    assert leaves and all(-1 <= n["value"] <= 1 for n in leaves)
    # a child is labelled by its move: "5" (placed), "3-4" (moved), "x7" (took)
    assert all(n["label"] == "·" or n["label"][0].isdigit() for n in made["nodes"])


def test_muehle_draws_queries_in_turn_under_one_node(muehle):
    case = next(c for c in muehle.key_cases() if len({p for _s, p, _d in c.args[1]}) == 2)
    student = _ran(muehle.minimax_search(*case.args))
    student.watch.log.reverse()
    made = _shown(muehle.minimax_picture(case, Outcome(ok=True, value=[0, 0]), student), 1)
    top = made["nodes"][0]["id"]
    assert sorted(n["label"] for n in made["nodes"] if n["parent"] == top) == ["B", "W"]
    assert made["rule"]["calls"][0] == ["expand", top] and not made["max_to_move"]


def test_muehle_draws_both_calls_of_the_cache_check(muehle):
    case = muehle.cache_cases()[0]
    game, state, player = case.args
    first, second = (_ran(muehle.minimax_search(game, [(state, player, 3)])).watch
                     for _ in range(2))             # the second call searched again
    made = _shown(muehle.cache_picture(case, Outcome(ok=True, value={"value": 0}), first,
                                       second), len(first.log))
    assert len(made["student"]["calls"]) > len(made["rule"]["calls"])
    assert "again" in made["caption"]


def test_muehle_draws_best_move_minimax_with_the_values_it_was_given(muehle):
    case = muehle.best_minimax_cases()[0]               # a case with the grader's rng
    assert case.args[4] is not None
    student = _ran(muehle.best_minimax_search(*case.args[:4], None))
    asked = student.stand_ins["value_minimax"].calls
    asked[1:] = asked[2:]                               # one successor never valued
    made = _shown(muehle.best_minimax_picture(case, Outcome(ok=True, value=[0.5, None]),
                                              student), 1)
    (_game, table, _best), state, player, depth, _seed = case.args
    assert made["rule"]["result"] == table[(state, player, depth)]
    assert len([n for n in made["nodes"] if "value" in n]) == len(made["nodes"]) - 1
    assert len(made["student"]["calls"]) == len(made["rule"]["calls"]) - 1


def test_muehle_draws_value_ab_widening_the_window(muehle):
    state, player = muehle.search_positions(1, 31, 20, ("moving",))[0]
    args = (state, player, {(state, player, 2): (0.25, -0.25, 0.25)}, (-1, 1), 0.125)
    rule = _ran(muehle.value_ab_search(*args))
    case = muehle.Case("value_ab", args, None, (rule.expected(), None))
    student = muehle.value_ab_search(*args)             # reused the narrow entry
    made = _shown(muehle.widening_picture(case, Outcome(ok=True, value={"result": 0.25}),
                                          student), 1)
    assert made["rule"]["windows"] == {made["nodes"][0]["id"]: [-1, 1]}
    assert made["student"]["calls"] == [["expand", made["nodes"][0]["id"]]]


def test_muehle_draws_alpha_beta_trying_moves_in_another_order(muehle):
    case = muehle.order_cases()[0]
    student = _ran(muehle.order_search(*case.args))
    student.record.calls.reverse()
    made = _shown(muehle.order_picture(case, Outcome(ok=True, value=1), student), 1)
    values = [n["value"] for n in made["nodes"][1:]]
    assert len(values) == len(case.expected) and len(set(values)) > 2


def test_muehle_draws_best_move_ab_over_its_iterations(muehle):
    case = next(c for c in muehle.deepening_cases() if c.args[2] == 3)   # three iterations
    student = _ran(muehle.deepening_search(*case.args))
    children = len(case.expected["children"])
    del student.record.calls[children:]                 # no deepening: one iteration
    made = _shown(muehle.deepening_picture(case, Outcome(ok=True, value=[0, None]), student),
                  1 + children)
    assert len(made["rule"]["calls"]) == 1 + 3 * children
    assert set(made["rule"]["windows"]) == {n["id"] for n in made["nodes"][1:]}


def test_muehle_draws_alpha_beta_on_the_grader_game(muehle):
    case = muehle.ab_cases()[0]
    student = _ran(muehle.ab_search(*case.args))
    student.watch.log.insert(2, student.watch.log[1])   # a call made twice
    made = _shown(muehle.ab_picture(case, Outcome(ok=True, value=0), student), 2)
    assert made["rule"]["result"] == case.expected["value"]
