"""Public tests for negamax.py. Run them with `make check`.

Every test names the method it checks and shows the board it used. The
teacher's hidden tests check the same methods on thousands of positions and
also count your search's work (expanded nodes, evaluate calls), so passing
these is a start, not a guarantee.
"""

import math
import random
import traceback

import pytest

import negamax as nm

INF = math.inf


def board(*rows):
    """A TicTacToe from three strings such as '1.2' ('.' is an empty cell)."""
    return nm.TicTacToe([[".12".index(c) for c in row] for row in rows])


def shown(game):
    return "\n".join("".join(".12"[c] for c in row) for row in game.field)


def call(method, *args):
    """method(*args); if it stops in another method that is still a stub, say which,
    so each method's line in `make check` speaks of that method only."""
    try:
        return method(*args)
    except NotImplementedError as error:
        stub = traceback.extract_tb(error.__traceback__)[-1].name
        if stub != method.__name__:
            raise AssertionError(f"{method.__name__} uses {stub}, which is not implemented "
                                 f"yet: write {stub} first") from None
        raise


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
    assert call(game.winner) == expected, f"winner() on\n{shown(game)}\nexpected {expected}"


@pytest.mark.checks("evaluate")
@pytest.mark.parametrize("rows, expected", [
    (("...", "...", "..."), 0),
    (("111", "22.", "..."), 14),
    (("12.", "12.", ".21"), -13),
    (("121", "122", "211"), 0),
], ids=["empty", "quick win for 1", "win for 2", "full board draw"])
def test_evaluate(rows, expected):
    game = board(*rows)
    assert call(game.evaluate) == expected, f"evaluate() on\n{shown(game)}\nexpected {expected}"


@pytest.mark.checks("getSide")
def test_get_side():
    assert call(board("...", "...", "...").getSide) == 1, "player 1 moves first"
    assert call(board("...", ".1.", "...").getSide) == 2, "after one mark player 2 moves"
    assert call(board("2..", ".1.", "...").getSide) == 1


@pytest.mark.checks("getMoves")
def test_get_moves():
    assert call(board("12.", ".1.", "2..").getMoves) == [(2, 0), (0, 1), (2, 1), (1, 2),
                                                         (2, 2)], \
        "moves are (x, y), row by row from the top, left to right"
    assert call(board("111", "22.", "...").getMoves) == [], "a won game has no moves"


@pytest.mark.checks("makeMove")
def test_make_move():
    game = board("1..", "...", "...")
    call(game.makeMove, (2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 2], [0, 0, 0]], \
        f"makeMove((2, 1)) marks field[1][2] for player 2, got\n{shown(game)}"
    with pytest.raises(ValueError):
        call(game.makeMove, (0, 0))


@pytest.mark.checks("undoMove")
def test_undo_move():
    game = board("1..", "..2", "...")
    call(game.undoMove, (2, 1))
    assert game.field == [[1, 0, 0], [0, 0, 0], [0, 0, 0]], \
        f"undoMove((2, 1)) empties field[1][2] again, got\n{shown(game)}"
    with pytest.raises(ValueError):
        call(game.undoMove, (1, 1))


@pytest.mark.checks("explore")
def test_explore_on_a_textbook_tree():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    searcher = nm.NegaMax(tree)
    assert call(searcher.explore, 2, -INF, INF) == 3, "the value of the tree is 3"
    assert tree.path == [], "explore must take back every move it makes"
    assert searcher.treeNodeCounter == 4, \
        f"alpha-beta expands 4 nodes here (the root and its three children), " \
        f"counted {searcher.treeNodeCounter}"
    assert tree.evaluations == 7, \
        f"alpha-beta evaluates 7 of the 9 leaves here, not {tree.evaluations}"


@pytest.mark.checks("explore")
def test_explore_cuts_when_a_value_reaches_beta():
    # The second subtree's first leaf (3) makes it worth at most 3 to the player at the
    # root, who already has 3: a value equal to beta is a cut-off too (>=, not >).
    tree = Tree([[3, 12, 8], [3, 4, 6], [14, 5, 3]])
    searcher = nm.NegaMax(tree)
    assert call(searcher.explore, 2, -INF, INF) == 3, "the value of the tree is 3"
    assert tree.evaluations == 7, \
        f"alpha-beta evaluates 7 of the 9 leaves here, not {tree.evaluations}: " \
        "cut as soon as a child's value is >= beta, equal included"


@pytest.mark.checks("explore")
def test_explore_leaf_is_seen_by_the_player_to_move():
    game = board("111", "22.", "...")   # player 2 to move, player 1 has won
    assert call(nm.NegaMax(game).explore, 3) == -14, "a lost game is -14 for player 2"
    assert call(nm.NegaMax(board("12.", ".1.", "2..")).explore, 0) == 0


@pytest.mark.checks("explore")
def test_explore_is_fail_hard():
    tree = Tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    assert call(nm.NegaMax(tree).explore, 2, 4, 9) == 4, "a value below alpha returns alpha"
    assert call(nm.NegaMax(tree).explore, 2, -5, 1) == 1, "a value above beta returns beta"


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves():
    game = board("11.", "22.", "...")   # player 1 wins at (2, 0)
    moves = call(nm.NegaMax(game).getEvaluatedMoves, 1)
    assert [m for _, m, _ in moves][0] == (2, 0), f"the winning move comes first: {moves}"
    assert moves[0][0] == 14
    assert [(v, m) for v, m, _ in moves[1:]] == [(0, (2, 1)), (0, (0, 2)), (0, (1, 2)),
                                                  (0, (2, 2))], "ties keep getMoves order"
    assert game.field == [[1, 1, 0], [2, 2, 0], [0, 0, 0]], "the board must be unchanged"


@pytest.mark.checks("getEvaluatedMoves")
def test_evaluated_moves_count_nodes_per_move():
    tree = Tree([[3, 12, 8], [3, 4, 6], [14, 5, 3]])
    moves = call(nm.NegaMax(tree).getEvaluatedMoves, 2)
    assert [(v, m) for v, m, _ in moves] == [(3, 0), (3, 1), (3, 2)], \
        "each move is searched with the full window: three moves worth 3, in move order"
    assert [n for _, _, n in moves] == [1, 1, 1], "one expanded node below each move"


@pytest.mark.checks("getBestMove")
def test_best_move_chooses_among_equals():
    game = board("...", "...", "...")
    picks = {call(nm.NegaMax(game).getBestMove, 1, random.Random(seed)) for seed in range(60)}
    assert len(picks) > 1, "with nine equal moves, different seeds must give different moves"
    assert call(nm.NegaMax(board("111", "22.", "...")).getBestMove, 2) is None


@pytest.mark.checks("play")
def test_short_sighted_opponent_blocks():
    game = board("11.", "2..", "...")   # player 2 to move must block (2, 0)
    move = call(nm.ShortSightedOpponent(game, 2).play, random.Random(1))
    assert move == (2, 0), f"depth 2 sees the threat and blocks it, played {move}"
    assert game.field[0][2] == 2, "play makes the move on the board"
