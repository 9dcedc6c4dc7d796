"""Public tests for negamax.py. Run them with `make check`.

Every test names the method it checks and shows the board it used. The
teacher's hidden tests check the same methods on thousands of positions and
also count your search's work (expanded nodes, evaluate calls), so passing
these is a start, not a guarantee.
"""

import math
import random

import pytest

import negamax as nm

INF = math.inf


def board(*rows):
    """A TicTacToe from three strings such as '1.2' ('.' is an empty cell)."""
    return nm.TicTacToe([[".12".index(c) for c in row] for row in rows])


def shown(game):
    return "\n".join("".join(".12"[c] for c in row) for row in game.field)


class Tree:
    """A tiny game tree as a board: a number is a leaf (player 1's view), a list
    holds the children, reached by the moves 0, 1, 2, ..."""

    def __init__(self, tree):
        self.tree, self.path, self.evaluations = tree, [], 0

    def node(self):
        node = self.tree
        for move in self.path:
            node = node[move]
        return node

    def getMoves(self):
        node = self.node()
        return list(range(len(node))) if isinstance(node, list) else []

    def makeMove(self, move):
        self.path.append(move)

    def undoMove(self, move):
        assert self.path and self.path[-1] == move, "undoMove of a move that was not the last"
        self.path.pop()

    def evaluate(self):
        self.evaluations += 1
        node = self.node()
        return node if not isinstance(node, list) else 0

    def getSide(self):
        return 1 if len(self.path) % 2 == 0 else 2


@pytest.mark.checks("winner")
@pytest.mark.parametrize("rows, expected", [
    (("...", "...", "..."), 0),
    (("111", "22.", "..."), 1),
    (("12.", "12.", ".21"), 2),
    (("1.2", ".12", "2.1"), 1),
    (("..2", ".21", "21."), 2),
], ids=["empty", "row", "column", "diagonal", "anti-diagonal"])
def test_winner(rows, expected):
    game = board(*rows)
    assert game.winner() == expected, f"winner() on\n{shown(game)}\nexpected {expected}"


@pytest.mark.checks("evaluate")
@pytest.mark.parametrize("rows, expected", [
    (("...", "...", "..."), 0),
    (("111", "22.", "..."), 14),
    (("12.", "12.", ".21"), -13),
    (("121", "122", "211"), 0),
], ids=["empty", "quick win for 1", "win for 2", "full board draw"])
def test_evaluate(rows, expected):
    game = board(*rows)
    assert game.evaluate() == expected, f"evaluate() on\n{shown(game)}\nexpected {expected}"


@pytest.mark.checks("getSide")
def test_get_side():
    assert board("...", "...", "...").getSide() == 1, "player 1 moves first"
    assert board("...", ".1.", "...").getSide() == 2, "after one mark player 2 moves"
    assert board("2..", ".1.", "...").getSide() == 1


@pytest.mark.checks("getMoves")
def test_get_moves():
    assert board("12.", ".1.", "2..").getMoves() == [(2, 0), (0, 1), (2, 1), (1, 2), (2, 2)], \
        "moves are (x, y), row by row from the top, left to right"
    assert board("111", "22.", "...").getMoves() == [], "a won game has no moves"


@pytest.mark.checks("makeMove")
def test_make_and_undo():
    game = board("1..", "...", "...")
    game.makeMove((2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 2], [0, 0, 0]], \
        f"makeMove((2, 1)) marks field[1][2] for player 2, got\n{shown(game)}"
    game.undoMove((2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 0], [0, 0, 0]], "undoMove empties the cell again"
    with pytest.raises(ValueError):
        game.makeMove((0, 0))


@pytest.mark.checks("explore")
def test_explore_on_a_textbook_tree():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    searcher = nm.NegaMax(tree)
    assert searcher.explore(2, -INF, INF) == 3, "the value of the tree is 3"
    assert tree.path == [], "explore must take back every move it makes"
    assert searcher.treeNodeCounter == 4, \
        f"alpha-beta expands 4 nodes here (the root and its three children), " \
        f"counted {searcher.treeNodeCounter}"
    assert tree.evaluations == 7, \
        f"alpha-beta evaluates 7 of the 9 leaves here, not {tree.evaluations}"


@pytest.mark.checks("explore")
def test_explore_leaf_is_seen_by_the_player_to_move():
    game = board("111", "22.", "...")   # player 2 to move, player 1 has won
    assert nm.NegaMax(game).explore(3) == -14, "a lost game is -14 for player 2"
    assert nm.NegaMax(board("12.", ".1.", "2..")).explore(0) == 0


@pytest.mark.checks("explore")
def test_explore_is_fail_hard():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    assert nm.NegaMax(tree).explore(2, 4, 9) == 4, "a value below alpha returns alpha"
    assert nm.NegaMax(tree).explore(2, -5, 1) == 1, "a value above beta returns beta"


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves():
    game = board("11.", "22.", "...")   # player 1 wins at (2, 0)
    moves = nm.NegaMax(game).getEvaluatedMoves(1)
    assert [m for _, m, _ in moves][0] == (2, 0), f"the winning move comes first: {moves}"
    assert moves[0][0] == 14
    assert [(v, m) for v, m, _ in moves[1:]] == [(0, (2, 1)), (0, (0, 2)), (0, (1, 2)),
                                                  (0, (2, 2))], "ties keep getMoves order"
    assert game.field == [[1, 1, 0], [2, 2, 0], [0, 0, 0]], "the board must be unchanged"


@pytest.mark.checks("getBestMove")
def test_best_move_chooses_among_equals():
    game = board("...", "...", "...")
    picks = {nm.NegaMax(game).getBestMove(1, random.Random(seed)) for seed in range(60)}
    assert len(picks) > 1, "with nine equal moves, different seeds must give different moves"
    assert nm.NegaMax(board("111", "22.", "...")).getBestMove(2) is None


@pytest.mark.checks("play")
def test_short_sighted_opponent_blocks():
    game = board("11.", "2..", "...")   # player 2 to move must block (2, 0)
    move = nm.ShortSightedOpponent(game, 2).play(random.Random(1))
    assert move == (2, 0), f"depth 2 sees the threat and blocks it, played {move}"
    assert game.field[0][2] == 2, "play makes the move on the board"
