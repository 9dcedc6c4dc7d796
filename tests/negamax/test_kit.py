"""The negamax suite's trusted side: its boards, trees, records and plans.

Everything here lives in the grader's process (the student's search reaches it
only through a proxy), so these tests run it in process, against the
reference and an independent model.
"""

import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wrong_variants as wv  # noqa: E402

from autograder.checking import boards  # noqa: E402
from autograder.checking.boards import (MAX_LOG, MAX_VIOLATIONS,  # noqa: E402
                                        InstrumentedGame, MoveTree, nested_tree, tree_snapshot)
from autograder.suites.negamax import games  # noqa: E402
from autograder.suites.negamax import test_hidden as suite  # noqa: E402
from autograder.suites.negamax.games import KitBoard, Twist  # noqa: E402

ref = wv.load_reference()
INF = math.inf
FIELDS = wv.reachable_fields(ref)


def explore(board, depth, alpha=-INF, beta=INF, module=ref):
    searcher = module.NegaMax(board)
    return searcher.explore(depth, alpha, beta), searcher.treeNodeCounter


# -- the plain board ---------------------------------------------------------------
def test_kit_board_follows_the_handout_rules_on_every_position():
    assert len(FIELDS) == 5478 and games.positions() == tuple(
        sorted(FIELDS, key=lambda c: (games.marks(c), c)))
    for cells in FIELDS:
        mine, theirs = KitBoard(cells), ref.TicTacToe(wv.rows(cells))
        assert mine.getMoves() == theirs.getMoves(), cells
        assert mine.evaluate() == theirs.evaluate(), cells
        assert mine.getSide() == theirs.getSide(), cells
        for move in mine.getMoves():
            mine.makeMove(move)
            theirs.makeMove(move)
            assert mine.cells == [c for row in theirs.field for c in row]
            assert mine.evaluate() == theirs.evaluate()
            mine.undoMove(move)
            theirs.undoMove(move)
            assert tuple(mine.cells) == cells and mine.key == KitBoard(cells).key


@pytest.mark.parametrize("move", [(3, 0), (0, -1), [0, 0], (0.0, 1), "a1", (True, 0), None])
def test_kit_board_refuses_what_is_not_a_cell(move):
    board = KitBoard((0,) * 9)
    with pytest.raises(ValueError):
        board.makeMove(move)
    assert board.cells == [0] * 9


# -- twisted boards: games only the grader knows -------------------------------------
TWISTS = [Twist(1), Twist(2, keep=0.5), Twist(3, keep=0.6, noise=9), Twist(4, noise=3)]


@pytest.mark.parametrize("twist", TWISTS, ids=lambda t: f"salt{t.salt}")
def test_a_twist_is_a_game(twist):
    """Moves are legal cells, at least one while the game is open, none once it is
    decided, the same on every visit; makeMove refuses a move not offered."""
    for cells in FIELDS[::7]:
        board, legal = KitBoard(cells, twist), KitBoard(cells).getMoves()
        moves = board.getMoves()
        assert set(moves) <= set(legal) and len(set(moves)) == len(moves)
        assert bool(moves) == bool(legal)
        if twist.keep == 1:
            assert sorted(moves) == sorted(legal)
        assert KitBoard(cells, twist).getMoves() == moves
        assert board.evaluate() == KitBoard(cells, twist).evaluate()
        if not legal:
            assert board.evaluate() == KitBoard(cells).evaluate()   # decided: the real value
        elif twist.noise:
            assert -twist.noise <= board.evaluate() <= twist.noise
        for move in set(legal) - set(moves):
            with pytest.raises(ValueError):
                board.makeMove(move)
            assert tuple(board.cells) == cells


def test_twists_make_other_games():
    """Orders, subsets and scores of their own change what a search sees: the
    reference on plain tic-tac-toe (a search using its own rules, or a copied
    reference) gets the work, the values or both wrong on most searches."""
    searches = suite.explore_searches()
    differs = values = 0
    for search in searches:
        want_answer, want_record = suite.expected(search)
        plain = InstrumentedGame(KitBoard(search.game.cells), snapshot=games.board_snapshot)
        value, nodes = explore(plain, *search.args)
        record = plain.summary()
        values += value != want_answer["value"]
        differs += (value, nodes, record["made"]) != (want_answer["value"], want_answer["nodes"],
                                                      want_record["made"])
    # (Those that agree are late positions with one or two moves in the same order.)
    assert differs >= 0.85 * len(searches), (differs, len(searches))
    assert values >= 0.2 * len(searches), (values, len(searches))


# -- trees -------------------------------------------------------------------------
def test_tree_game_moves_are_tokens_and_anything_else_is_refused():
    tree = boards.token_tree([[3, 12, 8], [2, 4, 6]], {(0,): 5}, seed=1, shift=2)
    game = MoveTree(tree, first=2)
    moves = game.getMoves()
    assert len(moves) == 2 and all(isinstance(m, str) for m in moves)
    assert game.getSide() == 2 and game.evaluate() == 0 + 2     # the root's default 0, shifted
    for bad in (0, 1, [moves[0]], {"a": 1}, "zz0", None):
        with pytest.raises(ValueError):
            game.makeMove(bad)
    game.makeMove(moves[0])
    assert game.getSide() == 1 and game.evaluate() == 5 + 2
    inner = game.getMoves()
    assert len(inner) == 3 and not set(inner) & set(moves)
    with pytest.raises(ValueError):
        game.undoMove(inner[0])
    game.makeMove(inner[1])
    assert game.getMoves() == [] and game.evaluate() == 12 + 2
    game.undoMove(inner[1])
    game.undoMove(moves[0])
    assert game.path == [] and tree_snapshot(game) == tree_snapshot(MoveTree(tree))


def test_tokens_and_shifts_keep_the_work_of_the_fixed_shapes():
    """A shifted value order and fresh tokens change nothing about how alpha-beta
    searches a fixed shape: the same nodes, evaluations and cut-offs."""
    for name, nested, static, first in games.FIXED_SHAPES:
        for depth in (1, 2, 3, 4):
            plain = InstrumentedGame(MoveTree(nested, static, first), snapshot=tree_snapshot)
            _, nodes = explore(plain, depth)
            tokens = InstrumentedGame(MoveTree(boards.token_tree(nested, static, 9, shift=-5),
                                               first=first), snapshot=tree_snapshot)
            _, token_nodes = explore(tokens, depth)
            assert nodes == token_nodes, (name, depth)
            assert plain.counts == tokens.counts, (name, depth)


def test_random_trees_are_seeded_varied_and_small():
    assert boards.tree_size(boards.random_tree(5, 3)) == boards.tree_size(boards.random_tree(5, 3))
    trees = [g for g in games.trees() if g.name.startswith("random")]
    assert len(trees) == games.RANDOM_TREES
    assert len({boards.draw_tree(g.tree) for g in trees}) == len(trees)
    assert all(3 <= boards.tree_depth(g.tree) and boards.tree_size(g.tree) <= 60 for g in trees)
    assert {g.first for g in trees} == {1, 2}
    # Decided positions above the deepest ply occur, so "no moves" is tested too.
    assert any(not child.children for g in trees for child in g.tree.children.values())


def test_draw_tree_shows_every_move_and_value():
    tree = nested_tree([[1, 2], 3], {(0,): 7}, token=lambda path, i: f"m{len(path)}{i}")
    assert boards.draw_tree(tree).splitlines() == [
        "root: evaluate 0", "  m00: evaluate 7", "    m10: decided 1", "    m11: decided 2",
        "  m01: decided 3"]


# -- the records --------------------------------------------------------------------
def test_records_count_the_reference_work_exactly():
    # The textbook tree: 4 expanded nodes, 7 of 9 leaves evaluated, 10 moves made.
    game = InstrumentedGame(MoveTree(*wv.TREES[0]), snapshot=tree_snapshot)
    assert explore(game, 2) == (3, 4)
    record = game.summary()
    assert record["expanded"] == 4 and record["counts"]["evaluate"] == 7
    assert record["counts"]["makeMove"] == record["counts"]["undoMove"] == 10
    assert record["made"] == [0, 0, 1, 2, 1, 0, 2, 0, 1, 2]
    assert record["restored"] and not record["violations"] and record["max_ply"] == 2


def test_expanded_positions_equal_the_reference_node_counter():
    for cells in FIELDS[::41]:
        for depth in (1, 2, 3):
            game = InstrumentedGame(KitBoard(cells, Twist(7)), snapshot=games.board_snapshot)
            _, nodes = explore(game, depth)
            assert game.expanded == nodes, (cells, depth)


def test_records_see_broken_discipline_and_are_capped():
    game = InstrumentedGame(KitBoard((0,) * 9), snapshot=games.board_snapshot)
    game.makeMove((0, 0))
    game.makeMove((1, 0))
    game.undoMove((0, 0))                        # not the last move
    assert game.violations and not game.restored()
    assert game.summary()["pending"] == ["(1, 0)"]
    with pytest.raises(ValueError):
        game.makeMove((1, 0))                    # taken: not offered, and refused
    for _ in range(MAX_VIOLATIONS * 3):
        with pytest.raises(ValueError):
            game.undoMove((2, 2))
    assert len(game.violations) == MAX_VIOLATIONS and game.violation_count > MAX_VIOLATIONS
    big = InstrumentedGame(MoveTree(nested_tree([1])), snapshot=tree_snapshot)
    for _ in range(MAX_LOG + 10):
        big.makeMove(0)
        big.undoMove(0)
    assert len(big.made) == MAX_LOG and big.counts["makeMove"] == MAX_LOG + 10


def test_a_wrong_search_shows_in_the_records():
    plain = wv.load_variant("no_pruning")
    cells = (1, 2, 0, 0, 1, 0, 0, 2, 0)
    good = InstrumentedGame(KitBoard(cells, Twist(3)), snapshot=games.board_snapshot)
    bad = InstrumentedGame(KitBoard(cells, Twist(3)), snapshot=games.board_snapshot)
    assert explore(good, 9)[0] == explore(bad, 9, module=plain)[0]
    assert bad.counts["evaluate"] > good.counts["evaluate"] and bad.expanded > good.expanded
    broken = InstrumentedGame(KitBoard(cells, Twist(3)), snapshot=games.board_snapshot)
    with pytest.raises(ValueError):    # its pending moves make later moves illegal
        explore(broken, 9, module=wv.load_variant("board_not_restored"))
    assert not broken.restored() and broken.violations


# -- the suite's plumbing ---------------------------------------------------------------
def test_the_rng_proxy_answers_like_random_and_records_its_choices():
    chooser, rng = suite.RecordingRandom(3), random.Random(3)
    for seq in ("abcde", [1, 2, 3], (4, 5)):
        assert [chooser.choice(seq) for _ in range(9)] == [rng.choice(seq) for _ in range(9)]
    assert chooser.randrange(10) == rng.randrange(10) and chooser.random() == rng.random()
    assert len(chooser.choices) == chooser.KEPT == 20       # the first 20 of 27 choices
    assert chooser.choices[0][0] == list("abcde") and chooser.last[0] == [4, 5]
    assert chooser.last[1] in (4, 5)
    for bad, error in (([], IndexError), ({1, 2}, TypeError)):
        with pytest.raises(error):
            chooser.choice(bad)


def test_every_search_case_has_a_reference_answer_and_a_clean_record():
    for search in (suite.explore_searches() + suite.tree_searches() + suite.evaluated_searches()
                   + suite.best_searches()):
        answer, record = suite.expected(search)
        assert record["restored"] and not record["violations"], search.call
        decided = not search.game.board().getMoves()     # getBestMove's None is checked too
        assert record["counts"]["makeMove"] > 0 or search.args[0] == 0 or decided, search.call
        assert "raised" not in answer
    assert len(suite.choice_games()) == 6
